"""What the board tells the whole table: the round's story (`bluffcam.round_story`), built
from the accepted actions alone; the camera's one banner with no shell commands
(`bluffcam.camera_news`); and the odds a table may switch off (`bluffcam.table_options`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bluffcam.camera_news import SEE_CALIBRATION, camera_summary, without_commands
from bluffcam.round_story import round_story
from bluffcam.table import Table

BID_34 = {"player": "Ann", "bid": "3x4"}


def kinds(story: dict[str, Any]) -> list[str]:
    return [step["kind"] for step in story["steps"]]


def test_a_raise_and_re_roll_keeps_the_dice_set_aside() -> None:
    story = round_story([BID_34, {"player": "Ben", "bid": "4x4", "set_aside": [4, 4]}])
    assert story == {"round": 1, "settled": False, "steps": [
        {"kind": "bid", "player": "Ann", "bid": "3x4"},
        {"kind": "raise_reroll", "player": "Ben", "bid": "4x4", "set_aside": [4, 4]}]}


def test_scams_passes_and_the_call_are_steps() -> None:
    story = round_story([{"player": "Ann", "bid": "2x5"}, {"player": "Ben", "pass": True},
                         {"player": "Cho", "scam": True}])
    assert kinds(story) == ["bid", "pass", "scam"]
    assert story["steps"][1]["player"] == "Ben"


def test_a_new_round_starts_after_the_reveal() -> None:
    first = [BID_34, {"player": "Ben", "challenge": True}, {"reveal": {"Ann": [4], "Ben": [2]}}]
    story = round_story([*first, {"player": "Ben", "bid": "1x6"}])
    assert story["round"] == 2 and not story["settled"]
    assert story["steps"] == [{"kind": "bid", "player": "Ben", "bid": "1x6"}]


def test_a_round_just_settled_is_told_until_the_next_step() -> None:
    """The verdict is on the board: "what was bid?" is still asked while it is read."""
    first = [BID_34, {"player": "Ben", "challenge": True}, {"reveal": {"Ann": [4], "Ben": [2]}}]
    story = round_story(first)
    assert story["round"] == 1 and story["settled"]
    assert kinds(story) == ["bid", "challenge", "reveal"]
    second = [*first, {"player": "Ben", "bid": "1x6"}, {"player": "Ann", "challenge": True},
              {"reveal": {"Ann": [6], "Ben": [6]}}]
    assert round_story(second)["round"] == 2
    assert kinds(round_story(second)) == ["bid", "challenge", "reveal"]


def test_no_action_is_an_empty_first_round() -> None:
    assert round_story([]) == {"round": 1, "settled": False, "steps": []}


def test_another_games_action_is_a_step_of_its_own_key() -> None:
    step = round_story([{"player": "Ann", "play": 2, "claim": "orc"}])["steps"][0]
    assert step == {"kind": "play", "player": "Ann", "value": 2}


def test_the_table_state_carries_the_story(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        assert table.state()["story"] is None
        table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
        table.submit({"player": "Ann", "bid": "2x3"})
        table.submit({"player": "Ben", "bid": "3x3", "set_aside": [3]})
        assert kinds(table.state()["story"]) == ["bid", "raise_reroll"]
    finally:
        table.close()


# ---------------------------------------------------------------- the camera's words


def test_a_command_given_as_an_aside_is_left_out() -> None:
    text = "could not open the camera; is the webcam plugged in? (`ls /dev/video*`)"
    assert without_commands(text) == "could not open the camera; is the webcam plugged in?"


def test_a_clause_that_gives_a_command_goes_and_says_where_the_steps_are() -> None:
    said = without_commands("no camera found; check the ribbon cable and "
                            "`rpicam-hello --list-cameras`")
    assert "`" not in said and "rpicam" not in said
    assert said == f"no camera found {SEE_CALIBRATION}"


def test_the_summary_drops_the_retry_countdown() -> None:
    assert camera_summary("camera offline: gone (retrying in 4 s)") == "camera offline: gone"
    assert camera_summary("ok") == "ok"


def test_a_camera_retrying_is_one_banner_that_updates(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        for wait in (1, 2, 4):
            table.note(f"camera offline: gone (retrying in {wait} s)", "warning", topic="camera")
        table.note("something else")
        texts = [m["text"] for m in table.state()["messages"]]
        assert texts == ["camera offline: gone (retrying in 4 s)", "something else"]
    finally:
        table.close()


def test_serves_camera_watch_keeps_one_banner_through_the_retries(tmp_path: Path) -> None:
    """Each retry said its own countdown, and each was a new banner: three in 10 s."""
    import threading
    import time

    from bluffcam.commands.serve import watch_camera
    from hardware.cameras import CameraError, ResilientCamera

    def opener(spec: str) -> Any:
        raise CameraError(f"{spec}: could not open it; is it plugged in? (`ls /dev/video*`)")

    camera = ResilientCamera("opencv:0", opener=opener, first_retry_s=0.01, max_retry_s=0.2)
    camera.read()
    table = Table(tmp_path / "journal.sqlite", camera=camera)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_camera, args=(table, stop, 0.01), daemon=True)
    watcher.start()
    try:
        deadline = time.monotonic() + 5
        while camera.failures < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert camera.failures >= 5  # the countdown changed four times or more
        shown = [m for m in table.state()["messages"] if "camera" in m["text"]]
        assert len(shown) == 1
        assert "`" not in shown[0]["text"] and "retrying" not in shown[0]["text"]
        assert "`ls /dev/video*`" in table.state()["camera"]["status"]  # the calibration page's
    finally:
        stop.set()
        watcher.join(timeout=5)
        table.close()


# ---------------------------------------------------------------- the odds switched off


def test_a_table_may_keep_the_odds_off_and_a_restart_keeps_them_off(tmp_path: Path) -> None:
    setup = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann", "odds": False}
    table = Table(tmp_path / "journal.sqlite")
    try:
        table.new_game(setup)
        table.submit({"player": "Ann", "bid": "2x3"})
        state = table.state()
        assert state["odds"] is None and state["odds_shown"] is False
        assert state["setup"]["odds"] is False
    finally:
        table.close()
    again = Table(tmp_path / "journal.sqlite")
    try:
        assert again.state()["odds"] is None and again.state()["game"]["bid"] == "2x3"
        again.new_game({**setup, "odds": True})
        again.submit({"player": "Ann", "bid": "2x3"})
        assert again.state()["odds"]["probability"] > 0 and "odds" not in again.state()["setup"]
    finally:
        again.close()


def test_odds_that_are_not_true_or_false_are_refused_and_change_nothing(tmp_path: Path) -> None:
    from bluffcam.table import TableError

    table = Table(tmp_path / "journal.sqlite")
    try:
        with pytest.raises(TableError, match='"odds" must be true or false') as refused:
            table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "odds": "no"})
        assert refused.value.status == 400 and table.state()["game"] is None
    finally:
        table.close()
