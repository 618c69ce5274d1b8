"""Tonight's results: who has won the evening's games (and, at Impus Bluff, lost them).

A table plays several games in an evening, and the players want the standings without
keeping score on paper. An evening is every game started within `EVENING` before the
current one and since a player last started the standings afresh (`Table.new_evening`: a
new group sits down, or a Pi with no clock battery and no network, whose clock restarts
from the last shutdown's time, cannot tell two evenings apart by the journal's times).

The journal keeps each game's setup and actions, so a restarted table replays the evening's
earlier games once (`replayed_results`); after that the table takes each game's result as
it ends (`result_of`). The current game's result is taken afresh with each state, so an
undo of its last action takes its result back too.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bluffcam.computer_seat import COMPUTER_KEY
from bluffcam.table_options import TABLE_KEYS
from engine import EngineError, Game, Journal, JournalError, Phase, parse_action
from engine.game import game_from_setup

#: how far back from the current game's start an evening reaches
EVENING = timedelta(hours=8)
#: the journal setting that keeps the last game of an evening ended by hand
ENDED_AFTER = "evening_ended_after"


@dataclass(frozen=True)
class GameResult:
    """One finished game: its winner (Bluff, Scam) or its loser (Impus Bluff, I9)."""

    game_id: int
    started: datetime
    winner: str | None
    loser: str | None


def stored_game(setup: Mapping[str, Any]) -> Game:
    """A fresh game from a journalled setup (the engine validates it; the seats, the odds and
    the computer's seat are the table's, not the rules')."""
    return game_from_setup({k: v for k, v in setup.items()
                            if k != "actions" and k not in TABLE_KEYS and k != COMPUTER_KEY})


def result_of(game: Game | None, game_id: int | None, started: datetime | None
              ) -> GameResult | None:
    """The result of ``game`` if it is over (None while it is on, or for a game with no
    journal id or start time, which cannot be placed in an evening)."""
    if game is None or game_id is None or started is None or game.phase is not Phase.OVER:
        return None
    return GameResult(game_id, started, getattr(game, "winner", None),
                      getattr(game, "loser", None))


def started_at(text: str) -> datetime | None:
    """A journal's start time (ISO 8601, UTC); None for one that does not parse."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    # the journal writes UTC; a time without its zone (edited by hand) is taken as UTC too,
    # not compared with aware times, which raises
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def ended_after(journal: Journal) -> int:
    """The last game of an evening ended by hand (0: none was)."""
    try:
        value = journal.setting(ENDED_AFTER)
    except (JournalError, sqlite3.Error):
        return 0
    try:
        return max(int(value), 0) if value is not None else 0
    except ValueError:  # a setting edited by hand into something else
        return 0


def replayed_results(journal: Journal, before: int, since: datetime,
                     after: int = 0) -> list[GameResult]:
    """The results of the journal's games older than game ``before``, newer than game
    ``after`` and started at or after ``since``, replayed by the rules. A game that no
    longer replays (garbled, or the rules changed since) is left out: the standings are a
    courtesy, never a reason not to resume."""
    results = []
    try:
        games = journal.games()
        for game_id, text in games:
            started = started_at(text)
            if not after < game_id < before or started is None or started < since:
                continue
            script = journal.script(game_id)
            if script is None:
                continue
            result = result_of(_replayed(*script), game_id, started)
            if result is not None:
                results.append(result)
    except (JournalError, sqlite3.Error):  # the journal went bad since the resume read it
        return results
    return results


def _replayed(setup: Mapping[str, Any], actions: Iterable[Mapping[str, Any]]) -> Game | None:
    try:
        game = stored_game(setup)
        for action in actions:
            game.apply(parse_action(action))
    except EngineError:
        return None
    return game


def this_evening(results: Iterable[GameResult | None], now: datetime,
                 after: int = 0) -> list[GameResult]:
    """The results of games started within `EVENING` before ``now`` (the current game's
    start) and newer than game ``after``, oldest first. A game started "after" ``now`` is
    one the clock went back on (a Pi without a clock battery, after a power cut): the ids
    say it came earlier, so it counts."""
    kept = [r for r in results if r is not None and now - EVENING <= r.started
            and r.game_id > after]
    return sorted(kept, key=lambda r: r.game_id)


def standings(results: list[GameResult]) -> dict[str, Any] | None:
    """The state's ``evening``: how many games ended, and each player's wins and losses,
    most wins first (None before any game of the evening has ended)."""
    if not results:
        return None
    wins = Counter(r.winner for r in results if r.winner)
    losses = Counter(r.loser for r in results if r.loser)
    names = sorted(set(wins) | set(losses), key=lambda n: (-wins[n], losses[n], n))
    return {"games": len(results),
            "players": [{"name": n, "wins": wins[n], "losses": losses[n]} for n in names]}


class Evening:
    """Tonight's standings kept for one journal: when the current game began, the results
    of the evening's earlier games and the last game of an evening ended by hand. Kept out
    of the table so the table holds game play; it calls this under its own lock."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        #: when the current game began (the journal's clock); None before any game
        self.started: datetime | None = None
        self._results: list[GameResult] = []
        self._after = 0
        #: the evening's start before the last fresh start (None: nothing to bring back)
        self._before_afresh: int | None = None

    def recall(self, game_id: int | None) -> None:
        """At start: the evening's earlier results, replayed from the journal."""
        self.started = self._started(game_id)
        self._after = ended_after(self._journal)
        if game_id is not None and self.started is not None:
            self._results = replayed_results(self._journal, before=game_id,
                                             since=self.started - EVENING, after=self._after)

    def result(self, game: Game | None, game_id: int | None) -> GameResult | None:
        """The current game's result, if it is over (taken before a new game replaces it)."""
        return result_of(game, game_id, self.started)

    def game_started(self, game_id: int | None, ended: GameResult | None) -> None:
        """A new game is in the journal: the one before it (``ended``, if it was over)
        joins the evening's results, and the evening is reckoned from the new one's start."""
        self._before_afresh = None  # the new evening is under way: no undo past a game
        self.started = self._started(game_id) or datetime.now(UTC)
        self._results = this_evening([*self._results, ended], self.started, self._after)

    def start_afresh(self, game_id: int | None, game: Game | None) -> None:
        """Start the standings afresh: the games that have ended no longer count (a game
        still on does, once it ends). Kept in the journal first, so a restart keeps it and
        a refused write changes nothing."""
        ended = game is None or game.phase is Phase.OVER
        after = (game_id or 0) if ended else (game_id or 0) - 1
        self._journal.set_setting(ENDED_AFTER, str(after))
        self._before_afresh = self._after  # "New evening" tapped by mistake: undo brings it back
        self._after, self._results = after, []

    @property
    def can_bring_back(self) -> bool:
        """Whether the standings just started afresh can be brought back (`bring_back`)."""
        return self._before_afresh is not None

    def bring_back(self, game_id: int | None) -> None:
        """Undo the last `start_afresh`: the evening's earlier games count again. Kept in the
        journal first, as the fresh start was."""
        if self._before_afresh is None:
            raise ValueError("no new evening to undo")
        self._journal.set_setting(ENDED_AFTER, str(self._before_afresh))
        self._before_afresh = None
        self.recall(game_id)

    def game_ids(self, game: Game | None, game_id: int | None) -> list[int]:
        """The journal ids of tonight's ended games, oldest first (`bluffcam.standings`)."""
        return [r.game_id for r in this_evening([*self._results, self.result(game, game_id)],
                                                self.started or datetime.now(UTC), self._after)]

    def standings(self, game: Game | None, game_id: int | None) -> dict[str, Any] | None:
        """The state's ``evening``: the earlier games' results and the current game's."""
        return standings(this_evening([*self._results, self.result(game, game_id)],
                                      self.started or datetime.now(UTC), self._after))

    def _started(self, game_id: int | None) -> datetime | None:
        """When the journal says game ``game_id`` began (None: unknown or unreadable)."""
        try:
            text = self._journal.started(game_id) if game_id is not None else None
        except sqlite3.Error:
            return None
        return started_at(text) if text is not None else None
