"""Errors of the rules engine. Each also subclasses the builtin that fits the kind of wrongness."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error raised by :mod:`rules`."""


class InvalidRollError(RulesError, ValueError):
    """A roll or die value that cannot exist (a 7, six dice for an offensive roll, an unknown symbol)."""


class HeroDataError(RulesError, ValueError):
    """A hero file that does not validate; the message names the file and the key."""


class UnknownHeroError(RulesError, LookupError):
    """No hero with that id, name or alias."""


class UnknownAbilityError(RulesError, LookupError):
    """No ability with that name or alias for the hero."""


class IllegalActionError(RulesError, ValueError):
    """An action the rules forbid now; the message says which rule."""
