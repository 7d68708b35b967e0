"""The face embedding's training: a few steps on a few rendered die sets, and an export that
matches the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")

from hardware.sim.identity import identity_crops  # noqa: E402
from vision.errors import DatasetError  # noqa: E402
from vision.face_embedding import EMBEDDING_FILE, FaceEmbedding, embedding_input  # noqa: E402
from vision.learned import ModelError  # noqa: E402
from vision.profile_reader import DESCRIPTOR_SIZE  # noqa: E402
from vision.training.embedding import EmbedConfig, FaceShots, few_shot, supervised_contrastive, train_embedding  # noqa: E402
from vision.training.nets import FaceEmbedder  # noqa: E402
from vision.training.train import export_onnx  # noqa: E402


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("shots")
    train = identity_crops(6, views=3, seed=11, miscut=0.3).save(folder / "train.npz")
    return train, identity_crops(3, views=3, seed=12, miscut=0.3).save(folder / "val.npz")


def test_export_matches_the_network(tmp_path: Path, settled: Any) -> None:
    torch.manual_seed(5)
    net = settled(FaceEmbedder(), torch.randn(16, 1, DESCRIPTOR_SIZE, DESCRIPTOR_SIZE))
    export_onnx(net, torch.zeros(1, 1, DESCRIPTOR_SIZE, DESCRIPTOR_SIZE), tmp_path / EMBEDDING_FILE)
    squares = np.random.default_rng(0).uniform(0, 255, (5, DESCRIPTOR_SIZE, DESCRIPTOR_SIZE)).astype(np.float32)
    with torch.no_grad():
        expected = net(torch.from_numpy(embedding_input(squares))).numpy()
    out = FaceEmbedding(tmp_path).embed(squares)
    assert out.shape == (5, 64)
    np.testing.assert_allclose(out, expected, atol=2e-4)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-4)


def test_the_loss_rewards_shots_of_one_face_close_together() -> None:
    labels = torch.tensor([0, 0, 1, 1])
    apart = torch.nn.functional.normalize(torch.tensor([[1.0, 0], [1, 0.1], [0, 1], [0.1, 1]]), dim=1)
    mixed = torch.nn.functional.normalize(torch.tensor([[1.0, 0], [0, 1], [1, 0.1], [0.1, 1]]), dim=1)
    assert float(supervised_contrastive(apart, labels, 0.1)) < float(supervised_contrastive(mixed, labels, 0.1))


def test_a_few_steps_give_an_embedding_the_reader_loads(tmp_path: Path, shots: tuple[Path, Path]) -> None:
    train, val = shots
    config = EmbedConfig(steps=6, sets_per_step=3, checkpoint_every=3, threads=1)
    record = train_embedding(train, val, tmp_path, config, log=lambda _: None)
    assert set(record["val"]) == {"1_shots", "2_shots", "4_shots"}
    assert 0.0 <= record["val"]["2_shots"]["right"] <= 1.0
    assert -1.0 <= record["val"]["2_shots"]["miscut_p99"] <= 1.0  # badly cut crops were measured
    assert json.loads((tmp_path / "face-embedding.json").read_text())["config"]["steps"] == 6
    embedding = FaceEmbedding(tmp_path)
    assert embedding.embed(FaceShots.load(val).squares[:4]).shape == (4, 64)
    # a run asked for more steps picks up from its checkpoint
    lines: list[str] = []
    train_embedding(train, val, tmp_path, EmbedConfig(steps=9, sets_per_step=3, checkpoint_every=3, threads=1), log=lines.append)
    assert any("resumed at step 6" in line for line in lines)


def test_few_shot_counts_each_held_out_shot(shots: tuple[Path, Path]) -> None:
    val = FaceShots.load(shots[1])

    def perfect(squares: np.ndarray) -> np.ndarray:
        # an oracle: the vector of a shot's own identity, in any turn
        lookup = {np.rot90(s, k).tobytes(): int(i) % 64 for s, i in zip(val.squares, val.identity) for k in range(4)}
        out = np.zeros((len(squares), 64), np.float32)
        for n, s in enumerate(squares):
            out[n, lookup[np.ascontiguousarray(s).tobytes()]] = 1.0
        return out

    figures = few_shot(perfect, val, 1)
    faces = int((val.identity >= 0).sum())
    assert figures["shots"] == faces - 6 * 3
    assert figures["right"] > 0.9  # identities 64 apart share a vector; all else is right


def test_bad_crop_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="missing.npz"):
        FaceShots.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "partial.npz", crops=np.zeros((2, 64, 64), np.uint8))
    with pytest.raises(DatasetError, match="'identity'"):
        FaceShots.load(tmp_path / "partial.npz")
    (tmp_path / "face-embedding.onnx").write_bytes(b"not a network")
    with pytest.raises(ModelError, match="face-embedding.onnx"):
        FaceEmbedding(tmp_path)


def test_train_embedding_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_host.cli import main

    status = main(["train-embedding", "--out", str(tmp_path / "m"), "--sets", "3", "--val-sets", "2", "--views", "2", "--steps", "2", "--threads", "1"])
    assert status == 0
    assert (tmp_path / "m" / EMBEDDING_FILE).is_file() and not (tmp_path / "m" / "embedding.ckpt").exists()
    record = json.loads((tmp_path / "m" / "face-embedding.json").read_text())
    assert set(record["opinion"]) == {"veto", "rescue", "rescue_confidence", "floor", "stranger"}
    FaceEmbedding(tmp_path / "m")  # the opinion it chose is one the reader takes
    assert "face embedding written to" in capsys.readouterr().out
    assert main(["train-embedding", "--out", str(tmp_path), "--sets", "1"]) == 2
    assert "--sets" in capsys.readouterr().err


def test_the_opinion_is_as_sure_as_the_held_out_reads_allow() -> None:
    from vision.training.embedding import FewShotReads, choose_opinion

    rng = np.random.default_rng(0)
    own = rng.uniform(0.6, 1.0, 2000)
    # most reads lead by a lot; wrong ones (rival ahead) never lead by more than 0.1
    rival = own - rng.uniform(0.0, 0.5, 2000)
    wrong = rng.random(2000) < 0.1
    rival[wrong] = own[wrong] + rng.uniform(0.0, 0.1, wrong.sum())
    miscut_best = rng.uniform(0.2, 0.7, 500)
    opinion = choose_opinion(FewShotReads(own, rival, miscut_best, np.full(500, 0.5)))
    assert 0.08 <= opinion["rescue"] <= 0.12
    assert opinion["veto"] <= opinion["rescue"]
    assert 0.69 <= opinion["floor"] <= 0.72  # just above what badly cut crops reach
    assert opinion["rescue_confidence"] >= 0.99
