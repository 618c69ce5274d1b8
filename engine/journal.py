"""The SQLite journal: a game survives a crash or a power cut and resumes exactly.

One row per accepted action, committed (WAL, ``synchronous=FULL``: fsynced) before the caller
acknowledges the action. Each row carries a CRC-32 of its JSON; on load a garbled or torn
record — and anything after it — is skipped and reported in :attr:`Journal.warnings`, so the
game resumes at the last complete action instead of failing or guessing. A file damaged
beyond that (a scribbled page, a truncated file) raises :class:`JournalError` wherever it is
found, so the table can set it aside and start a new one rather than crash at every start.

One writer at a time: a journal refuses to append to (or undo in) a game that another
writer has moved on from — a game started, an action added or taken back behind its back —
instead of acknowledging an action that the next resume would not replay.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import uuid
import zlib
from collections.abc import Iterable, Iterator, Mapping
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


#: this journal's identity, made once at its first open (see :attr:`Journal.identity`)
META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"

#: SQLite result codes that say the file's surroundings failed, not the file: busy (another
#: program holds it), a full disk, a file or folder this user may not open or write, a disk
#: that failed to read. Such a journal is healthy and is never set aside.
_NOT_THE_FILES_FAULT = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL,
                        sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM,
                        sqlite3.SQLITE_AUTH, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_NOMEM)


class JournalError(Exception):
    """The journal file cannot be used (not a database, damaged, no game started), or another
    writer changed the game this journal was writing to."""


class JournalDamaged(JournalError):
    """The file is not a journal, or is damaged: safe to set aside for a new one (unlike a
    journal this user cannot open now, or on a full disk, which holds the games)."""


def _damaged(error: sqlite3.DatabaseError) -> bool:
    """Whether an error says the file itself is unusable (not a database, damaged, another
    program's tables), not that it cannot be reached now: locked by another program, on a
    full disk, or not this user's to open."""
    return _code(error) not in _NOT_THE_FILES_FAULT


def _code(error: sqlite3.Error) -> int | None:
    """The primary SQLite result code of an error (None where SQLite gave none)."""
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


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
        with self._unusable_as_error():
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=10
            )
        try:
            with self._unusable_as_error():
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(SCHEMA)
                #: a random id made at the journal's first open: what it writes elsewhere (the
                #: reveal records) names it, so a new journal never adopts an old one's records
                #: (None where a read-only file cannot be given one: then it matches any)
                self.identity: str | None = self._identity()
                self._game_id: int | None = self._latest_game_id()
                #: the last action of the current game as this journal last saw or wrote it
                self._last_seq = self._max_seq(self._game_id)
        except BaseException:
            self._db.close()  # a file set aside must not keep a connection that writes to it
            raise

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
            self._game_id, self._last_seq = game_id, len(records)
        return game_id

    def append(self, action: Mapping[str, Any]) -> int:
        """Record one accepted action; returns once it is committed to disk (the row id)."""
        body, crc = _encode(action)
        with self._lock:
            game_id = self._require_game()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._check_still_current(game_id)
                cursor = self._db.execute(
                    "INSERT INTO actions (game_id, seq, body, crc) VALUES (?, ?, ?, ?)",
                    (game_id, self._last_seq + 1, body, crc),
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # a failed COMMIT (disk full) already rolled back
                    self._db.execute("ROLLBACK")
                raise
            self._last_seq += 1
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def drop_last(self) -> JsonObject | None:
        """Remove the current game's last action (undo); returns it, or None if there was none."""
        with self._lock:
            game_id = self._require_game()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._check_still_current(game_id)
                row = self._db.execute(
                    "SELECT id, body, crc FROM actions WHERE game_id = ? "
                    "ORDER BY seq DESC LIMIT 1", (game_id,),
                ).fetchone()
                if row is not None:
                    self._db.execute("DELETE FROM actions WHERE id = ?", (row[0],))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            if row is None:
                return None
            self._last_seq -= 1
            return _decode(row[1], row[2])

    # ------------------------------------------------------------- reading
    def load(self) -> tuple[JsonObject, list[JsonObject]] | None:
        """The current game: (setup, actions up to the last complete one), or None if none.

        A garbled record ends the list; what was skipped is described in ``self.warnings``
        and moved to the ``torn`` table, so the next action appended follows the last complete
        one (left in place, it would hide every later action at the next load).
        """
        self.warnings = []
        with self._lock, self._unusable_as_error():
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
            self._last_seq = len(rows)
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
            with contextlib.suppress(sqlite3.Error):
                self._last_seq = self._max_seq(game_id)

    def games(self) -> list[tuple[int, str]]:
        """(id, start time) of every game in the file, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT id, started FROM games ORDER BY id").fetchall()
        return [(int(i), str(t)) for i, t in rows]

    def started(self, game_id: int) -> str | None:
        """When game ``game_id`` began (ISO 8601, UTC), or None for no such game."""
        with self._lock:
            row = self._db.execute("SELECT started FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def script(self, game_id: int) -> tuple[JsonObject, list[JsonObject]] | None:
        """An earlier game's (setup, actions up to the first garbled one), or None where its
        setup is garbled or there is no such game: read only, for the evening's results
        (nothing is set aside, unlike :meth:`load`)."""
        with self._lock, self._unusable_as_error():
            row = self._db.execute(
                "SELECT setup, crc FROM games WHERE id = ?", (game_id,)).fetchone()
            rows = self._db.execute(
                "SELECT seq, body, crc FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        setup = None if row is None else _decode(row[0], row[1])
        if setup is None:
            return None
        actions: list[JsonObject] = []
        for position, (seq, body, crc) in enumerate(rows, start=1):
            action = _decode(body, crc) if seq == position else None
            if action is None:
                break
            actions.append(action)
        return setup, actions

    def setting(self, key: str) -> str | None:
        """A value the table keeps beside its games (``meta``), or None where there is none."""
        with self._lock, contextlib.suppress(sqlite3.OperationalError):  # no meta table yet
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])
        return None

    def set_setting(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` (committed before this returns)."""
        with self._lock:
            self._db.execute(META)
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             (key, value))

    @property
    def game_id(self) -> int | None:
        """The id of the game this journal writes to (tells apart games with one setup)."""
        return self._game_id

    # ------------------------------------------------------------ plumbing
    @contextlib.contextmanager
    def _unusable_as_error(self) -> Iterator[None]:
        """A damaged file found while opening or reading becomes :class:`JournalDamaged`."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            if not _damaged(error):
                raise
            raise JournalDamaged(f"{self.path} is not a usable journal: {error}") from error

    def _identity(self) -> str | None:
        """This journal's random id: read, else made (once; a racing opener's wins)."""
        with contextlib.suppress(sqlite3.OperationalError):  # no meta table yet
            row = self._db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
            if row is not None:
                return str(row[0])
        try:
            self._db.execute(META)
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('identity', ?)",
                             (uuid.uuid4().hex,))
        except sqlite3.OperationalError as error:
            if not _damaged(error):
                return None  # it cannot be written now; its records then match as before
            raise
        (value,) = self._db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        return str(value)

    def _latest_game_id(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def _max_seq(self, game_id: int | None) -> int:
        (last,) = self._db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM actions WHERE game_id = ?", (game_id,)
        ).fetchone()
        return int(last)

    def _check_still_current(self, game_id: int) -> None:
        """Refuse to write when another writer moved the game on (inside the write
        transaction, so nothing can slip in between): its actions and ours would interleave,
        and a resume would replay neither history as either writer acknowledged it."""
        latest = self._latest_game_id()
        if latest != game_id:
            raise JournalError(f"another program started game {latest} in {self.path.name}; "
                               f"this table's game {game_id} is no longer the current one: "
                               "restart the server to resume from the journal")
        last = self._max_seq(game_id)
        if last != self._last_seq:
            raise JournalError(f"another program changed game {game_id} in {self.path.name} "
                               f"(its last action is {last}, this table's {self._last_seq}): "
                               "restart the server to resume from the journal")

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
