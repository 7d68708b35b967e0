"""The training code: a few steps on a handful of images, and ONNX exports that match the networks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")

from firmware_host.cli import main  # noqa: E402
from hardware.sim import write_labelled_folder  # noqa: E402
from hardware.sim.training import write_training_set  # noqa: E402
from vision.learned import CLASSES, CROP_SIZE, LearnedModel, LearnedReader, ModelError  # noqa: E402
from vision.training.data import TrainDie, TrainFrame, camera_shift, detector_sample, face_sample, real_frames, rendered_frames  # noqa: E402
from vision.training.nets import DiceDetector, FaceNet  # noqa: E402
from vision.training.train import RealSource, TrainConfig, export_onnx, hard_dice, train  # noqa: E402


def _ort(path: Path, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    network = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    out: np.ndarray = network.run(None, {"image": x})[0]
    return out


@pytest.mark.parametrize("shape", [(1, 3, 256, 320), (2, 3, 96, 160)])
def test_detector_export_matches_the_network(tmp_path: Path, shape: tuple[int, ...], settled: Any) -> None:
    torch.manual_seed(3)
    net = settled(DiceDetector(), torch.rand(4, 3, 128, 128))
    export_onnx(net, torch.zeros(1, 3, 256, 320), tmp_path / "d.onnx")
    x = torch.rand(*shape)
    with torch.no_grad():
        expected = net(x).numpy()
    np.testing.assert_allclose(_ort(tmp_path / "d.onnx", x.numpy()), expected, atol=2e-4, rtol=1e-3)


@pytest.mark.parametrize("separable", [False, True])
def test_face_export_matches_the_network(tmp_path: Path, settled: Any, separable: bool) -> None:
    torch.manual_seed(4)
    net = settled(FaceNet(separable=separable), torch.rand(16, 3, CROP_SIZE, CROP_SIZE))
    export_onnx(net, torch.zeros(4, 3, CROP_SIZE, CROP_SIZE), tmp_path / "f.onnx")
    x = torch.rand(7, 3, CROP_SIZE, CROP_SIZE)
    with torch.no_grad():
        expected = net(x).numpy()
    out = _ort(tmp_path / "f.onnx", x.numpy())
    assert out.shape == (7, len(CLASSES))
    np.testing.assert_allclose(out, expected, atol=2e-4, rtol=1e-3)


def test_a_separable_face_network_has_half_the_weights_and_stores_in_8_bits(tmp_path: Path, settled: Any) -> None:
    from vision.training.quantize import quantize_faces

    plain, separable = FaceNet(48), FaceNet(48, separable=True)
    count = lambda net: sum(p.numel() for p in net.parameters())  # noqa: E731
    assert count(separable) < 0.55 * count(plain)
    torch.manual_seed(6)
    net = settled(FaceNet(48, separable=True), torch.rand(16, 3, CROP_SIZE, CROP_SIZE))
    export_onnx(net, torch.zeros(4, 3, CROP_SIZE, CROP_SIZE), tmp_path / "f.onnx")
    crops = torch.rand(64, 3, CROP_SIZE, CROP_SIZE).numpy()
    assert quantize_faces(tmp_path / "f.onnx", tmp_path / "q.onnx", crops, crops, lambda _: None, 0.0) >= 0.9
    import onnx

    # its depthwise convolutions are 8-bit too: grouped QLinearConv, no float convolution left
    nodes = onnx.load(str(tmp_path / "q.onnx")).graph.node
    assert "Conv" not in [node.op_type for node in nodes]
    grouped = [node for node in nodes if node.op_type == "QLinearConv" and any(a.name == "group" and a.i > 1 for a in node.attribute)]
    assert len(grouped) == 6


def test_a_standardised_face_network_reads_a_crop_alike_under_any_exposure_and_cast(tmp_path: Path, settled: Any) -> None:
    torch.manual_seed(5)
    x = torch.rand(6, 3, CROP_SIZE, CROP_SIZE) * 0.5 + 0.25
    # the same crops dimmed and under a warm lamp: each channel its own gain and offset
    shifted = x * torch.tensor([0.5, 0.6, 0.8]).view(1, 3, 1, 1) + torch.tensor([0.02, 0.05, 0.1]).view(1, 3, 1, 1)
    standardised = settled(FaceNet(standardise=True), torch.rand(16, 3, CROP_SIZE, CROP_SIZE))
    with torch.no_grad():
        # what its convolutions see is the same crop; a plain network's first stage passes it on as it is
        # (alike to within what the floor on a channel's spread leaves)
        np.testing.assert_allclose(standardised.standardise(shifted).numpy(), standardised.standardise(x).numpy(), atol=0.02)
        assert torch.equal(FaceNet().standardise(shifted), shifted)
        np.testing.assert_allclose(standardised(shifted).numpy(), standardised(x).numpy(), atol=1e-3, rtol=1e-2)
        # a flat channel is not blown up without end: its spread is floored
        flat = torch.full((1, 3, CROP_SIZE, CROP_SIZE), 0.5) + 0.001 * torch.randn(1, 3, CROP_SIZE, CROP_SIZE)
        assert float(standardised.standardise(flat).abs().max()) < 0.5
    # exported and stored in 8 bits, it standardises in floats ahead of the first 8-bit convolution
    from vision.training.quantize import quantize_faces

    export_onnx(standardised, torch.zeros(4, 3, CROP_SIZE, CROP_SIZE), tmp_path / "f.onnx")
    np.testing.assert_allclose(_ort(tmp_path / "f.onnx", shifted.numpy()), standardised(shifted).detach().numpy(), atol=2e-4, rtol=1e-3)
    crops = torch.rand(64, 3, CROP_SIZE, CROP_SIZE).numpy()
    assert quantize_faces(tmp_path / "f.onnx", tmp_path / "q.onnx", crops, crops, lambda _: None, 0.0) >= 0.9
    import onnx

    ops = [node.op_type for node in onnx.load(str(tmp_path / "q.onnx")).graph.node]
    assert ops[0] == "ReduceMean" and ops.index("QuantizeLinear") < ops.index("QLinearConv")
    assert "QLinearMul" not in ops and "QLinearAdd" not in ops
    np.testing.assert_allclose(_ort(tmp_path / "q.onnx", shifted.numpy()), _ort(tmp_path / "q.onnx", x.numpy()), atol=1e-3)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("train-data")
    write_training_set(root / "rendered", 6, seed=2)
    # a labelled folder standing in for real photos (the smoke run must not need the photo sets)
    write_labelled_folder(root / "photos", 12, seed=5, n_dice=(1, 4), prefix="photo")
    return root / "rendered", root / "photos"


def test_samples_have_targets_where_the_dice_are(sources: tuple[Path, Path]) -> None:
    rendered, photos = sources
    frames = rendered_frames(rendered) + real_frames(photos, ("train", "val", "test"), "face")
    rng = np.random.default_rng(0)
    with_dice = [f for f in frames if f.dice]
    sample = detector_sample(with_dice[0], rng, patch=128)
    assert sample.image.shape == (3, 128, 128) and sample.heat.shape == (32, 32)
    assert sample.heat.max() <= 1.0 and (sample.mask <= (sample.heat == 1)).all()
    labels = {face_sample(with_dice[i % len(with_dice)], rng, negative=False)[1] for i in range(40)}
    assert 0 not in labels
    assert face_sample(with_dice[0], rng, negative=True)[1] == 0


def test_a_camera_shift_changes_light_colour_and_compression_and_keeps_the_class(sources: tuple[Path, Path]) -> None:
    rendered, _ = sources
    frame = next(f for f in rendered_frames(rendered) if f.dice)
    plain = [face_sample(frame, np.random.default_rng(s), negative=False) for s in range(20)]
    # with no share, the samples are those of before: the same draws, nothing drawn for a shift
    assert all(np.array_equal(a[0], face_sample(frame, np.random.default_rng(s), negative=False, camera=0.0)[0]) for s, a in enumerate(plain))
    shifted = [face_sample(frame, np.random.default_rng(s), negative=False, camera=1.0) for s in range(20)]
    assert [label for _, label in shifted] == [label for _, label in plain]
    assert sum(not np.array_equal(a[0], b[0]) for a, b in zip(plain, shifted)) >= 15
    assert all(crop.shape == (3, CROP_SIZE, CROP_SIZE) and crop.dtype == np.float32 for crop, _ in shifted)
    grey = np.full((40, 40, 3), 128, np.uint8)
    outs = [camera_shift(grey, np.random.default_rng(s)) for s in range(30)]
    assert all(o.shape == grey.shape and o.dtype == np.uint8 for o in outs)
    # white balance apart per channel, and exposure over the whole crop
    assert any(len(set(o[20, 20].tolist())) == 3 for o in outs) and any(int(o.mean()) < 100 for o in outs)


def test_real_frames_keep_only_the_asked_split(sources: tuple[Path, Path]) -> None:
    _, photos = sources
    from vision.splits import split_of

    names = [e["image"] for e in json.loads((photos / "labels.json").read_text())]
    assert len(real_frames(photos, "train", "die")) == sum(split_of(n) == "train" for n in names)
    assert len(real_frames(photos, "test", "die")) == sum(split_of(n) == "test" for n in names)


def test_a_few_training_steps_give_a_model_the_reader_loads(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    rendered, photos = sources
    cfg = TrainConfig(
        out=str(tmp_path / "model"),
        rendered=(str(rendered),),
        real=(RealSource(str(photos), "face"),),
        detector_steps=3,
        detector_batch=2,
        detector_patch=128,
        face_steps=3,
        face_batch=8,
        checkpoint_every=2,
        threads=1,
    )
    logged: list[str] = []
    out = train(cfg, logged.append)
    assert any("detector step 2/3" in line for line in logged)
    meta = json.loads((out / "model.json").read_text())
    assert meta["classes"] == list(CLASSES) and meta["training"]["seed"] == 0
    assert meta["min_confidence"] in (0.8, 0.85, 0.9, 0.95) and any("min confidence" in line for line in logged)
    # and a second face network from the next seed, its own temperature fitted
    [second] = meta["second_faces"]
    assert second["seed"] == 1 and 0.05 <= second["temperature"] <= 20 and second["file"] == "dice-faces-2.onnx"
    assert any("faces-2 step 2/3" in line for line in logged) and (out / "dice-faces-2.onnx").is_file()
    model = LearnedModel(out)
    assert model.trained_on == {"photos"} and model.has_second_faces
    frame = np.full((240, 320, 3), 128, np.uint8)
    reading = LearnedReader(model).read(frame)
    assert all(0.0 <= d.confidence <= 1.0 for d in reading.dice)
    # a second run picks up from the checkpoints and gives the same weights
    logged.clear()
    again = train(cfg, logged.append)
    for name in ("dice-faces.onnx", "dice-faces-2.onnx"):
        assert (again / name).stat().st_size == (out / name).stat().st_size
    assert not any("step 0/3" in line or "another recipe" in line for line in logged)
    # a run of another recipe in the same folder trains what it changes afresh, never from the
    # other's checkpoint, and picks up the rest
    logged.clear()
    train(replace(cfg, second_crop_context=1.2), logged.append)
    [stale] = [line for line in logged if "another recipe" in line]
    assert "faces-2.ckpt" in stale and "crop_context" in stale
    assert any("faces-2 step 0/3" in line for line in logged)
    assert not any(line.startswith(("faces step", "detector step")) for line in logged)
    # one face network where asked for
    single = train(replace(cfg, out=str(tmp_path / "single"), second_faces=False), logged.append)
    assert "second_faces" not in json.loads((single / "model.json").read_text())
    assert not (single / "dice-faces-2.onnx").exists() and not LearnedModel(single).has_second_faces
    # and one added later beside a kept detector and face network, which are left as they were
    kept = {name: (single / name).read_bytes() for name in ("dice-detector.onnx", "dice-faces.onnx")}
    first_meta = json.loads((single / "model.json").read_text())
    logged.clear()
    added = train(replace(cfg, out=str(single), checkpoint_dir=str(tmp_path / "added"), add_second_faces=True), logged.append)
    assert not any("detector step" in line or line.startswith("faces step") for line in logged)
    assert any("kept the detector and face network" in line for line in logged)
    assert {name: (added / name).read_bytes() for name in kept} == kept
    meta = json.loads((added / "model.json").read_text())
    assert [r["seed"] for r in meta.pop("second_faces")] == [1] and meta == first_meta
    assert LearnedModel(added).has_second_faces
    # another added beside those joins them (from --seed 1: its own seed, 2), on a crop of its own
    kept["dice-faces-2.onnx"] = (added / "dice-faces-2.onnx").read_bytes()
    third_cfg = replace(cfg, out=str(single), checkpoint_dir=str(tmp_path / "added"), add_second_faces=True, seed=1, second_crop_size=48, second_crop_context=1.2)
    third = train(third_cfg, logged.append)
    assert {name: (third / name).read_bytes() for name in kept} == kept
    records = json.loads((third / "model.json").read_text())["second_faces"]
    assert [(r["file"], r["seed"], r["crop_size"], r["crop_context"]) for r in records] == [
        ("dice-faces-2.onnx", 1, CROP_SIZE, 1.0), ("dice-faces-3.onnx", 2, 48, 1.2)
    ]
    assert [f.file for f in LearnedModel(third).second_faces] == ["dice-faces-2.onnx", "dice-faces-3.onnx"]
    # a new model drops the networks an older one had beside its first
    assert train(replace(cfg, out=str(single), second_faces=False), logged.append) == single
    assert not list(single.glob("dice-faces-*.onnx")) and not LearnedModel(single).has_second_faces


def test_a_second_face_network_with_its_own_crop(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    rendered, photos = sources
    cfg = TrainConfig(
        out=str(tmp_path / "model"), rendered=(str(rendered),), real=(RealSource(str(photos), "face"),),
        detector_steps=2, detector_batch=2, detector_patch=128, face_steps=2, face_batch=8, threads=1,
        second_crop_size=48, second_crop_context=1.0,
    )  # fmt: skip
    out = train(cfg, lambda line: None)
    [second] = json.loads((out / "model.json").read_text())["second_faces"]
    assert (second["crop_size"], second["crop_context"]) == (48, 1.0) and "int8_agreement" in second
    model = LearnedModel(out)
    assert model.crop_size == CROP_SIZE and [(f.crop_size, f.crop_context) for f in model.second_faces] == [(48, 1.0)]
    from vision.imageio import load_image

    frame = load_image(rendered / "train_000000.jpg")
    reading = LearnedReader(model, min_confidence=0.9999).read(frame)
    assert all(0.0 <= d.confidence <= 1.0 for d in reading.dice)


def test_hard_dice_are_those_the_first_network_reads_unsure_or_wrong() -> None:
    image = np.zeros((120, 160, 3), np.uint8)
    # the "network" reads a crop by its brightness: each die's crop is painted with what it should say
    sure, unsure, wrong = (TrainDie(30.0, 60.0, 20.0, 3), TrainDie(80.0, 60.0, 20.0, 4), TrainDie(130.0, 60.0, 20.0, 5))
    for die, level in ((sure, 250), (unsure, 120), (wrong, 20)):
        image[int(die.cy) - 12 : int(die.cy) + 12, int(die.cx) - 12 : int(die.cx) + 12] = level
    frame = TrainFrame(image, (sure, unsure, wrong), 20.0, "painted", negatives=((10.0, 10.0, 20.0),))
    easy = TrainFrame(image, (sure,), 20.0, "painted")

    def probabilities(crops: np.ndarray) -> np.ndarray:
        out = np.full((len(crops), len(CLASSES)), 0.01)
        for row, crop in zip(out, crops):
            level = float(crop[:, 20, 20].mean())
            if level > 0.9:
                row[3] = 0.95  # sure, and right for the die painted brightest
            elif level > 0.3:
                row[4] = 0.6  # right but unsure
            else:
                row[4] = 0.97  # sure, and wrong (the die is a five)
        return out / out.sum(axis=1, keepdims=True)

    pools, weights = hard_dice([[frame, easy], [easy]], [0.25, 0.75], probabilities, CROP_SIZE, 1.4, 0.9)
    # the pool without hard dice is left out; the other keeps its frame with the two hard dice and no negatives
    assert len(pools) == 1 and weights == [1.0]
    [[hard]] = pools
    assert hard.dice == (unsure, wrong) and hard.negatives == ()
    # two pools' weights: each pool's weight times its share of hard dice
    pools, weights = hard_dice([[frame, easy], [frame]], [0.5, 0.5], probabilities, CROP_SIZE, 1.4, 0.9)
    assert len(pools) == 2 and weights == pytest.approx([(0.5 * 2 / 4) / (0.5 * 2 / 4 + 0.5 * 2 / 3), (0.5 * 2 / 3) / (0.5 * 2 / 4 + 0.5 * 2 / 3)])


def test_a_second_face_network_trained_on_the_dice_the_first_is_unsure_of(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    rendered, photos = sources
    cfg = TrainConfig(
        out=str(tmp_path / "model"), rendered=(str(rendered),), real=(RealSource(str(photos), "face"),),
        detector_steps=2, detector_batch=2, detector_patch=128, face_steps=2, face_batch=8, threads=1,
        second_hard_share=0.5, second_camera_share=0.5, second_standardised=True,
    )  # fmt: skip
    logged: list[str] = []
    out = train(cfg, logged.append)
    # a first network of two steps is unsure of nearly every die: the second draws half its samples from them
    [line] = [line for line in logged if "unsure of or wrong about" in line]
    assert "dice-faces-2.onnx" in line and "50%" in line and int(line.split(": ")[1].split()[0]) > 0
    [second] = json.loads((out / "model.json").read_text())["second_faces"]
    assert second["hard_share"] == 0.5 and second["camera_share"] == 0.5 and LearnedModel(out).has_second_faces
    assert second["input"] == "standardised"
    # its record names the real photos it learned from, and how many of their labels were corrected
    [real] = second["real"]
    assert (real["folder"], real["boxes"], real["label_corrections"]) == ("photos", "face", 0) and real["train_images"] > 0


def _small_model(tmp_path: Path, sources: tuple[Path, Path]) -> tuple[TrainConfig, Path]:
    """A model of a few steps trained on ``sources`` into ``tmp_path / "model"``, and its recipe."""
    rendered, photos = sources
    cfg = TrainConfig(
        out=str(tmp_path / "model"), rendered=(str(rendered),), real=(RealSource(str(photos), "face"),),
        detector_steps=2, detector_batch=2, detector_patch=128, face_steps=2, face_batch=8, threads=1,
    )  # fmt: skip
    return cfg, train(cfg, lambda line: None)


def test_a_face_network_of_the_first_look_beside_a_kept_model(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    cfg, out = _small_model(tmp_path, sources)
    kept = {p.name: p.read_bytes() for p in out.glob("*.onnx")}
    first_meta = json.loads((out / "model.json").read_text())
    # it reads the first's crop, whatever crop the second networks are given
    look_cfg = replace(cfg, add_second_faces=True, first_look=True, second_standardised=True, second_crop_context=1.0, checkpoint_dir=str(tmp_path / "look"))
    logged: list[str] = []
    again = train(look_cfg, logged.append)
    assert any("faces-1b step 1/2" in line for line in logged)
    assert {n: b for n, b in ((p.name, p.read_bytes()) for p in again.glob("*.onnx")) if n in kept} == kept
    meta = json.loads((again / "model.json").read_text())
    [look] = meta.pop("first_look")
    assert meta == first_meta  # the first network and the second look are as they were
    assert (look["file"], look["seed"], look["crop_size"], look["crop_context"], look["input"]) == ("dice-faces-1b.onnx", 1, CROP_SIZE, 1.4, "standardised")
    model = LearnedModel(again)
    assert [f.file for f in model.first_look] == ["dice-faces-1b.onnx"] and len(model.second_faces) == 1
    assert "rendered_bold_marble" not in look
    # a second one joins the first; the rendered set it was given, veined boldly and with streaks
    # of glare, is recorded
    train(replace(look_cfg, seed=1, rendered_bold_marble=0.6, rendered_glare_streaks=0.3), lambda line: None)
    assert [f.file for f in LearnedModel(again).first_look] == ["dice-faces-1b.onnx", "dice-faces-1c.onnx"]
    second = json.loads((again / "model.json").read_text())["first_look"][1]
    assert (second["rendered_bold_marble"], second["rendered_glare_streaks"]) == (0.6, 0.3)
    with pytest.raises(ValueError, match="beside a kept model"):
        train(replace(cfg, first_look=True), lambda line: None)


def test_a_new_detector_beside_kept_face_networks(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    cfg, out = _small_model(tmp_path, sources)
    faces = {p.name: p.read_bytes() for p in out.glob("dice-faces*.onnx")}
    detector = (out / "dice-detector.onnx").read_bytes()
    first_meta = json.loads((out / "model.json").read_text())
    logged: list[str] = []
    again = train(replace(cfg, detector_only=True, detector_steps=3, seed=5, checkpoint_dir=str(tmp_path / "new")), logged.append)
    assert any("detector step 2/3" in line for line in logged) and any("kept the face networks" in line for line in logged)
    assert not any("faces" in line and " step " in line for line in logged)
    assert {p.name: p.read_bytes() for p in again.glob("dice-faces*.onnx")} == faces
    assert (again / "dice-detector.onnx").read_bytes() != detector
    meta = json.loads((again / "model.json").read_text())
    record = meta.pop("detector")
    assert meta == first_meta  # the face networks' record stays as it was
    assert (record["seed"], record["steps"], record["real"][0]["folder"]) == (5, 3, "photos")
    model = LearnedModel(again)  # the reader loads it, with the face networks it had
    assert model.has_second_faces and model.temperature == first_meta["temperature"]
    assert all(0.0 <= d.confidence <= 1.0 for d in LearnedReader(model).read(np.full((240, 320, 3), 128, np.uint8)).dice)
    with pytest.raises(ValueError, match="not two at once"):
        train(replace(cfg, detector_only=True, add_second_faces=True), lambda line: None)
    with pytest.raises(ModelError, match="nothing-here"):
        train(replace(cfg, out=str(tmp_path / "nothing-here"), detector_only=True), lambda line: None)


def test_a_new_first_face_network_beside_a_kept_detector_and_networks(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    cfg, out = _small_model(tmp_path, sources)
    kept = {p.name: p.read_bytes() for p in out.glob("*.onnx") if p.name not in ("dice-faces.onnx", "dice-faces.s8.onnx")}
    first = (out / "dice-faces.onnx").read_bytes()
    first_meta = json.loads((out / "model.json").read_text())
    logged: list[str] = []
    again = train(
        replace(cfg, first_faces_only=True, face_steps=3, seed=5, rendered_glare_streaks=0.3, face_separable=True, checkpoint_dir=str(tmp_path / "new")),
        logged.append,
    )
    assert any("faces step 2/3" in line for line in logged) and not any("detector step" in line for line in logged)
    assert {n: b for n, b in ((p.name, p.read_bytes()) for p in again.glob("*.onnx")) if n in kept} == kept
    assert (again / "dice-faces.onnx").read_bytes() != first
    meta = json.loads((again / "model.json").read_text())
    temperature = meta["temperature"]
    training, detector = meta.pop("training"), meta.pop("detector")
    old_training = first_meta.pop("training")
    for key in ("temperature", "min_confidence"):
        first_meta.pop(key), meta.pop(key)
    assert meta == first_meta  # the second look's networks and the scales are as they were
    assert (training["seed"], training["face_steps"], training["rendered_glare_streaks"], training["face_separable"]) == (5, 3, 0.3, True)
    assert "rendered_bold_marble" not in training and "face_separable" not in old_training
    assert not any(k.startswith("detector_") for k in training) and "real_weight" not in training
    # the kept detector's record moves out of the old training record, as it was
    assert (detector["seed"], detector["steps"], detector["real_weight"]) == (old_training["seed"], old_training["detector_steps"], old_training["real_weight"])
    model = LearnedModel(again)
    assert model.has_second_faces and model.temperature == temperature
    assert all(0.0 <= d.confidence <= 1.0 for d in LearnedReader(model).read(np.full((240, 320, 3), 128, np.uint8)).dice)
    with pytest.raises(ValueError, match="not two at once"):
        train(replace(cfg, first_faces_only=True, add_second_faces=True), lambda line: None)
    with pytest.raises(ModelError, match="nothing-here"):
        train(replace(cfg, out=str(tmp_path / "nothing-here"), first_faces_only=True), lambda line: None)


def test_a_second_face_network_needs_a_model_to_add_to(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    rendered, photos = sources
    cfg = TrainConfig(out=str(tmp_path / "empty"), rendered=(str(rendered),), add_second_faces=True, threads=1)
    with pytest.raises(ModelError, match="empty"):
        train(cfg, lambda line: None)


def test_a_model_trained_on_bigger_crops_is_read_at_its_size(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    rendered, photos = sources
    cfg = TrainConfig(
        out=str(tmp_path / "model"), rendered=(str(rendered),), real=(RealSource(str(photos), "face"),),
        detector_steps=2, detector_batch=2, detector_patch=128, face_steps=2, face_batch=8, threads=1, crop_size=56,
    )  # fmt: skip
    out = train(cfg, lambda _: None)
    model = LearnedModel(out)
    assert json.loads((out / "model.json").read_text())["crop_size"] == 56 == model.crop_size
    from vision.learned import FoundDie

    crops = model.crops(np.full((200, 300, 3), 90, np.uint8), [FoundDie(100.0, 80.0, 40.0, 1.0), FoundDie(10.0, 10.0, 30.0, 1.0)])
    assert crops.shape == (2, 3, 56, 56)
    assert model.face_probabilities(crops).shape == (2, len(CLASSES))


@pytest.mark.parametrize("min_agreement", [0.0, 1.01])
def test_the_face_network_in_8_bits_only_where_it_classes_as_the_float_one(
    tmp_path: Path, sources: tuple[Path, Path], min_agreement: float
) -> None:
    rendered, photos = sources
    cfg = TrainConfig(
        out=str(tmp_path / "model"), rendered=(str(rendered),), real=(RealSource(str(photos), "face"),),
        detector_steps=2, detector_batch=2, detector_patch=128, face_steps=3, face_batch=8, threads=1,
        int8_agreement=min_agreement,
    )  # fmt: skip
    logged: list[str] = []
    out = train(cfg, logged.append)
    import onnx

    ops = {node.op_type for node in onnx.load(str(out / "dice-faces.onnx")).graph.node}
    meta = json.loads((out / "model.json").read_text())
    assert 0.0 <= meta["training"]["int8_agreement"] <= 1.0
    assert any("8-bit face network" in line for line in logged)
    if min_agreement == 0.0:
        assert meta["training"]["int8"] and "QLinearConv" in ops
        # beside it its twin with signed weights, for CPUs with VNNI
        twin = onnx.load(str(out / "dice-faces.s8.onnx"))
        assert [n.op_type for n in twin.graph.node] == [n.op_type for n in onnx.load(str(out / "dice-faces.onnx")).graph.node]
    else:
        assert not meta["training"]["int8"] and "QLinearConv" not in ops and "Conv" in ops
        assert not (out / "dice-faces.s8.onnx").exists()
    frame = np.full((240, 320, 3), 128, np.uint8)
    assert all(0.0 <= d.confidence <= 1.0 for d in LearnedReader(LearnedModel(out)).read(frame).dice)


def test_train_command(tmp_path: Path, sources: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, photos = sources
    status = main([
        "train", "--out", str(tmp_path / "m"), "--real", f"{photos}:face", "--rendered", "4",
        "--detector-steps", "2", "--face-steps", "2", "--detector-batch", "2", "--face-batch", "4", "--threads", "1",
        "--crop-size", "48", "--float",
    ])
    assert status == 0
    assert (tmp_path / "m" / "dice-detector.onnx").is_file()
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    assert meta["crop_size"] == 48 and meta["training"]["int8_agreement"] is None
    assert "models written to" in capsys.readouterr().out
    assert [r["seed"] for r in meta["second_faces"]] == [1] and (tmp_path / "m" / "dice-faces-2.onnx").is_file()
    # one face network where asked for, and a second added later at the kept one's crop size
    one = [
        "train", "--out", str(tmp_path / "one"), "--real", f"{photos}:face", "--rendered", "4",
        "--detector-steps", "2", "--face-steps", "2", "--detector-batch", "2", "--face-batch", "4", "--threads", "1",
        "--crop-size", "48", "--float", "--one-face-network",
    ]  # fmt: skip
    assert main(one) == 0 and not (tmp_path / "one" / "dice-faces-2.onnx").exists()
    assert main([*one[:-2], "--crop-size", "40", "--add-second-faces"]) == 0
    assert LearnedModel(tmp_path / "one").has_second_faces and LearnedModel(tmp_path / "one").crop_size == 48


def test_train_command_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--out", str(tmp_path), "--real", str(tmp_path / "nowhere")]) == 2
    assert "nowhere" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["train", "--out", str(tmp_path), "--real", "x:wrong"])
    assert exited.value.code == 2
    assert main(["train", "--out", str(tmp_path), "--rendered", "0"]) == 2
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--crop-size", "8"]) == 2
    assert "--crop-size" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--second-crop-size", "200"]) == 2
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--second-crop-context", "0.5"]) == 2
    assert "--second-crop-context" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--second-hard-share", "0.95"]) == 2
    assert "--second-hard-share" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--second-camera-share", "1.5"]) == 2
    assert "--second-camera-share" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--bold-marble", "-0.1"]) == 2
    assert "--bold-marble" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--glare-streaks", "1.5"]) == 2
    assert "--glare-streaks 1.5: must be from 0 to 1" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "no-model"), "--rendered", "2", "--add-second-faces"]) == 2
    assert "no-model" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "no-model"), "--rendered", "2", "--detector-only"]) == 2
    assert "no-model" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--detector-only", "--add-second-faces"]) == 2
    assert "not two at once" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--first-faces-only", "--detector-only"]) == 2
    assert "--detector-only and --first-faces-only" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "no-model"), "--rendered", "2", "--first-faces-only"]) == 2
    assert "no-model" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path), "--rendered", "2", "--first-look"]) == 2
    assert "give --add-second-faces too" in capsys.readouterr().err
