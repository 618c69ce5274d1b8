"""Turns button-panel events into game actions for the player whose turn it is.

The panel only reports presses; this is where they mean something. The controller keeps the
bid being composed (face and count, starting from the lowest legal raise), submits actions
through the `Table` (``submit(action, source="panel")``), and keeps the seat LEDs on the
player whose turn it is. A press that cannot apply — a bid that is not a raise, DOUBT with no
bid, anything out of phase — blinks and buzzes and changes nothing; the engine is the judge.

Keys: FACE cycles the face (lowest legal count for it); UP/DOWN change the count; BID bids;
REROLL bids and re-rolls (the table's camera reads the set-aside dice); DOUBT challenges
(Bluff), calls "Scam!" (Scam), "dudo" (Perudo) or says "don't believe" (Impus); PASS passes
(Scam) or calls calza (Perudo, which has no pass); OK takes
the reveal with the camera; UNDO clears the composed bid, a long UNDO undoes the last action.

Impus (cards): FACE cycles the claimable kinds (never the imp), UP/DOWN the number of cards
(1 to the cards in hand), BID plays them (naming the kind only for the first batch of a
pile), DOUBT says "don't believe", REROLL casts a polymorph naming the selected kind.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from bluffcam.seating import SEATS_KEY, seat_index
from hardware.panel import Key, PanelEvent

log = logging.getLogger(__name__)

#: The most dice a game can have on the table (6 players × 30 dice, B2's largest option):
#: the cap where the state does not say how many are in play.
MAX_COUNT = 180
#: What DOUBT means in each game.
DOUBT_ACTION = {"bluff": "challenge", "scam": "scam", "impus": "doubt", "perudo": "dudo"}
#: What PASS means in each game (Perudo has no pass: the button calls calza, P10).
PASS_ACTION = {"scam": "pass", "perudo": "calza"}


class TableLike(Protocol):
    """What the controller needs from `bluffcam.table.Table`."""

    def state(self) -> dict[str, Any]: ...

    def submit(self, action: Any, source: str = "web") -> dict[str, Any]: ...

    def undo(self) -> dict[str, Any]: ...

    def capture_reveal(self) -> dict[str, Any]: ...


class PanelLike(Protocol):
    """What the controller needs from `hardware.panel.ButtonPanel`."""

    events: queue.Queue[PanelEvent]

    def show_turn(self, seat: int | None) -> None: ...

    def refuse(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Draft:
    """The bid being composed: ``face=None`` is a joker (★) bid."""

    count: int
    face: int | None

    def __str__(self) -> str:
        return f"{self.count}*" if self.face is None else f"{self.count}x{self.face}"

    @classmethod
    def parse(cls, text: str) -> Draft:
        text = text.strip().replace("×", "x").replace("★", "*")
        if text.endswith("*"):
            return cls(int(text[:-1]), None)
        count, _, face = text.partition("x")
        return cls(int(count), int(face))


@dataclass(frozen=True, slots=True)
class CardDraft:
    """The Impus batch being composed: how many cards, and the kind selected with FACE."""

    count: int
    kind: str

    def __str__(self) -> str:
        return f"{self.count} × {self.kind}"


class PanelController:
    """Consumes `PanelEvent`s; one instance per table. Thread-safe: one event at a time."""

    def __init__(
        self,
        table: TableLike,
        panel: PanelLike,
        *,
        on_message: Callable[[str], None] | None = None,
        on_draft: Callable[[str], None] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.table = table
        self.panel = panel
        #: actions taken and presses refused (the dashboard shows them)
        self.on_message = on_message or (lambda text: log.info("panel: %s", text))
        #: the composed bid after each FACE/UP/DOWN (frequent; logged by default)
        self.on_draft = on_draft or (lambda text: log.debug("panel: %s", text))
        self._rounds_seen: int | None = None
        self.draft: Draft | None = None
        #: the Impus batch being composed (None outside Impus or with nobody to play)
        self.card_draft: CardDraft | None = None
        self._draft_basis: tuple[Any, ...] | None = None
        self._lock = threading.Lock()
        self.refused = 0
        #: the panel's clock (`PanelEvent.at`), and when the last press began and ended
        if clock is None:
            clock = getattr(panel, "clock", time.monotonic)
        self._clock: Callable[[], float] = clock
        #: the last press: when it was made, when its handling began and ended, whether it
        #: moved the game
        self._busy: tuple[float, float, float, bool] | None = None

    # ------------------------------------------------------------------ state helpers

    def _state(self) -> dict[str, Any]:
        return self.table.state()

    @staticmethod
    def _game(state: Mapping[str, Any]) -> Mapping[str, Any]:
        game = state.get("game")
        return game if isinstance(game, Mapping) else {}

    @staticmethod
    def _lowest_raises(state: Mapping[str, Any]) -> list[Draft]:
        legal = state.get("legal") or {}
        return [Draft.parse(text) for text in legal.get("lowest_raises", [])]

    @staticmethod
    def _dice_in_play(state: Mapping[str, Any]) -> int | None:
        """How many dice a bid may count (the phone's stepper stops there too)."""
        value = (state.get("details") or {}).get("dice_in_play")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @staticmethod
    def _legal_kinds(state: Mapping[str, Any]) -> list[str]:
        legal = state.get("legal") or {}
        return list(legal.get("kinds", []))

    def _sync_draft(self, state: Mapping[str, Any]) -> None:
        """Start again from the lowest legal raise whenever the turn or the bid changed, or
        a new game began (one with the same starter looks like the last one's start)."""
        game = self._game(state)
        basis = (state.get("game_id"), game.get("turn"), game.get("bid"), game.get("phase"),
                 game.get("claim"), game.get("pile"))
        if basis != self._draft_basis:
            self._draft_basis = basis
            raises = self._lowest_raises(state)
            self.draft = raises[0] if raises else None
            self.card_draft = self._first_card_draft(game)

    @staticmethod
    def _first_card_draft(game: Mapping[str, Any]) -> CardDraft | None:
        """One card of the pile's claim (or the first claimable kind for a new pile)."""
        kinds = [str(k) for k in game.get("kinds") or []]
        if game.get("game") != "impus" or game.get("turn") is None or not kinds:
            return None
        claim = game.get("claim")
        return CardDraft(1, str(claim) if claim in kinds else kinds[0])

    def refresh(self) -> None:
        """Follow the table: seat LEDs on whoever's turn it is, the draft reset if needed."""
        with self._lock:
            state = self._state()
            self._sync_draft(state)
            self._show_turn(state)

    def _announce_verdict(self, state: Mapping[str, Any]) -> None:
        """Buzz when a round has just been settled (the history grew)."""
        rounds = len(state.get("history") or [])
        if self._rounds_seen is not None and rounds > self._rounds_seen:
            fanfare = getattr(self.panel, "fanfare", None)
            if callable(fanfare):
                fanfare()
        self._rounds_seen = rounds

    def _show_turn(self, state: Mapping[str, Any]) -> None:
        self._announce_verdict(state)
        game = self._game(state)
        names = [str(p.get("name")) if isinstance(p, Mapping) else str(p)
                 for p in game.get("players", [])]
        turn = game.get("turn")
        seats = (state.get("setup") or {}).get(SEATS_KEY)  # a player's LED is their seat's
        self.panel.show_turn(seat_index(names, seats, turn) if turn in names else None)

    # ------------------------------------------------------------------ events

    def handle(self, event: PanelEvent) -> bool:
        """Act on one event; returns whether it did something (False = refused).

        A press made while the one before was still being carried out (OK: the camera
        waits for a still scene and reads the reveal, a second or more) was aimed at a
        board that has changed since: it is refused, not applied to the next round. So is
        one pressed with the one before (BID and DOUBT at once, on Ben's turn) where that
        one moved the game: queued behind it, it would be Cho's challenge. Presses that
        only compose a bid (FACE, UP, DOWN, an encoder's clicks) move no game, and queue.
        """
        with self._lock:
            if self._busy is not None:
                pressed, started, ended, moved = self._busy
                if started <= event.at < ended or (moved and pressed <= event.at < ended):
                    return self._refuse(f"{event.key.value}: pressed while the last press was "
                                        "still being carried out; press again")
            started = self._clock()
            moved = False
            try:
                done, moved = self._handle(event)
                return done
            finally:
                self._busy = (event.at, started, self._clock(), moved)

    def _handle(self, event: PanelEvent) -> tuple[bool, bool]:
        """Whether the press did something, and whether the game moved."""
        state = self._state()
        self._sync_draft(state)
        try:
            done = self._dispatch(event, state)
        except ValueError as exc:  # IllegalActionError and TableError: the table said no
            done = self._refuse(str(getattr(exc, "message", exc)))
        except Exception as exc:  # a camera or table fault must not kill the panel
            log.exception("panel action failed")
            done = self._refuse(f"{type(exc).__name__}: {exc}")
        new_state = self._state()
        self._sync_draft(new_state)
        self._show_turn(new_state)
        return done, self._game(new_state) != self._game(state)

    def _refuse(self, why: str) -> bool:
        self.refused += 1
        self.on_message(f"refused: {why}")
        self.panel.refuse()
        return False

    def _dispatch(self, event: PanelEvent, state: Mapping[str, Any]) -> bool:
        game = self._game(state)
        if not game:
            return self._refuse("no game: start one on the dashboard")
        kind = str(game.get("game", ""))
        turn = game.get("turn")
        kinds = self._legal_kinds(state)
        key = event.key
        if key is Key.UNDO:
            if event.is_long:
                self.table.undo()
                self.on_message("undone")
                return True
            self._draft_basis = None
            self._sync_draft(state)
            self.on_draft(f"bid reset to {self.draft}" if self.draft else "nothing to reset")
            return True
        if key is Key.OK:
            if "reveal" not in kinds:
                return self._refuse("OK takes the reveal, and no reveal is due")
            if state.get("review"):
                return self._refuse("a reading waits for review on the dashboard")
            if (state.get("camera") or {}).get("reading"):  # a phone's capture, say
                return self._refuse("the camera is already reading the dice")
            self.table.capture_reveal()
            self.on_message("reveal taken")
            return True
        if turn is None:
            return self._refuse(f"{key.value}: nobody's turn now (phase {game.get('phase')})")
        if turn == ((state.get("setup") or {}).get("computer") or {}).get("player"):
            return self._refuse(f"{key.value}: {turn} is the computer's seat: it plays itself")
        if kind == "impus" and key in (Key.FACE, Key.UP, Key.DOWN, Key.BID, Key.REROLL):
            return self._impus(key, game, str(turn), kinds)
        if key in (Key.FACE, Key.UP, Key.DOWN):
            return self._compose(key, state)
        if key is Key.BID or key is Key.REROLL:
            return self._bid(turn, reroll=key is Key.REROLL, state=state, game_kind=kind)
        if key is Key.DOUBT:
            action = DOUBT_ACTION.get(kind)
            if action is None or action not in kinds:
                what = "batch" if kind == "impus" else "bid"  # Impus puts cards down, not bids
                return self._refuse(f"DOUBT: there is no {what} to doubt")
            self.table.submit({"player": turn, action: True}, source="panel")
            self.on_message(f"{turn}: {'Scam!' if action == 'scam' else action}")
            return True
        if key is Key.PASS:
            action = PASS_ACTION.get(kind)
            if action is None or action not in kinds:
                return self._refuse(f"PASS: {kind} has no pass" if action != "calza" else
                                    "PASS (calza): no bid to call calza on, or calza is off")
            self.table.submit({"player": turn, action: True}, source="panel")
            self.on_message(f"{turn}: {action}")
            return True
        return self._refuse(f"{key.value}: not used in {kind}")

    def _compose(self, key: Key, state: Mapping[str, Any]) -> bool:
        raises = self._lowest_raises(state)
        if not raises or self.draft is None:
            return self._refuse("no bid can be made now")
        lowest_for = {r.face: r.count for r in raises}
        draft = self.draft
        if key is Key.FACE:
            faces = sorted(lowest_for, key=lambda f: (f is None, f or 0))  # 2..6 then ★
            at = faces.index(draft.face) if draft.face in faces else -1
            face = faces[(at + 1) % len(faces)]
            self.draft = Draft(lowest_for[face], face)
        elif key is Key.UP:
            in_play = self._dice_in_play(state)
            if draft.count >= (in_play or MAX_COUNT):
                return self._refuse(
                    f"{draft}: no bid counts more than the {in_play} dice in play" if in_play
                    else f"count cannot go above {MAX_COUNT}")
            self.draft = Draft(draft.count + 1, draft.face)
        else:
            floor = lowest_for.get(draft.face, 1)
            if draft.count <= floor:
                return self._refuse(f"{draft} is already the lowest legal bid for this face")
            self.draft = Draft(draft.count - 1, draft.face)
        self.on_draft(f"bid: {self.draft}")
        return True

    def _bid(self, turn: str, *, reroll: bool, state: Mapping[str, Any], game_kind: str) -> bool:
        kinds = self._legal_kinds(state)
        if "bid" not in kinds:
            return self._refuse(f"BID: {game_kind} bids are made on the dashboard")
        if self.draft is None:
            return self._refuse("no bid composed")
        action: dict[str, Any] = {"player": turn, "bid": str(self.draft)}
        if reroll:
            if game_kind != "bluff":  # raise and re-roll is Bluff's alone (B8)
                return self._refuse(f"REROLL: {game_kind} has no raise and re-roll")
            if (state.get("setup") or {}).get("options", {}).get("reroll") is False:
                return self._refuse("REROLL: raise and re-roll is switched off at this table (B8)")
            if "set_aside" not in kinds:
                return self._refuse("REROLL: not allowed now (needs 2+ dice in the cup)")
            action["reroll"] = True
        self.table.submit(action, source="panel")
        self.on_message(f"{turn}: {'raise and re-roll ' if reroll else ''}{self.draft}")
        return True

    def _impus(self, key: Key, game: Mapping[str, Any], turn: str, legal: list[str]) -> bool:
        """Compose and play a batch of cards, or cast a polymorph (Impus Bluff)."""
        draft = self.card_draft
        if draft is None or "play" not in legal:
            return self._refuse(f"{key.value}: no cards can be played now")
        kinds = [str(k) for k in game.get("kinds") or []]
        in_hand = next(
            (int(p.get("cards", 0)) for p in game.get("players", [])
             if isinstance(p, Mapping) and p.get("name") == turn),
            0,
        )
        claim = game.get("claim")
        if key is Key.FACE:
            at = kinds.index(draft.kind) if draft.kind in kinds else -1
            self.card_draft = CardDraft(draft.count, kinds[(at + 1) % len(kinds)])
        elif key is Key.UP:
            if draft.count >= in_hand:
                return self._refuse(f"{turn} holds only {in_hand} card(s)")
            self.card_draft = CardDraft(draft.count + 1, draft.kind)
        elif key is Key.DOWN:
            if draft.count <= 1:
                return self._refuse("a batch is at least one card")
            self.card_draft = CardDraft(draft.count - 1, draft.kind)
        elif key is Key.BID:
            if claim is None:
                action: dict[str, Any] = {"player": turn, "play": draft.count,
                                          "claim": draft.kind}
                said = f"{turn}: plays {draft}"
            else:
                action = {"player": turn, "play": draft.count}
                said = f"{turn}: adds {draft.count} × {claim}"
            self.table.submit(action, source="panel")
            self.on_message(said)
            return True
        else:
            if "polymorph" not in legal:
                return self._refuse("REROLL: no polymorph can be cast now")
            if draft.kind == claim:
                return self._refuse(
                    f"REROLL: the pile is already {draft.kind}; FACE picks another kind"
                )
            self.table.submit({"player": turn, "polymorph": draft.kind}, source="panel")
            self.on_message(f"{turn}: polymorph → {draft.kind}")
            return True
        self.on_draft(f"cards: {self.card_draft}")
        return True

    # ------------------------------------------------------------------ loop

    def run(self, stop: threading.Event, *, poll_s: float = 0.1) -> None:
        """Consume panel events (and follow table changes) until ``stop`` is set."""
        changes = getattr(self.table, "subscribe", None)
        updates: queue.Queue[Any] | None = changes() if callable(changes) else None
        try:
            self.refresh()
            while not stop.is_set():
                try:
                    event = self.panel.events.get(timeout=poll_s)
                except queue.Empty:
                    event = None
                if event is not None:
                    self.handle(event)
                if updates is not None and not updates.empty():
                    while not updates.empty():
                        updates.get_nowait()
                    self.refresh()
        finally:
            if updates is not None:
                unsubscribe = getattr(self.table, "unsubscribe", None)
                if callable(unsubscribe):
                    unsubscribe(updates)
