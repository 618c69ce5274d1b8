"""Impus at the table: card art registered through the API, then a doubted batch read by a
``files:`` camera over rendered card scenes (tests/data/cards, made by tools/cards)."""

from __future__ import annotations

import errno
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import PIN, post

from bluffcam.table import Table
from hardware.cameras import FileCamera
from web import create_app

CARDS = Path(__file__).resolve().parents[1] / "data" / "cards"
PLAYERS = ["Ann", "Ben", "Cho", "Dan"]


class Rig:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.table = Table(tmp_path / "data" / "journal.sqlite")
        app = create_app({"TESTING": True, "TABLE_PIN": PIN}, table=self.table)
        self.client: FlaskClient = app.test_client()
        self.token = self.client.get("/api/csrf").json["csrf_token"]

    def upload(self, kind: str, data: bytes, *, pin: str | None = PIN) -> Any:
        form = {"csrf_token": self.token, "image": (io.BytesIO(data), f"{kind}.jpg")}
        if pin is not None:
            form["pin"] = pin
        return self.client.post(f"/api/cards/{kind}", data=form)

    def register_all(self) -> None:
        for photo in sorted((CARDS / "register").glob("*.jpg")):
            assert self.upload(photo.stem, photo.read_bytes()).status_code == 200

    def point_camera_at(self, scene: str, copies: int = 3) -> None:
        folder = self.tmp / f"frames_{scene}"
        folder.mkdir()
        for i in range(copies):
            shutil.copy(CARDS / "scenes" / f"{scene}.jpg", folder / f"{i:03d}.jpg")
        self.table.set_camera(FileCamera(folder))

    def doubt_a_batch(self, count: int) -> None:
        assert post(self.client, "/api/game", {"game": "impus", "players": PLAYERS,
                                               "starter": "Ann"}).status_code == 200
        post(self.client, "/api/action", {"player": "Ann", "play": count, "claim": "orc"})
        state = post(self.client, "/api/action", {"player": "Ben", "doubt": True}).json
        assert state["game"]["reveal_due"] == count


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.table.close()


def test_card_art_is_registered_listed_and_deleted_with_the_pin(rig: Rig) -> None:
    assert rig.client.get("/api/cards").json["registered"] == []
    orc = (CARDS / "register" / "orc.jpg").read_bytes()
    refused = rig.upload("orc", orc, pin=None)
    assert refused.status_code == 401 and rig.client.get("/api/cards").json["registered"] == []
    no_csrf = rig.client.post("/api/cards/orc", data={"pin": PIN, "image": (io.BytesIO(orc),
                                                                             "orc.jpg")})
    assert no_csrf.status_code == 403
    not_image = rig.upload("orc", b"MZ not a photo")
    assert not_image.status_code == 400 and "not an image" in not_image.json["error"]["message"]
    bad_name = rig.upload("../orc", orc)
    assert bad_name.status_code in (400, 404)
    listing = rig.upload("orc", orc).json
    assert listing["registered"] == ["orc"] and "orc" not in listing["missing"]
    assert "imp" in listing["missing"] and "polymorph" in listing["wanted"]
    gone = rig.client.delete("/api/cards/orc", headers={"X-Table-PIN": PIN})
    assert gone.status_code == 200 and gone.json["registered"] == []
    assert rig.client.delete("/api/cards/orc", headers={"X-Table-PIN": PIN}).status_code == 404


def test_a_blank_photo_is_refused_naming_the_kind(rig: Rig) -> None:
    import cv2
    import numpy as np

    ok, blank = cv2.imencode(".png", np.full((240, 320, 3), 90, dtype=np.uint8))
    refused = rig.upload("elf", bytes(blank.tobytes()))
    assert refused.status_code == 400 and "elf" in refused.json["error"]["message"]
    assert rig.client.get("/api/cards").json["registered"] == []


def test_a_sure_reading_of_the_doubted_batch_is_applied(rig: Rig) -> None:
    rig.register_all()
    rig.doubt_a_batch(2)
    rig.point_camera_at("reveal_orc_imp")
    state = post(rig.client, "/api/reveal/capture").json
    assert state["review"] is None, state["review"]
    assert state["game"]["phase"] == "bidding"
    verdict = state["history"][-1]
    assert sorted(verdict["revealed"]) == ["imp", "orc"] and verdict["truthful"] is False
    assert verdict["taker"] == "Ann"  # I5: the checked player takes the pile
    assert state["last_reveal"]["seats"] == {"cards": ["orc", "imp"]}
    image = rig.client.get(state["last_reveal"]["image_url"])
    assert image.status_code == 200 and image.mimetype == "image/jpeg"


def test_turned_up_cards_read_wrongly_can_be_checked_again(rig: Rig) -> None:
    rig.register_all()
    rig.doubt_a_batch(2)
    rig.point_camera_at("reveal_orc_imp")
    applied = post(rig.client, "/api/reveal/capture").json
    assert applied["history"][-1]["taker"] == "Ann" and applied["reopen"]
    state = post(rig.client, f"/api/reveals/{applied['reopen']}/reopen").json
    review = state["review"]
    assert state["game"]["phase"] == "reveal" and review["expected"] == {"cards": 2}
    assert [c["value"] for c in review["seats"]["cards"]] == ["orc", "imp"]
    assert review["problems"][0]["kind"] == "reopened"
    # say the imp was an orc after all: the batch was true, so the doubter takes the pile
    done = post(rig.client, f"/api/reveals/{review['id']}/confirm",
                {"seats": {"cards": ["orc", "orc"]}}).json
    assert done["history"][-1]["truthful"] is True and done["history"][-1]["taker"] == "Ben"
    assert done["last_reveal"]["corrections"] == {"cards": {"removed": ["imp"],
                                                            "added": ["orc"]}}
    texts = [m["text"] for m in done["messages"]]
    assert "pile 1 corrected by hand" in texts


def test_a_count_that_does_not_match_waits_for_review_then_is_confirmed(rig: Rig) -> None:
    rig.register_all()
    rig.doubt_a_batch(3)  # three cards doubted, but the camera sees two
    rig.point_camera_at("reveal_orc_imp")
    state = post(rig.client, "/api/reveal/capture").json
    review = state["review"]
    assert review is not None and state["game"]["phase"] == "reveal"
    assert [p["kind"] for p in review["problems"]] == ["count_mismatch"]
    assert [c["value"] for c in review["seats"]["cards"]] == ["orc", "imp"]
    assert review["expected"] == {"cards": 3}
    wrong = post(rig.client, f"/api/reveals/{review['id']}/confirm",
                 {"seats": {"cards": ["orc", "imp"]}})
    assert wrong.status_code == 409 and wrong.json["error"]["rule"]  # the batch is 3 cards
    blank = post(rig.client, f"/api/reveals/{review['id']}/confirm",
                 {"seats": {"cards": ["orc", " ", ""]}})
    assert blank.status_code == 400 and "a card's kind is blank" in blank.json["error"]["message"]
    assert rig.table.state()["review"] is not None
    done = post(rig.client, f"/api/reveals/{review['id']}/confirm",
                {"seats": {"cards": ["orc", "imp", "orc"]}}).json
    assert done["review"] is None and done["history"][-1]["truthful"] is False
    assert done["last_reveal"]["corrections"] == {"cards": {"removed": [], "added": ["orc"]}}


def test_a_face_down_card_goes_to_review(rig: Rig) -> None:
    rig.register_all()
    rig.doubt_a_batch(3)
    rig.point_camera_at("face_down_among")
    review = post(rig.client, "/api/reveal/capture").json["review"]
    assert review is not None and any(p["kind"] == "uncertain" for p in review["problems"])
    assert None in [c["value"] for c in review["seats"]["cards"]]


def test_a_reveal_needs_the_card_art_first(rig: Rig) -> None:
    rig.doubt_a_batch(2)
    rig.point_camera_at("reveal_orc_imp")
    refused = post(rig.client, "/api/reveal/capture")
    assert refused.status_code == 409 and "calibration page" in refused.json["error"]["message"]
    assert rig.table.state()["game"]["phase"] == "reveal"


def test_a_pending_card_review_survives_a_restart(rig: Rig) -> None:
    rig.register_all()
    rig.doubt_a_batch(3)
    rig.point_camera_at("reveal_orc_imp")
    review_id = post(rig.client, "/api/reveal/capture").json["review"]["id"]
    rig.table.close()
    again = Table(rig.tmp / "data" / "journal.sqlite")
    try:
        assert again.state()["review"]["id"] == review_id
        assert f"reveal {review_id} needs a look before its verdict" in [
            m["text"] for m in again.state()["messages"]]
        done = again.confirm_review(review_id, {"cards": ["imp", "imp", "orc"]})
        assert done["review"] is None and done["game"]["phase"] == "bidding"
    finally:
        again.close()
    rig.table = Table(rig.tmp / "data" / "journal.sqlite")  # the fixture closes this one
    assert rig.table.state()["last_reveal"]["seats"] == {"cards": ["imp", "imp", "orc"]}


def test_the_setup_forms_default_kinds_are_the_engines() -> None:
    """The phone's setup form starts Impus from the engine's ten kinds, written out in
    control.js (the form has no request to make before the table names its own)."""
    import re
    from pathlib import Path

    from engine.cards import DEFAULT_KINDS

    source = (Path(__file__).parents[2] / "web" / "static" / "js" / "control.js").read_text()
    found = re.search(r"impus: \{[^}]*?\bkinds: \[([^\]]*)\]", source)
    assert found is not None, "control.js no longer lists the Impus kinds where expected"
    assert tuple(re.findall(r'"([^"]+)"', found.group(1))) == DEFAULT_KINDS


def test_a_recapture_the_disk_refuses_keeps_the_card_review_it_was_to_replace(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    rig.register_all()
    rig.doubt_a_batch(3)
    rig.point_camera_at("face_down_among")  # a card still face down: a review
    review = post(rig.client, "/api/reveal/capture").json["review"]
    assert review is not None
    rig.point_camera_at("reveal_orc_imp")  # two of the three: a review again, to be stored

    def disk_full(reveal_id: str, record: dict[str, Any]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rig.table.reveals, "save", disk_full)
    response = post(rig.client, f"/api/reveals/{review['id']}/recapture")
    assert response.status_code == 503, response.json
    monkeypatch.undo()
    state = rig.table.state()
    assert state["review"] is not None and state["review"]["id"] == review["id"]
    record = json.loads((rig.tmp / "data" / "reveals" / f"{review['id']}.json").read_text())
    assert record["status"] == "needs_review"


def test_a_card_capture_the_camera_fails_is_refused_and_the_reveal_still_waits(
        rig: Rig) -> None:
    class Unplugged:
        spec = "opencv:0"

        def frames(self) -> Iterator[Any]:
            raise RuntimeError("unplugged")

    rig.register_all()
    rig.doubt_a_batch(2)
    rig.table.set_camera(Unplugged())
    refused = post(rig.client, "/api/reveal/capture")
    assert refused.status_code == 409 and refused.json["error"]["rule"] == "camera"
    assert refused.json["error"]["message"] == (
        "the camera's reading failed (unplugged) — capture again, or enter the reveal by hand")
    state = rig.client.get("/api/state").json
    assert state["game"]["reveal_due"] == 2 and state["review"] is None


def test_a_card_reveal_typed_in_while_a_reading_waits_settles_that_reading(rig: Rig) -> None:
    """A batch typed in on the control page answers the card reading waiting for review: its
    record says so, with what the person changed, as a dice reveal's does."""
    rig.register_all()
    rig.doubt_a_batch(3)  # three cards doubted, but the camera sees two: held for review
    rig.point_camera_at("reveal_orc_imp")
    review = post(rig.client, "/api/reveal/capture").json["review"]
    assert review is not None
    typed = post(rig.client, "/api/action", {"reveal": ["orc", "imp", "orc"]})
    assert typed.status_code == 200 and typed.json["review"] is None
    record = rig.table.reveals.load(review["id"])
    assert record["status"] == "applied" and record["how"] == "entered by hand (web)"
    assert record["confirmed"] == {"cards": ["orc", "imp", "orc"]}
    assert record["corrections"] == {"cards": {"removed": [], "added": ["orc"]}}
    assert typed.json["last_reveal"]["id"] == review["id"]
