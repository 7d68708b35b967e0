"""The public reading contract: one :class:`DieReading` per die, one :class:`FrameReading` per frame.

These values are what ``dicetray read --json`` prints and what the service scores.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class DieStatus(str, enum.Enum):
    """Why a die can or cannot be trusted."""

    OK = "ok"
    COCKED = "cocked"  # leaning against a wall or another die: no single top face
    OCCLUDED = "occluded"  # partly hidden or out of frame
    UNREADABLE = "unreadable"  # the face matches no known layout or calibrated face


@dataclass(frozen=True)
class BodyColour:
    """A die's body colour: a name (``red``, ``white``, ...; :mod:`vision.colour`) and the
    measured sRGB value, 0-255 each."""

    name: str
    rgb: tuple[int, int, int]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "rgb": list(self.rgb)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BodyColour:
        r, g, b = (int(v) for v in data["rgb"])
        return cls(str(data["name"]), (r, g, b))


@dataclass(frozen=True)
class DieReading:
    """One die found in a frame.

    ``value`` is the number 1-6, or ``None`` when the status is not ``ok``. ``face`` is the face label
    (``"4"`` for pips, a profile's label for a calibrated die). ``box`` is x, y, width, height in pixels
    of the top face. ``reason`` says why a die that is not ``ok`` was not read (``"unsure: 3 or 5"``);
    ``candidates`` are the faces an unsure die may show, likeliest first, and ``candidate_values``
    their numbers when known (a calibrated die's ``sword-1`` and ``sword-3`` are 1 and 3); ``symbol``
    is set on an unsure die whose candidates all show that symbol. ``colour`` is the body colour
    of the die (None where it was not measured).
    """

    value: int | None
    confidence: float
    box: tuple[int, int, int, int]
    status: DieStatus
    face: str | None = None
    symbol: str | None = None
    reason: str | None = None
    candidates: tuple[str, ...] = ()
    candidate_values: tuple[int, ...] = ()
    colour: BodyColour | None = None

    @property
    def ok(self) -> bool:
        return self.status is DieStatus.OK and self.value is not None

    def text(self) -> str:
        """The die in a roll's text, without spaces: its number (``4``); for a die with a symbol
        (a calibrated hero die) its face label, number and symbol (``sword-1:1:sword``); for an
        unsure die the faces it may be (``(sword-1|sword-3)``); else ``?``."""
        if self.ok:
            if self.symbol:
                return f"{self.face or self.value}:{self.value}:{self.symbol}"
            return str(self.value)
        if self.candidates:
            return f"({'|'.join(self.candidates)})"
        return "?"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "value": self.value,
            "face": self.face,
            "symbol": self.symbol,
            "confidence": round(float(self.confidence), 4),
            "box": [int(v) for v in self.box],
            "status": self.status.value,
        }
        if self.reason is not None:
            data["reason"] = self.reason
        if self.candidates:
            data["candidates"] = list(self.candidates)
        if self.candidate_values:
            data["candidate_values"] = list(self.candidate_values)
        if self.colour is not None:
            data["colour"] = self.colour.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DieReading:
        box = data["box"]
        return cls(
            value=data.get("value"),
            confidence=float(data.get("confidence", 0.0)),
            box=(int(box[0]), int(box[1]), int(box[2]), int(box[3])),
            status=DieStatus(data.get("status", "ok")),
            face=data.get("face"),
            symbol=data.get("symbol"),
            reason=data.get("reason"),
            candidates=tuple(str(c) for c in data.get("candidates", ())),
            candidate_values=tuple(int(v) for v in data.get("candidate_values", ())),
            colour=BodyColour.from_json(data["colour"]) if data.get("colour") else None,
        )


@dataclass(frozen=True)
class FrameReading:
    """Every die read in one frame, and the milliseconds the reading took (decoding excluded).

    ``frame_size`` is the frame's width and height in pixels (None when not known, as for a
    reading kept in a log), so a die's place can be told as a share of the tray.
    """

    dice: tuple[DieReading, ...] = field(default_factory=tuple)
    ms: float = 0.0
    frame_size: tuple[int, int] | None = None

    @property
    def values(self) -> tuple[int, ...]:
        """The values of the dice read ``ok``, left to right."""
        ordered = sorted((d for d in self.dice if d.ok), key=lambda d: (d.box[0], d.box[1]))
        return tuple(d.value for d in ordered if d.value is not None)

    @property
    def all_ok(self) -> bool:
        return all(d.ok for d in self.dice)

    def to_json(self) -> dict[str, Any]:
        return {"ms": round(self.ms, 2), "dice": [d.to_json() for d in self.dice]}
