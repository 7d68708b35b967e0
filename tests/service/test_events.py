"""One stream of game events: the service publishes what the table flow emits; outputs subscribe."""

import doctest

import firmware_host.events
from firmware_host.events import EventStream
from firmware_host.transcript import FlowEventKind


def test_the_module_example_runs():
    result = doctest.testmod(firmware_host.events)
    assert result.attempted > 0 and result.failed == 0


def test_subscribers_get_every_event_in_order_and_can_leave():
    stream = EventStream()
    first, second = [], []
    stream.subscribe(first.append)
    leaving = stream.subscribe(second.append)
    stream.publish(1)
    stream.unsubscribe(leaving)
    stream.publish(2)
    assert (first, second, len(stream)) == ([1, 2], [1], 1)


def test_a_new_output_subscribes_to_the_service_and_sees_the_game(tmp_path):
    from firmware_host.demo import DemoTable

    from firmware_host.rolllog import RollLog

    table = DemoTable(tmp_path / "frames", seed=3, turn_limit=2)
    table.service.roll_log = RollLog(tmp_path / "rolls.sqlite3")
    seen = []
    table.service.events.subscribe(seen.append)
    table.play()
    kinds = {event.kind for event in seen}
    assert {FlowEventKind.READING, FlowEventKind.ROLL, FlowEventKind.ABILITY, FlowEventKind.GAME_OVER} <= kinds
    # The roll log is a subscriber too: every scored step is a row.
    with RollLog(tmp_path / "rolls.sqlite3") as log:
        rows = len(log.scores())
    assert rows == sum(
        e.kind.value in ("roll", "ability", "target", "defense", "damage", "undo", "game_over") for e in seen
    )
