"""The table's state as the web page and MQTT see it: the game from the game model, not the OLED.

Built on the service's thread (the game is not safe to read from another), as a JSON-ready dict.
"""

from __future__ import annotations

from typing import Any


def table_state(flow: Any) -> dict[str, Any] | None:
    """``{"game": Game.to_json(), "step", "roll_kind", "dice", "keep", "options", "selected",
    "fixing", "message", "lines", "can_undo"}`` for a :class:`~firmware_host.game_flow.GameFlow`;
    None for a flow without a view (a test's stand-in)."""
    view_of = getattr(flow, "view", None)
    if view_of is None:
        return None
    view = view_of()
    game = view.game
    return {
        "game": game.to_json(),
        "step": view.step.value,
        "roll_kind": view.roll_kind.value,
        "wants_dice": view.wants_dice,
        "rolling": view.rolling,
        "dice": [die.to_json() for die in view.dice],
        "dice_hero": view.dice_hero.id,
        "keep": list(view.keep),
        "options": [
            {
                "kind": option.kind.value,
                "label": option.label,
                "name": option.name,
                "index": option.index,
                "keep": list(option.keep),
                "probability": option.probability,
            }
            for option in view.options
        ],
        "selected": view.selected,
        "fixing": view.fixing,
        "fix_value": view.fix_value,
        "message": view.message,
        "lines": list(view.lines),
        "can_undo": bool(getattr(game, "can_undo", False)),
    }
