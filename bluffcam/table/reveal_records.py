"""What a reveal record means to the table: the review it waits for, the board's panel of
the last reveal, and the words said about them.

Pure: records in, values out. The `Table` stores the records (`bluffcam.table.reveal_store`) and
decides when a review is held, settled or dropped; a person's confirmed seats are checked
here before anything is applied.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bluffcam.table.errors import TableError
from engine.words import Said, said


@dataclass
class RevealReading:
    """One reveal as vision saw it, as JSON-ready values.

    ``seats[name]`` lists every die of that player (the cup's zone first, then the dice set
    aside in front of it, marked ``"set_aside": true``): the engine's reveal wants them all.
    """

    seats: dict[str, list[dict[str, Any]]]
    set_aside: dict[str, list[int]]
    problems: list[dict[str, Any]]
    needs_review: bool
    annotated_jpeg: bytes | None
    #: what to fix about the picture (``vision.frame_check``), as JSON
    advice: list[dict[str, str]] = field(default_factory=list)
    #: how many frames the vote read (0: not known, e.g. a stand-in reader)
    frames_voted: int = 0
    #: the frame read, without the reading's marks (the review page's close-ups)
    photo_jpeg: bytes | None = None

    def values(self) -> dict[str, list[int]]:
        return {seat: [int(d["value"]) for d in dice] for seat, dice in self.seats.items()}


@dataclass
class PendingReview:
    """A reading that needs a person before its verdict applies."""

    id: str
    seats: dict[str, list[dict[str, Any]]]
    set_aside: dict[str, list[int]]
    problems: list[dict[str, Any]]
    expected: dict[str, int]
    action_index: int
    #: what to fix about the picture (``vision.frame_check``), shown beside the problems
    advice: list[dict[str, str]] = field(default_factory=list)
    #: how the camera read it: ``{"frames": 3, "ms": 412}`` (empty where not known)
    timing: dict[str, int] = field(default_factory=dict)
    #: whether the frame was kept unmarked too (``photo_url``: the review page's close-ups)
    has_photo: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "image_url": f"/api/reveals/{self.id}/image",
            "photo_url": f"/api/reveals/{self.id}/photo" if self.has_photo else None,
            "status": "needs_review",
            "problems": self.problems,
            "advice": self.advice,
            "seats": self.seats,
            "set_aside": self.set_aside,
            "expected": self.expected,
            "timing": self.timing,
        }


def seat_values(seats: Any, players: list[str]) -> dict[str, list[int]]:
    """Validate ``{"Ann": [1, 4, 4], ...}`` (values or {"value": v} objects)."""
    if not isinstance(seats, Mapping):
        raise TableError("\"seats\" must be an object: {\"Ann\": [1, 4, 4], ...}",
                         rule="format", status=400)
    unknown = sorted(set(seats) - set(players))
    if unknown:
        raise TableError(f"unknown seats {unknown}; the reveal is for {players}",
                         rule="format", status=400)
    result: dict[str, list[int]] = {}
    for name in players:
        dice = seats.get(name, [])
        if not isinstance(dice, list):
            raise TableError(f"seat {name}: dice must be a list of values 1–6",
                             rule="format", status=400)
        values = []
        for die in dice:
            value = die.get("value") if isinstance(die, Mapping) else die
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
                raise TableError(f"seat {name}: {value!r} is not a die value 1–6",
                                 rule="format", status=400)
            values.append(value)
        result[name] = values
    return result


def disagreements(
    read: dict[str, list[int]], truth: Mapping[str, list[int]]
) -> list[dict[str, Any]]:
    """A recorded game's seats whose reading differs from the dice really there, as review
    problems: a recording is never adjudicated on a misread."""
    problems = []
    for seat, values in truth.items():
        if sorted(read.get(seat, [])) != sorted(values):
            problems.append(problem("ground_truth", said(
                "{seat}: read {read}, recorded {recorded}", seat=seat,
                read=str(sorted(read.get(seat, []))), recorded=str(sorted(values))), seat))
    return problems


def problem(kind: str, words: Said, seat: str | None = None) -> dict[str, Any]:
    """A review problem the table adds itself (no spot on the photo), in the JSON shape of
    ``vision.reveal.Problem``: its English, and its words for a page in another language."""
    return {"kind": kind, "seat": seat, "x": None, "y": None, "message": str(words),
            "said": words.to_json()}


@dataclass
class RevealRecord:
    """A camera reading's record before anything is decided about it: what was read, for
    which game and round, and how. Stored as JSON (`to_json`); its ``status`` and, once
    applied, the verdict's fields are added to the stored record later."""

    id: str
    setup: Any
    game: int | None
    action_index: int
    #: what each seat turned up, as read (dice: each player's; cards: the seat ``cards``)
    read: dict[str, list[dict[str, Any]]]
    #: the problems that send the reading to review (the same list the reading keeps)
    problems: list[dict[str, Any]]
    expected: dict[str, int]
    has_image: bool
    set_aside: dict[str, list[int]] = field(default_factory=dict)
    captured_at: float = field(default_factory=time.time)
    #: "cards" for a card reveal; a dice record says none
    kind: str | None = None
    #: dice only: what to fix about the picture, how the camera read it, whether the
    #: unmarked frame was kept
    advice: list[dict[str, str]] | None = None
    timing: dict[str, int] | None = None
    has_photo: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as stored; its ``problems`` stays the reading's own list."""
        out: dict[str, Any] = {"id": self.id}
        if self.kind is not None:
            out["kind"] = self.kind
        out.update(setup=self.setup, game=self.game, action_index=self.action_index,
                   read=self.read, set_aside=self.set_aside, problems=self.problems)
        if self.advice is not None:
            out["advice"] = self.advice
        out.update(expected=self.expected, captured_at=self.captured_at)
        if self.timing is not None:
            out["timing"] = self.timing
        out["has_image"] = self.has_image
        if self.has_photo is not None:
            out["has_photo"] = self.has_photo
        return out


def new_reveal_record(reveal_id: str, reading: RevealReading, *, setup: Any, game: int | None,
                      action_index: int, expected: dict[str, int],
                      timing: dict[str, int]) -> RevealRecord:
    """The record of a dice reading (see `RevealRecord`)."""
    return RevealRecord(
        id=reveal_id, setup=setup, game=game, action_index=action_index,
        read=reading.seats, set_aside=reading.set_aside, problems=reading.problems,
        advice=reading.advice, expected=expected, timing=timing,
        has_image=reading.annotated_jpeg is not None,
        has_photo=reading.annotated_jpeg is not None and reading.photo_jpeg is not None,
    )


def counts_match(reading: RevealReading, expected: Mapping[str, int]) -> bool:
    """Whether each seat has the number of dice its player has in play."""
    return all(len(reading.seats.get(seat, [])) == n for seat, n in expected.items())


#: the problem a reading gets when its counts do not match and nothing else was said
COUNT_MISMATCH = problem("count_mismatch",
                         said("the number of dice read does not match the dice in play"))


def needs_a_look(reveal_id: str) -> str:
    """The board's warning while a reveal waits for a person."""
    return f"reveal {reveal_id} needs a look before its verdict"


def unreadable_text(reveal_ids: list[str]) -> str:
    """The board's word on reveal records skipped on resume because they cannot be read."""
    one = len(reveal_ids) == 1
    return (f"{'reveal' if one else 'reveals'} {', '.join(reveal_ids)}: "
            f"{'its record' if one else 'their records'} cannot be read (a torn or damaged "
            f"file) and {'is' if one else 'are'} left out. The game is not affected; a review "
            "that waited there is lost: re-capture or enter the reveal by hand. "
            f"{'Its photo is' if one else 'Their photos are'} kept in the reveals folder.")


def review_from_record(record: dict[str, Any], index: int) -> PendingReview:
    """The review a stored reveal record waits for, at action ``index`` (a resumed table's
    pending review, or a reveal reopened after its verdict)."""
    return PendingReview(
        id=record["id"],
        seats=record["read"],
        set_aside=record.get("set_aside", {}),
        problems=record.get("problems", []),
        expected=record.get("expected", {}),
        action_index=index,
        advice=record.get("advice", []),
        timing=record.get("timing", {}),
        has_photo=bool(record.get("has_photo")),
    )


def last_reveal_json(record: dict[str, Any]) -> dict[str, Any]:
    """The board's last-reveal panel: ``seats`` as applied, ``read``/``dice`` as the camera saw
    (a card reveal's cards under ``cards``, its ``dice`` empty)."""
    found = record.get("read", {})
    cards = record.get("kind") == "cards"
    panel = {
        "id": record["id"],
        "image_url": f"/api/reveals/{record['id']}/image" if record.get("has_image") else None,
        "seats": record.get("confirmed", {}),
        "read": {seat: [str(d.get("value")) if cards else int(d["value"]) for d in things]
                 for seat, things in found.items()},
        "dice": {} if cards else found,
        "corrections": record.get("corrections", {}),
        "how": record.get("how"),
        "action_index": record.get("action_index"),
        "timing": record.get("timing", {}),
    }
    if cards:
        panel["cards"] = found
    return panel
