"""Which table flow plays which game at the tray, set up from the config's ``[game]``.

Every game the rules know (:func:`rules.games.find_game`) has a table flow module here that says
what the tray asks for in each step: :mod:`firmware_host.game_flow` (Dice Throne),
:mod:`firmware_host.battledice_flow`, :mod:`firmware_host.dicemasters_flow`. A flow module gives
``table_flow(game, config)``, the flow that plays ``game`` with the tray's buttons and readings,
and may give ``game_from_config(config)`` when its game is not set up from record tags alone.
A new game is a new flow module named in :data:`FLOW_MODULES`, not a new branch here.

    >>> from firmware_host.config import GameConfig
    >>> config = GameConfig(players=("Ann", "Bob"), name="battle-dice", setup=(
    ...     ("P1Team", "captain-america spider-man wolverine"), ("P1Dice", "red blue green"),
    ...     ("P2Team", "ultron doc-ock magneto"), ("P2Dice", "red blue green")))
    >>> type(flow_for(config, new_game(config))).__name__
    'BattleDiceFlow'
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rules.games import GameType, TableGame, find_game

if TYPE_CHECKING:
    from firmware_host.config import GameConfig

FLOW_MODULES = {
    "dicethrone": "firmware_host.game_flow",
    "battledice": "firmware_host.battledice_flow",
    "dicemasters": "firmware_host.dicemasters_flow",
}
"""Game name (:class:`rules.games.GameType`) -> the module of its table flow."""


def _flow_module(config: GameConfig) -> tuple[GameType, ModuleType]:
    game_type = find_game(config.name)  # UnknownGameError names the games there are
    return game_type, importlib.import_module(FLOW_MODULES[game_type.name])


def new_game(config: GameConfig) -> TableGame:
    """A new game as ``config`` sets it up.

    :raises RulesError: the game refuses the setup (naming the tag: a figure not found, a team
        over the agreed value, a card without a dice colour).
    """
    game_type, module = _flow_module(config)
    make = getattr(module, "game_from_config", None)
    if make is not None:
        game: TableGame = make(config)
        return game
    from firmware_host.heroes import hero_folders

    return game_type.from_tags(config.tags, search=hero_folders())  # type: ignore[no-any-return]


def flow_for(config: GameConfig, game: TableGame) -> Any:
    """The table flow that plays ``game`` (a new one, or one resumed from its record) at the tray.

    :raises RulesError: the setup lacks what the flow needs (naming the tag).
    """
    return _flow_module(config)[1].table_flow(game, config)


def check_setup(config: GameConfig) -> None:
    """Sets a game up from ``config`` and its flow, and throws both away: a config that could not
    start a game is refused when it is read, naming what is wrong.

    :raises RulesError: as :func:`new_game` and :func:`flow_for`.
    """
    flow_for(config, new_game(config))
