"""The calibration page's test read says when something lies over a die it read as sure:
a reveal of that picture would go to review (vision.cover_check)."""

from __future__ import annotations

import io
import json
from typing import Any

import cv2
import numpy as np
from flask.testing import FlaskClient

from tools.bench.bench_covered import DEMO, still_frame
from tools.render.occluders import occlude


def _reroll_frame() -> tuple[Any, dict[str, Any]]:
    """The demo's first raise-and-re-roll frame, cut to the two dice set aside and round;
    the cut leaves out the lifted cup above them, which with the photo's edge close by made
    the check doubt the 1 (a known false doubt: docs/vision_detector.md, "The cover
    check")."""
    reroll = json.loads((DEMO / "manifest.json").read_text())["rerolls"][0]
    frame = still_frame(reroll)
    die = reroll["dice"][0]
    x0, y0 = round(die["x"]) - 120, round(die["y"]) - 80
    return frame[y0: y0 + 240, x0: x0 + 240].copy(), dict(die, x=die["x"] - x0, y=die["y"] - y0)


def _read(client: FlaskClient, image: Any) -> dict[str, Any]:
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    token = client.get("/api/csrf").json["csrf_token"]
    response = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(buffer.tobytes()), "table.jpg")})
    assert response.status_code == 200, response.json
    result: dict[str, Any] = response.json
    return result


def test_a_test_read_counts_the_sure_dice_something_lies_over(client: FlaskClient) -> None:
    frame, die = _reroll_frame()
    plain = _read(client, frame)
    assert len(plain["dice"]) == 2 and plain["uncertain"] == 0 and plain["covered"] == 0
    finger, _ = occlude(frame, die["x"], die["y"], die["size_px"], "finger",
                        np.random.default_rng([0, 0]), reach=-0.1)
    covered = _read(client, finger)
    assert covered["covered"] >= 1, covered["dice"]
    sure = sum(d["confidence"] >= 0.6 for d in covered["dice"])
    assert covered["covered"] <= sure
