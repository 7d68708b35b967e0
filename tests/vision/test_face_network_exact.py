"""The shipped 8-bit face networks read a die the same on every CPU.

ONNX Runtime runs an 8-bit network with the kernels the CPU has. Unsigned activations times
signed weights run, on x86 CPUs without VNNI, on an instruction whose 16-bit sums saturate; the
shipped network stores its weights unsigned so that no CPU does. Here the network is set against
a float graph that computes what exact integer arithmetic computes (each layer dequantized,
convolved in floats, quantized again), on crops of rendered trays and of real photos. Its twin
with signed weights, which CPUs with VNNI run instead (faster, in 32-bit sums), holds the same
numbers and computes the same integers there.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hardware.sim import random_scene, render_tray
from vision.dataset import load_dataset
from vision import learned
from vision.learned import (
    FACES_FILE,
    MODEL_DIR,
    LearnedModel,
    LearnedReader,
    find_big_dice,
    multiplies_signed_bytes_exactly,
    signed_twin,
    softmax,
)
from vision.splits import subset

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def _exact_graph(model: Any) -> Any:
    """``model`` (QOperator form) as float operations that give exact integer arithmetic's answer."""
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    nodes: list[Any] = []
    added: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        added.append(numpy_helper.from_array(value.astype(np.float32), name))
        return name

    def dequantized(values: str, scale: str, zero: str, axis_shape: tuple[int, ...]) -> np.ndarray:
        q = init[values].astype(np.float32) - init[zero].astype(np.float32).reshape(axis_shape)
        return q * init[scale].astype(np.float32).reshape(axis_shape)

    for k, node in enumerate(model.graph.node):
        if node.op_type == "QLinearConv":
            x, xs, xz, w, ws, wz, ys, yz = node.input[:8]
            inputs = [f"x{k}", const(f"w{k}", dequantized(w, ws, wz, (-1, 1, 1, 1)))]
            if len(node.input) > 8:
                inputs.append(const(f"b{k}", init[node.input[8]].astype(np.float32) * init[xs] * init[ws]))
            conv = helper.make_node("Conv", inputs, [f"y{k}"])
            conv.attribute.extend(node.attribute)
            nodes += [helper.make_node("DequantizeLinear", [x, xs, xz], [f"x{k}"]), conv]
            nodes.append(helper.make_node("QuantizeLinear", [f"y{k}", ys, yz], list(node.output)))
        elif node.op_type == "QLinearGlobalAveragePool":
            x, xs, xz, ys, yz = node.input
            nodes += [
                helper.make_node("DequantizeLinear", [x, xs, xz], [f"x{k}"]),
                helper.make_node("GlobalAveragePool", [f"x{k}"], [f"y{k}"]),
                helper.make_node("QuantizeLinear", [f"y{k}", ys, yz], list(node.output)),
            ]
        elif node.op_type == "QGemm":
            a, a_scale, a_zero, b, b_scale, b_zero, c = node.input[:7]
            weights = const(f"w{k}", dequantized(b, b_scale, b_zero, (-1, 1)))
            bias = const(f"b{k}", init[c].astype(np.float32) * init[a_scale] * init[b_scale])
            gemm = helper.make_node("Gemm", [f"x{k}", weights, bias], [f"y{k}"] if len(node.input) > 7 else list(node.output))
            gemm.attribute.extend(node.attribute)
            nodes += [helper.make_node("DequantizeLinear", [a, a_scale, a_zero], [f"x{k}"]), gemm]
            if len(node.input) > 7:
                nodes.append(helper.make_node("QuantizeLinear", [f"y{k}", node.input[7], node.input[8]], list(node.output)))
        else:
            nodes.append(node)
    used = {name for n in nodes for name in n.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    graph = helper.make_graph(nodes, "exact", list(model.graph.input), list(model.graph.output), kept + added)
    return helper.make_model(graph, opset_imports=model.opset_import)


def _loaded(model: Any, optimise: bool) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    if not optimise:  # left as written: fused back together, the graph would be 8-bit again
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def crops() -> dict[str, np.ndarray]:
    """Crops of every die the reader finds on seeded rendered trays and on real val photos, as each
    face network reads them (the second cuts its own)."""
    reader = LearnedReader()
    assert reader.model.has_second_faces
    frames = []
    rng = np.random.default_rng(11)
    frames += [render_tray(random_scene(rng), rng).frame for _ in range(12)]
    for name in ("byler-d6-train", "real-d6"):
        if (DATA / name).is_dir():
            frames += [image.load() for image in subset(load_dataset(DATA / name), "val").images[:12]]
    first: list[np.ndarray] = []
    beside: list[list[np.ndarray]] = [[] for _ in reader.model.second_faces]
    for frame in frames:
        found = reader.find(frame) + find_big_dice(frame, reader.model.detect_raw, reader.min_score)
        if found:
            first.append(reader.model.crops(frame, found))
            for cut, own in zip(beside, reader.model.second_crops(frame, found)):
                cut.append(own)
    # the networks of the first look read the first's crops
    firsts = dict.fromkeys([FACES_FILE, *(f.file for f in reader.model.first_look)], np.concatenate(first))
    return firsts | {f.file: np.concatenate(c) for f, c in zip(reader.model.second_faces, beside)}


#: Every shipped face network: the first, those of the first look (they read its crops) and those beside it.
NETWORKS = pytest.mark.parametrize("name", [FACES_FILE, *(f.file for f in (*LearnedModel().first_look, *LearnedModel().second_faces))])


@NETWORKS
def test_the_shipped_weights_are_unsigned(name: str) -> None:
    model = onnx.load(str(MODEL_DIR / name))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    weights = [init[n.input[3]] for n in model.graph.node if n.op_type in ("QLinearConv", "QGemm")]
    assert weights and all(w.dtype == np.uint8 for w in weights)


@NETWORKS
def test_the_face_network_computes_exact_integer_arithmetic(crops: dict[str, np.ndarray], name: str) -> None:
    model = onnx.load(str(MODEL_DIR / name))
    shipped, exact = _loaded(model, optimise=True), _loaded(_exact_graph(model), optimise=False)
    assert len(crops[name]) > 100
    got = softmax(shipped.run(None, {"image": crops[name]})[0].astype(np.float64))
    want = softmax(exact.run(None, {"image": crops[name]})[0].astype(np.float64))
    assert (got.argmax(axis=1) == want.argmax(axis=1)).all()
    # only the float rounding of each requantization differs (an 8-bit network that saturates
    # is off by up to 0.9 on some crops)
    assert float(np.abs(got - want).max()) < 0.05


@NETWORKS
def test_the_signed_twin_holds_the_same_numbers(name: str) -> None:
    unsigned, signed = onnx.load(str(MODEL_DIR / name)), onnx.load(str(signed_twin(MODEL_DIR / name)))
    assert [(n.op_type, list(n.input)) for n in unsigned.graph.node] == [(n.op_type, list(n.input)) for n in signed.graph.node]
    moved = {n.input[i] for n in unsigned.graph.node if n.op_type in ("QLinearConv", "QGemm") for i in (3, 5)}
    theirs = {t.name: numpy_helper.to_array(t) for t in signed.graph.initializer}
    for tensor in unsigned.graph.initializer:
        ours = numpy_helper.to_array(tensor)
        if tensor.name in moved:
            assert ours.dtype == np.uint8 and theirs[tensor.name].dtype == np.int8
            assert (ours.astype(np.int16) - 128 == theirs[tensor.name]).all()
        else:
            assert ours.dtype == theirs[tensor.name].dtype and (ours == theirs[tensor.name]).all()


@NETWORKS
def test_the_signed_twin_computes_exact_integer_arithmetic_where_it_is_loaded(crops: dict[str, np.ndarray], name: str) -> None:
    if not multiplies_signed_bytes_exactly():
        pytest.skip("this CPU runs the unsigned network (no VNNI)")
    shipped = _loaded(onnx.load(str(MODEL_DIR / name)), optimise=True)
    twin = _loaded(onnx.load(str(signed_twin(MODEL_DIR / name))), optimise=True)
    exact = _loaded(_exact_graph(onnx.load(str(MODEL_DIR / name))), optimise=False)
    got = softmax(twin.run(None, {"image": crops[name]})[0].astype(np.float64))
    want = softmax(exact.run(None, {"image": crops[name]})[0].astype(np.float64))
    assert (got.argmax(axis=1) == want.argmax(axis=1)).all()
    assert float(np.abs(got - want).max()) < 0.05
    # the same integers as the unsigned network: the same numbers to the last bit
    assert (twin.run(None, {"image": crops[name]})[0] == shipped.run(None, {"image": crops[name]})[0]).all()


def test_which_cpus_run_the_signed_twin() -> None:
    assert multiplies_signed_bytes_exactly("x86_64", "flags\t: fpu sse2 avx2 avx512f avx512_vnni")
    assert multiplies_signed_bytes_exactly("AMD64", "flags\t: sse2 avx2 avx_vnni")
    assert not multiplies_signed_bytes_exactly("x86_64", "flags\t: fpu sse2 avx avx2 fma")  # 16-bit sums saturate
    assert not multiplies_signed_bytes_exactly("aarch64", "Features\t: fp asimd avx512_vnni")


def _runs_twin(model: LearnedModel) -> bool:
    return learned.TWIN_OF_KEY in model._faces.get_modelmeta().custom_metadata_map


def test_the_twin_is_loaded_only_where_the_cpu_runs_it_exactly_and_only_for_its_own_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    monkeypatch.setattr(learned, "multiplies_signed_bytes_exactly", lambda: False)
    assert not _runs_twin(LearnedModel(folder))
    monkeypatch.setattr(learned, "multiplies_signed_bytes_exactly", lambda: True)
    assert _runs_twin(LearnedModel(folder))
    # a twin made from another network (a face network retrained, its old twin left) or damaged
    # is passed over: the network itself is read
    shutil.copy(signed_twin(folder / "dice-faces-2.onnx"), signed_twin(folder / FACES_FILE))
    assert not _runs_twin(LearnedModel(folder))
    signed_twin(folder / FACES_FILE).write_bytes(b"not a network")
    assert not _runs_twin(LearnedModel(folder))


@NETWORKS
def test_the_shipped_twins_are_made_from_the_shipped_networks(name: str) -> None:
    import hashlib

    twin = ort.InferenceSession(str(signed_twin(MODEL_DIR / name)), providers=["CPUExecutionProvider"])
    assert twin.get_modelmeta().custom_metadata_map[learned.TWIN_OF_KEY] == hashlib.sha256((MODEL_DIR / name).read_bytes()).hexdigest()
