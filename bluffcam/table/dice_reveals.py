"""Dice reveals at the desk: every player's cup read by the seat zones of the profile.

The reading runs `vision.reveal.capture_reveal` (through `vision_bridge`) with the engine's
expected dice per seat; a reading is sure when the reader is and every seat has the dice
its player has in play. A recorded game's ground truth sends any disagreeing reading to
review, so a recording is never adjudicated on a misread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from bluffcam.camera_news import camera_status_said, problem_said
from bluffcam.table.camera_port import CameraPort
from bluffcam.table.errors import TableError
from bluffcam.table.reveal_records import (
    COUNT_MISMATCH,
    PendingReview,
    RevealReading,
    RevealRecord,
    counts_match,
    new_reveal_record,
    seat_values,
)
from bluffcam.table.reveal_store import confirmed_positions, corrections
from bluffcam.table.vision_bridge import check_against_truth
from engine import ExpectedHand, Game
from engine.words import Said, said

#: reads a reveal: (frames, the engine's expected hands per player in seat order) -> reading
RevealReader = Callable[[Iterator[Any], Mapping[str, Any]], RevealReading]


class HiddenHands(Protocol):
    """A seat whose dice are kept off the table (`bluffcam.computer_seat.ComputerSeat`):
    the camera reads the others, and the reveal is completed with its dice."""

    def humans_only(self, hands: Mapping[str, Any]) -> dict[str, Any]: ...

    def complete_reveal(self, game: Game, values: Mapping[str, Any]) -> dict[str, Any]: ...


@dataclass
class DiceTaken:
    """One dice reading, with what the engine expected of it and how long it took."""

    reading: RevealReading
    expected: dict[str, int]
    timing: dict[str, int]

    @property
    def annotated_jpeg(self) -> bytes | None:
        return self.reading.annotated_jpeg

    @property
    def photo_jpeg(self) -> bytes | None:
        return self.reading.photo_jpeg

    def record(self, reveal_id: str, *, setup: Any, game: int | None,
               action_index: int) -> RevealRecord:
        return new_reveal_record(reveal_id, self.reading, setup=setup, game=game,
                                 action_index=action_index, expected=self.expected,
                                 timing=self.timing)

    def sure(self, record: dict[str, Any]) -> dict[str, Any] | None:
        counted = counts_match(self.reading, self.expected)
        if self.reading.needs_review or not counted:
            if not counted and not record["problems"]:
                record["problems"].append(dict(COUNT_MISMATCH))
            return None
        return self.reading.values()


class DiceReveals:
    """The dice `RevealKind` of `bluffcam.table.reveal_desk`."""


    def __init__(self, port: CameraPort, reader: RevealReader,
                 seats_short: Callable[[], str],
                 hidden: Callable[[], HiddenHands | None] = lambda: None) -> None:
        self._port = port
        self._reader = reader
        #: why the camera cannot place this game's players at the profile's seats ("": it can)
        self._seats_short = seats_short
        #: the seat whose dice the camera does not read, if the game has one
        self._hidden = hidden

    def corrected(self, settled: int) -> Said:
        return said("round {n} corrected by hand", n=settled)

    def plan(self, game: Game) -> dict[str, ExpectedHand]:
        short = self._seats_short()
        if short:
            raise TableError(f"{short}: enter the reveal by hand", rule="camera", status=409)
        hands = game.expected_reveal()
        hidden = self._hidden()
        if hidden is not None:  # its dice are in the journal, not on the table
            hands = hidden.humans_only(hands)
        if not hands:
            raise TableError("the camera reads dice reveals only: enter this reveal by hand")
        return hands

    def read(self, plan: dict[str, ExpectedHand],
             truth: Mapping[str, list[int]] | None) -> DiceTaken:
        started = time.perf_counter()
        reading = self._read_camera(plan)
        # from the press to the reading: the wait for a still scene, the frames, the vote
        timing = {"frames": reading.frames_voted,
                  "ms": round((time.perf_counter() - started) * 1000)}
        if truth is not None:
            check_against_truth(reading, truth)
        expected = {name: int(hand.count) for name, hand in plan.items()}
        return DiceTaken(reading, expected, timing)

    def _read_camera(self, hands: Mapping[str, Any]) -> RevealReading:
        """Run the reader over camera frames; where they give no reading, say why."""
        port = self._port
        frames = port.frames()
        try:
            reading = port.on_reading_thread(self._reader, frames, hands)
        except Exception as exc:  # a broken camera or reader must not stop the game
            raise port.raised(exc) from None
        if any(p.get("kind") == "not_still" for p in reading.problems) and not any(
            reading.seats.values()
        ):
            status = port.status()
            if status != "ok":  # the likelier cause, and one the players can see to
                raise port.failed(said("the camera gave nothing to read ({status})",
                                       status=camera_status_said(port.camera) or status))
            reason = tuple(problem_said(p) for p in reading.problems)
            raise port.failed(said("the camera read nothing ({reason})", reason=reason))
        return reading

    def confirmed(self, seats: Any, review: PendingReview) -> tuple[dict[str, Any], Any]:
        values = seat_values(seats, list(review.expected))
        try:
            placed = confirmed_positions(seats)
        except ValueError as exc:
            raise TableError(str(exc), rule="format", status=400) from None
        return values, placed

    def complete(self, game: Game, seats: dict[str, Any]) -> dict[str, Any]:
        hidden = self._hidden()
        return seats if hidden is None else hidden.complete_reveal(game, seats)

    def seats_of(self, reveal: Any) -> dict[str, Any]:
        return reveal if isinstance(reveal, dict) else {}

    def reveal_of(self, seats: dict[str, Any]) -> Any:
        return seats

    def corrections(self, record: dict[str, Any], seats: dict[str, Any]) -> dict[str, Any]:
        read = {s: [int(d["value"]) for d in dice] for s, dice in record["read"].items()}
        return corrections(read, seats)
