"""Two readings of one frame made one: the learned reader's and the rule-based pip reader's.

The learned reader finds dice of any colour; the pip reader, where it finds a face, is rarely wrong
about white dice with dark pips and knows which face of an oblique die is the top. Combined, a die
is read ``ok`` when the two agree, or when one reads it and the other has nothing to say (or is
torn between two faces, one of which the pip reader read); a face the pip reader alone read inside
a die the learned reader found is part of that die, not a die, and a die the learned reader alone
read where the pip reader saw a side face of a die it read (an oblique view) is that side face;
a face only the pip reader read stands where the learned reader, looking there, sees a pip face.
Where both read it and disagree, a sure learned reading stands (:data:`SURE_LEARNED`; against a
lower count, :data:`SURE_LEARNED_NO_SIDE_FACES` in a frame with no side face seen), the pip
reader's count against an unsure one when it is the higher (it matched more pips in one layout);
otherwise the die is ``unreadable`` with both values as the reason (precision first).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vision.types import DieReading, DieStatus, FrameReading

#: Centre distance, in units of the bigger top face, under which two readings are one die.
SAME_DIE = 0.6
#: A learned reading at least this sure stands against the pip reader's count.
SURE_LEARNED = 0.95
#: ... against a lower count, this sure in a frame where the pip reader saw no side face beside a
#: face it read: the oblique view in which a learned count may take in a side face's pips shows
#: it them, and without one the pip reader more likely missed faint pips.
SURE_LEARNED_NO_SIDE_FACES = 0.9
#: A learned die more than this many times the size of a face the pip reader read on it spans more
#: than that face's die: a whole die is about 1.2 times its top face ...
SPANS_DICE = 2.0
#: ... and up to about 2.5 times the box the pip reader gives a one (its pip and a little round it).
SPANS_DICE_OF_A_ONE = 3.0
#: A learned find this close to a face the pip reader read (in units of that face) but not matched
#: to it is a side face or a pip of that die.
PART_OF_DIE = 0.7
#: ... and one reading that face's own value up to this close: that face seen off its centre (with
#: a side face of its die). A die touching it, reading a value of its own, may come this close.
SAME_FACE_NEAR = 0.8
#: A learned die whose centre is this close to a side face the pip reader saw (in units of the
#: learned die) is that side face.
ON_SIDE_FACE = 0.35
#: A die read with pips of its own under this fraction of a face the pip reader read, inside it,
#: makes that face no die (:func:`_without_faces_of_dice`); two pips of a face, read as a die by
#: the learned reader, span about 0.4 of it.
DIE_IN_A_FACE = 0.3


def _centre(die: DieReading) -> tuple[float, float]:
    x, y, w, h = die.box
    return x + w / 2, y + h / 2


def _side(die: DieReading) -> float:
    return float(max(die.box[2], die.box[3], 1))


def _inside(small: DieReading, big: DieReading) -> bool:
    """Whether ``small``'s centre lies within ``big``'s box."""
    (sx, sy), (bx, by) = _centre(small), _centre(big)
    return abs(sx - bx) < big.box[2] / 2 and abs(sy - by) < big.box[3] / 2


def combine(
    learned: FrameReading,
    pips: FrameReading,
    side_faces: Sequence[tuple[float, float]] = (),
    sees_pip_face: Callable[[Sequence[DieReading]], Sequence[bool]] | None = None,
) -> FrameReading:
    """The combined reading (dice left to right; ``ms`` is the sum of both). ``side_faces``: centres
    of faces the pip reader took for side faces of the dice it read (an oblique view); a learned
    die read there, and matched to no face the pip reader read, is that side face.
    ``sees_pip_face``: for faces only the pip reader read, whether the learned reader, looking
    there, sees a pip face (:meth:`vision.learned.LearnedReader.sees_pip_faces`); those it does
    not are dropped."""
    pips = _without_faces_of_dice(pips, learned)
    # every centre, size and distance once (a full tray has hundreds of pairs), as _distance has them
    learned_at = [_centre(l) for l in learned.dice]
    pips_at = [_centre(p) for p in pips.dice]
    pips_side = [_side(p) for p in pips.dice]
    apart = [[math.hypot(lx - px, ly - py) for px, py in pips_at] for lx, ly in learned_at]
    pairs = sorted(
        (apart[i][j], i, j)
        for i, l in enumerate(learned.dice)
        for j in range(len(pips.dice))
        if apart[i][j] < SAME_DIE * max(_side(l), pips_side[j])
    )
    match: dict[int, int] = {}
    taken: set[int] = set()
    for _, i, j in pairs:
        if i not in match and j not in taken:
            match[i] = j
            taken.add(j)
    dice: list[DieReading] = []
    kept: list[DieReading] = []
    sure_of_more = SURE_LEARNED if side_faces else SURE_LEARNED_NO_SIDE_FACES
    for i, l in enumerate(learned.dice):
        if i in match:
            dice.append(_one_die(l, pips.dice[match[i]], sure_of_more))
            kept.append(l)
            continue
        # A learned find on a face the pip reader read, but not that face: part of that die; or
        # on what it saw as a side face of a die it read (the learned reader reads those as dice).
        if any(p.ok and apart[i][j] < _part_of(l, p) * pips_side[j] for j, p in enumerate(pips.dice)):
            continue
        if l.ok and any(math.hypot(learned_at[i][0] - sx, learned_at[i][1] - sy) < ON_SIDE_FACE * _side(l) for sx, sy in side_faces):
            continue
        dice.append(l)
        kept.append(l)
    # A face the pip reader read inside a die the learned reader found, but not matched to it, is
    # a few pips of that die (two of a six), not a die of its own.
    alone = [p for j, p in enumerate(pips.dice) if j not in taken and p.ok and not any(_inside(p, l) for l in kept)]
    if alone and sees_pip_face is not None:
        # Where the learned reader, looking at such a face, sees no pip face (no die, a cocked
        # die), the pips are marks on something else: a key, a die's edge.
        alone = [p for p, seen in zip(alone, sees_pip_face(alone)) if seen]
    dice += alone
    dice.sort(key=lambda d: (d.box[0], d.box[1]))
    return FrameReading(tuple(dice), learned.ms + pips.ms)


def _part_of(learned: DieReading, face: DieReading) -> float:
    """How close (in units of ``face``) an unmatched learned find must be to a face the pip reader
    read to be part of that face's die."""
    return SAME_FACE_NEAR if learned.value is not None and learned.value == face.value else PART_OF_DIE


def _without_faces_of_dice(pips: FrameReading, learned: FrameReading) -> FrameReading:
    """``pips`` without the faces it read that hold a die the learned reader read surely with two
    pips or more, under :data:`DIE_IN_A_FACE` of that face's size: such a face is no die. Its
    "pips" were dice (in a big frame of small dice, the pip reader's search may take whole dice for
    pips and link dice far apart into one face). Where the learned reader takes parts of a big
    die for dice, a pip is read as a one, and two pips of a face or more span more of it."""
    dice = [l for l in learned.dice if l.ok and l.value is not None and l.value >= 2]
    if not dice:
        return pips
    # only a face over 1 / DIE_IN_A_FACE times the smallest such die can hold one: on most frames none
    smallest = min(_side(l) for l in dice)
    dropped = [
        p for p in pips.dice
        if p.ok and DIE_IN_A_FACE * _side(p) > smallest
        and any(_side(l) < DIE_IN_A_FACE * _side(p) and _inside(l, p) for l in dice)
    ]  # fmt: skip
    return FrameReading(tuple(p for p in pips.dice if p not in dropped), pips.ms) if dropped else pips


def settled_count(learned: int, confidence: float, laid_out: int, sure_of_more: float = SURE_LEARNED) -> int | None:
    """The pip count that stands where the learned reader counts ``learned`` pips (at
    ``confidence``) and the pip reader surely reads a layout of ``laid_out`` pips on the same die;
    ``None`` where neither stands (precision first). ``sure_of_more``: how sure a learned count
    of more pips than the layout's must be to stand (:data:`SURE_LEARNED` at most)."""
    if laid_out == learned:
        return learned
    if confidence >= SURE_LEARNED or (laid_out < learned and confidence >= sure_of_more):
        # A sure learned count stands against the pip reader's either way. Fewer pips: the pip
        # reader missed some (low-contrast pips on a coloured die). More: it joined a top face's
        # pips with a pip of the face beside it (a one and a side face's pip, in an oblique view).
        return learned
    if laid_out > learned:
        # More pips in one face layout than an unsure learned reading: its crop missed part of
        # the face (a big die's pips), while a layout is rarely invented.
        return laid_out
    # Fewer pips than an unsure learned reading: most often the learned reader counted a side
    # face's pips with the top's (an oblique die), or a few pips of a neighbour.
    return None


def _one_die(learned: DieReading, pips: DieReading, sure_of_more: float = SURE_LEARNED) -> DieReading:
    if learned.ok and pips.ok and learned.value is not None and pips.value is not None:
        if learned.value == pips.value:
            # The pip reader's box is the top face's; one over twice the learned die's size is a
            # whole die it took for a one's pip (:func:`_without_faces_of_dice`).
            box = pips.box if _side(pips) <= 2 * _side(learned) else learned.box
            return DieReading(learned.value, max(learned.confidence, pips.confidence), box, DieStatus.OK, face=learned.face)
        if _side(learned) > (SPANS_DICE_OF_A_ONE if pips.value == 1 else SPANS_DICE) * _side(pips):
            # A learned die this much bigger than the face spans more than its die (two dice found
            # as one, their pips counted together): its higher count stands only as sure as ever.
            sure_of_more = SURE_LEARNED
        settled = settled_count(learned.value, learned.confidence, pips.value, sure_of_more)
        if settled is not None:
            return pips if settled == pips.value else learned
        return DieReading(
            None, min(learned.confidence, pips.confidence), pips.box, DieStatus.UNREADABLE,
            reason=f"readings differ: {learned.value} or {pips.value}",
            candidates=(str(learned.value), str(pips.value)), candidate_values=(learned.value, pips.value),
        )  # fmt: skip
    if pips.ok and str(pips.value) in learned.candidates:
        # Torn between two faces, the learned reader is settled by the pip reader's layout when it
        # reads one of them (a face the learned reader took for no pip face stays unread: the pip
        # reader finds layouts in artwork too).
        return pips
    return learned
