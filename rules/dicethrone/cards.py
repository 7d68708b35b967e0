"""What a played card does, as far as the tray keeps score: the card effects that change dice,
damage, CP or cards. The tray does not know which card it is; the table enters its effect.

    >>> CardEffect.from_notation("face 3 6")
    CardEffect.from_notation('face 3 6')
    >>> CardEffect.from_notation("prevent 2").amount
    2
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.dice import whole_number
from rules.games import InvalidActionError


class CardEffectKind(enum.Enum):
    ADD = "add"
    """+N dmg to the Attack (an Attack Modifier)."""
    PREVENT = "prevent"
    """Prevent N of the player's incoming damage."""
    CP = "cp"
    """The player gains N CP."""
    DRAW = "draw"
    """The player draws N cards."""
    FACE = "face"
    """Change die D of the roll in play to face F ("Twice As Wild")."""
    REROLL = "reroll"
    """Reroll die D of the roll in play; it shows F."""


_ARITY = {
    CardEffectKind.ADD: 1,
    CardEffectKind.PREVENT: 1,
    CardEffectKind.CP: 1,
    CardEffectKind.DRAW: 1,
    CardEffectKind.FACE: 2,
    CardEffectKind.REROLL: 2,
}


@dataclass(frozen=True)
class CardEffect:
    kind: CardEffectKind
    amount: int = 0
    die: int = 0
    """1-based position of the die in the roll in play (FACE, REROLL)."""
    face: int = 0

    @classmethod
    def from_notation(cls, text: str) -> CardEffect:
        """``add 2``, ``prevent 3``, ``cp 2``, ``draw 1``, ``face 3 6``, ``reroll 2 5``.

        :raises InvalidActionError: naming the text.
        """
        words = text.split()
        try:
            kind = CardEffectKind(words[0]) if words else None
        except ValueError:
            kind = None
        if kind is None or len(words) != 1 + _ARITY[kind] or any(whole_number(w) is None for w in words[1:]):
            kinds = ", ".join(f"{k.value} N" if _ARITY[k] == 1 else f"{k.value} D F" for k in CardEffectKind)
            raise InvalidActionError(f"not a card effect: {text!r} (one of {kinds})")
        numbers = [int(w) for w in words[1:]]  # checked above: ASCII digits, not too many
        if _ARITY[kind] == 2:
            if not 1 <= numbers[1] <= 6:
                raise InvalidActionError(f"a die shows 1 to 6, not {numbers[1]}: {text!r}")
            return cls(kind, die=numbers[0], face=numbers[1])
        return cls(kind, amount=numbers[0])

    def notation(self) -> str:
        if _ARITY[self.kind] == 2:
            return f"{self.kind.value} {self.die} {self.face}"
        return f"{self.kind.value} {self.amount}"

    def __repr__(self) -> str:
        return f"CardEffect.from_notation({self.notation()!r})"

    def __str__(self) -> str:
        return self.notation()
