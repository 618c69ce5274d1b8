"""Teach the camera from the calibration page: read, confirm three photos or more, then the
table's profile is learned again and the camera says how many photos it learned from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from web_api_helpers import PIN, post

from bluffcam.table import Table
from calibration import load_profile
from web import create_app

PHOTO = Path(__file__).resolve().parents[1] / "data" / "tables" / "felt.jpg"


class PhotoCamera:
    spec = "photo:"
    status = "ok"

    def __init__(self) -> None:
        image = cv2.imread(str(PHOTO))
        if image is None:
            pytest.skip("rendered test data not found (python -m tools.render testdata)")
        self.image = image

    def frames(self) -> Iterator[Any]:
        for _ in range(3):
            yield self.image

    def read(self) -> Any:
        return self.image


@pytest.fixture
def taught_table(tmp_path: Path) -> Iterator[Table]:
    profile = tmp_path / "table.toml"
    whole = "[[0, 0], [640, 0], [640, 480], [0, 480]]"
    profile.write_text(f'name = "t"\n[camera]\nspec = "photo:"\nresolution = [640, 480]\n'
                       f'[table]\narea = {whole}\n[[seats]]\nname = "Seat 1"\nzone = {whole}\n')
    t = Table(tmp_path / "journal.sqlite", camera=PhotoCamera(), profile=load_profile(profile))
    yield t
    t.close()


@pytest.fixture
def teach(taught_table: Table) -> FlaskClient:
    app = create_app({"TESTING": True, "TABLE_PIN": PIN, "MAX_CONTENT_LENGTH": 64 * 1024},
                     table=taught_table)
    return app.test_client()


def read_and_confirm(client: FlaskClient) -> dict[str, Any]:
    shot = post(client, "/api/calibration/teach/read")
    assert shot.status_code == 200, shot.json
    dice = [{"value": d["value"], "x": d["x"], "y": d["y"], "size": d["size"]}
            for d in shot.json["dice"]]
    done = post(client, "/api/calibration/teach/confirm", {"shot": shot.json["shot"],
                                                            "dice": dice})
    assert done.status_code == 200, done.json
    return dict(done.json)


def test_three_confirmed_photos_teach_the_table_and_the_camera_says_so(
        teach: FlaskClient, taught_table: Table, tmp_path: Path) -> None:
    assert teach.get("/api/calibration/teach").json == {"photos": 0, "needed": 3,
                                                        "learned_from": 0}
    early = read_and_confirm(teach)
    assert early == {"photos": 1, "needed": 3}
    refused = post(teach, "/api/calibration/teach/learn")
    assert refused.status_code == 409 and "at least 3" in refused.json["error"]["message"]
    read_and_confirm(teach)
    read_and_confirm(teach)
    learned = post(teach, "/api/calibration/teach/learn")
    assert learned.status_code == 200, learned.json
    assert learned.json["learned_from"] == 3
    assert (tmp_path / "table.adapt.npz").is_file()
    assert taught_table.profile.reader_params.table_head == str(tmp_path / "table.adapt.npz")
    assert teach.get("/api/calibration/teach").json["learned_from"] == 3
    assert (tmp_path / "teaching" / "manifest.json").is_file()


def test_a_confirmation_is_refused_by_name_and_keeps_nothing(
        teach: FlaskClient, tmp_path: Path) -> None:
    shot = post(teach, "/api/calibration/teach/read").json["shot"]
    stale = post(teach, "/api/calibration/teach/confirm", {"shot": "old", "dice": []})
    assert stale.status_code == 409 and "read the dice again" in stale.json["error"]["message"]
    bad = post(teach, "/api/calibration/teach/confirm",
               {"shot": shot, "dice": [{"value": 4}, {"value": 7}]})
    assert bad.status_code == 400 and "dice[1].value" in bad.json["error"]["message"]
    none = post(teach, "/api/calibration/teach/confirm", {"shot": shot, "dice": []})
    assert none.status_code == 400 and "no die confirmed" in none.json["error"]["message"]
    assert not (tmp_path / "teaching" / "manifest.json").exists()
    no_pin = post(teach, "/api/calibration/teach/read", pin=None)
    assert no_pin.status_code == 401


def test_teaching_needs_a_profile_file(client: FlaskClient) -> None:
    refused = post(client, "/api/calibration/teach/read")
    assert refused.status_code == 409 and "profile" in refused.json["error"]["message"]
    assert client.get("/api/calibration/teach").json["learned_from"] == 0


def test_a_taught_photo_is_stored_as_it_was_read(teach: FlaskClient, tmp_path: Path) -> None:
    read_and_confirm(teach)
    stored = cv2.imread(str(tmp_path / "teaching" / "photos" / "taught-0001.png"))
    assert stored is not None
    assert np.array_equal(stored, cv2.imread(str(PHOTO)))
