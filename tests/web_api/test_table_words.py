"""The table's own words about the camera, the disk and the demo reach the board as a message
id with parameters beside their English, so a board in another language says them: a
capture that failed or read nothing, the camera offline, a disk nearly full. The English the
board's ``text`` and the CLI show is unchanged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from camera_fakes import NoCamera, SameFrame
from flask.testing import FlaskClient
from web_api_helpers import SETUP, StubCamera, play_to_reveal, post

import hardware.cameras as cameras
from bluffcam.camera_news import (
    camera_status_said,
    camera_summary,
    camera_summary_said,
    problem_said,
    said_from_json,
    without_commands,
    without_commands_said,
)
from bluffcam.photo_budget import Pruned, low_space_said, low_space_text
from bluffcam.table import Table, TableError
from engine.words import Said, said, said_n
from hardware.camera_words import said as hardware_said
from hardware.cameras import FROZEN_AFTER_FRAMES, CameraError, CameraSource, ResilientCamera
from vision.reveal import NO_FRAMES, Problem
from vision.words import said as vision_said


def english(words: dict[str, Any]) -> str:
    """The JSON words filled in as a page in English fills them (web/static/js/i18n.js)."""
    text = words["msgid"] if "plural" not in words or words["n"] == 1 else words["plural"]

    def value(v: Any) -> Any:
        if isinstance(v, list):
            return "; ".join(english(w) for w in v)
        return english(v) if isinstance(v, dict) else v

    params = {k: value(v) for k, v in words["params"].items()}
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), text)


def msgids(words: dict[str, Any]) -> Iterator[str]:
    yield words["msgid"]
    for value in words["params"].values():
        for inner in value if isinstance(value, list) else [value]:
            if isinstance(inner, dict):
                yield from msgids(inner)


def failed(error: BaseException, spec: str = "opencv:0") -> ResilientCamera:
    """A camera whose source raised ``error`` at its first try, as hardware reports it."""
    def opener(spec: str) -> CameraSource:
        raise error

    camera = ResilientCamera(spec, opener=opener)
    assert camera.read() is None
    return camera


def test_the_camera_offline_is_said_in_words_with_the_fault_as_the_camera_says_it() -> None:
    camera = failed(CameraError("/dev/video0: could not open (`ls /dev/video*`)"))
    words = camera_summary_said(camera)
    assert words is not None and str(words) == camera_summary(camera.status)
    assert words.msgid == "camera offline: {fault}"
    assert words.params == {"fault": "/dev/video0: could not open"}  # no command, no countdown
    whole = camera_status_said(camera)  # the calibration page's: the command and countdown
    assert whole == said("camera offline: {fault} (retrying in {seconds} s)",
                         fault="/dev/video0: could not open (`ls /dev/video*`)", seconds="1")
    assert str(whole) == camera.status
    fresh = ResilientCamera("opencv:0")
    assert camera_summary_said(fresh) == camera_status_said(fresh) == said(
        "camera offline: not opened yet")
    fresh.close()
    assert camera_summary_said(fresh) == said("camera offline: closed")


def test_a_camera_without_words_is_shown_in_its_english() -> None:
    """No camera, one that is ok, and one that gives only its status text (no words beside
    it): nothing is read out of its English."""
    class TextOnly:
        status = "camera offline: opencv:0: no frame (camera disconnected or stream ended)"

    for camera in (None, StubCamera(), TextOnly()):
        assert camera_status_said(camera) is None and camera_summary_said(camera) is None


def test_the_faults_the_camera_names_are_said_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fault raised by hardware's own code, with the words it gives."""
    frozen = ResilientCamera("opencv:0", opener=lambda spec: SameFrame())
    for _ in range(FROZEN_AFTER_FRAMES):
        frozen.read()
    monkeypatch.setattr("hardware.cameras.cv2.VideoCapture", NoCamera)
    monkeypatch.setattr(cameras, "device_holders", lambda device: [])
    unplugged = ResilientCamera("opencv:1")
    unplugged.read()
    cases: list[tuple[ResilientCamera, str, dict[str, str | int], bool]] = [
        (frozen, "{camera}: frozen: the last {n} frames were identical (a stuck driver or "
                 "stream, or a lens covered in the dark)",
         {"camera": "opencv:0", "n": FROZEN_AFTER_FRAMES}, True),
        # its English gives whoever runs the table a command: the board's words leave it out
        (unplugged, "{camera}: could not open the camera; is the webcam plugged in, and is the "
                    "index right?", {"camera": "opencv:1"}, False),
    ]
    for camera, msgid, params, whole_in_words in cases:
        summary = camera_summary_said(camera)
        assert summary is not None and str(summary) == camera_summary(camera.status)
        assert summary.params["fault"] == said(msgid, **params)
        whole = camera_status_said(camera)  # with its countdown: the same English
        assert whole is not None and str(whole) == camera.status
        assert whole.msgid == "camera offline: {fault} (retrying in {seconds} s)"
        assert isinstance(whole.params["fault"], Said) is whole_in_words


def test_the_words_come_from_hardware_not_from_its_english() -> None:
    """A fault's English reworded keeps its words; English that reads like a known fault but
    comes without words stays English."""
    words = hardware_said("{camera}: no frame (camera disconnected or stream ended)",
                          camera="opencv:0")
    reworded = failed(CameraError("opencv:0: the picture stopped", words))
    summary = camera_summary_said(reworded)
    assert summary == said("camera offline: {fault}", fault=said(
        "{camera}: no frame (camera disconnected or stream ended)", camera="opencv:0"))
    whole = camera_status_said(reworded)  # the calibration page says the English it shows
    assert whole is not None and whole.params["fault"] == "opencv:0: the picture stopped"
    lookalike = failed(CameraError(str(words)))
    assert camera_summary_said(lookalike) == said("camera offline: {fault}", fault=str(words))


def test_words_come_back_from_their_json_and_lose_their_commands() -> None:
    words = said("{what} — capture again, or enter the reveal by hand",
                 what=said("the camera read nothing ({reason})", reason=(
                     said("{seat}: no dice seen in front of the cup", seat="Ann"),
                     said_n("{n} die", "{n} dice", 2))))
    assert said_from_json(words.to_json()) == words
    fault = said("the camera's reading failed ({error})",
                 error="no camera found; check `rpicam-hello --list-cameras`")
    assert str(without_commands_said(fault)) == (
        "the camera's reading failed (no camera found (the calibration page says how to fix "
        "it))")
    assert without_commands(str(fault)).startswith("the camera's reading failed (no camera found")
    plain = problem_said({"kind": "rules", "message": "a refusal without words"})
    assert plain == Said("a refusal without words")
    problem = Problem.saying("not_still", None, None, None, NO_FRAMES).to_json()
    assert problem_said(problem).to_json() == NO_FRAMES.to_json()


def test_a_capture_that_reads_nothing_says_why_in_words(tmp_path: Path) -> None:
    from bluffcam.table.vision_bridge import RevealReading

    restless = Problem.saying("not_still", None, None, None, NO_FRAMES)

    def reader(frames: Any, expected: Any) -> RevealReading:
        return RevealReading({}, {}, [restless.to_json()], True, None)

    table = Table(tmp_path / "journal.sqlite", StubCamera(), reveal_reader=reader)
    try:
        table.new_game(SETUP)
        table.submit({"player": "Ann", "bid": "3x4"})
        table.submit({"player": "Ben", "challenge": True})
        with pytest.raises(TableError) as refused:
            table.capture_reveal()
        message = table.state()["messages"][-1]
        assert message["text"] == refused.value.message == (
            "the camera read nothing (no frames: the camera gave none) — capture again, or "
            "enter the reveal by hand")
        assert english(message["said"]) == message["text"]
        assert list(msgids(message["said"])) == [
            "{what} — capture again, or enter the reveal by hand",
            "the camera read nothing ({reason})", "no frames: the camera gave none"]
    finally:
        table.close()


def test_a_camera_gone_offline_is_said_in_words_on_the_board(client: FlaskClient,
                                                              camera: StubCamera) -> None:
    play_to_reveal(client)
    camera.offline = True
    refused = post(client, "/api/reveal/capture")
    assert refused.status_code == 409
    error = refused.get_json()["error"]  # the phone that asked says it in its language too
    assert error["rule"] == "camera" and english(error["said"]) == error["message"]
    body: dict[str, Any] = client.get("/api/state").get_json()
    message = body["messages"][-1]
    assert english(message["said"]) == message["text"]
    assert "camera offline: {fault} (retrying in {seconds} s)" in msgids(message["said"])
    assert body["camera"]["summary"] == "camera offline: unplugged"
    assert english(body["camera"]["status_said"]) == body["camera"]["status"]  # calibration's
    assert body["camera"]["summary_said"] == {"msgid": "camera offline: {fault}",
                                              "params": {"fault": "unplugged"}}


def test_the_disk_nearly_full_is_said_in_words() -> None:
    pruned = Pruned(removed=0, freed=0, kept=0, free=120_000_000)
    words = low_space_said(pruned)
    assert str(words) == low_space_text(pruned) and "only 120 MB free" in str(words)
    assert words.params == {"mb": 120}


def test_a_reroll_the_camera_cannot_read_says_why_in_the_cameras_words(tmp_path: Path) -> None:
    """The set-aside read's problems (vision's words) reach the refusal: the phone that asked
    and the panel's board note say them in their language."""
    unsure = Problem.saying("uncertain", "Ann", 120.0, 30.0, vision_said(
        "{seat}: a die set aside looks like a {value}, but the camera is only {percent}% sure",
        seat="Ann", value=4, percent=41)).to_json()

    def front(frames: Any, seat: int) -> tuple[list[int], list[Said]]:
        return [4], [problem_said(unsure)]

    table = Table(tmp_path / "journal.sqlite", StubCamera(), set_aside_reader=front)
    try:
        table.new_game(SETUP)
        with pytest.raises(TableError) as refused:
            table.submit({"player": "Ann", "bid": "3x4", "reroll": True})
        words = refused.value.said
        assert words is not None and str(words) == refused.value.message == (
            "raise and re-roll: Ann: a die set aside looks like a 4, but the camera is only 41% "
            "sure; give their faces by hand")
        assert english(words.to_json()) == refused.value.message
        assert list(msgids(words.to_json())) == [
            "raise and re-roll: {why}; give their faces by hand", unsure["said"]["msgid"]]
    finally:
        table.close()
