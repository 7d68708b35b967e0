"""Dice Masters cards as data files: one TOML file per card (docs/dice-masters.md).

A card has a purchase cost and usually an energy type, an affiliation, the faces of its dice and
its text; a Global Ability has a cost (and type) and text, and optionally an effect the tray
applies (``attack = 1``: +1A to the target character).

    >>> card = load_card("sidekick")
    >>> card.kind, [str(f) for f in card.faces][:2]
    (<CardKind.SIDEKICK: 'sidekick'>, ['mask', 'fist'])
    >>> load_card("anger-issues").global_ability.energy_type
    'fist'
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from rules.dicemasters.faces import ENERGY_TYPES, Face
from rules.datafiles import DATA_ID, MAX_PIECE_NUMBER, bounded_whole_number, find_data_file, parse_toml, read_text, read_toml
from rules.errors import InvalidRollError, RulesError

CARDS_DIRECTORY = Path(__file__).resolve().parent
"""Where the bundled card files live (beside this module)."""

MAX_CARD_DICE = 20
"""A card brings a handful of dice (the seed's bring up to four); a file asking for more is refused
rather than filling the bag with them."""



class CardDataError(RulesError, ValueError):
    """A card file that does not validate; the message names the file and the key."""


class UnknownCardError(RulesError, LookupError):
    """No card with that id."""


class CardKind(enum.Enum):
    CHARACTER = "character"
    ACTION = "action"
    """An action card (a Basic Action when ``basic`` is true: any player may buy its dice)."""
    SIDEKICK = "sidekick"
    """The starting dice every player has (not bought)."""


@dataclass(frozen=True)
class GlobalAbility:
    cost: int
    energy_type: str
    """The type one of the energy paid must be ("" for any)."""
    text: str
    attack: int = 0
    """+A the tray gives the target character each time it is paid (0: text for the table)."""
    defence: int = 0


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    kind: CardKind
    cost: int
    energy_type: str
    """The card's energy type ("" when it shows none: any energy pays)."""
    faces: tuple[Face, ...]
    dice: int
    """How many dice the card brings to the game."""
    subtitle: str = ""
    affiliation: tuple[str, ...] = ()
    basic: bool = False
    text: str = ""
    global_ability: GlobalAbility | None = None
    bursts: tuple[tuple[str, str], ...] = ()
    """(``one``, ``two`` or ``both``, text): what a face with that many bursts adds (Bursts)."""
    notes: str = ""
    path: Path | None = None

    def burst_text(self, bursts: int) -> str:
        """The card's text for a face showing ``bursts`` bursts: one burst matches only the one-burst
        text, two only the two-burst text, and the both-burst text matches either; "" when the card
        has no matching burst (nothing happens)."""
        wanted = {1: "one", 2: "two"}.get(bursts)
        if wanted is None:
            return ""
        return " ".join(text for kind, text in self.bursts if kind in (wanted, "both"))

    def face(self, notation: str) -> Face:
        """The face of this card's dice written ``notation``.

        :raises InvalidRollError: when the card's dice have no such face.
        """
        wanted = Face.from_notation(notation)
        if wanted not in self.faces:
            raise InvalidRollError(
                f"a {self.name} die has no {notation!r} face (faces: {', '.join(str(f) for f in self.faces)})"
            )
        return wanted

    def __repr__(self) -> str:
        return f"load_card({self.id!r})"


def load_card(name: str | Path, directories: Sequence[Path] = ()) -> Card:
    """A card by id (looked up in ``directories`` first, then the bundled cards) or by file path.

    :raises UnknownCardError: when no file has that id.
    :raises CardDataError: when the file does not validate (naming the file and the key).
    """
    return _load_file(find_data_file(name, directories, CARDS_DIRECTORY, "card", UnknownCardError))


def _energy_type(value: object, key: str, fail: Any) -> str:
    if value in ("", None):
        return ""
    if value not in ENERGY_TYPES:
        raise fail(key, f"expected an energy type ({', '.join(ENERGY_TYPES)}), not {value!r}")
    return str(value)


def _load_file(path: Path) -> Card:
    # Cached by content, so a file edited while the tray runs is read again.
    return _parse(path, read_text(path, CardDataError))


@lru_cache(maxsize=256)
def _parse(path: Path, text: str) -> Card:
    data = parse_toml(path, text, CardDataError)

    def fail(key: str, message: str) -> CardDataError:
        return CardDataError(f"{path}: {key}: {message}")

    allowed = {"name", "subtitle", "kind", "cost", "energy", "affiliation", "dice", "faces", "basic", "text",
               "global", "bursts", "notes"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise fail(unknown[0], f"unknown key (keys: {', '.join(sorted(allowed))})")
    if not DATA_ID.match(path.stem):
        raise fail("file name", "a card file is named <id>.toml with a lowercase id such as batman")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("name", "expected the card's name")
    try:
        kind = CardKind(data.get("kind"))
    except ValueError:
        raise fail("kind", f"expected {', '.join(k.value for k in CardKind)}, not {data.get('kind')!r}") from None
    cost = data.get("cost", 0)
    if bounded_whole_number(cost, 0) is None:
        raise fail("cost", f"expected the purchase cost, a whole number 0 to {MAX_PIECE_NUMBER}, not {cost!r}")
    energy = _energy_type(data.get("energy", ""), "energy", fail)
    faces_list = data.get("faces")
    if not isinstance(faces_list, list) or len(faces_list) != 6:
        raise fail("faces", "expected the six faces of the card's dice, e.g. [\"fist\", \"2fist\", \"L1:1:2/2\", ...]")
    faces: list[Face] = []
    for number, text in enumerate(faces_list, start=1):
        try:
            faces.append(Face.from_notation(str(text)))
        except InvalidRollError as error:
            raise fail(f"faces[{number}]", str(error)) from None
    dice = data.get("dice", 2)
    if bounded_whole_number(dice, 1, MAX_CARD_DICE) is None:
        raise fail("dice", f"expected how many dice the card brings, 1 to {MAX_CARD_DICE}, not {dice!r}")
    affiliation = data.get("affiliation", [])
    if isinstance(affiliation, str):
        affiliation = [affiliation]
    if not isinstance(affiliation, list) or not all(isinstance(a, str) for a in affiliation):
        raise fail("affiliation", "expected an affiliation or a list of them")
    for key in ("subtitle", "text", "notes"):
        if not isinstance(data.get(key, ""), str):
            raise fail(key, "expected text")
    if type(data.get("basic", False)) is not bool:
        raise fail("basic", "expected true or false")
    ability = None
    if "global" in data:
        table = data["global"]
        if not isinstance(table, dict):
            raise fail("global", "expected a [global] table with cost, energy and text")
        extra = sorted(set(table) - {"cost", "energy", "text", "attack", "defence"})
        if extra:
            raise fail(f"global.{extra[0]}", "unknown key (keys: cost, energy, text, attack, defence)")
        for key in ("cost", "attack", "defence"):
            if bounded_whole_number(table.get(key, 0), 0) is None:
                raise fail(f"global.{key}", f"expected a whole number 0 to {MAX_PIECE_NUMBER}, not {table.get(key)!r}")
        if not isinstance(table.get("text", ""), str) or not table.get("text"):
            raise fail("global.text", "expected the Global Ability's text")
        ability = GlobalAbility(
            cost=table.get("cost", 0),
            energy_type=_energy_type(table.get("energy", ""), "global.energy", fail),
            text=table["text"],
            attack=table.get("attack", 0),
            defence=table.get("defence", 0),
        )
    bursts_table = data.get("bursts", {})
    if not isinstance(bursts_table, dict):
        raise fail("bursts", "expected a [bursts] table: one, two or both = text")
    for kind, text in bursts_table.items():
        if kind not in ("one", "two", "both") or not isinstance(text, str) or not text:
            raise fail(f"bursts.{kind}", "expected one, two or both = the burst's text")
    return Card(
        id=path.stem,
        name=name.strip(),
        kind=kind,
        cost=cost,
        energy_type=energy,
        faces=tuple(faces),
        dice=dice,
        subtitle=data.get("subtitle", ""),
        affiliation=tuple(affiliation),
        basic=data.get("basic", False),
        text=data.get("text", ""),
        global_ability=ability,
        bursts=tuple(bursts_table.items()),
        notes=data.get("notes", ""),
        path=path,
    )
