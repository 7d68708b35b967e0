"""Drawing a :class:`~hardware.sim.scene.TrayScene` into a BGR frame with its ground truth."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from hardware.sim.backgrounds import background_image
from hardware.sim.distractors import draw_distractor
from hardware.sim.faces import DieDesign, DieStyle, FaceKind, face_texture
from hardware.sim.scene import (
    FACE_NORMALS,
    FACE_RIGHT,
    Camera,
    DiePose,
    Hand,
    Lighting,
    TrayScene,
    top_value,
)
from vision.types import DieReading, DieStatus, FrameReading


@dataclass(frozen=True)
class DieTruth:
    """What a perfect reader would know about one die in a rendered frame.

    ``value`` is the face up (for a cocked die, the face most nearly up); ``face`` the face label,
    ``kind`` how it is marked, ``symbol`` its game symbol (symbol faces); ``box`` x, y, w, h of the
    top face in pixels (clipped to the frame); ``quad`` its four corners; ``die_box`` the whole die's
    outline box; ``status`` what a careful reader should report: ``ok``, ``cocked``, ``occluded`` (cut
    by the frame edge or under the hand) or ``unreadable`` (blurred by motion).
    """

    value: int
    face: str
    kind: FaceKind
    symbol: str | None
    box: tuple[int, int, int, int]
    quad: tuple[tuple[float, float], ...]
    die_box: tuple[int, int, int, int]
    status: DieStatus
    design: str = "pips"

    def found_in(self, dice: Sequence[DieReading]) -> DieReading | None:
        """The first of ``dice`` (a reader's) whose box centre lies in this die's box, if any."""
        x, y, w, h = self.box
        for die in dice:
            if x <= die.box[0] + die.box[2] / 2 <= x + w and y <= die.box[1] + die.box[3] / 2 <= y + h:
                return die
        return None

    def reading(self, *, calibrated: bool = False) -> DieReading:
        """The reading a perfect reader would give: the value only when ``ok`` and readable.

        Uncalibrated, only pips can be read: a symbol or numeral face is ``unreadable``;
        ``calibrated`` reads it as its value.
        """
        status = self.status
        if status is DieStatus.OK and self.kind is not FaceKind.PIPS and not calibrated:
            status = DieStatus.UNREADABLE
        ok = status is DieStatus.OK
        return DieReading(
            value=self.value if ok else None,
            confidence=1.0,
            box=self.box,
            status=status,
            face=self.face if ok else None,
            symbol=self.symbol if ok else None,
        )

    def label(self) -> dict[str, Any]:
        """This die as an entry of ``labels.json`` (DESIGN.md format)."""
        entry: dict[str, Any] = {"value": self.value, "box": list(self.box)}
        if self.kind is FaceKind.SYMBOL:
            entry["face"] = self.face
            if self.symbol is not None:
                entry["symbol"] = self.symbol
        else:
            entry["face"] = self.kind.value
        return entry


@dataclass(frozen=True, eq=False)
class RenderedTray:
    """A rendered frame (H, W, 3 uint8 BGR), the truth about each die, and the scene it came from."""

    frame: np.ndarray
    truth: tuple[DieTruth, ...]
    scene: TrayScene

    @property
    def values(self) -> tuple[int, ...]:
        """Values of the dice whose status is ``ok``, left to right (as :attr:`FrameReading.values`)."""
        ok = sorted((t for t in self.truth if t.status is DieStatus.OK), key=lambda t: (t.box[0], t.box[1]))
        return tuple(t.value for t in ok)

    def found_in(self, dice: Sequence[DieReading]) -> list[tuple[DieTruth, DieReading | None]]:
        """Each die a reader should read (status ``ok``) with the reading of ``dice`` in its box
        (see :meth:`DieTruth.found_in`), ``None`` where the reader missed it."""
        return [(t, t.found_in(dice)) for t in self.truth if t.status is DieStatus.OK]

    def reading(self, *, calibrated: bool = False) -> FrameReading:
        """What a perfect reader would report for this frame (see :meth:`DieTruth.reading`), dice
        left to right as the reader orders them."""
        dice = sorted((t.reading(calibrated=calibrated) for t in self.truth), key=lambda d: (d.box[0], d.box[1]))
        return FrameReading(tuple(dice), 0.0)

    def label_entry(self, image: str, *, only_ok: bool = True) -> dict[str, Any]:
        """The ``labels.json`` entry for this frame saved as ``image``.

        ``only_ok`` leaves out dice no reader should read (cocked, cut, under the hand).
        """
        dice = [t.label() for t in self.truth if not only_ok or t.status is DieStatus.OK]
        return {"image": image, "dice": dice}


# ----------------------------------------------------------------------------------------------

_TEX_SIZES = (24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _texture_res(edge_px: float) -> int:
    want = edge_px * 1.3
    for s in _TEX_SIZES:
        if s >= want:
            return s
    return _TEX_SIZES[-1]


def _shade(normal: np.ndarray, light: np.ndarray, diffuse: float) -> float:
    # A hard lamp: sky light from above (upward faces get more of it) plus the lamp, side faces
    # clearly darker. Soft daylight: side faces only a little darker than the top. A face straight
    # up comes out about 1 either way.
    hard = 0.22 + 0.34 * (0.5 + 0.5 * float(normal[2])) + 0.46 * max(0.0, float(normal @ light))
    soft = 0.74 + 0.26 * float(normal[2]) + 0.06 * float(normal @ light)
    return (1.0 - diffuse) * hard + diffuse * soft


def _composite(canvas: np.ndarray, tex: np.ndarray, quad: np.ndarray, gain: np.ndarray) -> None:
    """Warp ``tex`` (BGRA) onto ``quad`` (4x2 pixel corners) in ``canvas`` (float32), blending by its
    alpha; ``gain`` (B, G, R) is the light on it."""
    h, w = canvas.shape[:2]
    x0 = max(int(math.floor(quad[:, 0].min())) - 1, 0)
    y0 = max(int(math.floor(quad[:, 1].min())) - 1, 0)
    x1 = min(int(math.ceil(quad[:, 0].max())) + 2, w)
    y1 = min(int(math.ceil(quad[:, 1].max())) + 2, h)
    if x1 <= x0 or y1 <= y0:
        return
    res = tex.shape[0]
    src = np.array([[0, 0], [res, 0], [res, res], [0, res]], np.float32)
    dst = (quad - np.array([x0, y0])).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    wf = warped.astype(np.float32)
    af = wf[:, :, 3:4] * (1.0 / 255.0)
    roi = canvas[y0:y1, x0:x1]
    roi += af * (wf[:, :, :3] * gain - roi)


@functools.lru_cache(maxsize=512)
def _face_bgra(design: DieDesign, style: DieStyle, value: int, res: int) -> np.ndarray:
    """The face texture with its alpha as a fourth channel, so one warp moves both."""
    tex, alpha = face_texture(design, style, value, res)
    out = np.dstack([tex, alpha])
    out.setflags(write=False)
    return out


def _light_face(
    canvas: np.ndarray, quad: np.ndarray, wb: np.ndarray, strength: float, pattern: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
) -> None:
    """Adds light reflected off a glossy top face (corners ``quad``) to ``canvas``: ``pattern`` of
    the pixel grid (x, y) and the face's edge, 0..1, within the face, at ``strength`` of white."""
    h, w = canvas.shape[:2]
    x0 = max(int(math.floor(quad[:, 0].min())), 0)
    y0 = max(int(math.floor(quad[:, 1].min())), 0)
    x1 = min(int(math.ceil(quad[:, 0].max())) + 1, w)
    y1 = min(int(math.ceil(quad[:, 1].max())) + 1, h)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return
    edge = float(np.hypot(*(quad[1] - quad[0])))
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, np.round((quad - [x0, y0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    canvas[y0:y1, x0:x1] += (pattern(xx, yy, edge) * mask * (255.0 * strength))[:, :, None] * wb


def _glare(canvas: np.ndarray, quad: np.ndarray, lighting: Lighting, wb: np.ndarray) -> None:
    """A soft specular highlight on a glossy top face, off centre towards the light."""
    a = math.radians(lighting.azimuth_deg)

    def spot(xx: np.ndarray, yy: np.ndarray, edge: float) -> np.ndarray:
        centre = quad.mean(axis=0) + np.array([math.cos(a), -math.sin(a)]) * edge * 0.22
        r2 = ((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (edge * 0.22) ** 2
        out: np.ndarray = np.exp(-r2)
        return out

    _light_face(canvas, quad, wb, lighting.glare, spot)


def _streaks(canvas: np.ndarray, quad: np.ndarray, lighting: Lighting, wb: np.ndarray) -> None:
    """A long light's reflection on a glossy top face: thin bright bands across it, with crisp
    edges (a mirror image, not a soft spot). Each die, tilted a little and standing elsewhere under
    the light, shows the bands at its own place and a slightly other angle: both follow from where
    the face lies in the frame, so the same scene draws the same bands."""
    cx, cy = (float(v) for v in quad.mean(axis=0))
    angle = math.radians(lighting.streak_angle_deg + 12.0 * math.sin(0.051 * cx + 0.073 * cy))

    def bands(xx: np.ndarray, yy: np.ndarray, edge: float) -> np.ndarray:
        # where the bands cross the face: anywhere from edge to edge, by the face's place in the frame
        offset = 0.45 * edge * math.sin(0.137 * cx - 0.089 * cy + 1.3)
        half = max(lighting.streak_width * edge / 2, 0.6)
        gap = 3.0 * half + 0.12 * edge  # between the bands of one light (a window's bars)
        across = (xx - cx) * -math.sin(angle) + (yy - cy) * math.cos(angle) - offset
        band = np.zeros_like(across)
        for i in range(lighting.streak_count):
            centre = (i - (lighting.streak_count - 1) / 2) * gap
            # one pixel of soft edge: a reflection is as sharp as the lens draws it
            band = np.maximum(band, np.clip(half + 0.5 - np.abs(across - centre), 0.0, 1.0))
        return band

    _light_face(canvas, quad, wb, lighting.streaks, bands)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _face_quad(pose: DiePose, rot: np.ndarray, value: int, centre: np.ndarray | None = None) -> np.ndarray:
    """World corners of face ``value`` in texture order (top-left, top-right, bottom-right, bottom-left)."""
    if centre is None:
        centre = pose.centre()
    s = pose.size_mm / 2
    n = rot @ FACE_NORMALS[value]
    u = rot @ FACE_RIGHT[value]
    v = _cross(u, n)
    c = centre + n * s
    return np.array([c - u * s - v * s, c + u * s - v * s, c + u * s + v * s, c - u * s + v * s])


def _motion_blur(canvas: np.ndarray, box: tuple[int, int, int, int], motion: tuple[float, float]) -> None:
    length = math.hypot(*motion)
    if length < 1.0:
        return
    k = int(math.ceil(length)) | 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    dx, dy = motion[0] / length, motion[1] / length
    cv2.line(kernel, (round(c - dx * c), round(c - dy * c)), (round(c + dx * c), round(c + dy * c)), 1.0, 1, cv2.LINE_AA)
    kernel /= kernel.sum()
    h, w = canvas.shape[:2]
    x, y, bw, bh = box
    pad = k
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + bw + pad, w), min(y + bh + pad, h)
    if x1 > x0 and y1 > y0:
        canvas[y0:y1, x0:x1] = cv2.filter2D(canvas[y0:y1, x0:x1], -1, kernel, borderType=cv2.BORDER_REPLICATE)


def _hand_mask(hand: Hand, camera: Camera) -> np.ndarray:
    """A soft mask (H, W float32 0..1) of a hand reaching in."""
    w, h = camera.width, camera.height
    mask = np.zeros((h, w), np.float32)
    # Hand size in pixels: a palm is about five dice wide.
    palm_w = 5.0 * camera.die_px
    start = {
        "bottom": (hand.along * w, h + palm_w * 0.3),
        "top": (hand.along * w, -palm_w * 0.3),
        "left": (-palm_w * 0.3, hand.along * h),
        "right": (w + palm_w * 0.3, hand.along * h),
    }[hand.edge]
    base_dir = {"bottom": (0.0, -1.0), "top": (0.0, 1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}[hand.edge]
    a = math.radians(hand.angle_deg)
    d = np.array([base_dir[0] * math.cos(a) - base_dir[1] * math.sin(a), base_dir[0] * math.sin(a) + base_dir[1] * math.cos(a)])
    p = np.array([-d[1], d[0]])
    span = (h if hand.edge in ("top", "bottom") else w) * hand.reach + palm_w * 0.3
    s = np.array(start)
    tip = s + d * span
    finger_len = palm_w * 0.75
    palm_c = tip - d * (finger_len + palm_w * 0.45)

    def pt(q: np.ndarray) -> tuple[int, int]:
        return (int(round(q[0] * 4)), int(round(q[1] * 4)))

    # Arm from beyond the edge to the wrist.
    wrist = palm_c - d * palm_w * 0.45
    back = s - d * palm_w * 2
    arm = [wrist + p * palm_w * 0.36, wrist - p * palm_w * 0.36, back - p * palm_w * 0.42, back + p * palm_w * 0.42]
    cv2.fillPoly(mask, [np.array([pt(q) for q in arm], np.int32)], 1.0, cv2.LINE_AA, 2)
    angle = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(mask, pt(palm_c), (int(palm_w * 0.55 * 4), int(palm_w * 0.5 * 4)), angle, 0, 360, 1.0, -1, cv2.LINE_AA, 2)
    finger_w = max(2, int(palm_w * 0.2))
    for k, off in enumerate((-0.36, -0.12, 0.12, 0.36)):
        root = palm_c + d * palm_w * 0.35 + p * palm_w * off
        length = finger_len * (0.85, 1.0, 0.95, 0.75)[k]
        end = root + (d + p * off * 0.25) * length
        cv2.line(mask, pt(root), pt(end), 1.0, finger_w, cv2.LINE_AA, 2)
    thumb_root = palm_c + p * palm_w * 0.45
    cv2.line(mask, pt(thumb_root), pt(thumb_root + (p * 0.8 + d * 0.6) * palm_w * 0.45), 1.0, finger_w + 2, cv2.LINE_AA, 2)
    return mask


def _top_status(quad_px: np.ndarray, camera: Camera, hand_mask: np.ndarray | None) -> DieStatus:
    w, h = camera.width, camera.height
    area = abs(cv2.contourArea(quad_px.astype(np.float32)))
    frame_poly = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    inside, _ = cv2.intersectConvexConvex(quad_px.astype(np.float32), frame_poly)
    if area <= 0 or inside < 0.97 * area:
        return DieStatus.OCCLUDED
    if hand_mask is not None:
        m = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(m, np.round(quad_px).astype(np.int32), 1)
        covered = float((hand_mask[m > 0] > 0.5).sum())
        if covered > 0.1 * max(float(m.sum()), 1.0):
            return DieStatus.OCCLUDED
    return DieStatus.OK


def _box(pts: np.ndarray, camera: Camera) -> tuple[int, int, int, int]:
    x0 = int(math.floor(max(pts[:, 0].min(), 0)))
    y0 = int(math.floor(max(pts[:, 1].min(), 0)))
    x1 = int(math.ceil(min(pts[:, 0].max(), camera.width - 1)))
    y1 = int(math.ceil(min(pts[:, 1].max(), camera.height - 1)))
    return (x0, y0, max(x1 - x0, 0), max(y1 - y0, 0))


def _gain_map(lighting: Lighting, width: int, height: int) -> np.ndarray:
    gw, gh = 32, 24
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    u = xx / (gw - 1) - 0.5
    v = yy / (gh - 1) - 0.5
    a = math.radians(lighting.gradient_dir_deg)
    grad = 1.0 + lighting.gradient * 2 * (u * math.cos(a) + v * math.sin(a))
    vig = 1.0 - lighting.vignette * (u * u + v * v) * 2
    g = (grad * vig * lighting.exposure).astype(np.float32)
    return np.asarray(cv2.resize(g, (width, height), interpolation=cv2.INTER_LINEAR))


# The last scene drawn, before the camera's noise: a live tray at rest shows the same scene frame
# after frame, and only the noise differs. Frames up to about 2 MP only.
_last_drawn: tuple[TrayScene, np.ndarray, tuple[DieTruth, ...]] | None = None
_CACHE_PIXELS = 2_100_000


def render_tray(scene: TrayScene, rng: np.random.Generator) -> RenderedTray:
    """Render ``scene``: the frame (H, W, 3 uint8 BGR) and the truth of every die, in scene order.

    ``rng`` draws the sensor noise; the same scene and seed give the same pixels.
    """
    global _last_drawn
    last = _last_drawn
    if last is not None and last[0] == scene:
        return RenderedTray(_finish(last[1].copy(), scene, rng), last[2], scene)
    canvas, truth = _draw(scene)
    if scene.camera.width * scene.camera.height <= _CACHE_PIXELS:
        _last_drawn = (scene, canvas.copy(), truth)
    return RenderedTray(_finish(canvas, scene, rng), truth, scene)


def _draw(scene: TrayScene) -> tuple[np.ndarray, tuple[DieTruth, ...]]:
    """The scene as the light falls on it (float32 BGR canvas), and the truth of every die."""
    cam = scene.camera
    w, h = cam.width, cam.height
    light = scene.lighting.direction()
    cam_pos = cam.position

    # Soft shadows cast on the tray, drawn at quarter resolution and blurred.
    q = 4
    shadow = np.zeros((h // q + 1, w // q + 1), np.float32)
    for pose in scene.dice:
        verts = pose.vertices()
        ground = verts - np.outer(verts[:, 2], light / max(light[2], 0.2))
        ground[:, 2] = 0
        pts = np.vstack([cam.project(ground), cam.project(verts[verts[:, 2] < 0.5])]) / q
        hull = cv2.convexHull(np.round(pts * 16).astype(np.int32))
        cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, 4)
    hand_mask = _hand_mask(scene.hand, cam) if scene.hand is not None else None
    if hand_mask is not None:
        # The hand hovers above the tray: its shadow falls offset away from the light.
        off = -light[:2] / max(light[2], 0.2) * cam.die_px * 1.2
        mshift = np.float32([[1, 0, off[0] / q], [0, 1, -off[1] / q]])
        small = cv2.resize(hand_mask, (shadow.shape[1], shadow.shape[0]), interpolation=cv2.INTER_AREA)
        shadow = np.maximum(shadow, cv2.warpAffine(small, mshift, (shadow.shape[1], shadow.shape[0])) * 0.8)
    diffuse = scene.lighting.diffuse
    sigma = max(cam.die_px / q * (0.12 + 0.2 * diffuse), 0.6)  # soft light, soft shadows
    shadow = cv2.GaussianBlur(shadow, (0, 0), sigma)
    np.clip(shadow, 0, 1, out=shadow)
    # The tray under its light, the dice's shadows and the camera's white balance: all smooth, so
    # combined at quarter resolution and applied in one pass over the frame. The dice, the hand and
    # the distractors get the light's gain where they stand.
    sh, sw = shadow.shape
    small_gain = _gain_map(scene.lighting, sw, sh)
    factor = (1.0 - (0.45 - 0.25 * diffuse) * shadow) * small_gain
    wb = np.array(scene.optics.white_balance, np.float32)
    factor3 = cv2.resize(cv2.merge([factor * wb[0], factor * wb[1], factor * wb[2]]), (w, h), interpolation=cv2.INTER_LINEAR)
    canvas = cv2.multiply(background_image(scene.background, w, h), factor3)
    gain = _gain_map(scene.lighting, w, h) if scene.distractors or hand_mask is not None else None
    for thing in scene.distractors:
        assert gain is not None
        draw_distractor(canvas, thing, cam.die_px, gain, wb)

    # Dice, farthest first so nearer dice cover them.
    order = sorted(range(len(scene.dice)), key=lambda i: -float(cam.depth(scene.dice[i].centre()[None, :])[0]))
    truths: list[DieTruth | None] = [None] * len(scene.dice)
    for i in order:
        pose = scene.dice[i]
        rot = pose.rotation_matrix()
        centre = pose.centre()
        up = top_value(rot)
        top_quad_px: np.ndarray | None = None
        visible = []
        for value in range(1, 7):
            n = rot @ FACE_NORMALS[value]
            face_c = centre + n * pose.size_mm / 2
            if float(n @ (cam_pos - face_c)) > 1e-6:
                visible.append((value, n))
        if visible:
            # One projection for every visible face's corners.
            quads = cam.project(np.vstack([_face_quad(pose, rot, v, centre) for v, _ in visible])).reshape(-1, 4, 2)
            for (value, n), quad_px in zip(visible, quads):
                edge = float(np.hypot(*(quad_px[1] - quad_px[0])) + np.hypot(*(quad_px[3] - quad_px[0]))) / 2
                tex = _face_bgra(pose.design, pose.style, value, _texture_res(max(edge, 1.0)))
                cx, cy = quad_px.mean(axis=0)
                local = float(small_gain[min(max(int(cy / q), 0), sh - 1), min(max(int(cx / q), 0), sw - 1)])
                _composite(canvas, tex, quad_px, wb * (_shade(n, light, scene.lighting.diffuse) * local))
                if value == up:
                    top_quad_px = quad_px
                    if scene.lighting.glare > 0 and n[2] > 0.9:
                        _glare(canvas, quad_px, scene.lighting, wb)
                    if scene.lighting.streaks > 0 and n[2] > 0.9:
                        _streaks(canvas, quad_px, scene.lighting, wb)
        sil = cam.project(pose.vertices())
        die_box = _box(sil, cam)
        if pose.moving:
            _motion_blur(canvas, die_box, pose.motion_px)
        if top_quad_px is None:  # the top face cannot face away from a camera above; be safe
            top_quad_px = cam.project(_face_quad(pose, rot, up))
        art = pose.design.face(up)
        if pose.moving:
            status = DieStatus.UNREADABLE
        else:
            status = _top_status(top_quad_px, cam, hand_mask)
            if status is DieStatus.OK and pose.cocked:
                status = DieStatus.COCKED
        truths[i] = DieTruth(
            value=up,
            face=art.label,
            kind=art.kind,
            symbol=art.symbol,
            box=_box(top_quad_px, cam),
            quad=tuple((float(x), float(y)) for x, y in top_quad_px),
            die_box=die_box,
            status=status,
            design=pose.design.name,
        )

    if hand_mask is not None and scene.hand is not None and gain is not None:
        _draw_hand(canvas, hand_mask, scene.hand, gain, wb)

    return canvas, tuple(t for t in truths if t is not None)


def _draw_hand(canvas: np.ndarray, mask: np.ndarray, hand: Hand, gain: np.ndarray, wb: np.ndarray) -> None:
    ys, xs = np.nonzero(mask > 0.01)
    if len(xs) == 0:
        return
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    m = cv2.GaussianBlur(mask[y0:y1, x0:x1], (0, 0), 1.2)
    # Rounded shading: brighter where the mask is thick (the back of the hand), darker at the edges.
    dist = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    roundness = np.clip(dist / max(float(dist.max()), 1.0), 0, 1) ** 0.5
    skin = np.array(hand.skin, np.float32) * wb * ((0.62 + 0.45 * roundness) * gain[y0:y1, x0:x1])[:, :, None]
    roi = canvas[y0:y1, x0:x1]
    roi += m[:, :, None] * (skin - roi)


_NOISE_PAD = 64
_NOISE_TILE = 512


@functools.lru_cache(maxsize=1)
def _noise_field() -> np.ndarray:
    rng = np.random.default_rng(7919)
    field = rng.standard_normal((_NOISE_TILE + _NOISE_PAD, _NOISE_TILE + _NOISE_PAD), dtype=np.float32)
    field3 = cv2.cvtColor(field, cv2.COLOR_GRAY2BGR)  # the same in every channel: luminance noise
    field3.setflags(write=False)
    return field3


def _finish(canvas: np.ndarray, scene: TrayScene, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise, lens blur and JPEG: the camera's part (its light falloff and white balance are
    applied as the scene is drawn)."""
    cam, optics = scene.camera, scene.optics
    h, w = canvas.shape[:2]
    if optics.noise > 0:
        # Mostly luminance noise, as from a real sensor after demosaicing. Windows at random
        # offsets into one fixed noise tile are as good as fresh noise here and much cheaper.
        field = _noise_field()
        for y0 in range(0, h, _NOISE_TILE):
            for x0 in range(0, w, _NOISE_TILE):
                y1, x1 = min(y0 + _NOISE_TILE, h), min(x0 + _NOISE_TILE, w)
                ox, oy = int(rng.integers(0, _NOISE_PAD)), int(rng.integers(0, _NOISE_PAD))
                block = canvas[y0:y1, x0:x1]
                block += field[oy : oy + y1 - y0, ox : ox + x1 - x0] * np.float32(optics.noise)
    # Saturating conversion; noise can push a black pixel a little below 0, where |x| is as good.
    frame = cv2.convertScaleAbs(canvas)
    sigma = optics.blur * w / 640.0
    if sigma > 0.05:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    if optics.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(optics.jpeg_quality)])
        if ok:
            frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return np.ascontiguousarray(frame)


def render_face(
    design: DieDesign,
    style: DieStyle,
    value: int,
    size: int = 64,
    *,
    rng: np.random.Generator | None = None,
    rotation_deg: float | None = None,
    tilt_deg: float = 0.0,
    margin: float = 0.25,
) -> np.ndarray:
    """A square crop (``size`` x ``size`` BGR uint8) of one die seen from above, its ``value`` face up,
    as a calibration photo of a single die would show it: centred, turned by ``rotation_deg`` (random
    when ``rng`` is given and it is None), with ``margin`` of the crop around the top face.
    """
    from hardware.sim.scene import Background, Optics

    rng = rng if rng is not None else np.random.default_rng(0)
    if rotation_deg is None:
        rotation_deg = float(rng.uniform(0, 360))
    die_px = size / (1 + 2 * margin)
    cam = Camera(size, size, tilt_deg, die_px)
    pose = DiePose(value, 0.0, 0.0, rotation_deg, design, style)
    # Centre the top face: shift so the projected top face centre is the crop centre.
    rot = pose.rotation_matrix()
    top_c = cam.project(_face_quad(pose, rot, value)).mean(axis=0)
    x, y = cam.unproject(size - top_c[0], size - top_c[1])
    pose = DiePose(value, x, y, rotation_deg, design, style)
    scene = TrayScene(
        cam,
        Background("plain", (150, 150, 150), 1),
        (pose,),
        lighting=Lighting(azimuth_deg=float(rng.uniform(0, 360)), gradient=0.05, vignette=0.0, exposure=float(rng.uniform(0.9, 1.05))),
        optics=Optics(noise=2.0, blur=0.0, jpeg_quality=None),
    )
    return render_tray(scene, rng).frame
