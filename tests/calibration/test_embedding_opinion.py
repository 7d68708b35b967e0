"""The learned face embedding beside a profile's exemplars: where its opinion decides, and where not."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from hardware.sim import DieDesign, DieStyle, render_face
from vision.face_embedding import EMBEDDING_FILE, RECORD_FILE, EmbeddingOpinion, FaceEmbedding, shared_embedding
from vision.learned import MODEL_DIR, ModelError
from vision.profile_reader import CalibratedFace, FaceMatch, ProfileClassifier
from vision.types import DieStatus


def _classifier(opinion: EmbeddingOpinion, symbol_floor: float = 0.5) -> ProfileClassifier:
    embedding = shared_embedding()
    assert embedding is not None
    faces = [CalibratedFace("sword-1", 1, "sword"), CalibratedFace("sword-2", 2, "sword"), CalibratedFace("heart-4", 4, "heart")]
    design = DieDesign.barbarian()
    crops = {1: 1, 2: 2, 4: 4}
    pairs = [(face, [render_face(design, DieStyle(), crops[face.value], 96, rng=np.random.default_rng(s)) for s in range(3)]) for face in faces]
    classifier = ProfileClassifier(pairs, embedding=embedding, symbol_floor=symbol_floor)
    classifier.embedding = _with_opinion(embedding, opinion)
    return classifier


#: An opinion sure at smaller leads and higher similarities than the shipped one, so that a test's
#: similarities fall plainly on one side of each line.
_SURE = EmbeddingOpinion(veto=0.1, rescue=0.2, rescue_confidence=0.9, floor=0.9)


def _like_no_face(symbol_floor: float) -> tuple[ProfileClassifier, EmbeddingOpinion, FaceMatch]:
    """A classifier with :data:`_SURE`, its opinion, and a heart read the exemplars find like no face."""
    classifier = _classifier(_SURE, symbol_floor=symbol_floor)
    heart = classifier.faces[2]
    return classifier, _SURE, FaceMatch(heart, DieStatus.UNREADABLE, 0.0, 1.0, 0.0, "sword-1")


def _with_opinion(embedding: FaceEmbedding, opinion: EmbeddingOpinion) -> FaceEmbedding:
    clone = object.__new__(FaceEmbedding)
    clone.__dict__.update(embedding.__dict__)
    clone.opinion = opinion
    return clone


def test_the_shipped_embedding_has_an_opinion() -> None:
    embedding = shared_embedding()
    assert embedding is not None
    assert math.isfinite(embedding.opinion.veto) and math.isfinite(embedding.opinion.rescue) and embedding.opinion.floor < 1
    assert 0.5 <= embedding.opinion.rescue_confidence < 1.0


def test_the_embedding_places_shots_of_one_face_together() -> None:
    classifier = _classifier(EmbeddingOpinion())
    design = DieDesign.barbarian()
    for value, index in ((1, 0), (2, 1), (4, 2)):
        crop = render_face(design, DieStyle(), value, 96, rng=np.random.default_rng(50 + value))
        similarities = classifier.similarities(crop)
        assert similarities is not None
        assert int(np.argmax(similarities)) == index


def test_a_read_the_embedding_surely_places_elsewhere_is_unreadable_with_both() -> None:
    classifier = _classifier(_SURE)
    sword_1, sword_2, _heart = classifier.faces
    read = FaceMatch(sword_1, DieStatus.OK, 0.8, 0.01, 0.01, "sword-2")
    weighed = classifier._weigh(read, np.array([0.5, 0.75, 0.1]), classifier.embedding.opinion)  # type: ignore[union-attr]
    assert not weighed.ok and weighed.candidates == (sword_1, sword_2)
    assert weighed.reason == "sword 1 or 2"
    # a small lead is no veto
    assert classifier._weigh(read, np.array([0.5, 0.55, 0.1]), classifier.embedding.opinion).ok  # type: ignore[union-attr]


def test_a_read_the_embedding_finds_like_no_face_of_the_set_is_unreadable() -> None:
    """Another set's face the exemplars take for one of theirs (their accept distance fitted loose,
    on a grained wooden tray) is like no calibrated face where the embedding finds it less alike
    than ``stranger`` to the face it would be read as; the rescue of an unsure read too."""
    stranger = EmbeddingOpinion(veto=0.1, rescue=0.2, rescue_confidence=0.9, floor=0.9, stranger=0.7)
    classifier = _classifier(stranger)
    sword_1, sword_2, heart = classifier.faces
    read = FaceMatch(heart, DieStatus.OK, 0.9, 0.05, 0.05, "sword-1")
    weighed = classifier._weigh(read, np.array([0.4, 0.35, 0.55]), stranger)
    assert not weighed.ok and weighed.candidates == () and weighed.reason == "like no calibrated face"
    assert classifier._weigh(read, np.array([0.4, 0.35, 0.85]), stranger).ok  # its own face, alike enough
    unsure = FaceMatch(sword_1, DieStatus.UNREADABLE, 0.4, 0.05, 0.0, "sword-2", (sword_1, sword_2))
    assert not classifier._weigh(unsure, np.array([0.65, 0.3, 0.2]), stranger).ok  # no rescue of a stranger
    assert classifier._weigh(unsure, np.array([0.95, 0.6, 0.2]), stranger).ok
    # a face without exemplars (read by its pips) is not the embedding's to judge
    pips = FaceMatch(heart, DieStatus.OK, 0.9, 0.05, 0.05, "sword-1")
    assert classifier._weigh(pips, np.array([0.4, 0.35, -np.inf]), stranger).ok


def test_candidates_the_embedding_finds_unlike_the_crop_are_dropped() -> None:
    """A burst cut off its corner number, which the exemplars took for a heart 4 or 5: the hearts,
    less than ``stranger`` alike to it, are no candidates (the rules would have read "heart"); the
    face the embedding surely finds it is, within the accept distance, is read."""
    stranger = EmbeddingOpinion(veto=0.1, rescue=0.2, rescue_confidence=0.9, floor=0.9, stranger=0.7)
    classifier = _classifier(stranger)
    sword_1, sword_2, heart = classifier.faces
    torn = FaceMatch(sword_1, DieStatus.UNREADABLE, 0.4, 0.01, 0.0, "heart-4", (sword_1, heart))
    rescued = classifier._weigh(torn, np.array([0.2, 0.1, 0.8]), stranger)
    assert rescued.ok and rescued.face == heart
    # a crop the exemplars find far (beyond the accept distance), the embedding under its floor,
    # of a die not seen whole (no reading by symbol)
    far = dataclasses.replace(torn, distance=5.0)
    unknown = classifier._weigh(far, np.array([0.2, 0.1, 0.8]), stranger, by_symbol=False)
    assert not unknown.ok and unknown.candidates == () and unknown.reason == "like no calibrated face"
    # candidates it finds alike enough stay
    kept = classifier._weigh(torn, np.array([0.75, 0.1, 0.8]), stranger)
    assert not kept.ok and kept.candidates == (sword_1, heart)


def test_the_shipped_opinion_knows_a_stranger_and_an_old_record_does_not() -> None:
    embedding = shared_embedding()
    assert embedding is not None and embedding.opinion.stranger == 0.7
    record = {"opinion": {"veto": 0.1, "rescue": 0.2, "rescue_confidence": 0.9, "floor": 0.9}}
    assert EmbeddingOpinion.of_record(record, Path("face-embedding.json")).stranger == -math.inf


def test_a_crop_like_no_face_to_the_exemplars_but_close_to_a_few_gets_them_as_candidates() -> None:
    # symbols read only as alike as faces are: what the faces' own rule does
    classifier, opinion, far = _like_no_face(symbol_floor=0.9)
    sword_1, sword_2, _heart = classifier.faces
    # the two swords very alike, the heart far: one of the swords, its number unsure
    either = classifier._weigh(far, np.array([0.95, 0.93, 0.2]), opinion)
    assert not either.ok and set(either.candidates) == {sword_1, sword_2}
    assert either.reason == "sword 1 or 2"
    # not alike enough, or the rest not far enough: still like no face
    assert not classifier._weigh(far, np.array([0.85, 0.84, 0.2]), opinion).candidates
    assert not classifier._weigh(far, np.array([0.95, 0.93, 0.8]), opinion).candidates


def test_a_crop_like_no_face_whose_symbol_the_embedding_tells_surely_reads_that_symbol() -> None:
    classifier, opinion, far = _like_no_face(symbol_floor=0.5)
    sword_1, sword_2, heart = classifier.faces
    # less alike than a face must be, but the swords far ahead of the heart: a sword, number unknown
    sword = classifier._weigh(far, np.array([0.6, 0.58, 0.2]), opinion)
    assert not sword.ok and sword.candidates == (sword_1, sword_2) and sword.reason == "sword 1 or 2"
    # the heart is the one face with its symbol: the symbol is the face
    hearts = classifier._weigh(far, np.array([0.2, 0.25, 0.6]), opinion)
    assert hearts.ok and hearts.face == heart and hearts.confidence == 0.9
    # under the symbol floor, or the symbol not far enough ahead: like no face, as before
    assert not classifier._weigh(far, np.array([0.45, 0.44, 0.1]), opinion).candidates
    assert not classifier._weigh(far, np.array([0.6, 0.58, 0.45]), opinion).candidates
    # nor for a die not seen whole (a find much smaller than the frame's dice: its corner number)
    assert not classifier._weigh(far, np.array([0.2, 0.25, 0.6]), opinion, by_symbol=False).ok
    # a crop the exemplars match is theirs to read: the symbol's rule does not reach it
    near = FaceMatch(heart, DieStatus.UNREADABLE, 0.3, 0.01, 0.0, "sword-1")
    assert not classifier._weigh(near, np.array([0.6, 0.58, 0.2]), opinion).candidates


def test_a_face_without_exemplars_is_not_vetoed() -> None:
    embedding = shared_embedding()
    assert embedding is not None
    design = DieDesign.barbarian()
    sword = CalibratedFace("sword-1", 1, "sword")
    six = CalibratedFace("6", 6, pips=True)  # read by the pip reader: no photos
    heart = CalibratedFace("heart-4", 4, "heart")
    pairs = [(face, [render_face(design, DieStyle(), face.value, 96, rng=np.random.default_rng(s)) for s in range(3)]) for face in (sword, heart)]
    classifier = ProfileClassifier([pairs[0], (six, []), pairs[1]], embedding=embedding)
    opinion = _SURE
    by_pips = FaceMatch(six, DieStatus.OK, 0.95, 1.0, 0.0)
    assert classifier._weigh(by_pips, np.array([0.9, -np.inf, 0.1]), opinion).ok


def test_an_unsure_read_is_settled_only_among_its_candidates() -> None:
    classifier = _classifier(_SURE)
    sword_1, sword_2, heart = classifier.faces
    opinion = classifier.embedding.opinion  # type: ignore[union-attr]
    unsure = FaceMatch(sword_1, DieStatus.UNREADABLE, 0.5, 0.01, 0.0, "sword-2", (sword_1, sword_2))
    settled = classifier._weigh(unsure, np.array([0.2, 0.9, 0.1]), opinion)
    assert settled.ok and settled.face == sword_2 and settled.confidence == 0.9
    # the embedding prefers a face that is no candidate: still unsure
    assert not classifier._weigh(unsure, np.array([0.2, 0.1, 0.9]), opinion).ok
    # a crop like no face to the exemplars is read only when the embedding finds it very alike
    far = FaceMatch(sword_1, DieStatus.UNREADABLE, 0.0, 1.0, 0.0, "sword-2")
    assert not classifier._weigh(far, np.array([0.85, 0.1, 0.1]), opinion).ok
    assert classifier._weigh(far, np.array([0.95, 0.1, 0.1]), opinion).face == sword_1


def test_without_an_embedding_file_profiles_read_by_exemplars_alone(tmp_path: Path) -> None:
    for name in ("dice-detector.onnx", "dice-faces.onnx", "model.json"):
        shutil.copy(MODEL_DIR / name, tmp_path / name)
    assert shared_embedding(tmp_path) is None


@pytest.mark.parametrize(
    "opinion, message",
    [({"veto": 0.1}, "'opinion' must give"), ({"veto": -1, "rescue": 0.2, "rescue_confidence": 0.9, "floor": 0.9}, "'opinion' must give"),
     ({"veto": 0.1, "rescue": 0.2, "rescue_confidence": 1.5, "floor": 0.9}, "'opinion' must give"), ("high", "'opinion' must give"),
     ({"veto": 0.1, "rescue": 0.2, "rescue_confidence": 0.9, "floor": 0.9, "stranger": 1.5}, "'opinion' must give"),
     ({"veto": 0.1, "rescue": 0.2, "rescue_confidence": 0.9, "floor": 0.9, "stranger": "low"}, "'opinion' must give"), (["veto"], "'opinion' must give")],
)  # fmt: skip
def test_a_malformed_record_is_refused_naming_the_file(tmp_path: Path, opinion: object, message: str) -> None:
    shutil.copy(MODEL_DIR / EMBEDDING_FILE, tmp_path / EMBEDDING_FILE)
    (tmp_path / RECORD_FILE).write_text(json.dumps({"opinion": opinion}))
    with pytest.raises(ModelError, match=message) as error:
        FaceEmbedding(tmp_path)
    assert RECORD_FILE in str(error.value)
    (tmp_path / RECORD_FILE).write_text("{not json")
    with pytest.raises(ModelError, match=RECORD_FILE):
        FaceEmbedding(tmp_path)
