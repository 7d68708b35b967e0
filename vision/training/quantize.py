"""The face network in 8-bit integers: the same classes at a fraction of the cost (needs the
``train`` extra: ``onnx`` for ONNX Runtime's quantizer).

The face network reads every die of every frame, so its cost grows with the dice in the tray. Its
weights (per output channel) and activations are stored as 8-bit integers, with the activations'
ranges measured on crops of real and rendered training dice cut as the reader cuts them; ONNX
Runtime then runs its convolutions in integer arithmetic, on x86 and on the Raspberry Pi's ARM
cores alike. :func:`quantize_faces` checks the result against the float network on held-apart
crops and keeps the float network where the two disagree too often.

The weights are stored as unsigned bytes about 128 (:func:`store_weights_unsigned`), the same
numbers as signed ones: unsigned activations times signed weights run, on x86 CPUs without VNNI
(AVX2 alone), on an instruction that adds each pair of products into 16 bits and saturates, so
the network would read a die differently from one CPU to the next. Unsigned times unsigned is
widened to 16 bits before it is multiplied, on every CPU, so the network computes the same
integers everywhere. Beside it lies its twin with signed weights (:func:`store_weights_signed`),
which CPUs with VNNI (adding in 32 bits, exactly) run two to three times faster.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.learned import TWIN_OF_KEY, signed_twin

F32 = npt.NDArray[np.float32]

#: The share of held-apart crops the 8-bit network must class as the float one does to replace it.
MIN_AGREEMENT = 0.99
#: Crops per batch the quantizer measures activation ranges on.
CALIBRATION_BATCH = 32


def quantize_faces(
    float_model: Path,
    out: Path,
    calibration: F32,
    check: F32,
    log: Callable[[str], None] = print,
    min_agreement: float = MIN_AGREEMENT,
) -> float:
    """Writes the 8-bit version of the face network ``float_model`` to ``out`` when, on the crops
    ``check`` (N x 3 x S x S), it gives the float network's class for at least ``min_agreement``
    of them; otherwise copies the float network there. ``calibration`` are
    the crops its activation ranges are measured on. Returns the share of ``check`` that agreed."""
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    batches = [calibration[i : i + CALIBRATION_BATCH] for i in range(0, len(calibration), CALIBRATION_BATCH)]

    class Crops(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._next = iter(batches)

        def get_next(self) -> dict[str, F32] | None:
            batch = next(self._next, None)
            return None if batch is None else {"image": batch}

    with tempfile.TemporaryDirectory() as work:
        prepared = Path(work) / "prepared.onnx"
        quantized = Path(work) / "quantized.onnx"
        quant_pre_process(str(float_model), str(prepared))
        quantize_static(
            str(prepared),
            str(quantized),
            Crops(),
            quant_format=QuantFormat.QOperator,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=_before_first_conv(prepared),
        )
        store_weights_unsigned(quantized, quantized)
        agreement = _agreement(_classes(ort, float_model, check), _classes(ort, quantized, check))
        chosen = quantized if agreement >= min_agreement else float_model
        log(
            f"8-bit face network: {agreement:.2%} of {len(check)} val crops classed as the float network classes them; "
            + ("kept the 8-bit network" if chosen is quantized else f"under {min_agreement:.0%}, kept the float network")
        )
        tmp = out.with_suffix(".tmp")
        tmp.write_bytes(chosen.read_bytes())
        os.replace(tmp, out)
        twin = signed_twin(out)
        if chosen is quantized:
            store_weights_signed(out, twin)
        else:
            twin.unlink(missing_ok=True)  # a float network has no twin; an old one would stand for it
    return agreement


def _before_first_conv(model: Path) -> list[str]:
    """The names of the nodes ahead of ``model``'s first convolution (a crop's standardisation,
    :class:`vision.training.nets.CropStandardise`): kept in floats, since in 8 bits the spread
    of a dark crop's channel would be a step or two of its range."""
    import onnx

    names: list[str] = []
    for node in onnx.load(str(model)).graph.node:  # an ONNX graph lists its nodes in order
        if node.op_type == "Conv":
            break
        names.append(node.name)
    return names


def store_weights_unsigned(model: Path, out: Path) -> None:
    """Writes ``model`` (an 8-bit network in ONNX's QOperator form, signed weights) to ``out`` with
    each weight ``w`` and weight zero point ``z`` stored as the unsigned bytes ``w + 128`` and
    ``z + 128``: the same network (``w - z`` is unchanged), which every CPU computes exactly."""
    _store_weights(model, out, signed=False)


def store_weights_signed(model: Path, out: Path) -> None:
    """Writes ``model`` (an 8-bit network, unsigned weights) to ``out`` with its weights and
    weight zero points signed again (``w - 128``): the twin CPUs with VNNI run faster, exactly
    (:func:`vision.learned.load_face_network`), marked with the SHA-256 of ``model``'s file so
    that it never stands for another network."""
    _store_weights(model, out, signed=True)


def _store_weights(model: Path, out: Path, signed: bool) -> None:
    import onnx
    from onnx import numpy_helper

    network = onnx.load(str(model))
    if signed:
        del network.metadata_props[:]
        network.metadata_props.add(key=TWIN_OF_KEY, value=hashlib.sha256(model.read_bytes()).hexdigest())
    tensors = {t.name: t for t in network.graph.initializer}
    for node in network.graph.node:
        if node.op_type not in ("QLinearConv", "QGemm", "QLinearMatMul"):
            continue
        # QLinearConv and QGemm: (x, x scale, x zero point, w, w scale, w zero point, ...);
        # QLinearMatMul: (a, a scale, a zero point, b, b scale, b zero point, ...) alike.
        for name in (node.input[3], node.input[5]):
            values = numpy_helper.to_array(tensors[name])
            if signed and values.dtype == np.uint8:
                tensors[name].CopyFrom(numpy_helper.from_array((values.astype(np.int16) - 128).astype(np.int8), name))
            elif not signed and values.dtype == np.int8:
                tensors[name].CopyFrom(numpy_helper.from_array((values.astype(np.int16) + 128).astype(np.uint8), name))
    onnx.checker.check_model(network)
    tmp = out.with_suffix(".tmp")
    onnx.save(network, str(tmp))
    os.replace(tmp, out)


def _classes(ort: Any, path: Path, crops: F32) -> npt.NDArray[np.int64]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    network = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    out: npt.NDArray[np.int64] = np.concatenate(
        [network.run(None, {"image": crops[i : i + 256]})[0].argmax(axis=1) for i in range(0, len(crops), 256)]
    )
    return out


def _agreement(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float:
    return float((a == b).mean()) if len(a) else 1.0

