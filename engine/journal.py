"""The SQLite journal: a game survives a crash or a power cut and resumes exactly.

One row per accepted action, committed (WAL, ``synchronous=FULL``: fsynced) before the caller
acknowledges the action. Each row carries a CRC-32 of its JSON; on load a garbled or torn
record — and anything after it — is skipped and reported in :attr:`Journal.warnings`, so the
game resumes at the last complete action instead of failing or guessing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from engine.actions import JsonObject

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    setup TEXT NOT NULL,
    crc INTEGER NOT NULL,
    started TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    crc INTEGER NOT NULL,
    UNIQUE (game_id, seq)
);
CREATE TABLE IF NOT EXISTS torn (
    id INTEGER PRIMARY KEY,
    game_id INTEGER,
    seq INTEGER,
    body,
    crc,
    found TEXT NOT NULL
);
"""


class JournalError(Exception):
    """The journal file cannot be used at all (not a database, or no game started)."""


def _encode(obj: Mapping[str, Any]) -> tuple[str, int]:
    body = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return body, zlib.crc32(body.encode("utf-8"))


def _decode(body: object, crc: object) -> JsonObject | None:
    """The stored object, or None when the record is garbled."""
    if not isinstance(body, str) or not isinstance(crc, int):
        return None
    if zlib.crc32(body.encode("utf-8")) != crc:
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class Journal:
    """Append-only record of games; thread-safe (the web server and the panel share one)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        #: what load() had to skip, in words, for the dashboard and the log
        self.warnings: list[str] = []
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=10
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"{self.path} is not a usable journal: {error}") from error
        self._game_id: int | None = self._latest_game_id()

    # ------------------------------------------------------------- writing
    def start(self, setup: Mapping[str, Any], actions: Iterable[Mapping[str, Any]] = ()) -> int:
        """Begin a new game (earlier games stay in the file); returns its id.

        ``actions`` (an imported game's) are committed with the setup in one transaction: a
        crash or a full disk leaves the whole game or none of it, and the current game as it was.
        """
        body, crc = _encode(setup)
        records = [_encode(action) for action in actions]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT INTO games (setup, crc, started) VALUES (?, ?, ?)",
                    (body, crc, datetime.now(UTC).isoformat(timespec="seconds")),
                )
                game_id = cursor.lastrowid
                assert game_id is not None
                for seq, (action_body, action_crc) in enumerate(records, start=1):
                    self._db.execute(
                        "INSERT INTO actions (game_id, seq, body, crc) VALUES (?, ?, ?, ?)",
                        (game_id, seq, action_body, action_crc),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._game_id = game_id
        return game_id

    def append(self, action: Mapping[str, Any]) -> int:
        """Record one accepted action; returns once it is committed to disk (the row id)."""
        body, crc = _encode(action)
        with self._lock:
            game_id = self._require_game()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM actions WHERE game_id = ?", (game_id,)
                ).fetchone()
                cursor = self._db.execute(
                    "INSERT INTO actions (game_id, seq, body, crc) VALUES (?, ?, ?, ?)",
                    (game_id, int(last) + 1, body, crc),
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # a failed COMMIT (disk full) already rolled back
                    self._db.execute("ROLLBACK")
                raise
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def drop_last(self) -> JsonObject | None:
        """Remove the current game's last action (undo); returns it, or None if there was none."""
        with self._lock:
            game_id = self._require_game()
            row = self._db.execute(
                "SELECT id, body, crc FROM actions WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            self._db.execute("DELETE FROM actions WHERE id = ?", (row[0],))
            return _decode(row[1], row[2])

    # ------------------------------------------------------------- reading
    def load(self) -> tuple[JsonObject, list[JsonObject]] | None:
        """The current game: (setup, actions up to the last complete one), or None if none.

        A garbled record ends the list; what was skipped is described in ``self.warnings``
        and moved to the ``torn`` table, so the next action appended follows the last complete
        one (left in place, it would hide every later action at the next load).
        """
        self.warnings = []
        with self._lock:
            if self._game_id is None:
                return None
            row = self._db.execute(
                "SELECT setup, crc FROM games WHERE id = ?", (self._game_id,)
            ).fetchone()
            setup = None if row is None else _decode(row[0], row[1])
            if setup is None:
                self.warnings.append(f"game {self._game_id}: the setup record is garbled")
                return None
            rows = self._db.execute(
                "SELECT seq, body, crc FROM actions WHERE game_id = ? ORDER BY seq",
                (self._game_id,),
            ).fetchall()
        actions: list[JsonObject] = []
        for position, (seq, body, crc) in enumerate(rows, start=1):
            action = _decode(body, crc) if seq == position else None
            if action is None:
                skipped = len(rows) - position + 1
                self.warnings.append(
                    f"game {self._game_id}: action {position} is garbled or missing; "
                    f"resuming after action {position - 1} "
                    f"({'1 record' if skipped == 1 else f'{skipped} records'} skipped)"
                )
                self._move_aside(self._game_id, int(seq))
                break
            actions.append(action)
        return setup, actions

    def set_aside(self, kept: int) -> None:
        """Keep the current game's first ``kept`` actions; move the rest into ``torn``.

        For an action that reads fine but no longer applies (say, after a rules update): the
        game resumes before it, and new actions follow action ``kept``.
        """
        game_id = self._require_game()
        self._move_aside(game_id, kept + 1)

    def _move_aside(self, game_id: int, from_seq: int) -> None:
        """Move a game's records from ``from_seq`` on into ``torn`` (kept for a post-mortem)."""
        found = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "INSERT INTO torn (game_id, seq, body, crc, found) SELECT game_id, seq, "
                    "body, crc, ? FROM actions WHERE game_id = ? AND seq >= ?",
                    (found, game_id, from_seq),
                )
                self._db.execute(
                    "DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game_id, from_seq)
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as error:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                self.warnings.append(f"game {game_id}: could not set the torn records aside "
                                     f"({error}); actions added now may be hidden on resume")

    def games(self) -> list[tuple[int, str]]:
        """(id, start time) of every game in the file, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT id, started FROM games ORDER BY id").fetchall()
        return [(int(i), str(t)) for i, t in rows]

    # ------------------------------------------------------------ plumbing
    def _latest_game_id(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def _require_game(self) -> int:
        if self._game_id is None:
            raise JournalError("no game started in this journal: call start(setup) first")
        return self._game_id

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
