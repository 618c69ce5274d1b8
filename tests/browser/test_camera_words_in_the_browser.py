"""The camera's own words in the page's language, in the real chromium: a reveal the camera
sends to review shows its problems (an unsure die, a die outside the zones, a count that is
short) in Japanese on the review page, on its photo's marks and on the board, with none of
their English left.

Unlike the other browser tests' stand-in reader, this one votes and places the dice with
the real `vision.reveal` (only the die reader is a stand-in), so the problems carry the
words vision/ gives them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from babel.messages.pofile import read_po
from browser_support import SCENE, LiveServer, remember_pin, scene_profile, serving
from camera_fakes import GivesNothing
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TRANSLATIONS = Path(__file__).resolve().parents[2] / "web" / "translations"
PHONE = {"viewport": {"width": 412, "height": 915}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}
TV = {"viewport": {"width": 1600, "height": 900}}
PLAYERS = ["健太", "さくら"]
#: what the stand-in die reader makes of the scene: its Ann's 1 unseen (a count short), its
#: Ben's second 4 read as a 5 and unsure, and a stray die outside every seat zone
UNSEEN, UNSURE = 1, 4
STRAY = (5, 60.0, 100.0)


def stand_in_dice(frame: Any, params: Any) -> Any:
    from vision.types import Die, Reading

    square = np.array([[-28, -28], [28, -28], [28, 28], [-28, 28]], dtype=np.float64)
    dice = [Die(5 if i == UNSURE else d.value, float(d.x), float(d.y),
                0.41 if i == UNSURE else 0.97, square + [d.x, d.y])
            for i, d in enumerate(SCENE) if i != UNSEEN]
    value, x, y = STRAY
    dice.append(Die(value, x, y, 0.97, square + [x, y]))
    return Reading(dice=tuple(dice), width=960, height=540)


def camera_reader(frames: Iterator[Any], expected: Mapping[str, Any]) -> Any:
    """`bluffcam.table.vision_bridge.read_reveal`'s work with the stand-in die reader."""
    from bluffcam.table.vision_bridge import RevealReading, encode_jpeg
    from vision.reveal import capture_reveal

    result = capture_reveal(frames, scene_profile().zones, dict(expected), None,
                            stillness=None, reader=stand_in_dice)
    return RevealReading(
        seats={name: [d.to_json() for d in result.seats.get(name, [])] for name in expected},
        set_aside={}, problems=[p.to_json() for p in result.problems],
        needs_review=result.needs_review, annotated_jpeg=encode_jpeg(result.annotated),
        advice=[a.to_json() for a in result.advice], frames_voted=result.frames_voted,
        photo_jpeg=encode_jpeg(result.frame))


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    import vision.cover_check

    with pytest.MonkeyPatch.context() as patch:
        # the cover check (a network) sees nothing over the drawn dice: these problems only
        patch.setattr(vision.cover_check, "doubted", lambda frame, dice, bar: [False] * len(dice))
        with serving(tmp_path_factory.mktemp("table"), scene_profile(), camera_reader) as server:
            yield server

# the conftest's `phone` and `tv` pages open on this module's `live_server`


def in_japanese(words: Mapping[str, Any]) -> str:
    """The words as the Japanese catalog says them (a number as it is: none here is 1,000
    or more, where the page groups digits)."""
    with (TRANSLATIONS / "ja" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = {m.id: m.string for m in read_po(f) if m.id}
    text = str(catalog[words["msgid"]])
    params = {k: in_japanese(v) if isinstance(v, dict) else v for k, v in words["params"].items()}
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), text)


def test_a_reveal_sent_to_review_shows_its_problems_in_japanese(
        phone: Any, tv: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", {"game": "bluff", "players": PLAYERS, "starter": PLAYERS[0],
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": PLAYERS[0], "bid": "2x4"})
    live_server.post("/api/action", {"player": PLAYERS[1], "challenge": True})
    review = live_server.post("/api/reveal/capture", {})["review"]
    problems = review["problems"]
    assert sorted(p["kind"] for p in problems) == ["count_mismatch", "outside_zones",
                                                   "uncertain"]
    japanese = [in_japanese(p["said"]) for p in problems]
    english = [p["message"] for p in problems]
    assert f"{PLAYERS[1]}: サイコロは5に見えますが、カメラの確信度は41%だけです" in japanese

    remember_pin(phone, live_server.pin)
    phone.goto("/review?lang=ja")
    items = phone.locator("#problems li")
    expect(items).to_have_count(len(problems))
    for text in japanese:
        expect(phone.locator("#problems")).to_contain_text(text)
    # the marks on the photo say them too (the unsure die and the stray one)
    titles = phone.locator("#overlay .problem-mark title")
    expect(titles).to_have_count(2)
    marked = {p["x"]: in_japanese(p["said"]) for p in problems if p["x"] is not None}
    assert sorted(titles.all_text_contents()) == sorted(marked.values())
    shown = phone.evaluate("document.body.innerText")
    assert not [sentence for sentence in english if sentence in shown]

    tv.goto("/?lang=ja")
    expect(tv.get_by_test_id("pending-review")).to_be_visible()
    listed = tv.locator(".doubt-list li")
    expect(listed).to_have_count(len(problems))
    assert sorted(listed.all_text_contents()) == sorted(japanese)
    board = tv.evaluate("document.body.innerText")
    assert not [sentence for sentence in english if sentence in board]


def test_the_camera_offline_is_said_in_japanese_on_the_boards_footer(
        tv: Any, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault as hardware's own code raises it, with the words it gives beside its
    English (no English read back)."""
    import hardware.cameras as cameras

    monkeypatch.setattr("hardware.cameras.cv2.VideoCapture", GivesNothing)
    monkeypatch.setattr(cameras, "device_holders", lambda device: [])
    scene = live_server.table.camera
    tv.goto("/?lang=ja")
    expect(tv.locator("#camera-status")).to_contain_text("カメラ")
    gone = cameras.ResilientCamera("opencv:3")
    assert gone.read() is None and gone.status.startswith("camera offline: opencv:3: no frame")
    live_server.table.set_camera(gone)  # a change: the state is sent
    try:
        footer = tv.locator("#camera-status")
        expect(footer).to_contain_text(
            "カメラオフライン: opencv:3: 画像が来ません (カメラが外れたか、配信が終わりました)")
        assert "no frame" not in footer.inner_text() and "retrying" not in footer.inner_text()
    finally:
        live_server.table.set_camera(scene)
