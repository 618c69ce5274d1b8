"""Plays the recorded demo game into a Table, the way a real table would.

Bids, challenges and passes are pressed on the real `hardware.panel.ButtonPanel` (gpiozero
`MockFactory` pins, driven here) and turned into actions by the real
`bluffcam.panel_controller.PanelController`; a raise-and-re-roll names its set-aside faces
(the web form's path, since no front-of-cup frames are recorded); each reveal is read by
the camera from the recorded frames. The recorded ground truth is handed to the table
before each capture, so a reading that disagrees with it goes to review and is confirmed
with the truth after a pause — the demo can show the review flow, never a silent misread.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.words import said

RECORDINGS = Path(__file__).resolve().parent / "recordings"
DEMO_RECORDING = RECORDINGS / "demo"


class RecordingError(RuntimeError):
    """The recorded game is missing or malformed; the message says what and where."""


@dataclass(frozen=True)
class RecordedReveal:
    """One recorded reveal: its frames and the dice really under the cups."""

    folder: Path
    truth: dict[str, list[int]]
    note: str = ""


@dataclass(frozen=True)
class RecordedReroll:
    """The frames of one raise-and-re-roll: the set-aside dice in front of the cup."""

    folder: Path
    set_aside: list[int]


@dataclass(frozen=True)
class Recording:
    """The replay script, one recorded reveal per reveal action, and the table profile.

    ``rerolls`` maps the action index of a raise-and-re-roll to its frames, when recorded.
    """

    folder: Path
    script: dict[str, Any]
    reveals: list[RecordedReveal]
    profile_path: Path | None
    rerolls: dict[int, RecordedReroll] = field(default_factory=dict)


def _first(mapping: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in mapping:
            return mapping[key]
    return None


def load_recording(folder: Path = DEMO_RECORDING) -> Recording:
    """Read ``game.json`` (replay script) and ``manifest.json`` (reveal folders) from a folder."""
    folder = Path(folder)
    try:
        script = json.loads((folder / "game.json").read_text())
    except (OSError, ValueError) as exc:
        raise RecordingError(f"{folder / 'game.json'}: {exc}") from exc
    manifest: dict[str, Any] = {}
    if (folder / "manifest.json").is_file():
        try:
            manifest = json.loads((folder / "manifest.json").read_text())
        except ValueError as exc:
            raise RecordingError(f"{folder / 'manifest.json'}: {exc}") from exc
    truths = [a["reveal"] for a in script.get("actions", []) if "reveal" in a]
    entries = _first(manifest, "reveals", "rounds") or []
    reveals = []
    for index, truth in enumerate(truths):
        entry = entries[index] if index < len(entries) else {}
        name = _first(entry, "frames", "folder", "dir", "path") or f"reveal{index + 1}"
        path = folder / str(name)
        if not path.is_dir():
            raise RecordingError(f"reveal {index + 1}: no frame folder {path}")
        recorded_truth = _first(entry, "truth", "reveal") or truth
        if recorded_truth != truth:
            raise RecordingError(f"reveal {index + 1}: manifest truth {recorded_truth} differs "
                                 f"from game.json's reveal {truth}")
        reveals.append(RecordedReveal(path, truth, str(_first(entry, "note", "comment") or "")))
    actions = script.get("actions", [])
    rerolls = {}
    for entry in manifest.get("rerolls", []) or []:
        index = entry.get("action_index")
        frames = folder / str(entry.get("frames", ""))
        if not isinstance(index, int) or not 0 <= index < len(actions) or not frames.is_dir():
            raise RecordingError(f"re-roll entry {entry.get('frames')!r}: no such action or "
                                 "frame folder")
        faces = list(actions[index].get("set_aside", []))
        if sorted(entry.get("set_aside", faces)) != sorted(faces):
            raise RecordingError(f"re-roll at action {index}: manifest set-aside "
                                 f"{entry.get('set_aside')} differs from game.json's {faces}")
        rerolls[index] = RecordedReroll(frames, faces)
    profile = _first(manifest, "calibration", "profile")
    profile_path = None
    if profile:
        candidates = [folder / profile, Path(profile), RECORDINGS.parent.parent / str(profile)]
        profile_path = next((p for p in candidates if p.is_file()), None)
    return Recording(folder, script, reveals, profile_path, rerolls)


#: how many times the recorded camera repeats a recording's last frame (see frames())
HOLD_LAST = 8


class RecordedCamera:
    """A `files:` camera that the demo points at one recorded reveal after another."""

    def __init__(self, root: Path) -> None:
        self.spec = f"files:{root}"
        self.status = "ok"
        self.folder: Path | None = None

    def point_at(self, folder: Path) -> None:
        self.folder = folder
        self.spec = f"files:{folder}"

    def frames(self) -> Iterator[Any]:
        """The recorded frames, then the last one again ``HOLD_LAST`` times.

        A real camera keeps filming the table once it is still; a recording stops. Holding
        the last (still) frame gives the still-scene wait the frames it would have had.
        """
        from hardware.cameras import FileCamera

        if self.folder is None:
            return
        last = None
        for frame in FileCamera(self.folder).frames():
            last = frame
            yield frame
        for _ in range(HOLD_LAST if last is not None else 0):
            yield last

    def read(self) -> Any:
        """The last frame of the current reveal (for snapshots)."""
        from hardware.cameras import FileCamera

        if self.folder is None:
            return None
        camera = FileCamera(self.folder)
        camera.position = len(camera.paths) - 1
        return camera.read()


@dataclass
class RoundReport:
    """What one reveal showed: the camera's reading, how it was settled, and the verdict."""

    number: int
    read: dict[str, list[int]]
    truth: dict[str, list[int]]
    settled: str
    verdict: str
    problems: list[str] = field(default_factory=list)
    #: how the camera read it (``{"frames": 3, "ms": 412}``; empty without a reading)
    timing: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        seats = "  ".join(f"{name} [{' '.join(map(str, sorted(dice)))}]"
                          for name, dice in self.read.items())
        took = ""
        if "ms" in self.timing:
            seconds = f"{self.timing['ms'] / 1000:.2f} s"
            frames = self.timing.get("frames", 0)
            took = f" ({frames} frames, {seconds})" if frames else f" ({seconds})"
        head = f"round {self.number}: camera read {seats or '(nothing)'}{took} — {self.settled}"
        return f"{head}\n         verdict: {self.verdict}"


class PanelDriver:
    """Presses the panel's mock buttons and lets the real controller act on each event."""

    def __init__(self, table: Any) -> None:
        from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

        from bluffcam.panel_controller import PanelController
        from hardware.panel import ButtonPanel

        self.now = 0.0
        self.factory = MockFactory()
        self.panel = ButtonPanel(pin_factory=self.factory, clock=lambda: self.now,
                                 feedback_s=0.01)
        self.controller = PanelController(table, self.panel,
                                          on_message=lambda text: None)

    def press(self, key: Any) -> bool:
        from hardware.panel import DEFAULT_BUTTON_PINS

        pin = self.factory.pin(DEFAULT_BUTTON_PINS[key])
        pin.drive_low()
        self.now += 0.1
        pin.drive_high()
        self.now += 0.2
        event = self.panel.events.get(timeout=2)
        return bool(self.controller.handle(event))

    def bid(self, count: int, face: int | None, *, key: Any = None) -> bool:
        """FACE until the face is right, then UP/DOWN to the count, then BID (or ``key``)."""
        from hardware.panel import Key

        self.controller.refresh()
        for _ in range(8):
            draft = self.controller.draft
            if draft is None or draft.face == face:
                break
            self.press(Key.FACE)
        draft = self.controller.draft
        if draft is None or draft.face != face:
            return False
        for _ in range(60):
            draft = self.controller.draft
            if draft is None or draft.count == count:
                break
            if not self.press(Key.UP if draft.count < count else Key.DOWN):
                return False
        return self.press(key or Key.BID)

    def close(self) -> None:
        self.panel.close()


class DemoPlayer:
    """Feeds a `Recording` into a `Table` step by step; ``speed`` scales every pause."""

    def __init__(
        self,
        table: Any,
        recording: Recording,
        *,
        speed: float = 1.0,
        step_s: float = 1.6,
        review_pause_s: float = 5.0,
        use_panel: bool = True,
        report: Callable[[RoundReport], None] | None = None,
        narrate: Callable[[str], None] | None = None,
    ) -> None:
        if not math.isfinite(speed) or speed <= 0:
            raise ValueError(f"speed must be above 0, got {speed!r}")
        self.table = table
        self.recording = recording
        self.speed = speed
        self.step_s = step_s
        self.review_pause_s = review_pause_s
        self.report = report or (lambda r: None)
        self.narrate = narrate or (lambda text: None)
        self.camera = RecordedCamera(recording.folder)
        self.driver: PanelDriver | None = None
        if use_panel:
            try:
                self.driver = PanelDriver(table)
            except Exception as exc:  # no gpiozero: the actions still go through the table
                table.note(said("demo: panel simulation unavailable ({error}); acting directly",
                                error=str(exc)))
        self.rounds: list[RoundReport] = []

    def _pause(self, seconds: float, stop: threading.Event) -> bool:
        """Wait (scaled by speed); True when asked to stop."""
        return stop.wait(seconds / self.speed) if seconds > 0 else stop.is_set()

    def play(self, stop: threading.Event | None = None) -> list[RoundReport]:
        stop = stop or threading.Event()
        self.rounds = []
        self.table.set_camera(self.camera)
        setup = {k: v for k, v in self.recording.script.items() if k not in ("actions", "comment")}
        self.table.new_game(setup)
        self.table.note(said("demo: a recorded game, played on simulated buttons"))
        reveals = iter(self.recording.reveals)
        for index, action in enumerate(self.recording.script.get("actions", [])):
            if self._pause(self.step_s, stop):
                break
            if "reveal" in action:
                self._reveal(next(reveals), stop)
                if stop.is_set():
                    break
            else:
                self._act(action, self.recording.rerolls.get(index))
        return self.rounds

    def _act(self, action: Mapping[str, Any], reroll: RecordedReroll | None = None) -> None:
        """Through the panel where a panel would be used, else as the web form would.

        A recorded raise-and-re-roll is pressed as REROLL with the camera on its frames; if
        the camera cannot read the set-aside dice (or reads them wrong), the panel refuses and
        the faces are given as on the web form, with a message saying so.
        """
        before = self.table.state()["actions_count"]
        if self.driver is not None and self._press_for(action, reroll):
            state = self.table.state()
            if state["actions_count"] == before + 1:
                last = self.table.export()["actions"][-1]
                if _same_action(last, action):
                    if reroll is not None:
                        self.narrate(f"re-roll: {action.get('player')} set aside "
                                     f"{reroll.set_aside}: read by the camera")
                    return
                raise RecordingError(f"the panel made {last}, the recording says {action}")
        if reroll is not None:
            text = f"{action.get('player')} set aside {reroll.set_aside}: entered by hand"
            self.table.note(said("demo: {player} set aside {faces}: entered by hand (the camera "
                                 "could not confirm them)", player=str(action.get("player")),
                                 faces=str(reroll.set_aside)))
            self.narrate(f"re-roll: {text} (the camera could not confirm them)")
        self.table.submit(dict(action), source="demo")

    def _press_for(self, action: Mapping[str, Any], reroll: RecordedReroll | None) -> bool:
        from engine import Bid
        from hardware.panel import Key

        assert self.driver is not None
        if "bid" in action:
            bid = Bid.parse(str(action["bid"]))
            if "set_aside" not in action:
                return self.driver.bid(bid.count, bid.face)
            if reroll is None:
                return False
            self.camera.point_at(reroll.folder)
            self.table.expect_set_aside(reroll.set_aside)
            try:
                return self.driver.bid(bid.count, bid.face, key=Key.REROLL)
            finally:
                self.table.expect_set_aside(None)
        if action.get("challenge") or action.get("scam"):
            return self.driver.press(Key.DOUBT)
        if action.get("pass"):
            return self.driver.press(Key.PASS)
        return False

    def _reveal(self, recorded: RecordedReveal, stop: threading.Event) -> None:
        from hardware.panel import Key

        self.camera.point_at(recorded.folder)
        self.table.expect_truth(recorded.truth)
        if self.driver is not None:
            self.driver.press(Key.OK)
        else:
            self.table.capture_reveal()
        state = self.table.state()
        number = len(self.rounds) + 1
        review = state.get("review")
        timing = dict((review or state.get("last_reveal") or {}).get("timing") or {})
        if review is not None:
            read = {s: [int(d["value"]) for d in dice] for s, dice in review["seats"].items()}
            problems = [str(p.get("message")) for p in review.get("problems", [])]
            self.table.note(said("demo: reveal {id} needs review — confirming the recorded dice "
                                 "shortly", id=review["id"]), review=review["id"])
            if self._pause(self.review_pause_s, stop):
                return  # stopped while the reading waited: it is left for review, unsettled
            state = self.table.confirm_review(review["id"], recorded.truth)
            shown = "; ".join(problems[:2]) + (f"; +{len(problems) - 2} more"
                                                if len(problems) > 2 else "")
            settled = (f"needs review ({len(problems)} problem{'s' * (len(problems) != 1)}: "
                       f"{shown}) → confirmed with the recorded dice")
        elif state["game"]["phase"] == "reveal":
            read, problems, timing = {}, ["no reading"], {}
            state = self.table.submit({"reveal": recorded.truth}, source="demo")
            settled = "camera gave no reading → entered by hand"
        else:
            read = dict((state.get("last_reveal") or {}).get("read") or {})
            problems = []
            settled = "read with confidence, matches the recorded dice"
        self.table.expect_truth(None)
        verdict = state["history"][-1]["verdict"] if state["history"] else "?"
        report = RoundReport(number, read, recorded.truth, settled, verdict, problems, timing)
        self.rounds.append(report)
        self.report(report)

    def close(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None


def _same_action(made: Mapping[str, Any], recorded: Mapping[str, Any]) -> bool:
    """Equal, with set-aside faces compared as a multiset (the camera lists them sorted)."""
    if "set_aside" in made or "set_aside" in recorded:
        return (sorted(made.get("set_aside", [])) == sorted(recorded.get("set_aside", []))
                and {k: v for k, v in made.items() if k != "set_aside"}
                == {k: v for k, v in recorded.items() if k != "set_aside"})
    return dict(made) == dict(recorded)


def expected_outcome(script: Mapping[str, Any]) -> dict[str, Any]:
    """What the engine says the recorded game ends as (to check the played game against)."""
    from engine import run_script

    output, _ = run_script(dict(script))
    return dict(output)


__all__ = ["DemoPlayer", "Recording", "RecordingError", "RoundReport", "expected_outcome",
           "load_recording"]
