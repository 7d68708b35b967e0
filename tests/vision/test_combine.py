"""Combining the learned reading with the pip reader's: agreement, disagreement, parts of a die."""

from __future__ import annotations

from vision.combine import combine
from vision.types import DieReading, DieStatus, FrameReading


def _ok(value: int, box: tuple[int, int, int, int], confidence: float = 0.95) -> DieReading:
    return DieReading(value, confidence, box, DieStatus.OK, face=str(value))


def _unsure(box: tuple[int, int, int, int], *candidates: str) -> DieReading:
    return DieReading(None, 0.6, box, DieStatus.UNREADABLE, reason="unsure", candidates=candidates)


def test_agreeing_readings_are_one_die() -> None:
    out = combine(FrameReading((_ok(4, (100, 100, 40, 40), 0.9),)), FrameReading((_ok(4, (104, 98, 36, 36), 0.97),)))
    assert out.values == (4,) and out.dice[0].confidence == 0.97


def test_a_sure_learned_count_stands_against_the_pip_reader_either_way() -> None:
    # more pips than an unsure learned reading: its crop missed part of the face
    higher = combine(FrameReading((_ok(1, (100, 100, 40, 40), 0.93),)), FrameReading((_ok(2, (100, 100, 40, 40)),)))
    assert higher.values == (2,)
    # more pips than a sure one: a one and a pip of the face beside it, in an oblique view
    joined = combine(FrameReading((_ok(1, (100, 100, 40, 40), 0.99),)), FrameReading((_ok(2, (104, 110, 40, 48)),)))
    assert joined.values == (1,) and joined.dice[0].box == (100, 100, 40, 40)
    # fewer pips than an unsure learned count, in an oblique view (a side face seen): the learned
    # reader may have counted the side face's pips with the top's
    lower = combine(FrameReading((_ok(6, (100, 100, 40, 40), 0.9),)), FrameReading((_ok(3, (100, 100, 40, 40)),)), [(120, 160)])
    assert lower.values == () and lower.dice[0].status is DieStatus.UNREADABLE
    assert lower.dice[0].candidates == ("6", "3") and lower.dice[0].candidate_values == (6, 3)
    # no side face seen: the pip reader missed faint pips (red on a blue die)
    faint = combine(FrameReading((_ok(4, (100, 100, 40, 40), 0.91),)), FrameReading((_ok(2, (104, 102, 34, 34)),)))
    assert faint.values == (4,)
    # unless the learned die spans two dice: two blue ones found as one die and read as a two
    joined = combine(FrameReading((_ok(2, (335, 337, 82, 82), 0.93),)), FrameReading((_ok(1, (389, 354, 21, 23)),)))
    assert joined.values == () and joined.dice[0].candidates == ("2", "1")
    heap = combine(FrameReading((_ok(6, (34, 104, 91, 91), 0.91),)), FrameReading((_ok(2, (84, 150, 31, 37)),)))
    assert heap.values == () and heap.dice[0].candidates == ("6", "2")
    # the box the pip reader gives a one is its pip and a little round it, well under its die
    one = combine(FrameReading((_ok(4, (176, 403, 33, 33), 0.917),)), FrameReading((_ok(1, (184, 418, 14, 16)),)))
    assert one.values == (4,)
    # a sure learned count: the pip reader missed pips (low contrast on a coloured die)
    sure = combine(FrameReading((_ok(4, (100, 100, 40, 40), 0.98),)), FrameReading((_ok(2, (100, 100, 40, 40)),)))
    assert sure.values == (4,)


def test_an_unsure_die_is_settled_only_by_one_of_its_candidates() -> None:
    settled = combine(FrameReading((_unsure((10, 10, 40, 40), "3", "5"),)), FrameReading((_ok(5, (12, 10, 38, 38)),)))
    assert settled.values == (5,)
    kept = combine(FrameReading((_unsure((10, 10, 40, 40), "3", "5"),)), FrameReading((_ok(6, (12, 10, 38, 38)),)))
    assert kept.values == () and kept.dice[0].status is DieStatus.UNREADABLE
    # artwork the learned reader took for no pip face stays unread, whatever layout the pips show
    not_pips = DieReading(None, 0.9, (10, 10, 40, 40), DieStatus.UNREADABLE, reason="not a pip face")
    assert combine(FrameReading((not_pips,)), FrameReading((_ok(6, (12, 10, 38, 38)),))).values == ()


def test_a_die_only_one_reader_reads_stands() -> None:
    only_learned = combine(FrameReading((_ok(3, (10, 10, 40, 40)),)), FrameReading(()))
    only_pips = combine(FrameReading(()), FrameReading((_ok(2, (300, 10, 40, 40)),)))
    assert only_learned.values == (3,) and only_pips.values == (2,)
    both = combine(FrameReading((_ok(3, (10, 10, 40, 40)),)), FrameReading((_ok(2, (300, 10, 40, 40)),)))
    assert both.values == (3, 2)


def test_a_learned_find_on_part_of_a_read_face_is_dropped() -> None:
    # the pip reader read a big six; the learned reader also took one of its pips for a small die
    learned = FrameReading((_ok(6, (100, 100, 80, 80)), _ok(1, (150, 150, 20, 20))))
    out = combine(learned, FrameReading((_ok(6, (100, 100, 80, 80)),)))
    assert out.values == (6,) and len(out.dice) == 1


def test_a_die_touching_a_read_face_stands_and_that_face_seen_off_centre_does_not() -> None:
    # a four touching a two the pip reader read: centres 0.75 of the two's face apart
    face = _ok(2, (267, 425, 22, 22))
    touching = combine(FrameReading((_ok(4, (260, 406, 28, 28)), _ok(2, (266, 424, 24, 24)))), FrameReading((face,)))
    assert touching.values == (4, 2)
    # the learned reader's box over a one's top face and a side face of its die, read as that one
    one = _ok(1, (274, 298, 37, 37))
    off_centre = combine(FrameReading((_ok(1, (235, 270, 64, 64)),)), FrameReading((one,)))
    assert off_centre.values == (1,) and off_centre.dice[0].box == one.box


def test_pips_read_inside_a_learned_die_are_not_a_die_of_their_own() -> None:
    # the pip reader read two pips of a six as a two, off the die's centre; the learned reader
    # found the die, unsure of it
    learned = FrameReading((_unsure((300, 142, 30, 30), "3", "6"),))
    out = combine(learned, FrameReading((_ok(2, (319, 162, 18, 16)),)))
    assert out.values == () and len(out.dice) == 1 and out.dice[0].candidates == ("3", "6")
    # a face outside every learned die still stands
    apart = combine(learned, FrameReading((_ok(2, (400, 162, 18, 16)),)))
    assert apart.values == (2,)


def test_a_face_holding_a_die_with_pips_of_its_own_is_no_die() -> None:
    # in a big frame of small dice the pip search took two whole dice for the pips of one "two"
    # six times their size: the dice stand as the learned reader read them
    learned = FrameReading((_ok(4, (1000, 1000, 70, 70), 0.93), _ok(1, (1300, 1280, 70, 70), 0.92)))
    giant = FrameReading((_ok(2, (950, 950, 480, 480)),))
    out = combine(learned, giant)
    assert out.values == (4, 1) and all(d.box[2] == 70 for d in out.dice)
    # a big die whose pips the learned reader took for dice reads them as ones: the face stands
    # (against an unsure one: a sure count stands against any pip count)
    pips_as_dice = FrameReading((_ok(1, (1000, 1000, 70, 70), 0.93), _ok(1, (1300, 1280, 70, 70), 0.93)))
    assert combine(pips_as_dice, giant).values == (2,)


def test_cocked_stays_cocked_and_an_unread_pip_face_leaves_the_learned_reading() -> None:
    cocked = DieReading(None, 0.9, (10, 10, 40, 40), DieStatus.COCKED, reason="cocked")
    out = combine(FrameReading((cocked,)), FrameReading((_ok(5, (10, 10, 40, 40)),)))
    assert out.dice[0].status is DieStatus.COCKED
    pip_unread = DieReading(None, 0.2, (10, 10, 40, 40), DieStatus.UNREADABLE)
    assert combine(FrameReading((_ok(5, (10, 10, 40, 40)),)), FrameReading((pip_unread,))).values == (5,)


def test_times_add_up() -> None:
    assert combine(FrameReading((), 2.0), FrameReading((), 7.5)).ms == 9.5


def test_a_learned_die_on_a_side_face_the_pip_reader_saw_is_that_side_face() -> None:
    top, side = _ok(1, (100, 60, 40, 34)), _ok(5, (102, 96, 40, 40))  # a one, and its front face's five below
    learned = FrameReading((_ok(1, (100, 60, 40, 36)), side))
    pips = FrameReading((top,))
    assert combine(learned, pips).values == (1, 5)  # without the pip reader's side faces: two dice
    assert combine(learned, pips, side_faces=[(121.0, 117.0)]).values == (1,)
    # only a die read there: an unsure one stays, telling the table something is there
    unsure = FrameReading((_ok(1, (100, 60, 40, 36)), _unsure((102, 96, 40, 40), "5", "4")))
    assert len(combine(unsure, pips, side_faces=[(121.0, 117.0)]).dice) == 2
    # a side face elsewhere leaves the die alone
    assert combine(learned, pips, side_faces=[(300.0, 300.0)]).values == (1, 5)


def test_a_face_only_the_pip_reader_read_stands_where_the_learned_reader_sees_a_pip_face() -> None:
    learned = FrameReading((_ok(3, (10, 10, 40, 40)),))
    pips = FrameReading((_ok(3, (12, 10, 38, 38)), _ok(1, (200, 20, 20, 20)), _ok(5, (300, 300, 40, 40))))
    asked: list[tuple[int, ...]] = []

    def sees(faces: object) -> list[bool]:
        values = tuple(f.value for f in faces)  # type: ignore[attr-defined]
        asked.append(values)
        return [value == 5 for value in values]

    out = combine(learned, pips, (), sees)
    # asked once, about the two faces no learned die was matched to; the "one" (a key's dot) goes
    assert asked == [(1, 5)]
    assert out.values == (3, 5)
    # without anyone to ask, both stand
    assert combine(learned, pips).values == (3, 1, 5)
    # nothing to ask about: not asked
    asked.clear()
    combine(learned, FrameReading((_ok(3, (12, 10, 38, 38)),)), (), sees)
    assert asked == []
