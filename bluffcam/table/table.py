"""The Table: the lock and the public API over the parts that hold the table's state.

Everything that changes the game (the web API, the button panel, the demo player) calls a
`Table` method; each one takes the table's lock, so actions apply one at a time and each
is either applied exactly once or refused with nothing changed. The parts, each with one
job and none knowing the Table:

- `ledger.Ledger`: the game, journal first (validate -> journal -> memory), and undo;
- `camera_port.CameraPort`: the camera, the thread readings run on, its status;
- `reveal_desk.RevealDesk`: capture -> apply or hold for review -> confirm or reopen, the
  same for dice (`dice_reveals`) and cards (`card_reveals`), chosen by the game's
  ``reveal_kind``;
- `set_aside.SetAsideReads`: a panel re-roll's set-aside dice read by the camera;
- `news.News`: the board's messages and live boards; `evening.Evening`: tonight's
  standings; `state.build_state`: the state JSON, derived from them all.

Undo takes back the last action; a reveal typed in by hand goes with it (to type it again),
while one the camera read is reopened for review instead (`reopen_reveal`), so its photo and
record stay with it.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bluffcam.camera_news import camera_status_said, camera_summary, camera_summary_said
from bluffcam.computer_seat import (
    COMPUTER_KEY,
    ComputerPlayer,
    ComputerSeat,
    ComputerSeatError,
    check_computer,
)
from bluffcam.learned_count import learned_from
from bluffcam.standings import Standings
from bluffcam.table.camera_port import REVEAL_MAX_FRAMES, Camera, CameraPort
from bluffcam.table.card_reveals import CardArtStore, CardReveals
from bluffcam.table.dice_reveals import DiceReveals, RevealReader
from bluffcam.table.errors import TableError
from bluffcam.table.evening import Evening
from bluffcam.table.ledger import Ledger
from bluffcam.table.news import News
from bluffcam.table.options import ODDS_KEY, check_odds
from bluffcam.table.player_names import PlayerNameError, check_player_names
from bluffcam.table.reading_thread import T
from bluffcam.table.resume import resume
from bluffcam.table.reveal_desk import RevealDesk
from bluffcam.table.reveal_records import PendingReview
from bluffcam.table.reveal_store import RevealStore
from bluffcam.table.seating import (
    DEFAULT_SEAT_COUNT,
    SEATS_KEY,
    SeatingError,
    check_seats,
    seat_map,
)
from bluffcam.table.set_aside import SetAsideReader, SetAsideReads, wants_camera_set_aside
from bluffcam.table.state import build_state
from bluffcam.table.vision_bridge import read_front_of_cup, read_reveal
from engine import (
    Game,
    IllegalActionError,
    Journal,
    Phase,
    action_to_json,
    parse_action,
)
from engine.words import Said, said

__all__ = ["REVEAL_MAX_FRAMES", "Camera", "IllegalActionError", "PendingReview",
           "RevealReader", "SetAsideReader", "Table", "TableError"]


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
        self.profile = profile
        self._journal = Journal(str(self.journal_path))
        self.reveals = RevealStore(self.data_dir / "reveals", journal=self._journal.identity)
        #: the table's card art (Impus Bluff), one upright face per kind
        self.card_art = CardArtStore(self.data_dir / "cards")
        self._reveal_reader = reveal_reader or (
            lambda f, e: read_reveal(f, e, self.profile, seating=self.seating()))
        self._set_aside_reader = set_aside_reader or (
            lambda f, seat: read_front_of_cup(f, seat, self.profile)
        )
        self._lock = threading.RLock()
        #: the computer's seat, where the setup gives it one (`bluffcam.computer_seat`)
        self._computer: ComputerSeat | None = None
        self._computer_player = ComputerPlayer(self.play_computer, *(
            (computer_pause,) if computer_pause is not None else ()))
        self._news = News(self._event_json, after_change=lambda: self._computer_player.poke(
            self._computer, self._ledger.game))
        self._ledger = Ledger(self._journal, self._news)
        self._port = CameraPort(camera, self._lock, self._news)
        # the readers and the announcement are looked up at each use (a test may swap them)
        dice = DiceReveals(self._port, lambda f, e: self._reveal_reader(f, e),
                           self._seats_short, hidden=self._computer_hides)
        self._desk = RevealDesk(
            self._ledger, self.reveals, self._port, self._news, self._lock,
            {"dice": dice, "cards": CardReveals(self._port, self.card_art)},
            announce=lambda reveal_id: self.announce_review(reveal_id))
        self._set_aside = SetAsideReads(self._ledger, self._port, self._lock,
                                        lambda f, seat: self._set_aside_reader(f, seat),
                                        self._seats_short)
        #: for recorded games: the dice really on the table, checked by the next captures
        self._truth: dict[str, list[int]] | None = None
        #: told the id of each review a person confirmed, after the table applied it and
        #: outside its lock (`bluffcam.relearning` counts them); each must return at once
        self.after_review: list[Callable[[str], None]] = []
        self._evening = Evening(self._journal)
        self._standings = Standings(self._journal)
        try:
            self._resume()
        except BaseException:  # e.g. a damaged page found on reading: the file is set aside,
            self._journal.close()  # and must not keep a connection that writes to it
            raise
        self._computer_player.poke(self._computer, self._ledger.game)  # its turn when off

    # ------------------------------------------------------------------ resume

    def _resume(self) -> None:
        """The journal's game and its reveal records as they were left (`resume`)."""
        found = resume(self._journal, self.reveals)
        ledger, desk = self._ledger, self._desk
        ledger.setup, ledger.game, ledger.actions = found.setup, found.game, found.actions
        desk.reveal_ids, desk.last_reveal = found.reveal_ids, found.last_reveal
        desk.review = found.review
        self._computer = ComputerSeat.from_setup(ledger.setup, self._journal)
        for notice in found.notices:
            self._news.post(notice.text, notice.level, lasting=notice.lasting,
                            review=notice.review)
        self._evening.recall(ledger.game_id)  # the evening's earlier games count all the same

    def new_evening(self) -> dict[str, Any]:
        """Start tonight's standings afresh: the games that have ended no longer count (a
        game still on does, once it ends). Kept in the journal, so a restart keeps it."""
        with self._lock:
            with self._ledger.storing(said("the new evening")):
                self._evening.start_afresh(self._ledger.game_id, self._ledger.game)
            self._news.post(said("tonight's standings start afresh"))
            self._news.changed()
            return self._state_unlocked()

    def bring_back_evening(self) -> dict[str, Any]:
        """Undo "New evening" until the next game starts: the earlier games count again."""
        with self._lock:
            if not self._evening.can_bring_back:
                raise TableError("no new evening to undo: the standings were not started "
                                 "afresh since the last game began", rule="evening")
            with self._ledger.storing(said("bringing back tonight's standings")):
                self._evening.bring_back(self._ledger.game_id)
            self._news.post(said("tonight's standings are back"))
            self._news.changed()
            return self._state_unlocked()

    # ------------------------------------------------------------------ events

    def subscribe(self, *, limit: int | None = None) -> queue.Queue[str] | None:
        """A queue of SSE-ready JSON strings, one per state change; starts with the current one.
        None where ``limit`` boards already have one (counted and added under one lock)."""
        with self._lock:
            if limit is not None and len(self._news.subscribers) >= limit:
                return None
            return self._news.subscribers.add(self._event_json())

    def unsubscribe(self, q: queue.Queue[str]) -> None:
        with self._lock:
            self._news.subscribers.remove(q)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._news.subscribers)

    def _event_json(self) -> str:
        return json.dumps(self._state_unlocked(), separators=(",", ":"))

    def note(self, text: str | Said, level: str = "info", *, about_game: bool = False,
             review: str | None = None, lasting: bool = False,
             topic: str | None = None) -> None:
        """Show a message on the dashboard (camera faults, demo narration); one
        ``about_game`` is shown only until another game starts, one about a ``review`` only
        while that review waits; one ``lasting`` (a fault found at start) stays on the board
        until the next game starts, not for a glance's while; one on a ``topic`` takes the
        place of the last one on it."""
        with self._lock:
            self._news.post(text, level, about_game=about_game, review=review, lasting=lasting,
                            topic=topic)
            self._news.changed()

    # ------------------------------------------------------------------ game changes

    @property
    def version(self) -> int:
        with self._lock:
            return self._news.version

    @property
    def _version(self) -> int:  # the number the boards see (a test sets it back)
        return self._news.version

    @_version.setter
    def _version(self, value: int) -> None:
        self._news.version = value

    @property
    def game(self) -> Game | None:
        return self._ledger.game

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
            ended = self._evening.result(self._ledger.game, self._ledger.game_id)
            game_id = self._ledger.start(setup_json, game, actions)  # all or nothing
            self._desk.new_game()
            self._evening.game_started(game_id, ended)
            self._computer_player.cancel()
            self._computer = ComputerSeat.from_setup(setup_json, self._journal)
            self._news.games_started += 1
            deal = game.deal_said() if not game.actions else None
            if deal:
                self._news.post(deal, about_game=True, before_play=True)
            short = self._seats_short()
            if short:
                self._news.post(said(
                    "the calibration profile has {seats} seats and this game needs "
                    "{players}: reveals are entered by hand (or calibrate the table "
                    "for more seats)", seats=len(self.seat_names() or []),
                    players=len(self.seating() or [])), "warning", about_game=True)
            self._news.changed()
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
        if wants_camera_set_aside(action):
            action = self._set_aside.fill(action)
        elif action.get("reroll") is False or (
                action.get("reroll") is True and isinstance(action.get("set_aside"), list)):
            del action["reroll"]  # no re-roll, or one by the set-aside dice it gives
        with self._lock:
            game = self._ledger.require_game()
            self._ledger.check_seen(seen)
            if self._computer is not None and isinstance(action.get("reveal"), Mapping):
                action["reveal"] = self._computer.complete_reveal(game, action["reveal"])
            parsed = parse_action(action)
            game.check(parsed)
            canonical = action_to_json(parsed)
            index = self._ledger.record(parsed, canonical)
            if "reveal" in canonical:  # it answers a reading waiting for review, if any
                self._desk.settle_by_hand(canonical, index, how=f"entered by hand ({source})")
            self._news.changed()
            return self._state_unlocked()

    def undo(self, *, seen: int | None = None) -> dict[str, Any]:
        """Take back the last action. A reveal typed in by hand goes too (a mistyped die
        would otherwise settle the round wrongly for good); a camera reveal is reopened
        instead (:meth:`reopen_reveal`), which keeps its photo and record. ``seen`` as for
        :meth:`submit`: an undo pressed on an older screen would take back another move."""
        with self._lock:
            game = self._ledger.require_game()
            self._ledger.check_seen(seen)
            if not self._ledger.actions:
                raise TableError("nothing to undo: no action in this game yet")
            camera_reveal = self._desk.reopenable()
            if camera_reveal is not None:
                raise TableError(
                    f"the camera's reveal {camera_reveal} is not undone: check its reading "
                    "again on the review page (Check this reading again)")
            undone = game.actions[-1].describe_said()  # the parsed action
            self._ledger.drop_last(said("undo of {action}", action=undone))
            self._desk.discard("the challenge was undone")
            self.note(said("undone: {action}", action=undone), about_game=True)
            return self._state_unlocked()

    # ------------------------------------------------------------------ the computer's seat

    def _computer_hides(self) -> ComputerSeat | None:
        """The computer's seat, whose dice are in the journal, not on the table (None)."""
        return self._computer

    def play_computer(self, seen: int) -> None:
        """The computer seat's move, if the game still has ``seen`` actions (the pause is
        over: `bluffcam.computer_seat.ComputerPlayer`); a refusal is a message, never a crash
        of the timer thread."""
        with self._lock:
            game, seat = self._ledger.game, self._computer
            if game is None or seat is None or len(self._ledger.actions) != seen or \
                    not seat.to_move(game):
                return
            try:
                self.submit(seat.move(game), source="computer", seen=seen)
            except (ValueError, TableError) as exc:
                why = getattr(exc, "said", None) or str(exc)
                self.note(said("the computer could not play: {why}", why=why), "error",
                          about_game=True)

    # ------------------------------------------------------------------ reveals

    def expect_truth(self, truth: Mapping[str, list[int]] | None) -> None:
        """For recorded games: the dice really on the table, checked by the next captures."""
        with self._lock:
            self._truth = {k: list(v) for k, v in truth.items()} if truth else None

    def expect_set_aside(self, faces: list[int] | None) -> None:
        """For recorded games: the faces the next camera-read re-roll must find."""
        with self._lock:
            self._set_aside.truth = sorted(faces) if faces else None

    def capture_reveal(self, *, truth: Mapping[str, list[int]] | None = None,
                       replacing: str | None = None) -> dict[str, Any]:
        """Read the reveal with the camera; apply it when sure, else leave a pending review
        (`RevealDesk.capture`). ``truth`` (or `expect_truth`) sends a reading that
        disagrees with the dice really there to review; ``replacing`` names the review a
        re-capture replaces."""
        self._desk.capture(truth if truth is not None else self._truth, replacing)
        return self.state()

    def announce_review(self, reveal_id: str) -> None:
        """Tell the dashboard that a reveal waits for a person's look; the message goes once
        the review is settled, discarded or replaced, however that happens."""
        self._desk.announce(reveal_id)

    def confirm_review(self, review_id: str, seats: Mapping[str, Any]) -> dict[str, Any]:
        """Apply a person's confirmed (maybe corrected) reading of a pending review."""
        with self._lock:
            self._desk.confirm(review_id, seats)
            state = self._state_unlocked()
        for hear in list(self.after_review):
            hear(review_id)
        return state

    def reopen_reveal(self, reveal_id: str) -> dict[str, Any]:
        """Take back the verdict of the last reveal and send its reading to review again:
        for a die the camera was sure of and got wrong, seen on the board before the next
        round starts (`RevealDesk.reopen`)."""
        with self._lock:
            self._desk.reopen(reveal_id)
            return self._state_unlocked()

    def reopenable(self) -> str | None:
        """The camera reveal (dice or cards) a player may still reopen, if any."""
        with self._lock:
            return self._desk.reopenable()

    def reveals_in_use(self) -> set[str]:
        """The reveals whose photos the dashboard can show now: the game's own, its pending
        review's and the last-reveal panel's (`bluffcam.photo_budget` keeps them)."""
        with self._lock:
            return self._desk.in_use()

    @property
    def review(self) -> PendingReview | None:
        return self._desk.review

    def reveal_image(self, reveal_id: str) -> Path:
        """The annotated JPEG of one reveal (raises `UnknownRevealError`)."""
        return self.reveals.image_path(reveal_id)

    def reveal_photo(self, reveal_id: str) -> Path:
        """The same frame without the reading's marks (raises `UnknownRevealError`)."""
        return self.reveals.photo_path(reveal_id)

    # ------------------------------------------------------------------ seats

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
        names, sitting, game = self.seat_names(), self.seating(), self._ledger.game
        if not names or not sitting or len(sitting) <= len(names) or game is None \
                or game.reveal_kind != "dice":
            return ""
        return (f"the calibration profile has {len(names)} seats and this game needs "
                f"{len(sitting)}")

    def seating(self) -> list[str | None] | None:
        """Who sits at each seat of the table (None: nobody), every player of the game, those
        out included: a player's zone stays theirs when a neighbour drops out. None without a
        game."""
        game = self._ledger.game
        if game is None:
            return None
        return seat_map(game.players, (self._ledger.setup or {}).get(SEATS_KEY))

    # ------------------------------------------------------------------ camera

    @property
    def camera(self) -> Camera | None:
        return self._port.camera

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
            if self._ledger.in_reveal() or self._desk.review is not None:
                raise TableError("a reveal is due: settle it before moving the zones",
                                 rule="calibration")
            self.profile = write()
            self._news.changed()
            return self.profile

    def set_camera(self, camera: Camera | None) -> None:
        """Swap the camera (the demo points it at each recorded reveal)."""
        with self._lock:
            self._port.camera = camera
            self._news.changed()

    def camera_status(self) -> str:
        return self._port.status()

    def snapshot(self) -> Any:
        """One frame for the calibration page, or None when the camera is offline/absent."""
        return self._port.snapshot()

    @property
    def camera_reading(self) -> bool:
        """Whether the camera's frames are being read now, or a reading waits its turn: a
        reveal's, or the dice set aside for a re-roll."""
        return self._port.readings > 0

    def on_reading_thread(self, read: Callable[..., T], *args: Any) -> T:
        """``read(*args)`` on the table's camera-reading thread (`CameraPort`)."""
        return self._port.on_reading_thread(read, *args)

    def camera_frames(self) -> Iterator[Any]:
        """The camera's frames for one reading (`CameraPort.frames`)."""
        return self._port.frames()

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state_unlocked()

    def export(self) -> dict[str, Any]:
        """The current game as a replay script (setup + accepted actions)."""
        with self._lock:
            exported: dict[str, Any] = self._ledger.require_game().export()
            return exported

    def _state_unlocked(self) -> dict[str, Any]:
        ledger, desk = self._ledger, self._desk
        game_id = ledger.game_id
        return build_state(
            version=self._news.version,
            setup=ledger.setup,
            game=ledger.game,
            actions=ledger.actions,
            reveal_ids=desk.reveal_ids,
            photographed=frozenset(i for i in desk.reveal_ids.values()
                                   if self.reveals.has_image(i)),
            table_seats=self.seat_names(),
            review=desk.review.to_json() if desk.review else None,
            last_reveal=desk.last_reveal,
            reopen=desk.reopenable(),
            camera={**self._port.to_json(), "summary": camera_summary(self._port.status()),
                    # "camera offline" and the faults hardware names, in the page's language
                    "status_said": status.to_json() if (
                        status := camera_status_said(self._port.camera)) else None,
                    "summary_said": words.to_json() if (
                        words := camera_summary_said(self._port.camera)) else None,
                    "learned_from": learned_from(self.profile)},
            evening=self._evening.standings(ledger.game, game_id),
            evening_undo=self._evening.can_bring_back,
            standings=self._standings.table(
                self._evening.game_ids(ledger.game, game_id), game_id,
                current_over=ledger.game is not None and ledger.game.phase is Phase.OVER),
            game_id=game_id if ledger.game is not None else None,
            messages=self._news.current(under_way=bool(ledger.actions),
                                        review=desk.review.id if desk.review else None),
        )

    def close(self) -> None:
        self._computer_player.cancel()
        self._port.close()
        close = getattr(self._journal, "close", None)
        if close is not None:
            close()
