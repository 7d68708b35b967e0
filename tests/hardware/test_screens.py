"""The display screens and the bundled fonts, checked pixel for pixel against stored PNGs.

Regenerate the reference images after an intended change of look with::

    DICETRAY_REGENERATE_SCREENS=1 .venv/bin/python -m pytest tests/hardware/test_screens.py

then look at the new PNGs in tests/hardware/reference/ before committing them.
"""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

import hardware.font
import hardware.screens
from hardware.display import DummyDisplay
from hardware.font import FONT_NAMES, FontError, load_font, parse_font
from hardware.screens import (
    OFFLINE_SCREEN,
    DieCell,
    InvalidScreenState,
    PlayerStatus,
    ScreenState,
    render_screen,
)

REFERENCE = Path(__file__).parent / "reference"
REGENERATE = os.environ.get("DICETRAY_REGENERATE_SCREENS") == "1"

ANA_BOB = (PlayerStatus("Ana", 50, 2, active=True), PlayerStatus("Bob", 48, 3))
BOB_DEFENDS = (PlayerStatus("Ana", 50, 2), PlayerStatus("Bob", 48, 3, active=True))

SCREENS: dict[str, ScreenState] = {
    "upkeep": ScreenState(title="Ana: Upkeep", players=ANA_BOB, lines=("No status effects",), prompt="NEXT: income"),
    "income": ScreenState(
        title="Ana: Income", players=ANA_BOB, lines=("+1 CP", "Draw a card"), prompt="NEXT when done"
    ),
    "main": ScreenState(
        title="Ana: Main phase", players=ANA_BOB, lines=("Play cards, sell cards", "Spend CP"),
        prompt="NEXT: roll",
    ),
    "offense-roll": ScreenState(
        title="Ana: Offense",
        attempt=(1, 3),
        players=ANA_BOB,
        dice=(DieCell("AXE"), DieCell("AXE"), DieCell("AXE"), DieCell("HRT"), DieCell("POW")),
        lines=("Fortitude\t3x AXE", "Crit Bash\t2x HRT", "Best: Fortitude 6"),
        selected=0,
        prompt="SELECT ability, NEXT",
    ),
    "odds": ScreenState(
        title="Ana: Offense",
        attempt=(2, 3),
        players=ANA_BOB,
        dice=(DieCell("1", keep=True), DieCell("2", keep=True), DieCell("3", keep=True), DieCell("6"), DieCell("6")),
        lines=("Lg straight\t31%", "Sm straight\t67%", "3x Axe\t44%", "Keep 1 2 3, reroll 2"),
        dense=True,
        prompt="Roll the other 2",
    ),
    "keep-cursor": ScreenState(
        title="Ana: Keep which?",
        attempt=(2, 3),
        dice=(DieCell("1", keep=True), DieCell("2"), DieCell("3", keep=True), DieCell("6"), DieCell("6")),
        die_cursor=1,
        lines=("SELECT toggles keep",),
        prompt="NEXT: done",
    ),
    "reroll-marked": ScreenState(
        title="Ana: Offense",
        attempt=(1, 3),
        players=ANA_BOB,
        dice=(DieCell("AXE"), DieCell("AXE"), DieCell.unknown(), DieCell("HRT"), DieCell("6")),
        die_cursor=2,
        lines=("Die 3 is cocked",),
        prompt="Reroll the marked die",
    ),
    "defense": ScreenState(
        title="Bob: Defense",
        attempt=(1, 1),
        players=BOB_DEFENDS,
        dice=(DieCell("MOON"), DieCell("ARW"), DieCell("4")),
        lines=("Evasive: 1 ARW", "Blocks 2 of 6 damage"),
        prompt="NEXT: apply damage",
    ),
    "damage": ScreenState(
        title="Damage",
        players=(PlayerStatus("Ana", 50, 2, active=True), PlayerStatus("Bob", 44, 3)),
        banner="-4 Bob",
        lines=("Fortitude 6 - block 2", "Bob 48 -> 44"),
        prompt="NEXT: main phase 2",
    ),
    "discard": ScreenState(
        title="Ana: Discard",
        players=ANA_BOB,
        lines=("Hand: 8 cards",),
        banner="Discard 2",
        prompt="Down to 6, then NEXT",
    ),
    "four-players": ScreenState(
        title="Cara: Income",
        players=(
            PlayerStatus("Ana", 50, 2),
            PlayerStatus("Bob", 12, 5),
            PlayerStatus("Cara", 33, 1, active=True),
            PlayerStatus("Dmitri", 50, 10),
        ),
        lines=("+1 CP", "Draw a card"),
        prompt="NEXT when done",
    ),
    "three-players-six-dice": ScreenState(
        title="Bob: Offense",
        attempt=(3, 3),
        players=(PlayerStatus("Ana", 50, 2), PlayerStatus("Bob", 48, 3, active=True), PlayerStatus("Cy", 7, 0)),
        dice=tuple(DieCell(str(value)) for value in (1, 2, 3, 4, 5, 6)),
        lines=("Large straight",),
        prompt="NEXT: target",
    ),
    "camera-lost": ScreenState(
        title="Bob: Defense", banner="Camera lost", lines=("Check the cable;", "retrying..."),
        prompt="The game waits",
    ),
    "menu-set-die": ScreenState(  # a Battle Dice roll with a die read as 4 or 5 (menu_screen)
        title="Round 1: roll",
        lines=("1 unread: set or roll again", "Ann held 0", "left centre die: 4", "left centre die: 5", "left centre die: 1"),
        selected=2,
        dense=True,
        prompt="set the die",
    ),
    "game-over": ScreenState(title="Game over", players=ANA_BOB, banner="Ana wins", prompt="SELECT: new game"),
    "offline": OFFLINE_SCREEN,
    "empty": ScreenState(),
}


def assert_same_image(actual: Image.Image, name: str, tmp_path: Path) -> None:
    path = REFERENCE / f"screen-{name}.png"
    if REGENERATE:
        actual.save(path)
    expected = Image.open(path)
    assert expected.mode == "1" and expected.size == (128, 64)
    # logical_xor, not difference: on mode "1" images Pillow's difference() marks equal lit pixels.
    difference = ImageChops.logical_xor(expected, actual).getbbox()
    if difference is not None:
        actual.save(tmp_path / f"screen-{name}.png")
        pytest.fail(f"screen {name!r} differs from {path} in box {difference}; drawn: {tmp_path / f'screen-{name}.png'}")


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_reference(name: str, tmp_path: Path) -> None:
    image = render_screen(SCREENS[name])
    assert image.mode == "1" and image.size == (128, 64)
    # Through luma's dummy device, so the reference is what a 128x64 panel is sent.
    display = DummyDisplay()
    display.show(image)
    assert display.image is not None
    assert_same_image(display.image, name, tmp_path)


def test_render_is_pure() -> None:
    state = SCREENS["offense-roll"]
    assert render_screen(state).tobytes() == render_screen(state).tobytes()
    assert hash(state) == hash(ScreenState(**{field: getattr(state, field) for field in state.__dataclass_fields__}))


def test_every_part_changes_pixels() -> None:
    base = render_screen(ScreenState()).tobytes()
    assert set(base) == {0}  # an empty screen is dark
    for state in (
        ScreenState(title="T"),
        ScreenState(attempt=(1, 3)),
        ScreenState(players=(PlayerStatus("A", 1, 1),)),
        ScreenState(dice=(DieCell("1"),)),
        ScreenState(banner="X"),
        ScreenState(lines=("x",)),
        ScreenState(prompt="p"),
    ):
        assert render_screen(state).tobytes() != base, state


def test_unreadable_and_kept_dice_look_different() -> None:
    plain = render_screen(ScreenState(dice=(DieCell("?"),))).tobytes()
    assert render_screen(ScreenState(dice=(DieCell.unknown(),))).tobytes() != plain
    assert render_screen(ScreenState(dice=(DieCell("?", keep=True),))).tobytes() != plain
    assert render_screen(ScreenState(dice=(DieCell("?"),), die_cursor=0)).tobytes() != plain


def test_selected_line_is_inverted() -> None:
    image = render_screen(ScreenState(lines=("a", "b"), selected=1))
    # The selected line's band is lit end to end; the unselected one is dark at its right end.
    assert image.getpixel((127, 9)) == 1
    assert image.getpixel((127, 1)) == 0


def test_lines_that_do_not_fit_are_dropped_and_long_lines_cut() -> None:
    many = ScreenState(lines=tuple(f"line {index}" for index in range(20)))
    eight = ScreenState(lines=tuple(f"line {index}" for index in range(8)))
    assert render_screen(many).tobytes() == render_screen(eight).tobytes()
    long = render_screen(ScreenState(lines=("x" * 40,)))
    assert long.getbbox() is not None and long.getbbox()[2] <= 128  # type: ignore[index]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"attempt": (4, 3)}, "attempt must be (n, total) with 1 <= n <= total, got (4, 3)"),
        ({"attempt": (0, 3)}, "attempt must be (n, total) with 1 <= n <= total, got (0, 3)"),
        ({"players": tuple(PlayerStatus(str(n), 50, 2) for n in range(5))}, "at most 4 players fit on the screen, got 5"),
        ({"dice": tuple(DieCell("1") for _ in range(9))}, "at most 8 dice fit on the screen, got 9"),
        ({"dice": (DieCell("1"),), "die_cursor": 1}, "die_cursor 1 is not a die index (0-0)"),
        ({"lines": ("a",), "selected": 3}, "selected 3 is not a line index (0-0)"),
    ],
)
def test_invalid_state_is_refused_with_the_input_quoted(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidScreenState) as caught:
        ScreenState(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)


def test_lists_are_frozen_into_tuples() -> None:
    state = ScreenState(lines=["a", "b"], dice=[DieCell("1")])  # type: ignore[arg-type]
    assert state.lines == ("a", "b") and state.dice == (DieCell("1"),)
    hash(state)


def test_repr_is_a_constructor_call() -> None:
    state = ScreenState(title="Ana: Income", attempt=(1, 3), dice=(DieCell.unknown(),))
    assert eval(repr(state)) == state  # noqa: S307 - our own repr, checking it round-trips


def test_text_form() -> None:
    assert SCREENS["reroll-marked"].text() == (
        "[Ana: Offense] 1/3\n"
        "*Ana HP50 CP2  Bob HP48 CP3\n"
        "dice: AXE AXE >(?) HRT 6\n"
        "Die 3 is cocked\n"
        "> Reroll the marked die"
    )
    assert SCREENS["odds"].text().splitlines()[2] == "dice: 1_ 2_ 3_ 6 6"
    assert "> Fortitude  3x AXE" in SCREENS["offense-roll"].text()


_text = st.text(st.characters(codec="utf-8"), max_size=40)


@st.composite
def screen_states(draw: st.DrawFn) -> ScreenState:
    dice = tuple(draw(st.lists(st.builds(DieCell, _text, st.booleans(), st.booleans()), max_size=8)))
    lines = tuple(draw(st.lists(_text, max_size=12)))
    total = draw(st.integers(1, 5))
    return ScreenState(
        title=draw(_text),
        attempt=draw(st.none() | st.integers(1, total).map(lambda n: (n, total))),
        players=tuple(
            draw(st.lists(st.builds(PlayerStatus, _text, st.integers(-99, 999), st.integers(0, 99), st.booleans()),
                          max_size=4))
        ),
        dice=dice,
        die_cursor=draw(st.none() | st.integers(0, len(dice) - 1)) if dice else None,
        banner=draw(_text),
        lines=lines,
        selected=draw(st.none() | st.integers(0, len(lines) - 1)) if lines else None,
        dense=draw(st.booleans()),
        prompt=draw(_text),
    )


@settings(max_examples=60, deadline=None)
@given(screen_states())
def test_any_valid_state_renders_inside_the_screen(state: ScreenState) -> None:
    image = render_screen(state)
    assert image.mode == "1" and image.size == (128, 64)
    assert render_screen(state).tobytes() == image.tobytes()
    assert state.title in state.text()


@pytest.mark.parametrize("module", [hardware.screens, hardware.font], ids=lambda module: module.__name__)
def test_docstring_examples_run(module: object) -> None:
    failed, attempted = doctest.testmod(module, verbose=False)  # type: ignore[arg-type]
    assert attempted > 0 and failed == 0


# --- the bundled fonts -------------------------------------------------------------------------


@pytest.mark.parametrize("name", FONT_NAMES)
def test_bundled_fonts_cover_printable_ascii(name: str) -> None:
    font = load_font(name)
    for code in range(0x20, 0x7F):
        char = chr(code)
        assert char in font.glyphs, (name, char)
    for char in "\u2665\u2666\u2026\u2192\u00d7":
        assert char in font.glyphs, (name, char)
    assert repr(font) == f"load_font({name!r})"


def test_the_small_font_is_misc_fixed_4x6_with_m_n_and_h_apart() -> None:
    font = load_font("fixed4x6")
    assert (font.width, font.height, font.advance, font.line_height) == (4, 6, 4, 7)  # a row between lines
    glyphs = [font.glyph(char).tobytes() for char in "MNHW"]
    assert len(set(glyphs)) == 4
    assert font.glyph("g") is not font.glyph("G")  # real lower case, with a descender
    assert font.glyph("g").getpixel((1, 5)) == 1


def test_the_players_strip_is_drawn_in_misc_fixed_4x6() -> None:
    from hardware.screens import _PLAYERS_HEIGHT, _TITLE_HEIGHT

    image = render_screen(ScreenState(players=(PlayerStatus("Mgn", 50, 2),)))
    small = load_font("fixed4x6")
    expected = Image.new("1", (128, 64))
    small.draw(expected, (1, 1), "Mgn \u266550 2CP")
    assert ImageChops.logical_xor(image, expected).getbbox() is None
    assert _PLAYERS_HEIGHT >= small.height + 2  # a pixel above the text and one below its descender
    del _TITLE_HEIGHT


def test_unknown_character_is_drawn_as_question_mark() -> None:
    font = load_font("tray5x7")
    assert font.glyph("\u263a") is font.glyph("?")


def test_fit_cuts_with_an_ellipsis() -> None:
    font = load_font("tray5x7")
    assert font.fit("Roll", 128) == "Roll"
    assert font.fit("Offensive roll", 47) == "Offensi\u2026"
    assert font.text_width(font.fit("Offensive roll", 47)) <= 47
    assert font.fit("Roll", 0) == ""


def test_glyph_pixels_come_from_the_data_file() -> None:
    font = load_font("tray5x7")
    rows = ["".join("#" if font.glyph("A").getpixel((x, y)) else "." for x in range(5)) for y in range(7)]
    assert rows == [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "bad.txt: no 'font' header line"),
        ("font x 1 1\n", "bad.txt line 1: expected 'font NAME WIDTH HEIGHT ADVANCE LINE_HEIGHT', got 'font x 1 1'"),
        ("font x a 1 2 2\n", "bad.txt line 1: sizes must be whole numbers: 'font x a 1 2 2'"),
        ("font x 1 1 2 2\nA #\n", "bad.txt line 2: a glyph line starts with its code point like 'U+0041': 'A #'"),
        ("font x 1 1 2 2\nU+zz #\n", "bad.txt line 2: bad code point 'U+zz'"),
        ("font x 2 1 3 2\nU+003F #\n", "bad.txt line 2: glyph U+003F needs 1 rows of 2 '#' or '.': 'U+003F #'"),
        ("font x 1 1 2 2\nU+0041 #\n", "bad.txt: the font has no '?' glyph to draw unknown characters with"),
    ],
)
def test_malformed_font_names_the_file_and_line(text: str, message: str) -> None:
    with pytest.raises(FontError) as caught:
        parse_font(text, "bad.txt")
    assert str(caught.value) == message


def test_font_by_path_and_missing_font(tmp_path: Path) -> None:
    path = tmp_path / "tiny.txt"
    path.write_text("font tiny 1 1 2 2\nU+003F #\n", encoding="utf-8")
    assert load_font(path).name == "tiny"
    with pytest.raises(FontError, match="no font 'nope'"):
        load_font("nope")


def test_a_highlight_has_a_pixel_of_padding_round_its_text() -> None:
    image = render_screen(ScreenState(lines=("Mighty Blow\t9", "Smack"), selected=0))
    body = load_font("fixed5x7")
    bar = [[image.getpixel((x, y)) for x in range(128)] for y in range(body.height + 2)]
    assert all(bar[0]) and all(bar[-1])  # the top and bottom rows of the bar are clear of text
    assert not all(bar[len(bar) // 2])  # the text is in between
    below = [image.getpixel((x, body.height + 2)) for x in range(128)]
    assert not any(below)  # a dark row before the next line


def test_default_player_names_keep_their_number_when_cut() -> None:
    from hardware.screens import _player_text

    small = load_font("fixed4x6")
    texts = [_player_text(small, PlayerStatus(name, 50, 2), 29) for name in ("Player 1", "Player 2")]
    assert texts[0] != texts[1]
    assert texts[0].startswith("P1") and texts[1].startswith("P2")


def test_a_cut_never_splits_a_number() -> None:
    font = load_font("fixed5x7")
    cut = font.fit("Bo takes 45 dmg", font.text_width("Bo takes 4") + font.advance)
    assert cut == "Bo takes\u2026"
