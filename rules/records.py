"""Game records: a plain-text record of a game, like a chess PGN, for any registered game.

Tag lines ``[Name "value"]`` first (``Game`` names the game; the rest are the game's setup), then
one table action per line in the game's notation. ``;`` starts a comment; blank lines and lines
starting with ``#`` are ignored. The format is documented in docs/game-records.md::

    >>> record = GameRecord.from_text('[Game "dicethrone"]\\n[P1 "barbarian Ann"]\\n[P2 "moon-elf Bob"]\\nadvance\\n')
    >>> record.tag("Game"), [str(a) for _, a in record.actions]
    ('dicethrone', ['advance'])
    >>> replay(record).to_json()["phase"]
    'main 1'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rules.errors import RulesError
from rules.games import Action, InvalidActionError, TableGame, find_game

_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*\Z')


class RecordError(RulesError, ValueError):
    """A record that does not parse or replay; the message names the source, the line and the action."""


@dataclass(frozen=True)
class GameRecord:
    """Tags and numbered table actions (the line number each came from, for error messages)."""

    tags: tuple[tuple[str, str], ...]
    actions: tuple[tuple[int, Action], ...]
    source: str = "<record>"

    @classmethod
    def from_text(cls, text: str, source: str = "<record>") -> GameRecord:
        """Parses a record.

        :raises RecordError: naming ``source`` and the line of a malformed tag or action.
        """
        tags: list[tuple[str, str]] = []
        actions: list[tuple[int, Action]] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.split(";", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                if actions:
                    raise RecordError(f"{source}:{number}: tags come before the actions: {raw.strip()!r}")
                match = _TAG.match(line)
                if match is None:
                    raise RecordError(f'{source}:{number}: not a tag [Name "value"]: {raw.strip()!r}')
                tags.append((match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))))
                continue
            try:
                actions.append((number, Action.from_notation(line)))
            except InvalidActionError as error:
                raise RecordError(f"{source}:{number}: {error}") from None
        if not any(name == "Game" for name, _ in tags):
            raise RecordError(f'{source}: no [Game "..."] tag')
        return cls(tuple(tags), tuple(actions), source)

    @classmethod
    def of(cls, game: TableGame, extra_tags: Sequence[tuple[str, str]] = ()) -> GameRecord:
        """The record of ``game`` so far: its tags and every action it took."""
        actions = tuple((0, Action.from_notation(line)) for line in game.actions)
        return cls((*game.record_headers(), *extra_tags), actions)

    def tag(self, name: str) -> str | None:
        return next((value for key, value in self.tags if key == name), None)

    def notation(self) -> str:
        """The record as text: tags, a blank line, one action per line."""
        lines = [f'[{name} "{_escape(value)}"]' for name, value in self.tags]
        lines.append("")
        lines.extend(str(action) for _, action in self.actions)
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.notation()


def replay(record: GameRecord, *, upto: int | None = None, search: Sequence[Path] = ()) -> TableGame:
    """Sets the game up from the record's tags and plays every action (the first ``upto`` of them).
    ``search``: folders of custom pieces (custom hero files) the record's tags may name.

    :raises RecordError: naming the source, the line and the action the rules refuse, with the rule.
    """
    game_name = record.tag("Game") or ""
    try:
        game = find_game(game_name).from_tags(dict(record.tags), search=search)
    except RulesError as error:
        raise RecordError(f"{record.source}: cannot set the game up: {error}") from None
    for number, action in record.actions[:upto]:
        try:
            game.play(action)
        except RulesError as error:
            raise RecordError(f"{record.source}:{number}: {str(action)!r}: {error}") from None
    return game


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
