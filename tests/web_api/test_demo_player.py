"""The demo player on a small made-up recording: panel presses, reviews, never a misread.

The frames here are blank stand-ins and the reader is the tests' stub, so this checks the
player's flow; `test_demo_cli.py` runs the real recorded game through the real reader.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from web_api_helpers import SETUP, StubReader

import bluffcam.commands.demo as demo_command
from bluffcam.demo_player import DemoPlayer, RecordingError, expected_outcome, load_recording
from bluffcam.table import Table

SCRIPT: dict[str, Any] = {
    "game": "bluff",
    "players": ["Ann", "Ben"],
    "starter": "Ann",
    "actions": [
        {"player": "Ann", "bid": "2x3"},
        {"player": "Ben", "bid": "3x3", "set_aside": [3, 3]},
        {"player": "Ann", "bid": "2*"},
        {"player": "Ben", "challenge": True},
        {"reveal": {"Ann": [1, 2, 3, 4, 5], "Ben": [3, 3, 6, 6, 2]}},
        {"player": "Ben", "bid": "3x6"},
        {"player": "Ann", "challenge": True},
        {"reveal": {"Ann": [6, 6, 2, 2], "Ben": [6, 1, 5, 4, 4]}},
    ],
}


def write_recording(folder: Path) -> Path:
    folder.mkdir()
    (folder / "game.json").write_text(json.dumps(SCRIPT))
    blank = np.full((24, 32, 3), 90, dtype=np.uint8)
    reveals = []
    for number in (1, 2):
        frames = folder / f"round{number}"
        frames.mkdir()
        for k in range(3):
            cv2.imwrite(str(frames / f"{k:04d}.png"), blank)
        reveals.append({"frames": f"round{number}"})
    (folder / "reroll").mkdir()
    cv2.imwrite(str(folder / "reroll" / "0001.png"), blank)
    rerolls = [{"action_index": 1, "frames": "reroll", "set_aside": [3, 3]}]
    (folder / "manifest.json").write_text(json.dumps({"reveals": reveals, "rerolls": rerolls}))
    return folder


class MisreadingReader(StubReader):
    """Confident on round 1; on round 2 confidently reads Ben's 1 as a 4 (a silent misread
    if nothing checked it against the recorded truth)."""

    def __call__(self, frames: Any, expected: Any) -> Any:
        hands = [a["reveal"] for a in SCRIPT["actions"] if "reveal" in a]
        self.hands = dict(hands[len(self.calls)])
        if len(self.calls) == 1:
            self.hands["Ben"] = [6, 4, 5, 4, 4]
        return super().__call__(frames, expected)


def test_recorded_game_plays_through_panel_and_review(tmp_path: Path) -> None:
    recording = load_recording(write_recording(tmp_path / "rec"))
    reader = MisreadingReader()
    table = Table(tmp_path / "data" / "journal.sqlite", reveal_reader=reader,
                  set_aside_reader=lambda frames, seat: ([3, 3], []))
    reports = []
    player = DemoPlayer(table, recording, step_s=0, review_pause_s=0, report=reports.append)
    try:
        assert player.driver is not None  # the gpiozero mock panel is in use
        player.play()
        assert player.driver.controller.refused == 0  # the re-roll too went through REROLL
        assert table.game is not None and table.game.to_json() == expected_outcome(SCRIPT)
        assert table.export()["actions"] == SCRIPT["actions"]
        texts = [m["text"] for m in table.state()["messages"]]
        # the narration of the settled review is gone with it; the game's own stays
        assert not any("needs review" in t for t in texts), texts
        assert "demo: a recorded game, played on simulated buttons" in texts
    finally:
        player.close()
        table.close()
    first, second = reports
    assert first.settled.startswith("read with confidence")
    assert second.settled.startswith("needs review")
    assert second.read["Ben"] == [6, 4, 5, 4, 4]
    assert "Ben" in second.problems[0]
    assert "verdict" in second.line()


def test_a_demo_stopped_while_a_reading_waits_leaves_it_unsettled(tmp_path: Path) -> None:
    """Ctrl+C during the pause before a review's confirm: the round was still settled."""
    recording = load_recording(write_recording(tmp_path / "rec"))
    table = Table(tmp_path / "data" / "journal.sqlite", reveal_reader=MisreadingReader(),
                  set_aside_reader=lambda frames, seat: ([3, 3], []))
    stop = threading.Event()
    player = DemoPlayer(table, recording, step_s=0, review_pause_s=30,
                        narrate=lambda text: None)
    original = table.announce_review

    def stop_when_held(reveal_id: str) -> None:  # the stop arrives while the reading waits
        original(reveal_id)
        stop.set()

    table.announce_review = stop_when_held  # type: ignore[method-assign]
    try:
        rounds = player.play(stop)  # the 30 s pause ends at once: the stop is set
        assert len(rounds) == 1  # round 1 read sure; round 2 left waiting
        assert table.review is not None and table.state()["game"]["phase"] == "reveal"
    finally:
        player.close()
        table.close()


def test_the_dashboard_demo_tells_each_game_on_the_terminal_as_the_headless_one_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The terminal beside the dashboard said neither that a game began again nor how one
    went."""
    recording = load_recording(write_recording(tmp_path / "rec"))
    table = Table(tmp_path / "data" / "journal.sqlite", reveal_reader=MisreadingReader(),
                  set_aside_reader=lambda frames, seat: ([3, 3], []))
    player = DemoPlayer(table, recording, step_s=0, review_pause_s=0,
                        narrate=lambda text: print(text))
    try:
        demo_command._ToldGames(player, table).play(threading.Event())
    finally:
        player.close()
        table.close()
    told = capsys.readouterr().out.splitlines()
    assert told[0] == f"game 1: bluff with {', '.join(SCRIPT['players'])}"
    assert told[-1].endswith("2 reveals, 1 needed review, none adjudicated on a misread")
    assert any(line.startswith("re-roll: ") for line in told)


def test_a_recording_without_its_frames_is_refused(tmp_path: Path) -> None:
    folder = write_recording(tmp_path / "rec")
    for frame in (folder / "round2").iterdir():
        frame.unlink()
    (folder / "round2").rmdir()
    with pytest.raises(RecordingError, match="round2"):
        load_recording(folder)


def test_a_misread_reroll_is_entered_by_hand_not_applied(tmp_path: Path) -> None:
    recording = load_recording(write_recording(tmp_path / "rec"))
    reader = MisreadingReader()
    table = Table(tmp_path / "data" / "journal.sqlite", reveal_reader=reader,
                  set_aside_reader=lambda frames, seat: ([3, 5], []))
    player = DemoPlayer(table, recording, step_s=0, review_pause_s=0)
    try:
        assert player.driver is not None
        player.play()
        assert player.driver.controller.refused == 1  # REROLL refused: camera disagreed
        assert table.export()["actions"] == SCRIPT["actions"]  # [3, 5] never applied
    finally:
        player.close()
        table.close()


class _RecordedGames:
    """Stands in for the demo player: each game is a new game on the table; the second one
    stops the demo. Notes what the board showed as each game began."""

    def __init__(self, table: Table, stop: threading.Event) -> None:
        self.table, self.stop = table, stop
        self.seen: list[list[str]] = []

    def play(self, stop: threading.Event) -> None:
        self.seen.append([m["text"] for m in self.table.state()["messages"]])
        self.table.new_game(SETUP)
        self.seen.append([m["text"] for m in self.table.state()["messages"]])
        if len(self.seen) == 4:
            self.stop.set()


def _play_on(folder: Path, *, speed: float, once: bool) -> tuple[_RecordedGames, bool]:
    """The demo's loop over stand-in games; what they saw, and whether it was stopped."""
    table = Table(folder / "journal.sqlite", None)
    stop = threading.Event()
    games = _RecordedGames(table, stop)
    try:
        demo_command.play_on(games, table, stop, speed=speed, once=once)
    finally:
        table.close()
    return games, stop.is_set()


def test_the_demo_plays_again_and_its_pause_note_goes_with_the_next_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo_command, "PAUSE_BETWEEN_GAMES_S", 2.0)
    games, _ = _play_on(tmp_path, speed=2.0, once=False)
    first_start, first_game, second_start, second_game = games.seen
    # the pause is told as played at the demo's speed, and only until the next game starts
    assert "demo: the game starts again in 1 s" in second_start
    assert not any("starts again" in text for text in first_game + second_game)


def test_the_demo_played_once_stops_after_one_game(tmp_path: Path) -> None:
    games, stopped = _play_on(tmp_path, speed=1.0, once=True)
    assert len(games.seen) == 2 and not stopped


def test_the_dashboard_demo_refits_a_copy_of_its_profile_never_the_shipped_one(
    tmp_path: Path
) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    demo_command.add_arguments(parser)
    _, shipped = demo_command._load(parser.parse_args([]))
    copy = demo_command.own_copy(shipped, tmp_path)
    assert copy.path == tmp_path / "profile.toml" and shipped.path != copy.path
    assert copy.zones.names == shipped.zones.names and copy.reader == shipped.reader


def test_the_demo_played_again_and_again_keeps_no_old_games_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A demo left on a TV all day kept every game's photos (3.4 MB a game) in a temporary
    folder, which may be memory: between games the earlier games' photos go."""
    monkeypatch.setattr(demo_command, "PAUSE_BETWEEN_GAMES_S", 0.0)
    table = Table(tmp_path / "journal.sqlite", None)
    for n in (1, 2, 3):  # photos of reveals no game on the table shows any more
        (table.reveals.folder / f"r{n}.jpg").write_bytes(b"m" * 1000)
        (table.reveals.folder / f"r{n}.photo.jpg").write_bytes(b"u" * 1000)
    stop = threading.Event()
    try:
        demo_command.play_on(_RecordedGames(table, stop), table, stop, speed=1.0, once=False)
    finally:
        table.close()
    assert sorted(p.name for p in table.reveals.folder.glob("r*.jpg")) == [
        "r3.jpg", "r3.photo.jpg"]  # the newest reveal's are always kept
