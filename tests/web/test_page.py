"""The phone page in real headless Chromium (Debian's, driven by Playwright) against the real tray
service: correct a misread die, spend a status, play a card, pair from a second browser, see a roll
arrive pushed; the fairness charts. Screenshots of the page at phone and desktop sizes (and of the
fairness panel) go to docs/images/ when DICETRAY_SCREENSHOTS is set:
``DICETRAY_SCREENSHOTS=1 .venv/bin/python -m pytest tests/web/test_page.py``."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_host.battledice_flow import BattleDiceFlow
from firmware_host.game_flow import GameFlow, Step
from rules.dicethrone.game import Game
from tests.game.test_game_flow import to_offense
from tests.service.conftest import scene_frames
from tests.web.table import Table
from vision.reader import DiceReader

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "images"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def scene():
    frame = scene_frames(11)
    return frame, DiceReader().read(frame)


def offense_flow(names=("Ana", "Ben")) -> GameFlow:
    flow = GameFlow(Game.new(["barbarian", "moon-elf"], names=list(names)))
    to_offense(flow)
    return flow


def pair(page, table: Table) -> None:
    """Pairs the way a person does: Pair, Show PIN, read it off the tray's display, type it."""
    page.click("#pair-open")
    page.click("#pin-show")
    banner = wait_for(lambda: table.oled_banner() if (table.oled_banner() or "").startswith("PIN ") else None)
    page.fill("#pin", banner.removeprefix("PIN "))
    page.click("#pair-submit")
    page.wait_for_function("document.querySelector('#pair-state').textContent === 'paired'")
    assert page.text_content("#pair-state") == "paired"


def wait_for(probe, seconds: float = 10.0):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("not seen in time")


def open_page(browser, table: Table, width: int = 390, height: int = 844):
    context = browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1, bypass_csp=True  # for wait_for_function
    )
    page = context.new_page()
    page.goto(table.url)
    page.wait_for_selector("#link.on")
    return context, page


def shoot(page, name: str) -> None:
    if os.environ.get("DICETRAY_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name), full_page=False)


def test_a_roll_arrives_pushed_and_a_misread_die_is_corrected_from_the_camera(browser, scene, tmp_path) -> None:
    frame, reading = scene
    table = Table(offense_flow(), frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        # The camera's first settle is the roll: it arrives on the page without a reload.
        page.wait_for_selector("#dice .die", timeout=15000)
        values = [page.text_content(f"#dice .die[data-die='{i}']") for i in range(5)]
        assert values == [str(d.value) for d in sorted(reading.dice, key=lambda d: d.box[0])]  # left to right
        page.wait_for_selector("#boxes rect")  # each die outlined on the camera, labelled
        assert len(page.query_selector_all("#boxes rect")) == 5
        page.wait_for_selector("#seats .seat select")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing off the side
        shoot(page, "table-app-phone.png")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.wait_for_timeout(300)
        shoot(page, "table-app-desktop.png")
        page.set_viewport_size({"width": 390, "height": 844})
        pair(page, table)
        wrong = int(values[2] or "1")
        want = wrong % 6 + 1
        page.click("#boxes rect >> nth=2", force=True)
        page.click(f"#die-values button[data-value='{want}']")
        page.wait_for_function(f"document.querySelector(\"#dice .die[data-die='2']\").textContent === '{want}'")
        page.wait_for_selector(f"#log li[data-kind='correction']")
        assert re.search(rf"Die 3 set to {want}", page.text_content("#log"))
        context.close()
    finally:
        table.close()
    assert table.flow.dice[2].value == want


def test_an_unsure_die_shows_the_numbers_it_may_be_and_they_are_marked_when_it_is_set(browser, scene, tmp_path) -> None:
    frame, _ = scene
    table = Table(offense_flow(), frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        page.wait_for_selector("#dice .die", timeout=15000)
        # a die as the reader gives one it is unsure of between two counts (DieReading.to_json)
        page.evaluate("""() => {
            state.table.dice[2] = {value: null, face: null, symbol: null, confidence: 0.6, box: [0, 0, 36, 36],
                                   status: "unreadable", reason: "unsure: 4 or 5", candidates: ["4", "5"], candidate_values: [4, 5]};
            state.table.dice[3] = {value: null, face: null, symbol: null, confidence: 0.6, box: [0, 0, 36, 36],
                                   status: "unreadable", reason: "unsure: 1 or other", candidates: ["1"]};
            renderRoll();
        }""")
        die = page.query_selector("#dice .die[data-die='2']")
        assert die.text_content() == "4/5?" and "maybe" in die.get_attribute("class")
        assert die.get_attribute("title") == "read 4 or 5: set this die"
        assert page.text_content("#dice .die[data-die='3']") == "?"  # one count or no pip face: nothing to offer
        page.evaluate("openDie(2)")
        assert page.text_content("#die-title") == "Die 3 shows (read 4 or 5):"
        assert [b.text_content() for b in page.query_selector_all("#die-values button.likely")] == ["4", "5"]
        page.click("#die-cancel")
        page.evaluate("openDie(3)")
        assert page.text_content("#die-title") == "Die 4 shows:" and not page.query_selector_all("#die-values button.likely")
        context.close()
    finally:
        table.close()


def test_a_new_throw_is_pushed_to_the_page(browser, scene, tmp_path) -> None:
    frame, _ = scene
    flow = offense_flow()
    table = Table(flow, frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        page.wait_for_selector("#log li[data-kind='roll']", timeout=15000)
        rolls = len(page.query_selector_all("#log li[data-kind='roll']"))
        pair(page, table)
        # Roll on (the page's Next after choosing to roll again is a button press), then throw.
        table.camera.throw(scene_frames(12))
        page.wait_for_function(f"document.querySelectorAll(\"#log li[data-kind='roll']\").length > {rolls}", timeout=15000)
        context.close()
    finally:
        table.close()


def damage_window_flow(statuses: dict[str, int]) -> GameFlow:
    from tests.game.test_damage_window import attacked_flow, monk_defends

    flow = attacked_flow(statuses)
    monk_defends(flow)
    assert flow.step is Step.DAMAGE
    return flow


def test_a_status_is_spent_from_the_page(browser, scene, tmp_path) -> None:
    frame, _ = scene
    table = Table(damage_window_flow({"Evasive": 1}), frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        page.wait_for_selector(".player[data-player='Bo'] .chip:text('Evasive')")
        pair(page, table)
        page.click("#options button[data-kind='spend']")
        page.wait_for_selector("body[data-step='spend-die']")  # the page asks for the status's die
        page.click("#btn-select")  # the Evasive die shows 2: a success
        page.click("#btn-next")
        page.wait_for_selector("#log li[data-kind='status']")
        page.wait_for_function("!document.querySelector(\".player[data-player='Bo'] .chip\")")
        context.close()
    finally:
        table.close()
    assert "Evasive" not in table.flow.game.players[1].statuses


def test_a_card_is_played_from_the_page_and_a_second_browser_pairs_too(browser, scene, tmp_path) -> None:
    frame, _ = scene
    table = Table(damage_window_flow({}), frame, tmp_path)
    try:
        first, page = open_page(browser, table, 1280, 900)
        page.wait_for_selector("#options button[data-kind='card-prevent']")
        pair(page, table)
        second, other = open_page(browser, table)
        # Not paired: its first change is refused and asks for the PIN.
        other.click("#undo") if other.is_enabled("#undo") else other.click("#btn-select")
        other.wait_for_selector("#pair-dialog[open]")
        other.click("#pair-cancel")
        pair(other, table)
        cp_before = table.flow.game.players[1].cp
        other.click("#options button[data-kind='card-prevent'] >> nth=0")
        other.wait_for_selector("body[data-step='cost']")
        other.click("#btn-select")  # 1 CP
        other.click("#btn-next")
        other.wait_for_selector("body[data-step='amount']")
        for _ in range(2):
            other.click("#btn-select")  # prevent 3
        other.click("#btn-next")
        other.wait_for_selector("body[data-step='damage']")
        page.wait_for_function(f"[...document.querySelectorAll('.player .stat')].some(s => s.textContent === 'CP {cp_before - 1}')")
        page.click("#btn-next")  # the first browser's token still works
        page.wait_for_timeout(300)
        first.close()
        second.close()
    finally:
        table.close()
    assert table.flow.game.players[1].cp == cp_before - 1


def test_a_game_is_started_from_the_page_with_heroes_and_names(browser, scene, tmp_path) -> None:
    frame, _ = scene
    table = Table(offense_flow(), frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        page.wait_for_selector("#seats .seat select")
        pair(page, table)
        page.click("#seat-add")
        seats = page.query_selector_all("#seats .seat")
        assert len(seats) == 3
        for seat, (hero, name) in zip(seats, [("monk", "Cy"), ("barbarian", "Di"), ("moon-elf", "Ed")]):
            seat.query_selector("select").select_option(hero)
            seat.query_selector("input").fill(name)
        page.click("#start-game")
        page.wait_for_selector(".player[data-player='Ed']")
        names = [n.text_content() for n in page.query_selector_all(".player .name")]
        assert names == ["Cy", "Di", "Ed"]
        context.close()
    finally:
        table.close()
    assert table.flow.game.mode.value == "king-of-the-hill"


def test_the_fairness_of_each_dice_set_is_charted(browser, scene, tmp_path) -> None:
    from tests.web.rolls import log_fair_and_loaded

    frame, _ = scene
    log_fair_and_loaded(tmp_path / "rolls.sqlite3")  # the roll log the tray goes on writing
    table = Table(offense_flow(), frame, tmp_path)
    try:
        context, page = open_page(browser, table, width=1280, height=900)
        page.wait_for_selector("#fair-sets .fair-set svg rect.bar")
        sets = page.query_selector_all("#fair-sets .fair-set")
        assert [s.get_attribute("data-set") for s in sets] == ["barbarian", "moon-elf"]
        fair, loaded = sets
        assert fair.query_selector(".name").text_content().startswith("Barbarian dice · ")
        assert fair.query_selector(".verdict").text_content() == "no sign of bias"
        assert "biased" in loaded.query_selector(".verdict").text_content()
        heights = [float(bar.get_attribute("height")) for bar in loaded.query_selector_all("rect.bar")]
        assert len(heights) == 6 and heights[5] == max(heights)  # the loaded die's six stands out
        assert "p " in fair.text_content() and "χ²" in fair.text_content()
        if os.environ.get("DICETRAY_SCREENSHOTS"):
            page.locator("#fairness").screenshot(path=str(SHOTS / "table-app-fairness.png"))
        context.close()
    finally:
        table.close()


def test_a_die_is_calibrated_face_by_face_from_the_page(browser, scene, tmp_path) -> None:
    from calibration.profiles import load_profile
    from hardware.sim import DieDesign
    from tests.web.dice import settled_face_frames

    frame, _ = scene
    faces = settled_face_frames(DieDesign.barbarian(), 2)
    table = Table(offense_flow(), frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        pair(page, table)
        page.fill("#cal-name", "barbarian")
        page.fill("#cal-faces", " ".join(faces))
        page.click("#cal-begin")
        page.wait_for_selector("#cal-steps .cal-face[data-face='sword-1'].next")
        for label, frames in faces.items():
            for n, shot in enumerate(frames, 1):
                table.camera.show(shot)
                page.wait_for_timeout(200)  # a frame or two of the die lying there
                page.click(f".cal-face[data-face='{label}'] button:text('Shoot')")
                page.wait_for_selector(f".cal-face[data-face='{label}'] img >> nth={n - 1}")
        assert len(page.query_selector_all("#cal-steps img")) == 12
        assert not page.is_disabled("#cal-build")
        page.click("#cal-build")
        page.wait_for_selector("#cal-report:not([hidden])", timeout=180000)  # the fit takes seconds, more on a busy machine
        report = page.text_content("#cal-report")
        assert report.startswith("saved die profile 'barbarian'") and "heart-4: 4 heart, 2 examples" in report
        if os.environ.get("DICETRAY_SCREENSHOTS"):
            page.add_style_tag(content="header { position: static }")  # not stuck over the section
            page.locator("#calibrate").screenshot(path=str(SHOTS / "table-app-calibration.png"))
        page.click("#cal-build")  # again: the profile is saved already, and the page says so
        page.wait_for_function("document.querySelector('#cal-error').textContent.includes('saved already')")
        context.close()
    finally:
        table.close()
    assert [f.label for f in load_profile("barbarian").faces] == list(faces)


def test_the_tray_is_calibrated_from_the_page(browser, scene, tmp_path) -> None:
    """Shoot the empty tray (a die left in it is named), then the tray with pip dice rolled in,
    and save: the profile the service takes at its next start."""
    import numpy as np

    from calibration.tray import load_tray_profile
    from hardware.sim import Background, random_scene, render_tray

    frame, _ = scene
    felt = Background("plain", (50, 80, 40), 5)
    rng = np.random.default_rng(4)
    empty = render_tray(random_scene(rng, 0, background=felt, tilt_deg=0), rng).frame
    thrown = [render_tray(random_scene(rng, 4, background=felt, tilt_deg=0), rng).frame for _ in range(2)]
    table = Table(offense_flow(), frame, tmp_path)
    try:
        context, page = open_page(browser, table)
        pair(page, table)
        assert page.is_disabled("#tray-dice") and page.is_disabled("#tray-build")
        table.camera.show(thrown[0])  # the dice still lie there
        page.wait_for_timeout(200)
        page.click("#tray-empty")
        page.wait_for_function("document.querySelector('#tray-error').textContent.startsWith('the tray is not empty')")
        table.camera.show(empty)
        page.wait_for_timeout(200)
        page.click("#tray-empty")
        page.wait_for_function("document.querySelector('#tray-prompt').textContent.startsWith('Empty tray shot (5 frames)')")
        for n, shot in enumerate(thrown, 1):
            table.camera.show(shot)
            page.wait_for_timeout(200)
            page.click("#tray-dice")
            page.wait_for_function(f"document.querySelector('#tray-prompt').textContent.includes('({n} of 3 shots)')")
        page.click("#tray-build")
        page.wait_for_selector("#tray-report:not([hidden])", timeout=60000)
        report = page.text_content("#tray-report")
        assert report.startswith("saved tray profile 'tray'") and "the camera looks straight down" in report
        assert report.endswith("the tray reads with it from the next roll")
        # the service reads with it from the next roll: straight down, the pip check only where a die is unsure
        assert wait_for(lambda: table.service.reader.overhead_frames == (640, 480))
        if os.environ.get("DICETRAY_SCREENSHOTS"):
            page.add_style_tag(content="header { position: static }")  # not stuck over the section
            page.locator("#tray-cal").screenshot(path=str(SHOTS / "table-app-tray.png"))
        page.click("#tray-build")  # again: saved already, and the page says so
        page.wait_for_function("document.querySelector('#tray-error').textContent.includes('saved already')")
        context.close()
    finally:
        table.close()
    assert load_tray_profile().view.value == "overhead"


def battle_dice_thrown():
    """The seed's example roll of Battle Dice thrown into the simulated tray (Ann's red 3, blue 4,
    green 6 on the left; Bob's yellow 2, purple 4, orange 6 on the right), both players reloaded:
    the rendered tray, where each die lies, and the game."""
    import numpy as np

    from firmware_host.seed_demo import BATTLE_DICE, render_throw
    from hardware.sim.faces import DieDesign
    from rules.battledice.game import Game as BattleGame

    values = {"red": 3, "blue": 4, "green": 6, "yellow": 2, "purple": 4, "orange": 6}
    specs = [
        (values[c], c, DieDesign.pips(), seat, None)
        for seat, colours in enumerate((("red", "blue", "green"), ("yellow", "purple", "orange")))
        for c in colours
    ]
    tray, places = render_throw(specs, np.random.default_rng(5))
    game = BattleGame.from_tags(BATTLE_DICE)
    game.play("reload P1")
    game.play("reload P2")
    return tray, places, game


def test_battle_dice_is_played_from_the_page(browser, tmp_path) -> None:
    """A menu game on the page: the players and their Strike Totals after the tray reads the roll,
    the menu as options; choosing one on the phone plays it, as NEXT on the tray would."""
    from firmware_host.seed_demo import BATTLE_DICE

    tray, _, game = battle_dice_thrown()
    table = Table(BattleDiceFlow(game), tray.frame, tmp_path)  # type: ignore[arg-type]
    try:
        context, page = open_page(browser, table)
        page.wait_for_selector(".player[data-player='Bob'] .stat[title='Strike Total']", timeout=15000)
        assert page.text_content(".player[data-player='Ann'] .stat[title='Strike Total']") == "ST 13"
        assert page.text_content(".player[data-player='Bob'] .stat[title='Strike Total']") == "ST 12"
        labels = [b.text_content() for b in page.query_selector_all("#options button span:first-child")]
        assert labels and all(" v " in label for label in labels)  # Bob chooses the match-up
        pair(page, table)
        page.click("#options button >> nth=1")
        wait_for(lambda: any(a.startswith("match ") for a in table.flow.game.actions))
        context.close()
    finally:
        table.close()
    chosen = [a for a in table.flow.game.actions if a.startswith("match ")]
    assert chosen == [table_options_second(game_tags=BATTLE_DICE)]


def test_a_battle_die_under_a_finger_is_set_from_the_page(browser, tmp_path) -> None:
    """A finger rests on Ann's green die as the tray settles: the reader cannot tell it, nothing is
    played, and the page offers its faces (the reader's likeliest first) and "roll them again";
    tapping one plays both rolls as the tray read them with the die set."""
    from dataclasses import replace

    import numpy as np

    from hardware.sim.render import render_tray
    from hardware.sim.scene import Hand

    tray, places, game = battle_dice_thrown()
    finger = Hand(edge="top", along=places[2][0], reach=0.1)  # its fingertip on the green die
    frame = render_tray(replace(tray.scene, hand=finger), np.random.default_rng(5)).frame
    table = Table(BattleDiceFlow(game), frame, tmp_path)  # type: ignore[arg-type]
    try:
        context, page = open_page(browser, table)
        page.wait_for_function("document.querySelectorAll('#options button').length > 1", timeout=15000)
        labels = [b.text_content() for b in page.query_selector_all("#options button span:first-child")]
        assert labels[0] == "left top die: 6" and labels[-1] == "roll them again"
        setting = table.flow.setting_index
        assert setting is not None and table.flow.last_dice[setting].status.value == "unreadable"
        page.wait_for_selector(f"#dice .die.setting[data-die='{setting}']")  # the page marks the die being set
        assert len(page.query_selector_all("#dice .die.setting")) == 1
        assert sorted(label.rsplit(": ", 1)[1] for label in labels[:-1]) == ["1", "2", "3", "4", "5", "6"]
        assert table.flow.game.actions == ["reload P1", "reload P2"]
        pair(page, table)
        page.click("#options button >> nth=0")
        wait_for(lambda: len(table.flow.game.actions) == 4)
        context.close()
    finally:
        table.close()
    assert table.flow.game.actions[2:] == ["roll P1 red 3 blue 4 green 6", "roll P2 yellow 2 purple 4 orange 6"]


def test_a_misread_battle_roll_is_taken_back_and_corrected_from_the_page(browser, tmp_path) -> None:
    """Undo right after the tray's roll lists its dice on the page; one changed, the corrected
    dice are played again."""
    tray, _, game = battle_dice_thrown()
    table = Table(BattleDiceFlow(game), tray.frame, tmp_path)  # type: ignore[arg-type]
    try:
        context, page = open_page(browser, table)
        wait_for(lambda: len(table.flow.game.actions) == 4)  # both rolls, as read
        pair(page, table)
        page.click("#undo")
        page.wait_for_function("[...document.querySelectorAll('#options button')].some(b => b.textContent.includes('play these dice'))")
        labels = [b.text_content() for b in page.query_selector_all("#options button span:first-child")]
        assert labels[-2:] == ["play these dice", "roll them again"] and labels[0].endswith(": 3")
        page.click("#options button >> nth=0")  # the red 3: change it
        page.wait_for_function("document.querySelector('#options button span').textContent.endsWith(': 3') && "
                               "document.querySelectorAll('#options button').length === 7")
        page.click("#options button >> nth=1")  # its faces, the read one first: 3, then 1
        page.wait_for_function("document.querySelector('#options button span').textContent.endsWith(': 1')")
        page.click("#options button:has-text('play these dice')")
        wait_for(lambda: table.flow.game.actions[-2:] == ["roll P1 red 1 blue 4 green 6", "roll P2 yellow 2 purple 4 orange 6"])
        context.close()
    finally:
        table.close()


def table_options_second(game_tags) -> str:
    """The second match-up the menu offers after the seed's example roll (what the page chose)."""
    from rules.battledice.game import Game as BattleGame

    game = BattleGame.from_tags(game_tags)
    for action in ("reload P1", "reload P2", "roll P1 red 3 blue 4 green 6", "roll P2 yellow 2 purple 4 orange 6"):
        game.play(action)
    return BattleDiceFlow(game).choices()[1].action
