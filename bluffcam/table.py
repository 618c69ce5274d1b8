"""The Table service: the one place run-time game state lives.

Everything that changes the game (the web API, the button panel, the demo player) calls a
`Table` method; each one takes the table's lock, so actions apply one at a time and each
is either applied exactly once or refused with nothing changed. The order is always:
validate against the engine → append to the SQLite journal (committed) → apply in memory →
publish. A crash after the journal write replays the action on restart; a crash before it
loses an action that was never acknowledged.

Undo: the game is rebuilt from its setup and every action but the last
(`Game.without_last`), then the journal drops that last action row in one committed
transaction (`Journal.drop_last`), so a restart resumes exactly the undone state; the undo
is announced in the dashboard messages. Until the next action a reveal can be taken back
too: one typed in by hand by undo (to type it again), one the camera read by reopening its
reading for review (`reopen_reveal`), so its photo and record stay with it.

Reveals: `capture_reveal` reads frames from the camera outside the lock, runs
`vision.reveal.capture_reveal` with the engine's expected dice per seat (players map to the
profile's seats in order), stores the annotated JPEG and a record (see `bluffcam.reveals`),
then either applies the reveal (confident, counts match) or leaves a pending review that
only `confirm_review` (journalled with its corrections) or a re-capture resolves.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

from bluffcam import card_reveals  # Impus: the turned-up cards of a doubted batch
from bluffcam.camera_light import hold_light
from bluffcam.camera_news import camera_summary, without_commands
from bluffcam.computer_seat import (
    COMPUTER_KEY,
    ComputerPlayer,
    ComputerSeat,
    ComputerSeatError,
    check_computer,
)
from bluffcam.evening import Evening
from bluffcam.learned_count import learned_from
from bluffcam.player_names import PlayerNameError, check_player_names
from bluffcam.reading_thread import ReadingThread, T
from bluffcam.reveals import RevealStore, UnknownRevealError, confirmed_positions, corrections
from bluffcam.reviews import (
    COUNT_MISMATCH,
    PendingReview,
    counts_match,
    last_reveal_json,
    needs_a_look,
    new_reveal_record,
    review_from_record,
    seat_values,
)
from bluffcam.seating import (
    DEFAULT_SEAT_COUNT,
    SEATS_KEY,
    SeatingError,
    check_seats,
    seat_index,
    seat_map,
)
from bluffcam.standings import Standings
from bluffcam.table_error import TableError
from bluffcam.table_news import Message, Subscribers, replace_topic
from bluffcam.table_options import ODDS_KEY, check_odds
from bluffcam.table_resume import resume
from bluffcam.table_state import build_state
from bluffcam.vision_adapter import (
    RevealReading,
    check_against_truth,
    read_front_of_cup,
    read_reveal,
)
from engine import (
    Game,
    IllegalActionError,
    Journal,
    JournalError,
    Phase,
    action_to_json,
    parse_action,
)
from engine.words import Said, said

#: how many frames one reveal may read from the camera (the still-scene wait votes over them)
REVEAL_MAX_FRAMES = 120
#: dashboard messages kept (newest last)
MESSAGES_KEPT = 6


class Camera(Protocol):
    """What the table needs from a camera: `hardware.cameras.ResilientCamera` fits."""

    spec: str

    def frames(self) -> Iterator[Any]: ...


#: reads a reveal: (frames, the engine's expected hands per player in seat order) -> reading
RevealReader = Callable[[Iterator[Any], Mapping[str, Any]], RevealReading]
#: reads one seat's front-of-cup dice: (frames, seat index) -> (faces, problems)
SetAsideReader = Callable[[Iterator[Any], int], tuple[list[int], list[str]]]


class Table:
    """Journal-first, thread-safe game state with change events for SSE and LEDs."""

    def __init__(
        self,
        journal_path: str | Path,
        camera: Camera | None = None,
        profile: Any | None = None,
        *,
        data_dir: str | Path | None = None,
        reveal_reader: RevealReader | None = None,
        set_aside_reader: SetAsideReader | None = None,
        computer_pause: tuple[float, float] | None = None,
    ) -> None:
        self.journal_path = Path(journal_path)
        self.data_dir = Path(data_dir) if data_dir is not None else self.journal_path.parent
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.camera = camera
        self.profile = profile
        self._journal = Journal(str(self.journal_path))
        self.reveals = RevealStore(self.data_dir / "reveals", journal=self._journal.identity)
        self._reveal_reader = reveal_reader or (
            lambda f, e: read_reveal(f, e, self.profile, seating=self.seating()))
        self._set_aside_reader = set_aside_reader or (
            lambda f, seat: read_front_of_cup(f, seat, self.profile)
        )
        self._lock = threading.RLock()
        self._capture_lock = threading.Lock()
        #: every camera reading of a reveal runs on this one long-lived thread
        self._reading = ReadingThread()
        #: set by `close`: a reading under way then runs out of frames at once
        self._closed = threading.Event()
        #: camera readings under way or waiting for the reading thread (the boards say so)
        self._camera_readings = 0
        self._setup: dict[str, Any] | None = None
        self._game: Game | None = None
        #: the computer's seat, where the setup gives it one (`bluffcam.computer_seat`)
        self._computer: ComputerSeat | None = None
        self._computer_player = ComputerPlayer(self.play_computer, *(
            (computer_pause,) if computer_pause is not None else ()))
        self._actions: list[dict[str, Any]] = []
        self._review: PendingReview | None = None
        self._reveal_ids: dict[int, str] = {}
        self._last_reveal: dict[str, Any] | None = None
        self._truth: dict[str, list[int]] | None = None
        self._set_aside_truth: list[int] | None = None
        self._messages: deque[Message] = deque(maxlen=MESSAGES_KEPT)
        #: faults found at start, kept apart: the evening's other news never pushes one out
        self._lasting: deque[Message] = deque(maxlen=MESSAGES_KEPT)
        self._games_started = 0
        self._evening = Evening(self._journal)
        self._standings = Standings(self._journal)
        self._subscribers = Subscribers()
        # From the clock, so it usually grows across restarts too; pages take the first state
        # after a reconnect whatever its number (a Pi may boot with its clock behind).
        self._version = int(time.time() * 1000)
        try:
            self._resume()
        except BaseException:  # e.g. a damaged page found on reading: the file is set aside,
            self._journal.close()  # and must not keep a connection that writes to it
            raise
        self._computer_player.poke(self._computer, self._game)  # its turn when switched off

    # ------------------------------------------------------------------ resume

    def _resume(self) -> None:
        """The journal's game and its reveal records as they were left (`table_resume`)."""
        found = resume(self._journal, self.reveals)
        self._setup, self._game, self._actions = found.setup, found.game, found.actions
        self._reveal_ids, self._last_reveal = found.reveal_ids, found.last_reveal
        self._review = found.review
        self._computer = ComputerSeat.from_setup(self._setup, self._journal)
        for notice in found.notices:
            self._post(notice.text, notice.level, lasting=notice.lasting, review=notice.review)
        self._recall_evening()  # the evening's earlier games count all the same

    def _recall_evening(self) -> None:
        """The evening's earlier results, replayed from the journal (`bluffcam.evening`)."""
        self._evening.recall(self._journal_game_id())

    def new_evening(self) -> dict[str, Any]:
        """Start tonight's standings afresh: the games that have ended no longer count (a
        game still on does, once it ends). Kept in the journal, so a restart keeps it."""
        with self._lock:
            with self._storing("the new evening"):
                self._evening.start_afresh(self._journal_game_id(), self._game)
            self._post(said("tonight's standings start afresh"))
            self._changed()
            return self._state_unlocked()

    def bring_back_evening(self) -> dict[str, Any]:
        """Undo "New evening" until the next game starts: the earlier games count again."""
        with self._lock:
            if not self._evening.can_bring_back:
                raise TableError("no new evening to undo: the standings were not started "
                                 "afresh since the last game began", rule="evening")
            with self._storing("bringing back tonight's standings"):
                self._evening.bring_back(self._journal_game_id())
            self._post(said("tonight's standings are back"))
            self._changed()
            return self._state_unlocked()

    # ------------------------------------------------------------------ events

    def subscribe(self, *, limit: int | None = None) -> queue.Queue[str] | None:
        """A queue of SSE-ready JSON strings, one per state change; starts with the current one.
        None where ``limit`` boards already have one (counted and added under one lock)."""
        with self._lock:
            if limit is not None and len(self._subscribers) >= limit:
                return None
            return self._subscribers.add(self._event_json())

    def unsubscribe(self, q: queue.Queue[str]) -> None:
        with self._lock:
            self._subscribers.remove(q)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def _changed(self) -> None:
        """Bump the version and hand the new state to every subscriber (never blocks)."""
        self._version += 1
        self._subscribers.publish(self._event_json())
        self._computer_player.poke(self._computer, self._game)

    def _event_json(self) -> str:
        return json.dumps(self._state_unlocked(), separators=(",", ":"))

    @contextlib.contextmanager
    def _storing(self, what: str) -> Iterator[None]:
        """A write the disk refuses (full, read-only, gone), or the journal (another program
        moved the game on), is a refusal on the board, not a 500.

        Callers write before they change anything in memory, so nothing has changed.
        """
        try:
            yield
        except (sqlite3.Error, OSError, JournalError) as exc:
            who = "the journal" if isinstance(exc, JournalError) else "the disk"
            text = f"not saved, nothing changed: {what} — {who} refused it ({exc})"
            self._messages.append(Message("error", text))
            self._changed()
            raise TableError(text, rule="storage", status=503) from exc

    def note(self, text: str | Said, level: str = "info", *, about_game: bool = False,
             review: str | None = None, lasting: bool = False,
             topic: str | None = None) -> None:
        """Show a message on the dashboard (camera faults, demo narration); one
        ``about_game`` is shown only until another game starts, one about a ``review`` only
        while that review waits; one ``lasting`` (a fault found at start) stays on the board
        until the next game starts, not for a glance's while; one on a ``topic`` takes the
        place of the last one on it."""
        with self._lock:
            self._post(text, level, about_game=about_game, review=review, lasting=lasting,
                       topic=topic)
            self._changed()

    def _post(self, text: str | Said, level: str = "info", *, about_game: bool = False,
              review: str | None = None, before_play: bool = False,
              lasting: bool = False, topic: str | None = None) -> None:
        """:meth:`note` for a caller holding the lock that signals its own change once, with
        the message in it (a reveal applied), rather than one change for each."""
        replace_topic(self._lasting if lasting else self._messages, Message(
            level, text, review=review,
            game=self._games_started if about_game or lasting else None,
            before_play=before_play, lasting=lasting, topic=topic))

    # ------------------------------------------------------------------ game changes

    @property
    def version(self) -> int:
        with self._lock:
            return self._version

    @property
    def game(self) -> Game | None:
        return self._game

    def new_game(self, setup: Mapping[str, Any]) -> dict[str, Any]:
        """Start a new game (validated by the engine first); the old one stays in the journal."""
        if not isinstance(setup, Mapping):
            raise TableError("a game setup must be a JSON object", rule="format", status=400)
        script = json.loads(json.dumps(dict(setup)))
        script.pop("comment", None)
        seats = script.pop(SEATS_KEY, None)
        computer = script.pop(COMPUTER_KEY, None)
        odds = check_odds(script.pop(ODDS_KEY, True))
        try:
            check_player_names(script.get("players"))
        except PlayerNameError as exc:
            raise TableError(str(exc), rule="format", status=400) from None
        game = Game.from_script(script)  # an exported game (with "actions") resumes as it was
        setup_json = game.setup_json()
        if seats is not None:
            try:
                setup_json[SEATS_KEY] = check_seats(seats, game.players, self.seat_count())
            except SeatingError as exc:
                raise TableError(str(exc), rule="format", status=400) from None
        if computer is not None:
            try:
                setup_json[COMPUTER_KEY] = check_computer(computer, game.kind, game.players)
            except ComputerSeatError as exc:
                raise TableError(str(exc), rule="format", status=400) from None
        if not odds:
            setup_json[ODDS_KEY] = False  # kept with the setup: a restart keeps it off
        actions = [action_to_json(a) for a in game.actions]
        with self._lock:
            ended = self._evening.result(self._game, self._journal_game_id())
            with self._storing("the new game"):
                game_id = self._journal.start(setup_json, actions)  # all or nothing
            if self._review is not None:
                self._discard_review(self._review, "a new game was started")
            self._evening.game_started(game_id, ended)
            self._setup, self._game, self._actions = setup_json, game, actions
            self._computer_player.cancel()
            self._computer = ComputerSeat.from_setup(setup_json, self._journal)
            self._review, self._reveal_ids, self._last_reveal = None, {}, None
            self._games_started += 1
            deal = game.deal_said() if not game.actions else None
            if deal:
                self._post(deal, about_game=True, before_play=True)
            short = self._seats_short()
            if short:
                self._post(said("the calibration profile has {seats} seats and this game needs "
                                "{players}: reveals are entered by hand (or calibrate the table "
                                "for more seats)", seats=len(self.seat_names() or []),
                                players=len(self.seating() or [])), "warning", about_game=True)
            self._changed()
            return self._state_unlocked()

    def submit(self, action: Any, source: str = "web", *, seen: int | None = None
               ) -> dict[str, Any]:
        """Apply one replay-script action; raise `IllegalActionError`/`TableError` on refusal.

        ``seen``: how many actions the game had on the screen the action was chosen on (the
        state's ``actions_count``). Where the game has moved since, the action is refused:
        a tap meant for one turn must not land on the next.
        """
        if not isinstance(action, Mapping):
            raise TableError(
                "an action must be a JSON object such as {\"player\": \"Ann\", \"bid\": \"3x4\"}",
                rule="format",
                status=400,
            )
        action = dict(action)
        if _wants_camera_set_aside(action):
            action = self._fill_set_aside(action)
        elif action.get("reroll") is False or (
                action.get("reroll") is True and isinstance(action.get("set_aside"), list)):
            del action["reroll"]  # no re-roll, or one by the set-aside dice it gives
        with self._lock:
            game = self._require_game()
            self._check_seen(seen)
            if self._computer is not None and isinstance(action.get("reveal"), Mapping):
                action["reveal"] = self._computer.complete_reveal(game, action["reveal"])
            parsed = parse_action(action)
            game.check(parsed)
            canonical = action_to_json(parsed)
            is_reveal = "reveal" in canonical
            review = self._review
            with self._storing(parsed.describe()):
                self._journal.append(canonical)
            game.apply(parsed)
            index = len(self._actions)
            self._actions.append(canonical)
            if is_reveal and review is not None:
                self._settle_review(review, canonical, index, how=f"entered by hand ({source})")
            self._review = None if is_reveal else self._review
            self._changed()
            return self._state_unlocked()

    def undo(self, *, seen: int | None = None) -> dict[str, Any]:
        """Take back the last action. A reveal typed in by hand goes too (a mistyped die
        would otherwise settle the round wrongly for good); a camera reveal is reopened
        instead (:meth:`reopen_reveal`), which keeps its photo and record. ``seen`` as for
        :meth:`submit`: an undo pressed on an older screen would take back another move."""
        with self._lock:
            self._require_game()
            self._check_seen(seen)
            assert self._setup is not None
            if not self._actions:
                raise TableError("nothing to undo: no action in this game yet")
            camera_reveal = self.reopenable()
            if camera_reveal is not None:
                raise TableError(
                    f"the camera's reveal {camera_reveal} is not undone: check its reading "
                    "again on the review page (Check this reading again)")
            undone = self._require_game().actions[-1].describe_said()  # the parsed action
            self._drop_last_action(f"undo of {undone}")
            if self._review is not None:
                self._discard_review(self._review, "the challenge was undone")
            self.note(said("undone: {action}", action=undone), about_game=True)
            return self._state_unlocked()

    def _check_seen(self, seen: int | None) -> None:
        """Refuse an action chosen on a screen older than the game (the caller holds the lock)."""
        if seen is None or seen == len(self._actions):
            return
        game = self._require_game()
        phase = str(game.phase)
        now = {"reveal": "the cups are to be lifted", "over": "the game is over"}.get(
            phase, f"it is {game.turn}'s turn")
        raise TableError(
            f"the table moved on while you chose ({now} now): nothing was done; "
            "look again and choose again", rule="stale")

    def _drop_last_action(self, what: str) -> None:
        """Take the game's last action out of the journal, then out of the game (undo, a
        reveal reopened); the caller holds the lock and has checked it may."""
        last = self._actions[-1]
        game = self._require_game().without_last()
        with self._storing(what):
            dropped = self._journal.drop_last()
        if dropped != last:
            raise TableError(f"the journal's last action {dropped} is not {last}; "
                             "restart the server to resume from the journal", status=500)
        self._game, self._actions = game, self._actions[:-1]

    # ------------------------------------------------------------------ reveals

    def expect_truth(self, truth: Mapping[str, list[int]] | None) -> None:
        """For recorded games: the dice really on the table, checked by the next captures."""
        with self._lock:
            self._truth = {k: list(v) for k, v in truth.items()} if truth else None

    def expect_set_aside(self, faces: list[int] | None) -> None:
        """For recorded games: the faces the next camera-read re-roll must find."""
        with self._lock:
            self._set_aside_truth = sorted(faces) if faces else None

    def capture_reveal(self, *, truth: Mapping[str, list[int]] | None = None,
                       replacing: str | None = None) -> dict[str, Any]:
        """Read the reveal with the camera; apply it when sure, else leave a pending review.

        ``truth`` (or `expect_truth`: a recorded game's ground truth) sends any disagreeing
        reading to review too, so a recorded game is never adjudicated on a misread.
        A reading waiting for review is replaced only where ``replacing`` names it (the
        review page's "take the photo again").
        """
        truth = truth if truth is not None else self._truth
        if card_reveals.is_card_reveal_due(self):
            return card_reveals.capture_card_reveal(self, replacing=replacing)
        with self._capture_lock:
            with self._lock:
                self._require_game()
                if not self._in_reveal():
                    raise TableError("no reveal is due: challenge a bid first")
                self.check_replacing(replacing)
                if self.camera is None:
                    raise TableError(
                        "no camera: enter the reveal by hand", rule="camera", status=409
                    )
                short = self._seats_short()
                if short:
                    raise TableError(f"{short}: enter the reveal by hand", rule="camera",
                                     status=409)
                hands = self._require_game().expected_reveal()
                if self._computer is not None:  # its dice are in the journal, not on the table
                    hands = self._computer.humans_only(hands)
                if not hands:
                    raise TableError("the camera reads dice reveals only: enter this reveal "
                                     "by hand")
                expected = {name: int(hand.count) for name, hand in hands.items()}
                action_index = len(self._actions)
                previous_review = self._review
            started = time.perf_counter()
            reading = self._read_camera(hands)
            # from the press to the reading: the wait for a still scene, the frames, the vote
            timing = {"frames": reading.frames_voted,
                      "ms": round((time.perf_counter() - started) * 1000)}
            if truth is not None:
                check_against_truth(reading, truth)
            with self._lock:
                if len(self._actions) != action_index or not self._in_reveal():
                    raise TableError("the game moved on while the camera was reading; try again")
                reveal_id = self.reveals.next_id()
                if reading.annotated_jpeg is not None:
                    with self._storing(f"the photo of reveal {reveal_id}"):
                        self.reveals.save_image(reveal_id, reading.annotated_jpeg)
                        if reading.photo_jpeg is not None:
                            self.reveals.save_photo(reveal_id, reading.photo_jpeg)
                record = new_reveal_record(reveal_id, reading, setup=self._setup,
                                           game=self._journal_game_id(),
                                           action_index=action_index, expected=expected,
                                           timing=timing)
                counted = counts_match(reading, expected)
                if reading.needs_review or not counted:
                    if not counted and not reading.problems:
                        reading.problems.append(dict(COUNT_MISMATCH))
                    self._hold_for_review(reveal_id, record, reading, action_index)
                else:
                    try:
                        self._apply_reveal(reveal_id, record, reading.values(), how="camera")
                    except IllegalActionError as refused:  # e.g. set-aside dice misplaced
                        reading.problems.append({"kind": "rules", "seat": None, "x": None,
                                                 "y": None, "message": refused.message})
                        self._hold_for_review(reveal_id, record, reading, action_index)
                self._replaced(previous_review, reveal_id)
                return self._state_unlocked()

    def check_replacing(self, replacing: str | None) -> None:
        """Refuse a capture that would replace a reading waiting for review other than the
        one it names: a second press while another screen's (or the panel's) capture was
        reading waited for it, then threw away the review that capture left."""
        review = self._review
        if review is not None and review.id != replacing:
            raise TableError(f"reveal {review.id} waits for review: confirm or correct it, "
                             "or take the photo again from the review page", rule="camera")

    def _hold_for_review(self, reveal_id: str, record: dict[str, Any], reading: RevealReading,
                         action_index: int) -> None:
        """Store the record as waiting for a person and make it the pending review (built
        from the record as a restart or a reopen builds it)."""
        record.update(status="needs_review", problems=reading.problems)
        with self._storing(f"reveal {reveal_id}"):
            self.reveals.save(reveal_id, record)
        self._review = review_from_record(record, action_index)
        self.announce_review(reveal_id)

    def announce_review(self, reveal_id: str) -> None:
        """Tell the dashboard that a reveal waits for a person's look; the message goes once
        the review is settled, discarded or replaced, however that happens."""
        self.note(needs_a_look(reveal_id), "warning", review=reveal_id)

    def confirm_review(self, review_id: str, seats: Mapping[str, Any]) -> dict[str, Any]:
        """Apply a person's confirmed (maybe corrected) reading of a pending review."""
        with self._lock:
            self._require_game()
            review = self._review
            if review is None or review.id != review_id:
                raise TableError(f"no pending review {review_id!r}", status=404)
            if card_reveals.is_card_review(review):
                return card_reveals.confirm_card_review(self, review, seats)
            confirmed = seat_values(seats, list(review.expected))
            try:
                placed = confirmed_positions(seats)
            except ValueError as exc:
                raise TableError(str(exc), rule="format", status=400) from None
            record = self.reveals.load(review_id)
            self._apply_reveal(review_id, record, confirmed, how="confirmed", placed=placed)
            return self._state_unlocked()

    def reveals_in_use(self) -> set[str]:
        """The reveals whose photos the dashboard can show now: the game's own, its pending
        review's and the last-reveal panel's (`bluffcam.photo_budget` keeps them)."""
        with self._lock:
            ids = set(self._reveal_ids.values())
            if self._review is not None:
                ids.add(self._review.id)
            if self._last_reveal is not None:
                ids.add(str(self._last_reveal.get("id")))
            return ids

    def reopenable(self) -> str | None:
        """The camera reveal (dice or cards) that settled the game's last action, if a
        player may still reopen it (:meth:`reopen_reveal`): until the next action."""
        index = len(self._actions) - 1
        if index < 0 or "reveal" not in self._actions[index]:
            return None
        return self._reveal_ids.get(index)

    def reopen_reveal(self, reveal_id: str) -> dict[str, Any]:
        """Take back the verdict of the last reveal and send its reading to review again:
        for a die the camera was sure of and got wrong, seen on the board before the next
        round starts. The journal drops the reveal first; were the power to go before the
        record says so, the resumed table finds an applied record the journal lacks and
        offers it for review all the same (`bluffcam.table_resume`)."""
        with self._lock:
            self._require_game()
            if self.reopenable() != reveal_id:
                raise TableError(
                    f"reveal {reveal_id!r} cannot be reopened: only the last round's camera "
                    "reveal can, before the next action", status=409)
            index = len(self._actions) - 1
            record = self.reveals.load(reveal_id)
            self._drop_last_action(f"reopening reveal {reveal_id}")
            del self._reveal_ids[index]
            settled = {k: record.pop(k) for k in ("how", "action", "confirmed", "corrections",
                                                   "confirmed_dice", "applied_at") if k in record}
            problems = [p for p in record.get("problems", []) if p.get("kind") != "reopened"]
            problems.insert(0, {"kind": "reopened", "seat": None, "x": None, "y": None,
                                "message": "reopened after its verdict: check the reading again"})
            record.update(status="needs_review", action_index=index, problems=problems,
                          reopened=[*record.get("reopened", []),
                                    {"at": time.time(), "was": settled}])
            self._save_evidence(reveal_id, record)
            self._review = review_from_record(record, index)
            self._last_reveal = self._earlier_reveal_json()
            self._post(said("reveal {id} reopened: its verdict waits for the dice to be checked "
                            "again", id=reveal_id), about_game=True)
            self.announce_review(reveal_id)
            return self._state_unlocked()

    def _earlier_reveal_json(self) -> dict[str, Any] | None:
        """The last-reveal panel of the game's newest reveal still standing (None: none, or
        its record cannot be read any more: the panel is only evidence)."""
        earlier = max(self._reveal_ids, default=None)
        if earlier is None:
            return None
        try:
            return last_reveal_json(self.reveals.load(self._reveal_ids[earlier]))
        except UnknownRevealError:
            return None

    def reveal_image(self, reveal_id: str) -> Path:
        """The annotated JPEG of one reveal (raises `UnknownRevealError`)."""
        return self.reveals.image_path(reveal_id)

    def reveal_photo(self, reveal_id: str) -> Path:
        """The same frame without the reading's marks (raises `UnknownRevealError`)."""
        return self.reveals.photo_path(reveal_id)

    def _apply_reveal(
        self, reveal_id: str, record: dict[str, Any], values: dict[str, list[int]], how: str,
        placed: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        """Journal the reveal record, then the reveal action; caller holds the lock.
        ``placed``: the confirmed dice with their places in the photo, where a person gave
        them (``confirmed_positions``), kept as the record's ``confirmed_dice``."""
        game = self._require_game()
        if self._computer is not None:
            values = self._computer.complete_reveal(game, values)
        action = {"reveal": values}
        parsed = parse_action(action)
        game.check(parsed)
        canonical = action_to_json(parsed)
        read_values = {s: [int(d["value"]) for d in dice] for s, dice in record["read"].items()}
        index = len(self._actions)
        before = dict(record)
        record.pop("confirmed_dice", None)
        record.update(
            status="applied", how=how, action=canonical, action_index=index,
            confirmed=values, corrections=corrections(read_values, values),
            applied_at=time.time(), **({} if placed is None else {"confirmed_dice": placed}),
        )
        with self._storing(f"reveal {reveal_id}"):
            self.reveals.save(reveal_id, record)
            try:
                self._journal.append(canonical)
            except (sqlite3.Error, OSError):
                with contextlib.suppress(OSError):  # the review still waits, after a restart too
                    self.reveals.save(reveal_id, before)
                raise
        game.apply(parsed)
        self._actions.append(canonical)
        self._reveal_ids[index] = reveal_id
        self._review = None
        self._last_reveal = last_reveal_json(record)
        if record["corrections"]:  # in the players' words: rounds, not reveal ids
            self._post(said("round {n} corrected by hand", n=len(game.history)), about_game=True)
        self._changed()

    def _settle_review(
        self, review: PendingReview, action: dict[str, Any], index: int, how: str
    ) -> None:
        """Record the verdict typed in by hand on the review's record (after the journal took
        it, so this never raises: an unreadable record is a message)."""
        try:
            record = self.reveals.load(review.id)
        except UnknownRevealError as exc:
            self._post(f"{exc}; the verdict entered by hand stands", "warning")
            return
        read_values = {s: [int(d["value"]) for d in dice] for s, dice in record["read"].items()}
        confirmed = action["reveal"] if isinstance(action["reveal"], dict) else {}
        record.pop("confirmed_dice", None)
        record.update(
            status="applied", how=how, action=action, action_index=index, confirmed=confirmed,
            corrections=corrections(read_values, confirmed), applied_at=time.time(),
        )
        self._save_evidence(review.id, record)
        self._reveal_ids[index] = review.id
        self._last_reveal = last_reveal_json(record)

    def _discard_review(self, review: PendingReview, why: str) -> None:
        self._review = None
        self._mark_discarded(review, why)

    def _replaced(self, previous: PendingReview | None, reveal_id: str) -> None:
        """Say that the review a re-capture replaced no longer waits: called only once the
        new reading is applied or held, so a refused one (the disk full, say) leaves it."""
        if previous is not None:
            self._mark_discarded(previous, f"re-captured as {reveal_id}")

    def _mark_discarded(self, review: PendingReview, why: str) -> None:
        """Say on a review's record that it no longer waits (a missing or unreadable record
        has nothing to say it on), so a restart does not bring it back."""
        try:
            record = self.reveals.load(review.id)
        except UnknownRevealError:
            return
        record.update(status="discarded", why=why)
        self._save_evidence(review.id, record)

    def _save_evidence(self, reveal_id: str, record: dict[str, Any]) -> None:
        """Update a reveal record after its change was journalled: the change stands even if
        the disk refuses the record (the board says so), so this never raises."""
        try:
            self.reveals.save(reveal_id, record)
        except OSError as exc:
            self._messages.append(Message(
                "warning", f"reveal {reveal_id}: its record could not be updated ({exc}); "
                           "the game is not affected"))

    def seat_names(self) -> list[str] | None:
        """The calibration profile's seats in order (None without a profile)."""
        names = getattr(getattr(self.profile, "zones", None), "names", None)
        return list(names) if names else None

    def seat_count(self) -> int:
        """How many seats the table has: the calibration profile's zones, else the panel's."""
        names = self.seat_names()
        return len(names) if names else DEFAULT_SEAT_COUNT

    def _seats_short(self) -> str:
        """Why the camera cannot place this dice game's players at the profile's seats (""
        if it can, or for a card game, whose turned-up cards need no seats): more players,
        or a higher seat number, than the profile has seats."""
        names, sitting = self.seat_names(), self.seating()
        if not names or not sitting or len(sitting) <= len(names) or self._game is None \
                or self._game.kind == "impus":
            return ""
        return (f"the calibration profile has {len(names)} seats and this game needs "
                f"{len(sitting)}")

    def seating(self) -> list[str | None] | None:
        """Who sits at each seat of the table (None: nobody), every player of the game, those
        out included: a player's zone stays theirs when a neighbour drops out. None without a
        game."""
        if self._game is None:
            return None
        return seat_map(self._game.players, (self._setup or {}).get(SEATS_KEY))

    def _read_camera(self, hands: Mapping[str, Any]) -> RevealReading:
        """Run the reader over camera frames; where they give no reading, say why (see
        `camera_failed`)."""
        assert self.camera is not None
        frames = self.camera_frames()
        try:
            reading = self.on_reading_thread(self._reveal_reader, frames, hands)
        except Exception as exc:  # a broken camera or reader must not stop the game
            raise self.camera_raised(exc) from None
        if any(p.get("kind") == "not_still" for p in reading.problems) and not any(
            reading.seats.values()
        ):
            status = self.camera_status()
            if status != "ok":  # the likelier cause, and one the players can see to
                raise self.camera_failed(f"the camera gave nothing to read ({status})")
            reason = "; ".join(str(p.get("message")) for p in reading.problems)
            raise self.camera_failed(f"the camera read nothing ({reason})")
        return reading

    def camera_raised(self, exc: Exception) -> TableError:
        """`camera_failed` for a camera or reader that raised (dice or cards)."""
        said = str(exc) or type(exc).__name__  # an exception may carry no words
        return self.camera_failed(f"the camera's reading failed ({said})")

    def camera_failed(self, what: str) -> TableError:
        """A capture that gave no reading: said on the board, and the refusal to raise for
        whoever asked (a phone, the OK button), so none of them reports a reveal taken. The
        game is as it was: the reveal is still due."""
        message = f"{what} — capture again, or enter the reveal by hand"
        self.note(without_commands(message), "warning")
        return TableError(message, rule="camera")

    # ------------------------------------------------------------------ raise and re-roll

    def _fill_set_aside(self, action: dict[str, Any]) -> dict[str, Any]:
        """A re-roll from the panel names no faces: read them from the player's front area,
        once the rules allow the re-roll at all (so a refusal names the rule, not the camera)."""
        player = str(action.get("player"))
        filled = {k: v for k, v in action.items() if k not in ("reroll", "set_aside")}
        with self._lock:
            game = self._require_game()
            if player not in game.players:
                raise TableError(f"{player} is not at this table", rule="format", status=400)
            game.check(parse_action({**filled, "set_aside": [1]}))  # any face: B9 is later
            seat = seat_index(game.players, (self._setup or {}).get(SEATS_KEY), player)
            before = list(_set_aside_of(game).get(player, []))
        if self.camera is None:
            raise TableError(
                "raise and re-roll: no camera to read the set-aside dice; give their faces "
                "on the control page (\"set_aside\": [4, 4])", rule="camera", status=409,
            )
        short = self._seats_short()
        if short:
            raise TableError(f"raise and re-roll: {short}; give their faces by hand",
                             rule="camera", status=409)
        try:
            seen, problems = self.on_reading_thread(self._set_aside_reader,
                                                    self.camera_frames(), seat)
        except Exception as exc:
            problems, seen = [f"the camera could not read them ({exc})"], []
        new = _multiset_minus(list(seen), before)
        truth = self._set_aside_truth
        if truth is not None and sorted(new) != truth and not problems:
            problems = [f"the camera read {sorted(new)}, the recording says {truth}"]
        if problems or not new:
            why = "; ".join(problems) or f"no newly set-aside dice seen in front of {player}'s cup"
            raise TableError(f"raise and re-roll: {why}; give their faces by hand",
                             rule="camera", status=409)
        filled["set_aside"] = sorted(new)
        return filled

    # ------------------------------------------------------------------ camera

    def set_profile(self, profile: Any) -> None:
        """Read the next reveals by another calibration profile; refused while a reveal is
        due, whose dice are placed by the zones it began with."""
        self.rewrite_profile(lambda: profile)

    def rewrite_profile(self, write: Callable[[], Any]) -> Any:
        """Read the next reveals by the profile ``write`` saves and returns (its zones refitted
        on the calibration page). ``write`` runs under the table's lock once the check has
        passed, so a challenge cannot come between them: the file is rewritten only when
        the table takes it too. Refused while a reveal is due."""
        with self._lock:
            if self._in_reveal() or self._review is not None:
                raise TableError("a reveal is due: settle it before moving the zones",
                                 rule="calibration")
            self.profile = write()
            self._changed()
            return self.profile

    def set_camera(self, camera: Camera | None) -> None:
        """Swap the camera (the demo points it at each recorded reveal)."""
        with self._lock:
            self.camera = camera
            self._changed()

    def camera_status(self) -> str:
        if self.camera is None:
            return "none"
        status = getattr(self.camera, "status", "ok")
        return str(status)

    def snapshot(self) -> Any:
        """One frame for the calibration page, or None when the camera is offline/absent."""
        if self.camera is None:
            return None
        read = getattr(self.camera, "read", None)
        try:
            return read() if read is not None else next(iter(self.camera.frames()), None)
        except Exception:
            return None

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state_unlocked()

    def export(self) -> dict[str, Any]:
        """The current game as a replay script (setup + accepted actions)."""
        with self._lock:
            game = self._require_game()
            exported: dict[str, Any] = game.export()
            return exported

    @property
    def review(self) -> PendingReview | None:
        return self._review

    def _state_unlocked(self) -> dict[str, Any]:
        return build_state(
            version=self._version,
            setup=self._setup,
            game=self._game,
            actions=self._actions,
            reveal_ids=self._reveal_ids,
            photographed=frozenset(i for i in self._reveal_ids.values()
                                   if self.reveals.has_image(i)),
            table_seats=self.seat_names(),
            review=self._review.to_json() if self._review else None,
            last_reveal=self._last_reveal,
            reopen=self.reopenable(),
            camera={"spec": getattr(self.camera, "spec", None), "status": self.camera_status(),
                    "summary": camera_summary(self.camera_status()),
                    "reading": self._camera_readings > 0,
                    "learned_from": learned_from(self.profile)},
            evening=self._evening.standings(self._game, self._journal_game_id()),
            evening_undo=self._evening.can_bring_back,
            standings=self._standings.table(
                self._evening.game_ids(self._game, self._journal_game_id()),
                self._journal_game_id(),
                current_over=self._game is not None and self._game.phase is Phase.OVER),
            game_id=self._journal_game_id() if self._game is not None else None,
            messages=[m.to_json() for m in sorted(
                (m for m in (*self._lasting, *self._messages) if m.is_news(
                    game=self._games_started, under_way=bool(self._actions),
                    review=self._review.id if self._review else None)),
                key=lambda m: m.at)],
        )

    # ------------------------------------------------------------------ helpers

    def _journal_game_id(self) -> int | None:
        """The journal's id of the current game: tells apart games with the same setup."""
        return self._journal.game_id

    def _require_game(self) -> Game:
        if self._game is None:
            raise TableError("no game yet: start one first (POST /api/game)")
        return self._game

    def _in_reveal(self) -> bool:
        return self._game is not None and str(self._game.phase) in ("reveal", "Phase.REVEAL")

    @property
    def camera_reading(self) -> bool:
        """Whether the camera's frames are being read now, or a reading waits its turn
        (:meth:`on_reading_thread`): a reveal's, or the dice set aside for a re-roll."""
        return self._camera_readings > 0

    def on_reading_thread(self, read: Callable[..., T], *args: Any) -> T:
        """``read(*args)`` on the table's camera-reading thread, waited for (its exception
        raised here). Meanwhile the state says the camera is reading: a reading takes a
        second or two, and a press that shows nothing for that long looks lost."""
        with self._lock:  # counted: two may overlap (a re-roll's set-aside read and a capture)
            self._camera_readings += 1
            self._changed()
        try:
            return self._reading.run(read, *args)
        finally:
            with self._lock:
                self._camera_readings -= 1
                self._changed()

    def camera_frames(self) -> Iterator[Any]:
        """The camera's frames for one reading: at most `REVEAL_MAX_FRAMES`, and none once
        the table is closed (a reading under way then ends, rather than the camera being
        read, or opened again, after it was closed)."""
        assert self.camera is not None
        frames = iter(self.camera.frames())
        # exposure and white balance held for the reading's frames: the hands leaving the
        # table must not swing them between the frames that vote (a Pi camera; others no-op)
        hold_light(self.camera, True)
        try:
            for _ in range(REVEAL_MAX_FRAMES):
                if self._closed.is_set():  # asked before the camera is: a closed one reopens
                    return
                frame = next(frames, _NO_FRAME)
                if frame is _NO_FRAME:
                    return
                yield frame
        finally:
            hold_light(self.camera, False)

    def play_computer(self, seen: int) -> None:
        """The computer seat's move, if the game still has ``seen`` actions (the pause is
        over: `bluffcam.computer_seat.ComputerPlayer`); a refusal is a message, never a crash
        of the timer thread."""
        with self._lock:
            game, seat = self._game, self._computer
            if game is None or seat is None or len(self._actions) != seen or \
                    not seat.to_move(game):
                return
            try:
                self.submit(seat.move(game), source="computer", seen=seen)
            except (ValueError, TableError) as exc:
                why = getattr(exc, "said", None) or str(exc)
                self.note(said("the computer could not play: {why}", why=why), "error",
                          about_game=True)

    def close(self) -> None:
        self._computer_player.cancel()
        self._closed.set()
        close = getattr(self._journal, "close", None)
        if close is not None:
            close()


# ---------------------------------------------------------------------- module helpers

#: what `Table.camera_frames` gets from a camera that has no more frames
_NO_FRAME = object()


def _wants_camera_set_aside(action: Mapping[str, Any]) -> bool:
    return bool(action.get("reroll")) and action.get("set_aside") in (None, "camera")


def _set_aside_of(game: Game) -> dict[str, list[int]]:
    value = getattr(game, "set_aside", None)
    if callable(value):
        value = value()
    return {str(k): list(v) for k, v in (value or {}).items()}


def _multiset_minus(items: list[int], remove: list[int]) -> list[int]:
    left = list(items)
    for value in remove:
        if value in left:
            left.remove(value)
    return left


__all__ = ["IllegalActionError", "PendingReview", "Table", "TableError"]
