"""What the tray's 128x64 display shows: one frozen value per screen and a pure renderer.

The game flow fills a :class:`ScreenState`; :func:`render_screen` turns it into a 128x64 mode "1"
image with the bundled fonts of :mod:`hardware.font`; a :class:`hardware.display.Display` shows it.
One dataclass covers every phase; each part is drawn only when it is filled, top to bottom::

    +--------------------------------+
    | TITLE (inverted)          1/3  |  title + attempt: phase and active player, roll n/3
    | Ana♥50 2CP | Bob♥48 3CP        |  players: health and CP, the active one inverted
    | [SWD][SWD][ ? ][HRT][ 6 ]      |  dice: a label each; unreadable filled; kept underlined
    | BANNER (double size)           |  banner: "OFFLINE", "CAMERA LOST"
    | body line                 62%  |  lines: text, a tab right-aligns the rest; one inverted
    | ...                            |         when selected; dense lines use the small font
    |................................|
    | prompt                         |  prompt: what to do now ("NEXT: roll", "discard to 6")
    +--------------------------------+

A screen with a ``qr`` text (the pairing screen: the table app's address) has the QR code at its
right, full height, and every other part drawn in the room left of it.

>>> state = ScreenState(title="Ana: Offense", attempt=(1, 3),
...                     dice=(DieCell("SWD"), DieCell("SWD"), DieCell.unknown()),
...                     lines=("Sword Slash\\t4 dmg",), prompt="Reroll the marked die")
>>> render_screen(state).size
(128, 64)
"""

from __future__ import annotations

import re

from dataclasses import dataclass

from PIL import Image, ImageDraw

from hardware.errors import HardwareError
from hardware.font import BitmapFont, load_font
from hardware.qr import qr_image, qr_modules

__all__ = [
    "WIDTH",
    "HEIGHT",
    "MAX_PLAYERS",
    "MAX_DICE",
    "InvalidScreenState",
    "DieCell",
    "PlayerStatus",
    "ScreenState",
    "OFFLINE_SCREEN",
    "render_screen",
]

WIDTH = 128
HEIGHT = 64
MAX_PLAYERS = 4
MAX_DICE = 8

_TITLE_HEIGHT = 9
_PLAYERS_HEIGHT = 8  # a pixel above the 4x6 text, and its descender row clear of the edge
_DICE_BOX_HEIGHT = 11
_DICE_ROW_HEIGHT = 14  # box, a gap, the keep bar (one row), a gap
_FOOTER_HEIGHT = 9  # dotted rule, a gap, one line of the regular font


class InvalidScreenState(HardwareError, ValueError):
    """A screen state that cannot be drawn (too many players or dice, a bad attempt or selection)."""


@dataclass(frozen=True)
class DieCell:
    """One die on the dice line.

    :param label: what was read, short: a number (``"6"``) or a symbol code (``"SWD"``).
    :param keep: the die is kept (or suggested to keep): drawn underlined.
    :param unreadable: the die could not be read (cocked, occluded): drawn filled, so the player
        sees which die to reroll or straighten.
    """

    label: str
    keep: bool = False
    unreadable: bool = False

    @classmethod
    def unknown(cls, label: str = "?") -> DieCell:
        """A die the camera could not read, drawn filled with ``label`` (``?`` or a best guess)."""
        return cls(label, unreadable=True)


@dataclass(frozen=True)
class PlayerStatus:
    """One player on the player strip: name, health and combat points; ``active`` is inverted."""

    name: str
    health: int
    cp: int
    active: bool = False


@dataclass(frozen=True)
class ScreenState:
    """Everything the display shows; every field is optional and an empty part is not drawn.

    :param title: the top line, inverted: phase and active player (``"Ana: Offense"``).
    :param attempt: ``(n, total)`` roll attempt shown at the right of the title (``1/3``).
    :param players: 0 to 4 players with health and CP, shown as a strip under the title.
    :param dice: up to 8 dice read, left to right.
    :param die_cursor: index of the die the buttons point at (drawn with a double border).
    :param banner: a short message in double size (``"OFFLINE"``, ``"CAMERA LOST"``).
    :param lines: body lines; ``"left\\tright"`` right-aligns ``right``. Lines that do not fit
        are dropped from the end, too long ones end in an ellipsis.
    :param selected: index into ``lines`` of the highlighted choice (drawn inverted).
    :param dense: draw ``lines`` in the small font (more, shorter-glyph lines).
    :param prompt: the bottom line: what to do now.
    :param qr: text drawn as a QR code at the right (the table app's address), or empty.
    """

    title: str = ""
    attempt: tuple[int, int] | None = None
    players: tuple[PlayerStatus, ...] = ()
    dice: tuple[DieCell, ...] = ()
    die_cursor: int | None = None
    banner: str = ""
    lines: tuple[str, ...] = ()
    selected: int | None = None
    dense: bool = False
    prompt: str = ""
    qr: str = ""

    def __post_init__(self) -> None:
        # Lists are accepted for convenience and frozen into tuples so the state stays hashable.
        for name in ("players", "dice", "lines"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))
        if self.attempt is not None:
            n, total = self.attempt
            if not 1 <= n <= total:
                raise InvalidScreenState(f"attempt must be (n, total) with 1 <= n <= total, got {self.attempt!r}")
        if len(self.players) > MAX_PLAYERS:
            raise InvalidScreenState(f"at most {MAX_PLAYERS} players fit on the screen, got {len(self.players)}")
        if len(self.dice) > MAX_DICE:
            raise InvalidScreenState(f"at most {MAX_DICE} dice fit on the screen, got {len(self.dice)}")
        if self.die_cursor is not None and not 0 <= self.die_cursor < len(self.dice):
            raise InvalidScreenState(f"die_cursor {self.die_cursor!r} is not a die index (0-{len(self.dice) - 1})")
        if self.selected is not None and not 0 <= self.selected < len(self.lines):
            raise InvalidScreenState(f"selected {self.selected!r} is not a line index (0-{len(self.lines) - 1})")
        if self.qr and len(qr_modules(self.qr)) + 2 > HEIGHT:
            raise InvalidScreenState(
                f"qr {self.qr[:40]!r}... needs a QR code of {len(qr_modules(self.qr))} modules, more than {HEIGHT - 2} pixels hold"
            )

    def text(self) -> str:
        """The screen as plain text, one part per line, for transcripts and logs.

        >>> print(ScreenState(title="Income", lines=("+1 CP, draw a card",), prompt="NEXT").text())
        [Income]
        +1 CP, draw a card
        > NEXT
        """
        out: list[str] = []
        if self.title or self.attempt:
            attempt = f" {self.attempt[0]}/{self.attempt[1]}" if self.attempt else ""
            out.append(f"[{self.title}]{attempt}")
        if self.players:
            out.append(
                "  ".join(
                    f"{'*' if player.active else ''}{player.name} HP{player.health} CP{player.cp}"
                    for player in self.players
                )
            )
        if self.dice:
            cells = []
            for index, die in enumerate(self.dice):
                cell = f"({die.label})" if die.unreadable else die.label
                cell += "_" if die.keep else ""
                cells.append(f">{cell}" if index == self.die_cursor else cell)
            out.append("dice: " + " ".join(cells))
        if self.banner:
            out.append(self.banner.upper())
        for index, line in enumerate(self.lines):
            marker = "> " if index == self.selected else ""
            out.append(marker + line.replace("\t", "  "))
        if self.prompt:
            out.append(f"> {self.prompt}")
        if self.qr:
            out.append(f"qr: {self.qr}")
        return "\n".join(out)


OFFLINE_SCREEN = ScreenState(banner="OFFLINE", lines=("Tray stopped",))
"""What the display keeps showing after the service stops."""


def render_screen(state: ScreenState) -> Image.Image:
    """Draw ``state`` as a new 128x64 mode "1" image (1 = lit pixel). Pure: same state, same pixels."""
    regular = load_font("tray5x7")
    body = load_font("fixed5x7")
    small = load_font("fixed4x6")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    width = WIDTH
    if state.qr:
        code = qr_image(state.qr, HEIGHT)
        image.paste(code, (WIDTH - code.width, (HEIGHT - code.height) // 2))
        width = WIDTH - code.width - 2  # a dark gap between the text and the code's quiet zone
    y = 0
    if state.title or state.attempt:
        _draw_title(image, draw, regular, state.title, state.attempt, width)
        y = _TITLE_HEIGHT + 1
    if state.players:
        _draw_players(image, draw, small, state.players, y, width)
        y += _PLAYERS_HEIGHT + 1
    if state.dice:
        _draw_dice(image, draw, regular, small, state.dice, state.die_cursor, y, width)
        y += _DICE_ROW_HEIGHT
    bottom = HEIGHT
    if state.prompt:
        bottom = HEIGHT - _FOOTER_HEIGHT
        for x in range(0, width, 2):
            draw.point((x, bottom), fill=1)
        prompt_font = body if _fits(body, state.prompt, width) else small
        prompt_font.draw(image, (0, bottom + 2), prompt_font.fit(state.prompt, width))
    if state.banner:
        banner = state.banner.upper()
        scale = 2 if regular.text_width(banner) * 2 <= width else 1
        height = regular.height * scale
        if y + height <= bottom:
            x = (width - regular.text_width(banner) * scale) // 2
            regular.draw(image, (max(x, 0), y + 1), regular.fit(banner, width // scale), scale=scale)
            y += height + 3
    font = small if state.dense else body
    for index, line in enumerate(state.lines):
        inverted = index == state.selected
        # A highlight has a pixel of padding all round, so no row of its text touches the edge.
        height = font.height + 2 if inverted else font.height
        if y + height > bottom:
            break
        if inverted:
            draw.rectangle((0, y, width - 1, y + height - 1), fill=1)
        room = width - 2 if inverted else width
        # A line too long for the body font is drawn in the small one rather than cut (or cut later).
        line_font = small if font is body and not _fits(body, line, room) else font
        _draw_line(image, line_font, line, (1, y + 1) if inverted else (0, y), room, 0 if inverted else 1)
        y += max(font.line_height, height + 1) if inverted else font.line_height
    return image


def _fits(font: BitmapFont, line: str, width: int) -> bool:
    left, _, right = line.partition("\t")
    return font.text_width(left) + (font.advance + font.text_width(right) if right else 0) <= width


def _draw_line(image: Image.Image, font: BitmapFont, line: str, xy: tuple[int, int], width: int, fill: int) -> None:
    x, y = xy
    left, _, right = line.partition("\t")
    if right:
        right = font.fit(right, width // 2)
        right_width = font.text_width(right)
        font.draw(image, (x + width - right_width, y), right, fill)
        width -= right_width + font.advance
    font.draw(image, (x, y), font.fit(left, width), fill)


def _draw_title(image: Image.Image, draw: ImageDraw.ImageDraw, font: BitmapFont, title: str,
                attempt: tuple[int, int] | None, width: int) -> None:
    draw.rectangle((0, 0, width - 1, _TITLE_HEIGHT - 1), fill=1)
    room = width - 2
    if attempt is not None:
        text = f"{attempt[0]}/{attempt[1]}"
        text_width = font.text_width(text)
        font.draw(image, (width - 1 - text_width, 1), text, fill=0)
        room -= text_width + font.advance
    font.draw(image, (1, 1), font.fit(title, room), fill=0)


def _player_text(font: BitmapFont, player: PlayerStatus, width: int) -> str:
    # The most readable form that fits the cell: a longer name beats a longer layout.
    heart = "\u2665"
    names = [player.name]
    number = re.search(r"(\d+)$", player.name)
    if number and len(player.name) > len(number.group(1)):
        # "Player 1" and "Player 2" cut to "Playe..." look alike: keep the number, "P1".
        names.append(player.name[0] + number.group(1))
    names += [player.name[:length] for length in (5, 4, 3, 2, 1) if length < len(player.name)]
    for name in names:
        for text in (
            f"{name} {heart}{player.health} {player.cp}CP",
            f"{name}{heart}{player.health} {player.cp}CP",
            f"{name}{heart}{player.health} {player.cp}C",
            f"{name}{heart}{player.health}/{player.cp}",
        ):
            if font.text_width(text) <= width:
                return text
    return font.fit(f"{player.health}/{player.cp}", width)


def _draw_players(image: Image.Image, draw: ImageDraw.ImageDraw, font: BitmapFont,
                  players: tuple[PlayerStatus, ...], y: int, width: int) -> None:
    cell = width // len(players)
    for index, player in enumerate(players):
        x = index * cell
        text = _player_text(font, player, cell - 3)
        if index:
            # A rule between players keeps compact cells from running together.
            draw.line((x - 1, y, x - 1, y + _PLAYERS_HEIGHT - 1), fill=1)
        if player.active:
            draw.rectangle((x, y, x + cell - 2, y + _PLAYERS_HEIGHT - 1), fill=1)
        font.draw(image, (x + 1, y + 1), text, fill=0 if player.active else 1)


def _draw_dice(image: Image.Image, draw: ImageDraw.ImageDraw, regular: BitmapFont, small: BitmapFont,
               dice: tuple[DieCell, ...], cursor: int | None, y: int, width: int) -> None:
    gap = 3
    box = min(22, (width - gap * (len(dice) - 1)) // len(dice))
    left = (width - (box * len(dice) + gap * (len(dice) - 1))) // 2
    for index, die in enumerate(dice):
        x = left + index * (box + gap)
        corners = (x, y, x + box - 1, y + _DICE_BOX_HEIGHT - 1)
        if die.unreadable:
            draw.rectangle(corners, fill=1)
        else:
            draw.rectangle(corners, outline=1, fill=0)
        if index == cursor:
            # A double border marks the die the buttons point at; it works on filled boxes too.
            draw.rectangle((x + 1, y + 1, x + box - 2, y + _DICE_BOX_HEIGHT - 2), outline=0 if die.unreadable else 1)
            draw.rectangle((x - 1, y - 1, x + box, y + _DICE_BOX_HEIGHT), outline=1)
        font = regular if regular.text_width(die.label) <= box - 4 else small
        label = font.fit(die.label, box - 4)
        label_x = x + (box - font.text_width(label) + 1) // 2
        label_y = y + (_DICE_BOX_HEIGHT - font.height) // 2
        font.draw(image, (label_x, label_y), label, fill=0 if die.unreadable else 1)
        if die.keep:
            # One row, so a dark row parts it from the box above and from the text below.
            draw.line((x, y + _DICE_BOX_HEIGHT + 1, x + box - 1, y + _DICE_BOX_HEIGHT + 1), fill=1)
