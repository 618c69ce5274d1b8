"""Helpers shared by the web API tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from flask.testing import FlaskClient

from bluffcam.table.vision_bridge import RevealReading
from hardware.camera_words import CameraFault, Words

PIN = "2468"
SETUP = {"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"}
#: a full reveal for SETUP after Ben set aside [4, 4]: 4s and ★ = 2 (Ann) + 3 (Ben) + 1 (Cho) = 6
HANDS = {"Ann": [1, 4, 2, 3, 6], "Ben": [4, 4, 1, 5, 6], "Cho": [2, 3, 5, 6, 1]}


class StubCamera:
    """Frames for the reader; ``offline`` makes it give none, like a ResilientCamera that failed
    (its ``fault`` and status words as hardware gives them)."""

    spec = "stub:"

    def __init__(self) -> None:
        self.offline = False
        self.fault: CameraFault | None = None

    @property
    def status_words(self) -> Words | None:
        return None if self.fault is None else self.fault.status_words()

    @property
    def status(self) -> str:
        return "ok" if self.fault is None else str(self.status_words)

    def frames(self) -> Iterator[Any]:
        if self.offline:  # a source that raised OSError("unplugged"): no words for it
            self.fault = CameraFault("unplugged", None, 1.0)
            return
        for _ in range(3):
            yield np.zeros((48, 64, 3), dtype=np.uint8)

    def read(self) -> Any:
        return None if self.offline else np.zeros((48, 64, 3), dtype=np.uint8)


class StubReader:
    """Returns the reading a test chose; records what the table asked it."""

    def __init__(self) -> None:
        self.hands: dict[str, list[int]] = {}
        self.uncertain: set[tuple[str, int]] = set()
        self.advice: list[dict[str, str]] = []
        self.calls: list[dict[str, int]] = []
        #: what the reading says the vote read, and how long the reader takes
        self.frames_voted = 3
        self.delay_s = 0.0
        #: the unmarked frame the reading hands back (None: a reader that keeps none)
        self.photo: bytes | None = b"\xff\xd8\xff\xe0fake-photo\xff\xd9"
        #: each die's side in pixels, as the real reader gives it (None: a reader that gives none)
        self.size: float | None = None
        #: the marked photo the reading hands back
        self.annotated: bytes = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"

    def __call__(self, frames: Iterator[Any], expected: Mapping[str, Any]) -> RevealReading:
        if not list(frames):
            return RevealReading({}, {}, [{"kind": "not_still", "seat": None, "x": None,
                                          "y": None, "message": "no frames"}], True, None)
        self.calls.append({name: hand.count for name, hand in expected.items()})
        seats: dict[str, list[dict[str, Any]]] = {}
        problems = []
        for name, values in self.hands.items():
            seats[name] = []
            for i, value in enumerate(values):
                confidence = 0.3 if (name, i) in self.uncertain else 0.97
                die = {"value": value, "x": 10.0 * i, "y": 5.0, "confidence": confidence}
                if self.size is not None:
                    die["size"] = self.size
                seats[name].append(die)
                if confidence < 0.6:
                    problems.append({"kind": "uncertain", "seat": name, "x": 10.0 * i, "y": 5.0,
                                     "message": f"{name}: die {i} uncertain"})
        time.sleep(self.delay_s)
        return RevealReading(seats, {}, problems, bool(problems), self.annotated, list(self.advice),
                             self.frames_voted, photo_jpeg=self.photo)


def post(client: FlaskClient, path: str, body: Any = None, *, pin: str | None = PIN,
         ip: str = "10.0.0.5", **kwargs: Any) -> Any:
    """POST JSON with the table PIN from a phone on the LAN."""
    headers = dict(kwargs.pop("headers", {}))
    if pin is not None:
        headers["X-Table-PIN"] = pin
    if body is not None:
        kwargs["json"] = body
    return client.post(path, headers=headers, environ_base={"REMOTE_ADDR": ip}, **kwargs)


def play_to_reveal(client: FlaskClient) -> dict[str, Any]:
    """Start SETUP, Ann bids 3x4, Ben raises to 4x4 setting aside [4, 4], Cho challenges."""
    assert post(client, "/api/game", SETUP).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "3x4"}).status_code == 200
    response = post(client, "/api/action", {"player": "Ben", "bid": "4x4", "set_aside": [4, 4]})
    assert response.status_code == 200, response.json
    response = post(client, "/api/action", {"player": "Cho", "challenge": True})
    assert response.status_code == 200, response.json
    state: dict[str, Any] = response.json
    return state
