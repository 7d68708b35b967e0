"""The table app's routes: a versioned REST API under ``/api/v1``, its OpenAPI description, a
WebSocket stream of game and tray events, the camera as MJPEG and as snapshots, and the page.

==================================  ===================================================  ==========
``GET  /``                          the phone page                                        open
``GET  /api/v1``                    the API's name, version and links                     open
``GET  /api/v1/openapi.json``       this API as OpenAPI 3.1                               open
``GET  /api/v1/state``              the game (from the game model), the screen, status    read
``GET  /api/v1/reading``            the last reading with the frame's size, or null       read
``GET  /api/v1/events``             the last 200 game events                              read
``GET  /api/v1/stats``              frames, clients, drops                                read
``GET  /api/v1/games``              the games in the roll log                              read
``GET  /api/v1/heroes``             the heroes a game can be started with                  open
``GET  /api/v1/fairness``           per dice set: thrown faces, chi-square test, verdict     read
``GET  /api/v1/games/N.dtr``        game N's record (docs/game-records.md), to download    read
``GET  /api/v1/camera/snapshot.jpg`` the newest frame                                     read
``GET  /api/v1/camera/stream.mjpg``  the camera, ``multipart/x-mixed-replace``            read
``WS   /api/v1/stream``             ``{"type": "state"|"reading"|"event", "data"}``       read
``POST /api/v1/pair``               ``{"pin"}`` -> ``{"token"}``                          PIN
``POST /api/v1/buttons``            ``{"button": "next"|"select"|"back"|...-held}``       token
``POST /api/v1/actions``            ``{"action": "choose"|"set-die"|"undo"|"press", ...}``  token
``POST /api/v1/pair/show``          put the PIN on the tray's display for a minute        open
``GET  /api/v1/calibration``        the calibration wizard under way, with its shots       read
``POST /api/v1/calibration``        ``{"name", "faces": "sword-1 sword-2 ..."}``: start    token
``POST /api/v1/calibration/shots``  ``{"label"}``: shoot that face with the camera        token
``POST /api/v1/calibration/drop``   ``{"label"}``: take that face's last shot back        token
``POST /api/v1/calibration/build``  ``{"replace"}``: build and save the profile, report    token
``GET  /api/v1/calibration/tray``   the tray's shots so far (empty, with dice), or null   read
``POST /api/v1/calibration/tray/empty`` ``{"name"}``: shoot the empty tray (five frames)   token
``POST /api/v1/calibration/tray/dice``  shoot the tray with pip dice rolled into it        token
``POST /api/v1/calibration/tray/build`` ``{"replace"}``: save the tray profile, report     token
==================================  ===================================================  ==========

"read" is open unless ``read_needs_pairing``; then it takes a token like a write (as
``Authorization: Bearer``, or ``?token=`` where a browser cannot set headers: images, WebSocket).
"""

from __future__ import annotations

import asyncio
import json
import time
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from firmware_host.web.access import bearer_token
from hardware.buttons import ButtonEvent
from firmware_host.fairness import Finding
from firmware_host.web.actions import ACTIONS, ActionRefused, TableAction

PIN_SHOWN_S = 60
BOUNDARY = "dicetrayframe"
"""The MJPEG stream's multipart boundary."""

API_VERSION = "1"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BUTTONS = tuple(event.value for event in ButtonEvent)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws: wss:; "
        b"style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    ),
]


def _problem(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"error": detail, "status": status}, status_code=status)


class GuardMiddleware:
    """Checks every request before a route sees it: the ``Host`` (421 / WebSocket close 1008),
    and the body of a write, read whole up to ``max_body_bytes`` (413 beyond)."""

    def __init__(self, app: ASGIApp, web: Any) -> None:
        self.app = app
        self.web = web

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        if not self.web.hosts.allows_host(headers.get("host")):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                shown = headers.get("host", "")[:100]
                await _problem(421, f"unknown host name: {shown}")(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        if scope["method"] not in WRITE_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        limit = self.web.max_body_bytes
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _problem(413, f"a request body may be {limit} bytes at most")(scope, receive, send_with_headers)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                await _problem(413, f"a request body may be {limit} bytes at most")(scope, receive, send_with_headers)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)


def _token(request: Request | WebSocket) -> str | None:
    return bearer_token(request.headers.get("authorization")) or request.query_params.get("token")


def build_app(web: Any) -> ASGIApp:
    """The ASGI app serving ``web`` (a :class:`~firmware_host.web.server.TrayWeb`)."""

    def may_read(request: Request | WebSocket) -> bool:
        return not web.read_needs_pairing or web.pairing.knows(_token(request))

    def write_refusal(request: Request, needs_token: bool = True) -> Response | None:
        if not web.hosts.allows_origin(request.headers.get("origin"), request.headers.get("host")):
            return _problem(403, f"writes from another site are refused (Origin {request.headers.get('origin')!r})")
        if needs_token and not web.pairing.knows(_token(request)):
            return _problem(401, "pair first: POST /api/v1/pair with the PIN on the tray's display")
        return None

    def read_refusal(request: Request) -> Response | None:
        return None if may_read(request) else _problem(401, "reading needs pairing on this tray")

    async def json_body(request: Request) -> dict[str, Any] | Response:
        try:
            body = json.loads(await request.body() or b"null")
        except (ValueError, UnicodeDecodeError):
            return _problem(400, "the request body is not JSON")
        if not isinstance(body, dict):
            return _problem(400, "the request body must be a JSON object")
        return body

    async def page(request: Request) -> Response:
        html = resources.files("firmware_host.web").joinpath("page.html").read_text(encoding="utf-8")
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    async def api_index(request: Request) -> Response:
        return JSONResponse(
            {
                "name": "dicetray",
                "api_version": API_VERSION,
                "openapi": "/api/v1/openapi.json",
                "stream": "/api/v1/stream",
                "read_needs_pairing": web.read_needs_pairing,
            }
        )

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_description())

    async def state(request: Request) -> Response:
        return read_refusal(request) or Response(web.state_json(), media_type="application/json")

    async def reading(request: Request) -> Response:
        return read_refusal(request) or Response(web.reading_json(), media_type="application/json")

    async def events(request: Request) -> Response:
        return read_refusal(request) or JSONResponse({"events": web.recent_events()})

    async def stats(request: Request) -> Response:
        return read_refusal(request) or JSONResponse(web.stats())

    async def snapshot(request: Request) -> Response:
        refused = read_refusal(request)
        if refused is not None:
            return refused
        frame = await asyncio.to_thread(web.hub.snapshot, 1.0)
        if frame is None:
            return _problem(503, "no camera frame yet")
        return Response(frame.jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    async def write_body(request: Request, needs_token: bool = True) -> dict[str, Any] | Response:
        """A write's JSON object, or the refusal: another site's Origin, no token, not JSON."""
        refused = write_refusal(request, needs_token)
        return refused if refused is not None else await json_body(request)

    async def pair(request: Request) -> Response:
        body = await write_body(request, needs_token=False)
        if isinstance(body, Response):
            return body
        pin = body.get("pin")
        if not isinstance(pin, str):
            return _problem(400, 'pair takes {"pin": "123456"}: the PIN on the tray\'s display')
        token = web.pairing.pair(pin)
        if token is None:
            return _problem(403, "wrong PIN: use the one on the tray's display")
        return JSONResponse({"token": token}, status_code=201)

    async def queue_action(request: Request, as_action: Any) -> Response:
        body = await write_body(request)
        if isinstance(body, Response):
            return body
        try:
            action = TableAction.from_json(as_action(body))
        except ActionRefused as refusal:
            return _problem(400, str(refusal))
        web.act(action)
        return JSONResponse({"queued": body}, status_code=202)

    async def buttons(request: Request) -> Response:
        return await queue_action(request, lambda body: {"action": "press", "button": body.get("button")})

    async def actions(request: Request) -> Response:
        return await queue_action(request, lambda body: body)

    async def show_pin(request: Request) -> Response:
        refused = write_refusal(request, needs_token=False)
        if refused is not None:
            return refused
        web.show_pin()
        return JSONResponse({"shown_s": PIN_SHOWN_S}, status_code=202)

    def stored_games() -> list[dict[str, Any]]:
        from firmware_host.game_store import GameStore

        if web.games_path is None:
            return []
        store = GameStore(web.games_path)  # its own connection, on a worker thread
        try:
            return [game.to_json() for game in store.games()]
        finally:
            store.close()

    def game_record(number: int) -> str:
        from firmware_host.game_store import GameStore

        store = GameStore(web.games_path)
        try:
            return str(store.record(number).notation())
        finally:
            store.close()

    async def games(request: Request) -> Response:
        refused = read_refusal(request)
        if refused is not None:
            return refused
        return JSONResponse({"games": await asyncio.to_thread(stored_games)})

    async def game_download(request: Request) -> Response:
        from firmware_host.errors import PROJECT_ERRORS

        refused = read_refusal(request)
        if refused is not None:
            return refused
        number = int(request.path_params["number"])
        if web.games_path is None:
            return _problem(404, "this tray keeps no game records")
        try:
            text = await asyncio.to_thread(game_record, number)
        except PROJECT_ERRORS as error:
            return _problem(404, str(error))
        return Response(
            text,
            media_type="text/plain; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="game-{number}.dtr"'},
        )

    async def fairness(request: Request) -> Response:
        from firmware_host.errors import RollLogError
        from firmware_host.fairness import roll_log_fairness, sets_fairness

        refused = read_refusal(request)
        if refused is not None:
            return refused
        if web.games_path is None:
            return JSONResponse(sets_fairness([]).to_json())
        try:
            report = await asyncio.to_thread(roll_log_fairness, web.games_path)
        except RollLogError as error:
            return _problem(503, str(error))
        return JSONResponse(report.to_json())

    async def calibration_state(request: Request) -> Response:
        refused = read_refusal(request)
        if refused is not None:
            return refused
        wizard = web.wizard
        return JSONResponse({"wizard": await asyncio.to_thread(wizard.to_json) if wizard is not None else None})

    async def calibration_start(request: Request) -> Response:
        from calibration.errors import ProfileError
        from firmware_host.web.calibrate import CalibrationWizard

        body = await write_body(request)
        if isinstance(body, Response):
            return body
        try:
            web.wizard = CalibrationWizard.from_json(body)
        except ProfileError as error:
            return _problem(422, str(error))
        return JSONResponse({"wizard": web.wizard.to_json()}, status_code=201)

    async def calibration_post(request: Request, step: Any, status: int) -> Response:
        """A write to a calibration under way: ``step(body)`` on a worker thread (it may grab
        frames and read them); a profile error is a 422 naming the problem."""
        from calibration.errors import ProfileError

        body = await write_body(request)
        if isinstance(body, Response):
            return body
        try:
            result = await asyncio.to_thread(step, body)
        except ProfileError as error:
            return _problem(422, str(error))
        return result if isinstance(result, Response) else JSONResponse(result, status_code=status)

    async def calibration_step(request: Request, step: Any, status: int = 200) -> Response:
        """A write to the die wizard under way: ``step(wizard, body)``; 409 without one."""

        def with_wizard(body: dict[str, Any]) -> Any:
            wizard = web.wizard
            if wizard is None:
                return _problem(409, "no calibration under way: start one with POST /api/v1/calibration")
            return step(wizard, body)

        return await calibration_post(request, with_wizard, status)

    def no_frame() -> Response:
        return _problem(503, "no camera frame came in 2 s: is the camera on?")

    def take_shot(wizard: Any, body: dict[str, Any]) -> Any:
        from firmware_host.web.calibrate import jpeg_data_url

        label = body.get("label")
        wizard.face(label)  # an unknown face is named before the camera is asked
        frame = web.grab_frame(2.0)
        if frame is None:
            return no_frame()
        crop = wizard.shoot(label, frame)
        return {"label": label, "shot": jpeg_data_url(crop), "wizard": wizard.to_json()}

    def drop_shot(wizard: Any, body: dict[str, Any]) -> Any:
        wizard.drop_last(body.get("label"))
        return {"wizard": wizard.to_json()}

    def build_wizard_profile(wizard: Any, body: dict[str, Any]) -> Any:
        from firmware_host.web.calibrate import profile_report

        profile, path = wizard.build(replace=body.get("replace") is True)
        return profile_report(profile, path)

    async def calibration_shot(request: Request) -> Response:
        return await calibration_step(request, take_shot, 201)

    async def calibration_drop(request: Request) -> Response:
        return await calibration_step(request, drop_shot)

    async def calibration_build(request: Request) -> Response:
        return await calibration_step(request, build_wizard_profile, 201)

    async def tray_state(request: Request) -> Response:
        refused = read_refusal(request)
        if refused is not None:
            return refused
        shots = web.tray_shots
        return JSONResponse({"tray": shots.to_json() if shots is not None else None})

    def shoot_empty_tray(body: dict[str, Any]) -> Any:
        from calibration.tray import DEFAULT_TRAY, EMPTY_SHOTS
        from firmware_host.web.calibrate import TrayShots

        name = body.get("name") or DEFAULT_TRAY
        shots = web.tray_shots if web.tray_shots is not None and web.tray_shots.name == name else TrayShots(str(name))
        frames = []
        for _ in range(EMPTY_SHOTS):
            frame = web.grab_frame(2.0)
            if frame is None:
                return no_frame()
            frames.append(frame)
        shots.shoot_empty(frames)
        web.tray_shots = shots
        return {"tray": shots.to_json()}

    def tray_step(step: Any) -> Any:
        """``step(shots, body)`` for the tray's calibration under way; 409 before the empty tray is shot."""

        def with_shots(body: dict[str, Any]) -> Any:
            shots = web.tray_shots
            if shots is None:
                return _problem(409, "shoot the empty tray first: POST /api/v1/calibration/tray/empty")
            return step(shots, body)

        return with_shots

    def shoot_tray_dice(shots: Any, body: dict[str, Any]) -> Any:
        frame = web.grab_frame(2.0)
        if frame is None:
            return no_frame()
        dice = shots.shoot_dice(frame)
        return {"dice_seen": dice, "tray": shots.to_json()}

    def build_tray_profile(shots: Any, body: dict[str, Any]) -> Any:
        from firmware_host.web.calibrate import tray_report

        profile, path = shots.build(replace=body.get("replace") is True)
        taken = web.on_tray_saved
        if taken is not None:
            taken()
        return tray_report(profile, path, taken_now=taken is not None)

    async def tray_empty(request: Request) -> Response:
        return await calibration_post(request, shoot_empty_tray, 201)

    async def tray_dice(request: Request) -> Response:
        return await calibration_post(request, tray_step(shoot_tray_dice), 201)

    async def tray_build(request: Request) -> Response:
        return await calibration_post(request, tray_step(build_tray_profile), 201)

    async def heroes(request: Request) -> Response:
        from rules.dicethrone.heroes import all_heroes

        found = await asyncio.to_thread(all_heroes)
        return JSONResponse({"heroes": [{"id": hero.id, "name": hero.name} for hero in found]})

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/api/v1", api_index, methods=["GET"]),
        Route("/api/v1/openapi.json", openapi, methods=["GET"]),
        Route("/api/v1/state", state, methods=["GET"]),
        Route("/api/v1/reading", reading, methods=["GET"]),
        Route("/api/v1/events", events, methods=["GET"]),
        Route("/api/v1/stats", stats, methods=["GET"]),
        Route("/api/v1/games", games, methods=["GET"]),
        Route("/api/v1/heroes", heroes, methods=["GET"]),
        Route("/api/v1/fairness", fairness, methods=["GET"]),
        Route("/api/v1/games/{number:int}.dtr", game_download, methods=["GET"]),
        Route("/api/v1/camera/snapshot.jpg", snapshot, methods=["GET"]),
        Route("/api/v1/calibration", calibration_state, methods=["GET"]),
        Route("/api/v1/calibration", calibration_start, methods=["POST"]),
        Route("/api/v1/calibration/shots", calibration_shot, methods=["POST"]),
        Route("/api/v1/calibration/drop", calibration_drop, methods=["POST"]),
        Route("/api/v1/calibration/build", calibration_build, methods=["POST"]),
        Route("/api/v1/calibration/tray", tray_state, methods=["GET"]),
        Route("/api/v1/calibration/tray/empty", tray_empty, methods=["POST"]),
        Route("/api/v1/calibration/tray/dice", tray_dice, methods=["POST"]),
        Route("/api/v1/calibration/tray/build", tray_build, methods=["POST"]),
        Route("/api/v1/camera/stream.mjpg", CameraStream(web, may_read)),
        Route("/api/v1/pair", pair, methods=["POST"]),
        Route("/api/v1/buttons", buttons, methods=["POST"]),
        Route("/api/v1/actions", actions, methods=["POST"]),
        Route("/api/v1/pair/show", show_pin, methods=["POST"]),
        WebSocketRoute("/api/v1/stream", EventSocket(web, may_read)),
    ]
    return GuardMiddleware(Starlette(routes=routes), web)


class CameraStream:
    """``multipart/x-mixed-replace`` JPEG stream. A write that blocks for ``write_timeout_s`` ends
    the stream; so does the client leaving, the server closing, or a newer viewer taking the place
    of this one while it is stalled."""

    def __init__(self, web: Any, may_read: Any) -> None:
        self.web = web
        self.may_read = may_read

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if scope["method"] not in ("GET", "HEAD"):
            await _problem(405, "the stream is read with GET")(scope, receive, send)
            return
        if not self.may_read(request):
            await _problem(401, "reading needs pairing on this tray")(scope, receive, send)
            return
        web = self.web
        slot = web.admit_stream()
        if slot is None:
            await _problem(503, "too many viewers")(scope, receive, send)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", f"multipart/x-mixed-replace; boundary={BOUNDARY}".encode()),
                        (b"cache-control", b"no-store"),
                        (b"connection", b"close"),
                    ],
                }
            )
            if scope["method"] == "HEAD":
                await send({"type": "http.response.body", "body": b""})
                return
            watcher = asyncio.ensure_future(_until_disconnect(receive, slot.cut))
            try:
                last = 0
                while not slot.cut.is_set():
                    frame = await web.next_frame(last)
                    if frame is None or slot.cut.is_set():
                        break
                    part = (
                        f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(frame.jpeg)}\r\n\r\n".encode()
                        + frame.jpeg
                        + b"\r\n"
                    )
                    slot.writing_since = time.monotonic()
                    if not await _send_or_cut(send, {"type": "http.response.body", "body": part, "more_body": True}, slot.cut, web.write_timeout_s):
                        break
                    slot.writing_since = None
                    last = frame.seq
                if slot.writing_since is None:  # not stalled: end the response properly
                    await _send_or_cut(send, {"type": "http.response.body", "body": b""}, asyncio.Event(), 0.5)
            finally:
                watcher.cancel()
        finally:
            web.release_stream(slot)


async def _until_disconnect(receive: Receive, cut: asyncio.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            cut.set()
            return


async def _send_or_cut(send: Send, message: Message, cut: asyncio.Event, timeout: float) -> bool:
    """Sends ``message`` unless it blocks longer than ``timeout`` or ``cut`` is set first."""
    sending = asyncio.ensure_future(send(message))
    cutting = asyncio.ensure_future(cut.wait())
    done, _ = await asyncio.wait({sending, cutting}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    cutting.cancel()
    if sending in done:
        return sending.exception() is None
    sending.cancel()
    return False


class EventSocket:
    """The WebSocket event stream: first ``{"type": "hello", "data": {state, reading, events}}``,
    then every state change, reading and game event as it happens. A client that falls
    :data:`~firmware_host.web.server.EVENT_QUEUE` messages behind is closed (1013)."""

    def __init__(self, web: Any, may_read: Any) -> None:
        self.web = web
        self.may_read = may_read

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        socket = WebSocket(scope, receive, send)
        web = self.web
        origin = socket.headers.get("origin")
        if not self.may_read(socket) or not web.hosts.allows_origin(origin, socket.headers.get("host")):
            await socket.close(code=1008)
            return
        subscriber = web.subscribe()
        if subscriber is None:
            await socket.close(code=1013)
            return
        try:
            await socket.accept()
            hello = {
                "state": json.loads(web.state_json()),
                "reading": json.loads(web.reading_json()),
                "events": web.recent_events()[-20:],
                "api_version": API_VERSION,
            }
            await socket.send_text(json.dumps({"type": "hello", "data": hello}))
            reader = asyncio.ensure_future(_drain_incoming(socket, subscriber.gone))
            try:
                while not subscriber.gone.is_set():
                    getting = asyncio.ensure_future(subscriber.queue.get())
                    gone = asyncio.ensure_future(subscriber.gone.wait())
                    done, _ = await asyncio.wait({getting, gone}, return_when=asyncio.FIRST_COMPLETED)
                    gone.cancel()
                    if getting not in done:
                        getting.cancel()
                        break
                    await asyncio.wait_for(socket.send_text(getting.result()), web.write_timeout_s)
            except (WebSocketDisconnect, TimeoutError, RuntimeError):
                pass
            finally:
                reader.cancel()
            if socket.client_state is WebSocketState.CONNECTED:
                try:
                    await socket.close(code=1013 if subscriber.too_slow else 1001)
                except (WebSocketDisconnect, RuntimeError):
                    pass  # the client left while we closed
        finally:
            web.unsubscribe(subscriber)


async def _drain_incoming(socket: WebSocket, gone: asyncio.Event) -> None:
    """Reads (and ignores) what the client sends, to notice it leaving."""
    try:
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                break
    except Exception:  # noqa: BLE001 (any failure here means the client is gone)
        pass
    gone.set()


def openapi_description() -> dict[str, Any]:
    """The API as OpenAPI 3.1 (written out: every route above, its security and its answers)."""
    token = [{"pairedToken": []}]
    error = {"description": "refused", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}

    def read(summary: str, media: str = "application/json") -> dict[str, Any]:
        return {"get": {"summary": summary, "responses": {"200": {"description": "ok", "content": {media: {}}}, "401": error}}}

    def calibration_write(summary: str, schema: str, ok: str) -> dict[str, Any]:
        body = {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}
        answers = {ok: {"description": "done"}, "401": error, "403": error, "409": error, "422": error}
        return {"post": {"summary": summary, "security": token, "requestBody": body, "responses": answers}}

    return {
        "openapi": "3.1.0",
        "info": {"title": "dicetray table app", "version": API_VERSION},
        "paths": {
            "/api/v1": read("the API's name, version and links"),
            "/api/v1/state": read("the game from the game model, the tray's screen and status"),
            "/api/v1/reading": read("the last dice reading with the camera frame's width and height, or null"),
            "/api/v1/events": read("the last 200 game events"),
            "/api/v1/stats": read("frames, stream clients and drops"),
            "/api/v1/fairness": {
                "get": {
                    "summary": "per dice set in the roll log: the faces thrown (dice kept for a reroll counted once), "
                    "Pearson's chi-square test against a fair die and a verdict",
                    "responses": {
                        "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Fairness"}}}},
                        "401": error,
                        "503": error,
                    },
                }
            },
            "/api/v1/heroes": read("the heroes a game can be started with: id and name"),
            "/api/v1/games": read("the games in the roll log: number, started, tags, actions"),
            "/api/v1/games/{number}.dtr": read("a game's record in record notation", "text/plain"),
            "/api/v1/camera/snapshot.jpg": read("the newest camera frame", "image/jpeg"),
            "/api/v1/camera/stream.mjpg": read("the camera as an MJPEG stream", "multipart/x-mixed-replace"),
            "/api/v1/stream": {
                "get": {
                    "summary": 'WebSocket: {"type": "hello"|"state"|"reading"|"event", "data": ...} as they happen',
                    "responses": {"101": {"description": "switching to WebSocket"}},
                }
            },
            "/api/v1/pair": {
                "post": {
                    "summary": "exchange the PIN on the tray's display for a token",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pair"}}}},
                    "responses": {
                        "201": {"description": "paired", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Token"}}}},
                        "400": error,
                        "403": error,
                        "413": error,
                    },
                }
            },
            "/api/v1/buttons": {
                "post": {
                    "summary": "press a tray button: every table action the buttons have",
                    "security": token,
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Press"}}}},
                    "responses": {"202": {"description": "queued for the game"}, "400": error, "401": error, "403": error, "413": error},
                }
            },
            "/api/v1/actions": {
                "post": {
                    "summary": "a table action, carried out press by press against the game as it is then",
                    "security": token,
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Action"}}}},
                    "responses": {"202": {"description": "queued for the game"}, "400": error, "401": error, "403": error, "413": error},
                }
            },
            "/api/v1/pair/show": {
                "post": {
                    "summary": "show the pairing PIN on the tray's display for a minute",
                    "responses": {"202": {"description": "shown"}, "403": error},
                }
            },
            "/api/v1/calibration": {
                **read("the calibration wizard under way: the die's name, its faces and each face's shots, or null"),
                **calibration_write(
                    "start calibrating a die set: its profile name and its faces (1-6, sword-1, blank=6 ...)",
                    "CalibrationStart", "201",
                ),
            },
            "/api/v1/calibration/shots": calibration_write(
                "shoot a face: the next camera frame's one die, its top face kept as an example", "FaceLabel", "201"
            ),
            "/api/v1/calibration/drop": calibration_write("take a face's last shot back", "FaceLabel", "200"),
            "/api/v1/calibration/build": calibration_write(
                "build the profile from the shots and save it; the report says where and how its held-out reads went",
                "CalibrationBuild", "201",
            ),
            "/api/v1/calibration/tray": read("the tray's calibration under way: its name and the shots taken of the empty tray and with dice, or null"),
            "/api/v1/calibration/tray/empty": calibration_write(
                "shoot the empty tray: five camera frames, refused where a die is in one", "TrayName", "201"
            ),
            "/api/v1/calibration/tray/dice": calibration_write(
                "shoot the tray with pip dice rolled into it: they size the dice and tell which way the camera looks", "Empty", "201"
            ),
            "/api/v1/calibration/tray/build": calibration_write(
                "build the tray profile from the shots and save it; the tray takes it at its next start", "CalibrationBuild", "201"
            ),
        },
        "components": {
            "securitySchemes": {"pairedToken": {"type": "http", "scheme": "bearer", "description": "from POST /api/v1/pair"}},
            "schemas": {
                "Error": {"type": "object", "properties": {"error": {"type": "string"}, "status": {"type": "integer"}}},
                "Pair": {"type": "object", "required": ["pin"], "properties": {"pin": {"type": "string"}}},
                "Token": {"type": "object", "properties": {"token": {"type": "string"}}},
                "Action": {
                    "type": "object",
                    "required": ["action"],
                    "properties": {
                        "action": {"enum": list(ACTIONS)},
                        "button": {"type": "string"},
                        "option": {"type": "integer", "minimum": 0},
                        "label": {"type": "string", "description": "the option's text as the page saw it"},
                        "die": {"type": "integer", "minimum": 0},
                        "value": {"type": "integer", "minimum": 1, "maximum": 6},
                    },
                },
                "Press": {"type": "object", "required": ["button"], "properties": {"button": {"enum": list(BUTTONS)}}},
                "CalibrationStart": {
                    "type": "object",
                    "required": ["name", "faces"],
                    "properties": {"name": {"type": "string"}, "faces": {"type": "string", "description": "e.g. '1 2 3 4 5 6' or 'sword-1 sword-2 sword-3 heart-4 heart-5 pow-6'"}},
                },
                "FaceLabel": {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}},
                "CalibrationBuild": {"type": "object", "properties": {"replace": {"type": "boolean", "description": "overwrite a saved profile of the name"}}},
                "TrayName": {"type": "object", "properties": {"name": {"type": "string", "description": "the tray profile's name (default: tray)"}}},
                "Empty": {"type": "object"},
                "FairnessReport": {
                    "type": "object",
                    "properties": {
                        "dice_set": {"type": "string", "description": "a hero id, the face labels of a set, or 'numbered'"},
                        "faces": {"type": "array", "items": {"type": "string"}, "minItems": 6, "maxItems": 6},
                        "counts": {"type": "array", "items": {"type": "integer"}, "minItems": 6, "maxItems": 6},
                        "throws": {"type": "integer"},
                        "chi_square": {"type": "number"},
                        "p_value": {"type": "number"},
                        "finding": {"enum": [finding.value for finding in Finding]},
                        "throws_to_be_sure": {"type": ["integer", "null"]},
                        "verdict": {"type": "string"},
                    },
                },
                "Fairness": {
                    "type": "object",
                    "properties": {
                        "sets": {"type": "array", "items": {"$ref": "#/components/schemas/FairnessReport"}},
                        "all": {"$ref": "#/components/schemas/FairnessReport"},
                        "kept_left_out": {"type": "integer"},
                        "min_throws": {"type": "integer"},
                    },
                },
            },
        },
    }
