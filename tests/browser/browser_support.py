"""What the browser tests share: the stand-in camera and reader, the live server handle.

Kept out of conftest.py so test modules can import it by a name no other test area uses.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
from browser_scene import DIE_SIZE, SceneDie, draw_scene, encode_jpeg

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TABLE_PIN = "2468"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

#: what is really on the table in the stand-in camera's picture (Ann: 4 1 6, Ben: 4 4 2)
SCENE: tuple[SceneDie, ...] = (
    SceneDie("Ann", 4, 250, 300), SceneDie("Ann", 1, 330, 330), SceneDie("Ann", 6, 280, 390),
    SceneDie("Ben", 4, 650, 290), SceneDie("Ben", 4, 730, 320), SceneDie("Ben", 2, 680, 395),
)
#: the stand-in reader's one mistake: Ben's second 4 read as a 5, and it knows it is unsure
MISREAD_INDEX = 4
MISREAD_VALUE = 5


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def scene_profile(seat_count: int = 2) -> Any:
    """A calibration profile whose two seat zones surround the scene's two groups of dice;
    further seats (six at most) lie empty along the frame's top edge."""
    from calibration.geometry import as_polygon
    from calibration.profile import Profile
    from calibration.zones import SeatZone, SeatZones

    def box(x0: int, y0: int, x1: int, y1: int) -> Any:
        return as_polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])

    seats = (
        SeatZone("Seat 1", box(150, 190, 430, 470), front=box(190, 470, 390, 530)),
        SeatZone("Seat 2", box(550, 190, 830, 470), front=box(590, 470, 790, 530)),
        *(SeatZone(f"Seat {n}", box(240 * (n - 3), 0, 240 * (n - 2) - 5, 180))
          for n in range(3, seat_count + 1)),
    )
    return Profile(name="browser-tests", camera="scene", resolution=(960, 540),
                   table_area=box(0, 0, 960, 540), seat_zones=SeatZones(seats))


@dataclass
class SceneCamera:
    """A camera that always sees the drawn scene (what `Table` needs: spec, frames, read)."""

    spec: str = "scene:browser-tests"
    status: str = "ok"

    def read(self) -> Any:
        return draw_scene(SCENE)

    def frames(self) -> Iterator[Any]:
        frame = self.read()
        while True:
            yield frame


@dataclass
class DimSceneCamera(SceneCamera):
    """The same scene with the room's light turned down to a fifth."""

    def read(self) -> Any:
        return (draw_scene(SCENE) * 0.2).astype("uint8")


def misreading_reader(frames: Iterator[Any], expected: Mapping[str, Any]) -> Any:
    """Reads the scene's dice, one of them wrongly and with low confidence."""
    from bluffcam.table.vision_bridge import RevealReading

    frame = next(iter(frames))
    seats: dict[str, list[dict[str, Any]]] = {name: [] for name in expected}
    problems = []
    for index, d in enumerate(SCENE):
        value, confidence = d.value, 0.97
        if index == MISREAD_INDEX:
            value, confidence = MISREAD_VALUE, 0.41
            problems.append({"kind": "low_confidence", "seat": d.seat, "x": d.x, "y": d.y,
                             "message": f"{d.seat}: a die read as {value} is unsure (41%)"})
        seats.setdefault(d.seat, []).append(
            {"value": value, "x": float(d.x), "y": float(d.y), "confidence": confidence})
    from vision.frame_check import frame_advice

    # the marked photo covers each die with a red mark, as a heavy annotation would; the frame
    # is kept unmarked beside it
    marked = frame.copy()
    for d in SCENE:
        cv2.circle(marked, (d.x, d.y), DIE_SIZE // 2, (0, 0, 220), -1)
    return RevealReading(seats=seats, set_aside={}, problems=problems, needs_review=True,
                         annotated_jpeg=encode_jpeg(marked),
                         advice=[a.to_json() for a in frame_advice(frame)], frames_voted=1,
                         photo_jpeg=encode_jpeg(frame))


class StreamCutter:
    """WSGI middleware that can take the live stream down, as a flaky Wi-Fi or a restart would.

    While ``down`` is set, open ``/api/events`` streams end at their next heartbeat and new
    ones are answered 503, so the pages must notice and reconnect by themselves.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.down = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO") != "/api/events":
            return self.app(environ, start_response)
        if self.down.is_set():
            start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
            return [b"the table is restarting"]
        return self._cut_when_down(self.app(environ, start_response))

    def _cut_when_down(self, body: Any) -> Iterator[bytes]:
        try:
            for chunk in body:
                if self.down.is_set():
                    return
                yield chunk
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()


def remember_pin(page: Any, pin: str) -> None:
    """The control page keeps the PIN in localStorage once it was entered."""
    page.add_init_script(f"localStorage.setItem('bluffcam.pin', {pin!r})")


def redrawn_after(page: Any, change: Any) -> None:
    """Make a change at the table (``change()``) and wait until ``page`` has drawn it: the
    pages draw themselves anew at each one, which is what these tests put in the way."""
    seen = page.evaluate("document.body.dataset.version || ''")
    change()
    page.wait_for_function(f"(document.body.dataset.version || '') !== {seen!r}")


def start_game(page: Any) -> None:
    """Tap "Start the game" on the control page's setup form, and tap again where it asks
    first because a game is under way (the browser tests share one table per module).

    Where the form has asked already (a start the server refused keeps the warning and the
    player's yes), the first tap starts the game: a second would look for a button gone."""
    asked_already = page.locator("#replace-warning").count() > 0
    page.click("#start-game")
    if not asked_already and page.locator("#replace-warning").count():
        page.click("#start-game")


@dataclass
class LiveServer:
    url: str
    pin: str
    table: Any
    cutter: StreamCutter

    def post(self, path: str, body: Any) -> Any:
        """A PIN-carrying JSON POST, as the control page makes it."""
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-Table-PIN": self.pin})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())


@contextmanager
def serving(data: Path, profile: Any,
            reveal_reader: Any = misreading_reader) -> Iterator[LiveServer]:
    """The real app round a real `Table` (its journal in ``data``, the stand-in camera and
    reader, ``profile``), served by werkzeug in a thread on a free port of 127.0.0.1."""
    from werkzeug.serving import make_server

    from bluffcam.table import Table
    from web import create_app

    table = Table(data / "journal.sqlite", camera=SceneCamera(), profile=profile,
                  data_dir=data, reveal_reader=reveal_reader)
    app = create_app({"TABLE_PIN": TABLE_PIN, "DATA_DIR": str(data), "TESTING": True,
                      "SSE_HEARTBEAT_S": 0.5}, table=table)
    cutter = StreamCutter(app.wsgi_app)
    app.wsgi_app = cutter  # type: ignore[method-assign]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="browser-test-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", TABLE_PIN, table, cutter)
    finally:
        server.shutdown()
        thread.join(timeout=5)


def reveal_confirmed_as_read(live_server: LiveServer) -> dict[str, Any]:
    """A camera reveal of the browser tests' scene (three dice a seat, a 4 in front of Ann's
    cup; one die unsure), confirmed on the API as the camera read it: the review's JSON."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x4", "set_aside": [4]})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    review: dict[str, Any] = live_server.post("/api/reveal/capture", {})["review"]
    assert review["problems"], "the browser tests' scene has an unsure die to check"
    as_read = {seat: [d["value"] for d in dice] for seat, dice in review["seats"].items()}
    live_server.post(f"/api/reveals/{review['id']}/confirm", {"seats": as_read})
    return review


def open_page(
    browser: Any, live_server: LiveServer, options: dict[str, Any], where: str
) -> Iterator[Any]:
    """A page in its own context that fails the test on any JavaScript error."""
    context = browser.new_context(base_url=live_server.url, **options)
    context.set_default_timeout(8000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the {where}: {errors}"
