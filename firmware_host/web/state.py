"""The table's state as the web page and MQTT see it: the game from the game model, not the OLED.

Built on the service's thread (the game is not safe to read from another), as a JSON-ready dict.
"""

from __future__ import annotations

from typing import Any


def table_state(flow: Any) -> dict[str, Any] | None:
    """``{"game": Game.to_json(), "step", "roll_kind", "dice", "keep", "options", "selected",
    "fixing", "message", "lines", "can_undo"}`` for a :class:`~firmware_host.game_flow.GameFlow`;
    None for a flow without a view (a test's stand-in)."""
    from firmware_host.choice_flow import ChoiceFlow

    if isinstance(flow, ChoiceFlow):
        return menu_state(flow)
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


def menu_state(flow: Any) -> dict[str, Any]:
    """The same keys for a game played from menus (:class:`~firmware_host.choice_flow.ChoiceFlow`:
    Battle Dice, Dice Masters): its step, the dice of the last reading, the menu as options of
    kind ``menu``, and the game's status lines."""
    return {
        "game": flow.game.to_json(),
        "step": "roll" if flow.wants_dice() and not (flow.setting_die or flow.correcting) else "choose",
        "roll_kind": "",
        "wants_dice": flow.wants_dice(),
        "rolling": flow.rolling,
        "dice": [die.to_json() for die in flow.last_dice],
        "dice_hero": "",
        "keep": [],
        "options": [
            {"kind": "menu", "label": choice.label, "name": choice.action, "index": None, "keep": [], "probability": None}
            for choice in flow.menu()
        ],
        "selected": flow.selected,
        "fixing": None if flow.setting_index is None else [flow.setting_index, None],
        "fix_value": None,
        "message": flow.message,
        "lines": [flow.title(), *flow.status_lines()],
        "can_undo": bool(flow.game.can_undo),
    }
