"""The networks of the learned reader and of the face embedding (PyTorch; needs the ``train`` extra).

:class:`DiceDetector` finds dice top faces in a frame scaled to the working size: a centre heat map,
the die's size and the centre's sub-cell offset, at a quarter of the input's resolution.
:class:`FaceNet` reads one square crop of a found die: which of :data:`vision.learned.CLASSES` it is.
:class:`FaceEmbedder` maps a grey face square to a vector that a calibrated profile's exemplars are
matched by (:mod:`vision.face_embedding`). All are plain convolutions, batch norm and ReLU, so ONNX Runtime and OpenCV's DNN module run them.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.learned import CLASSES, CROP_CONTEXT, CROP_SIZE


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _sep(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Depthwise then pointwise: most of a 3x3 convolution's reach for a fraction of its cost."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class DiceDetector(nn.Module):
    """Input: N x 3 x H x W, BGR scaled to 0-1 (H, W multiples of 16). Output: N x 5 x H/4 x W/4:
    centre logit, log of the die's size in input pixels, and the centre's x, y offset in cells."""

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        w = width
        self.stem = nn.Sequential(_conv(3, 16, 2), _conv(16, w, 2))  # stride 4
        self.s4 = _sep(w, w)
        self.s8 = nn.Sequential(_sep(w, 2 * w, 2), _sep(2 * w, 2 * w))
        self.s16 = nn.Sequential(_sep(2 * w, 3 * w, 2), _sep(3 * w, 3 * w), _sep(3 * w, 3 * w))
        self.s32 = nn.Sequential(_sep(3 * w, 4 * w, 2), _sep(4 * w, 4 * w))
        self.lat16 = nn.Conv2d(4 * w, 3 * w, 1)
        self.lat8 = nn.Conv2d(3 * w, 2 * w, 1)
        self.lat4 = nn.Conv2d(2 * w, w, 1)
        self.head = nn.Sequential(_sep(w, w), nn.Conv2d(w, 5, 1))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        # Start the centre map at a prior of about one cell in ten, as centre-point detectors do,
        # so the first steps are not spent unlearning a 0.5 everywhere.
        last = self.head[-1]
        assert isinstance(last, nn.Conv2d) and last.bias is not None
        nn.init.constant_(last.bias, 0.0)
        with torch.no_grad():
            last.bias[0] = -2.19

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        p16 = f16 + self.up(self.lat16(f32))
        p8 = f8 + self.up(self.lat8(p16))
        p4 = f4 + self.up(self.lat4(p8))
        out: torch.Tensor = self.head(p4)
        return out


class CropStandardise(nn.Module):
    """Each channel of each crop shifted and scaled to mean 0 and spread 1 (its spread floored at
    ``floor``, so a flat channel's noise is not blown up without end): a crop of a dim die, of a
    die under a coloured lamp, or of red pips on a dark red body looks alike to what follows."""

    def __init__(self, floor: float = 0.01) -> None:
        super().__init__()
        self.floor2 = floor * floor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        centred = x - x.mean(dim=(2, 3), keepdim=True)
        spread = torch.sqrt((centred * centred).mean(dim=(2, 3), keepdim=True) + self.floor2)
        return centred / spread


class FaceNet(nn.Module):
    """Input: N x 3 x ``crop`` x ``crop`` crops (``context`` times a die's size), BGR 0-1. Output:
    N x len(CLASSES) logits. With ``standardise`` the network first scales each crop's channels
    to one contrast (:class:`CropStandardise`), inside the network, so the reader feeds it as any
    other. With ``separable`` the three 3x3 convolutions after the first are depthwise then
    pointwise: about half the parameters and half the time in 8-bit integers on a CPU without
    dot-product instructions (x86 without VNNI, the Raspberry Pi 4's Cortex-A72), where those
    three take most of it."""

    def __init__(
        self, width: int = 32, crop: int = CROP_SIZE, context: float = CROP_CONTEXT, standardise: bool = False, separable: bool = False
    ) -> None:
        super().__init__()
        w = width
        middle = _sep if separable else _conv
        self.standardise = CropStandardise() if standardise else nn.Identity()
        self.features = nn.Sequential(
            _conv(3, w // 2),
            middle(w // 2, w, 2),
            middle(w, w),
            middle(w, 2 * w, 2),
            _sep(2 * w, 2 * w),
            _sep(2 * w, 3 * w, 2),
            _sep(3 * w, 3 * w),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classify = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(3 * w, len(CLASSES)))
        self.crop = crop
        self.context = context  # how much of a die's size its crops show

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.classify(self.features(self.standardise(x)))
        return out


class FaceEmbedder(nn.Module):
    """Input: N x 1 x ``square`` x ``square`` grey face squares, each scaled by
    :func:`vision.face_embedding.embedding_input`. Output: N x ``dim`` unit vectors, close for two
    shots of one face and apart for two faces.

    The features are pooled both by their mean and their largest value: a small corner number is
    a strong response in few places, which a mean alone dilutes."""

    def __init__(self, width: int = 32, dim: int = 64) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _conv(1, w, 2),
            _conv(w, w),
            _conv(w, 2 * w, 2),
            _sep(2 * w, 2 * w),
            _sep(2 * w, 4 * w, 2),
            _sep(4 * w, 4 * w),
        )
        self.project = nn.Linear(8 * w, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)
        pooled = torch.cat([f.mean(dim=(2, 3)), f.amax(dim=(2, 3))], dim=1)
        out: torch.Tensor = nn.functional.normalize(self.project(pooled), dim=1)
        return out
