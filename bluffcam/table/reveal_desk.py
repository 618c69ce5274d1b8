"""The reveal desk: capture -> apply, or hold for a person's review -> confirm or reopen.

One flow for every game: what differs between dice and cards (what the camera reads, how a
person's corrections read, what a round is called) is a `RevealKind`, chosen by the game's
``reveal_kind``. A capture reads frames outside the table's lock, stores the annotated JPEG
and a record (`reveal_store`), then applies the reveal where the reading is sure, or leaves
a pending review that only `confirm` (journalled with its corrections), a re-capture, or a
reveal typed in by hand resolves. Until the next action a player may reopen a camera reveal
(`reopen`): the journal drops it and its reading waits for review again, photo and record
kept.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from bluffcam.table.camera_port import CameraPort
from bluffcam.table.errors import TableError
from bluffcam.table.ledger import Ledger
from bluffcam.table.news import News
from bluffcam.table.reveal_records import (
    PendingReview,
    RevealRecord,
    last_reveal_json,
    needs_a_look,
    problem,
    review_from_record,
)
from bluffcam.table.reveal_store import RevealStore, UnknownRevealError
from engine import Game, IllegalActionError, action_to_json, parse_action
from engine.words import Said, said

#: a reveal as the desk passes it on: what each "seat" turned up (dice: each player's values;
#: cards: the one seat ``cards`` with the kinds)
Seats = dict[str, Any]


class Taken(Protocol):
    """One camera reading, before anything is decided about it."""

    @property
    def annotated_jpeg(self) -> bytes | None:
        """The photo with the reading drawn on it (None: none to keep)."""
        ...

    @property
    def photo_jpeg(self) -> bytes | None:
        """The same frame unmarked (None: not kept)."""
        ...

    def record(self, reveal_id: str, *, setup: Any, game: int | None,
               action_index: int) -> RevealRecord:
        """The reveal record (its ``problems`` list is the one `sure` adds to)."""
        ...

    def sure(self, record: dict[str, Any]) -> Seats | None:
        """The reveal to apply at once, or None where a person must look (the record's
        problems then say why)."""
        ...


class RevealKind(Protocol):
    """What the desk needs to know about one kind of reveal (dice, cards)."""


    def corrected(self, settled: int) -> Said:
        """The board's word that a person corrected the reading of round (pile) ``settled``."""
        ...

    def plan(self, game: Game) -> Any:
        """What to read, taken under the lock; TableError where the camera cannot read it."""
        ...

    def read(self, plan: Any, truth: Mapping[str, list[int]] | None) -> Taken:
        """Read the camera (outside the lock); TableError where it gave no reading."""
        ...

    def confirmed(self, seats: Any, review: PendingReview) -> tuple[Seats, Any]:
        """A person's reading of a review, checked: the seats, and the places they gave
        (kept as ``confirmed_dice``; None: none)."""
        ...

    def complete(self, game: Game, seats: Seats) -> Seats:
        """The seats with any the camera does not read (the computer's cup) filled in."""
        ...

    def seats_of(self, reveal: Any) -> Seats:
        """A reveal action's value as seats (a reveal typed in by hand)."""
        ...

    def reveal_of(self, seats: Seats) -> Any:
        """The reveal action's value for seats."""
        ...

    def corrections(self, record: dict[str, Any], seats: Seats) -> dict[str, Any]:
        """What a person changed of the camera's reading ({} where nothing)."""
        ...


class RevealDesk:
    """The current game's camera reveals: the pending review, each round's reveal, the last."""

    def __init__(self, ledger: Ledger, store: RevealStore, port: CameraPort, news: News,
                 lock: threading.RLock, kinds: Mapping[str, RevealKind],
                 announce: Callable[[str], None]) -> None:
        self._ledger, self._store, self._port, self._news = ledger, store, port, news
        self._lock = lock
        self._kinds = dict(kinds)
        #: says on the board that a reading waits for a person (`announce_review`)
        self._announce = announce
        self._capture_lock = threading.Lock()
        self.review: PendingReview | None = None
        #: the reveal record of each action that a camera reveal settled, by action index
        self.reveal_ids: dict[int, str] = {}
        self.last_reveal: dict[str, Any] | None = None

    def _kind(self) -> RevealKind:
        return self._kinds[self._ledger.require_game().reveal_kind]

    # ------------------------------------------------------------------ capture

    def capture(self, truth: Mapping[str, list[int]] | None, replacing: str | None) -> None:
        """Read the reveal with the camera; apply it when sure, else hold it for review.

        ``truth`` (a recorded game's dice) sends any disagreeing reading to review too. A
        reading waiting for review is replaced only where ``replacing`` names it (the review
        page's "take the photo again").
        """
        with self._capture_lock:
            with self._lock:
                self._ledger.require_game()
                if not self._ledger.in_reveal():
                    raise TableError("no reveal is due: challenge a bid first")
                self.check_replacing(replacing)
                if self._port.camera is None:
                    raise TableError(
                        "no camera: enter the reveal by hand", rule="camera", status=409
                    )
                kind = self._kind()
                plan = kind.plan(self._ledger.require_game())
                action_index = len(self._ledger.actions)
                previous = self.review
            taken = kind.read(plan, truth)
            with self._lock:
                if len(self._ledger.actions) != action_index or not self._ledger.in_reveal():
                    raise TableError("the game moved on while the camera was reading; try again")
                self._settle(kind, taken, action_index, previous)

    def _settle(self, kind: RevealKind, taken: Taken, action_index: int,
                previous: PendingReview | None) -> None:
        reveal_id = self._store.next_id()
        if taken.annotated_jpeg is not None:
            with self._ledger.storing(said("the photo of reveal {id}", id=reveal_id)):
                self._store.save_image(reveal_id, taken.annotated_jpeg)
                if taken.photo_jpeg is not None:
                    self._store.save_photo(reveal_id, taken.photo_jpeg)
        record = taken.record(reveal_id, setup=self._ledger.setup, game=self._ledger.game_id,
                              action_index=action_index).to_json()
        seats = taken.sure(record)
        held = seats is None
        if seats is not None:
            try:
                self._apply(kind, reveal_id, record, seats, how="camera")
            except IllegalActionError as refused:  # e.g. set-aside dice misplaced
                record["problems"].append(
                    problem("rules", said("{refusal} ({rule})", refusal=refused.said,
                                          rule=refused.rule))
                    if refused.said is not None
                    else {"kind": "rules", "seat": None, "x": None, "y": None,
                          "message": refused.message})
                held = True
        if held:
            self._hold(reveal_id, record, action_index)
        self._replaced(previous, reveal_id)

    def check_replacing(self, replacing: str | None) -> None:
        """Refuse a capture that would replace a reading waiting for review other than the
        one it names: a second press while another screen's (or the panel's) capture was
        reading waited for it, then threw away the review that capture left."""
        review = self.review
        if review is not None and review.id != replacing:
            raise TableError(f"reveal {review.id} waits for review: confirm or correct it, "
                             "or take the photo again from the review page", rule="camera")

    def _hold(self, reveal_id: str, record: dict[str, Any], action_index: int) -> None:
        """Store the record as waiting for a person and make it the pending review (built
        from the record as a restart or a reopen builds it)."""
        record.update(status="needs_review")
        with self._ledger.storing(said("reveal {id}", id=reveal_id)):
            self._store.save(reveal_id, record)
        self.review = review_from_record(record, action_index)
        self._announce(reveal_id)

    def announce(self, reveal_id: str) -> None:
        """Tell the board that a reveal waits for a person's look; the message goes once the
        review is settled, discarded or replaced, however that happens."""
        with self._lock:
            self._news.post(needs_a_look(reveal_id), "warning", review=reveal_id)
            self._news.changed()

    # ------------------------------------------------------------------ verdicts

    def confirm(self, review_id: str, seats: Any) -> None:
        """Apply a person's confirmed (maybe corrected) reading of the pending review."""
        with self._lock:
            self._ledger.require_game()
            review = self.review
            if review is None or review.id != review_id:
                raise TableError(f"no pending review {review_id!r}", status=404)
            kind = self._kind()
            confirmed, placed = kind.confirmed(seats, review)
            record = self._store.load(review_id)
            self._apply(kind, review_id, record, confirmed, how="confirmed", placed=placed)

    def _apply(self, kind: RevealKind, reveal_id: str, record: dict[str, Any], seats: Seats,
               how: str, placed: Any = None) -> None:
        """Journal the reveal record, then the reveal action; the caller holds the lock.
        ``placed``: the confirmed dice with their places in the photo, where a person gave
        them, kept as the record's ``confirmed_dice``."""
        game = self._ledger.require_game()
        seats = kind.complete(game, seats)
        parsed = parse_action({"reveal": kind.reveal_of(seats)})
        game.check(parsed)  # raises IllegalActionError and changes nothing
        canonical = action_to_json(parsed)
        index = len(self._ledger.actions)
        before = dict(record)
        record.pop("confirmed_dice", None)
        record.update(
            status="applied", how=how, action=canonical, action_index=index,
            confirmed=seats, corrections=kind.corrections(record, seats),
            applied_at=time.time(), **({} if placed is None else {"confirmed_dice": placed}),
        )
        with self._ledger.storing(said("reveal {id}", id=reveal_id)):
            self._store.save(reveal_id, record)
            try:
                self._ledger.journal.append(canonical)
            except (sqlite3.Error, OSError):
                with contextlib.suppress(OSError):  # the review still waits, after a restart too
                    self._store.save(reveal_id, before)
                raise
        self._ledger.applied(parsed, canonical)
        self.reveal_ids[index] = reveal_id
        self.review = None
        self.last_reveal = last_reveal_json(record)
        if record["corrections"]:  # in the players' words: rounds (piles), not reveal ids
            self._news.post(kind.corrected(len(game.history)), about_game=True)
        self._news.changed()

    def settle_by_hand(self, action: dict[str, Any], index: int, how: str) -> None:
        """The pending review answered by a reveal typed in by hand: its verdict recorded on
        the review's record (after the journal took it, so this never raises: an unreadable
        record is a message)."""
        review = self.review
        if review is None:
            return
        self.review = None
        try:
            record = self._store.load(review.id)
        except UnknownRevealError as exc:
            self._news.post(f"{exc}; the verdict entered by hand stands", "warning")
            return
        kind = self._kind()
        confirmed = kind.seats_of(action["reveal"])
        record.pop("confirmed_dice", None)
        record.update(
            status="applied", how=how, action=action, action_index=index, confirmed=confirmed,
            corrections=kind.corrections(record, confirmed), applied_at=time.time(),
        )
        self._save_evidence(review.id, record)
        self.reveal_ids[index] = review.id
        self.last_reveal = last_reveal_json(record)

    # ------------------------------------------------------------------ taking back

    def discard(self, why: str) -> None:
        """The pending review no longer waits (a new game, an undone challenge)."""
        review, self.review = self.review, None
        if review is not None:
            self._mark_discarded(review, why)

    def new_game(self) -> None:
        self.discard("a new game was started")
        self.reveal_ids, self.last_reveal = {}, None

    def _replaced(self, previous: PendingReview | None, reveal_id: str) -> None:
        """Say that the review a re-capture replaced no longer waits: called only once the
        new reading is applied or held, so a refused one (the disk full, say) leaves it."""
        if previous is not None:
            self._mark_discarded(previous, f"re-captured as {reveal_id}")

    def _mark_discarded(self, review: PendingReview, why: str) -> None:
        """Say on a review's record that it no longer waits (a missing or unreadable record
        has nothing to say it on), so a restart does not bring it back."""
        try:
            record = self._store.load(review.id)
        except UnknownRevealError:
            return
        record.update(status="discarded", why=why)
        self._save_evidence(review.id, record)

    def _save_evidence(self, reveal_id: str, record: dict[str, Any]) -> None:
        """Update a reveal record after its change was journalled: the change stands even if
        the disk refuses the record (the board says so), so this never raises."""
        try:
            self._store.save(reveal_id, record)
        except OSError as exc:
            self._news.post(said("reveal {id}: its record could not be updated ({error}); the "
                                 "game is not affected", id=reveal_id, error=str(exc)),
                            "warning")

    def reopenable(self) -> str | None:
        """The camera reveal that settled the game's last action, if a player may still
        reopen it: until the next action."""
        actions = self._ledger.actions
        index = len(actions) - 1
        if index < 0 or "reveal" not in actions[index]:
            return None
        return self.reveal_ids.get(index)

    def reopen(self, reveal_id: str) -> None:
        """Take back the verdict of the last reveal and send its reading to review again.
        The journal drops the reveal first; were the power to go before the record says so,
        the resumed table finds an applied record the journal lacks and offers it for review
        all the same (`bluffcam.table.resume`)."""
        with self._lock:
            self._ledger.require_game()
            if self.reopenable() != reveal_id:
                raise TableError(
                    f"reveal {reveal_id!r} cannot be reopened: only the last round's camera "
                    "reveal can, before the next action", status=409)
            index = len(self._ledger.actions) - 1
            record = self._store.load(reveal_id)
            self._ledger.drop_last(said("reopening reveal {id}", id=reveal_id))
            del self.reveal_ids[index]
            settled = {k: record.pop(k) for k in ("how", "action", "confirmed", "corrections",
                                                   "confirmed_dice", "applied_at") if k in record}
            problems = [p for p in record.get("problems", []) if p.get("kind") != "reopened"]
            problems.insert(0, problem("reopened", said(
                "reopened after its verdict: check the reading again")))
            record.update(status="needs_review", action_index=index, problems=problems,
                          reopened=[*record.get("reopened", []),
                                    {"at": time.time(), "was": settled}])
            self._save_evidence(reveal_id, record)
            self.review = review_from_record(record, index)
            self.last_reveal = self._earlier_reveal_json()
            self._news.post(said("reveal {id} reopened: its verdict waits for the dice to be "
                                 "checked again", id=reveal_id), about_game=True)
            self._announce(reveal_id)

    def _earlier_reveal_json(self) -> dict[str, Any] | None:
        """The last-reveal panel of the game's newest reveal still standing (None: none, or
        its record cannot be read any more: the panel is only evidence)."""
        earlier = max(self.reveal_ids, default=None)
        if earlier is None:
            return None
        try:
            return last_reveal_json(self._store.load(self.reveal_ids[earlier]))
        except UnknownRevealError:
            return None

    def in_use(self) -> set[str]:
        """The reveals whose photos the dashboard can show now: the game's own, its pending
        review's and the last-reveal panel's."""
        ids = set(self.reveal_ids.values())
        if self.review is not None:
            ids.add(self.review.id)
        if self.last_reveal is not None:
            ids.add(str(self.last_reveal.get("id")))
        return ids
