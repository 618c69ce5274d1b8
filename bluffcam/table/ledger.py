"""The game as the journal has it: journal first, then memory, and undo.

Every change is validated by the engine, appended to the SQLite journal (committed), then
applied in memory. A crash after the journal write replays the action on restart; a crash
before it loses an action that was never acknowledged. Undo rebuilds the game from its
setup and every action but the last (`Game.without_last`), and the journal drops that last
row in one committed transaction (`Journal.drop_last`), so a restart resumes the undone
state. The caller holds the table's lock.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Any

from bluffcam.table.errors import TableError
from bluffcam.table.news import News
from engine import Action, Game, Journal, JournalError
from engine.words import N_, Said, said


class Ledger:
    """The current game, its setup and its accepted actions, kept in step with the journal."""

    def __init__(self, journal: Journal, news: News) -> None:
        self.journal = journal
        self._news = news
        self.setup: dict[str, Any] | None = None
        self.game: Game | None = None
        self.actions: list[dict[str, Any]] = []

    @property
    def game_id(self) -> int | None:
        """The journal's id of the current game: tells apart games with the same setup."""
        return self.journal.game_id

    def require_game(self) -> Game:
        if self.game is None:
            raise TableError("no game yet: start one first (POST /api/game)")
        return self.game

    def in_reveal(self) -> bool:
        return self.game is not None and str(self.game.phase) in ("reveal", "Phase.REVEAL")

    @contextlib.contextmanager
    def storing(self, what: str | Said) -> Iterator[None]:
        """A write the disk refuses (full, read-only, gone), or the journal (another program
        moved the game on), is a refusal on the board, not a 500.

        Callers write before they change anything in memory, so nothing has changed.
        """
        try:
            yield
        except (sqlite3.Error, OSError, JournalError) as exc:
            refused = (
                N_("not saved, nothing changed: {what} — the journal refused it ({error})")
                if isinstance(exc, JournalError)
                else N_("not saved, nothing changed: {what} — the disk refused it ({error})"))
            words = said(refused, what=what, error=str(exc))
            self._news.post(words, "error")
            self._news.changed()
            raise TableError(str(words), rule="storage", status=503, said=words) from exc

    def start(self, setup: dict[str, Any], game: Game, actions: list[dict[str, Any]]) -> int:
        """Journal a new game (all or nothing), then make it the current one; its id."""
        with self.storing(said("the new game")):
            game_id = self.journal.start(setup, actions)
        self.setup, self.game, self.actions = setup, game, actions
        return game_id

    def record(self, parsed: Action, canonical: dict[str, Any]) -> int:
        """Journal an action the engine has checked, then apply it; its index."""
        with self.storing(parsed.describe_said()):
            self.journal.append(canonical)
        return self.applied(parsed, canonical)

    def applied(self, parsed: Action, canonical: dict[str, Any]) -> int:
        """Apply an action already in the journal; its index."""
        self.require_game().apply(parsed)
        self.actions.append(canonical)
        return len(self.actions) - 1

    def check_seen(self, seen: int | None) -> None:
        """Refuse an action chosen on a screen older than the game."""
        if seen is None or seen == len(self.actions):
            return
        game = self.require_game()
        phase = str(game.phase)
        now = {"reveal": "the cups are to be lifted", "over": "the game is over"}.get(
            phase, f"it is {game.turn}'s turn")
        raise TableError(
            f"the table moved on while you chose ({now} now): nothing was done; "
            "look again and choose again", rule="stale")

    def drop_last(self, what: str | Said) -> None:
        """Take the game's last action out of the journal, then out of the game (undo, a
        reveal reopened); the caller has checked it may."""
        last = self.actions[-1]
        game = self.require_game().without_last()
        with self.storing(what):
            dropped = self.journal.drop_last()
        if dropped != last:
            raise TableError(f"the journal's last action {dropped} is not {last}; "
                             "restart the server to resume from the journal", status=500)
        self.game, self.actions = game, self.actions[:-1]
