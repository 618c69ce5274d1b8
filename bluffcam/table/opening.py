"""Opening the table's journal at start: a damaged file is set aside, a healthy one never.

`bluffcam serve` starts at boot with no one watching. A file that is not a journal at all
must not stop the table: it is kept aside for a look and a new journal started, and the
board says so until the next game starts. A journal that cannot be reached now (a full disk,
a file left by ``sudo`` that this user may not open, a folder made read-only, another
program holding it locked) holds the games: it is left where it is, and the start is
refused with what to do.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from engine import JournalDamaged, JournalError
from engine.words import said

JOURNAL_NAME = "journal.sqlite"
#: the journal's file and SQLite's write-ahead log and index beside it
_PARTS = ("", "-wal", "-shm")

#: what to do about a journal that cannot be reached, by SQLite's primary result code
_ADVICE = {
    sqlite3.SQLITE_FULL: "the disk is full: free some space (old reveal photos can go: "
                         "bluffcam serve --keep-photos)",
    sqlite3.SQLITE_BUSY: "another program holds it locked (an sqlite3 shell, a backup): "
                         "close that program",
    sqlite3.SQLITE_LOCKED: "another program holds it locked (an sqlite3 shell, a backup): "
                           "close that program",
    sqlite3.SQLITE_IOERR: "the disk failed to read or write it: check the SD card or disk",
}
_ACCESS = ("this user cannot open or write it: the file and its folder must belong to the "
           "user running bluffcam (one started once with sudo leaves them to root)")


class JournalUnavailable(Exception):
    """The journal holds the games but cannot be used now; the message says what to do."""


def open_table(data_dir: Path, camera: Any, profile: Any) -> Any:
    """The Table on ``<data>/journal.sqlite``. A file that is not a journal, or is damaged,
    is moved aside and a new one started; one that cannot be reached now raises
    `JournalUnavailable` and is left untouched."""
    from bluffcam.table import Table

    path = data_dir / JOURNAL_NAME
    was_emptied = _emptied(path)
    try:
        table = Table(path, camera, profile, data_dir=data_dir)
    except JournalDamaged as exc:
        return _fresh_table(path, exc, lambda: Table(path, camera, profile, data_dir=data_dir))
    except (JournalError, sqlite3.Error, OSError) as exc:
        raise JournalUnavailable(unavailable_text(path, exc)) from exc
    if was_emptied:
        table.note(said("{name} was empty (0 bytes) at start: the games it held, if any, are "
                        "lost; a new journal was begun", name=path.name), "error", lasting=True)
    return table


def unavailable_text(path: Path, exc: BaseException) -> str:
    """Why the journal at ``path`` cannot be opened, and what to do."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None and isinstance(exc.__cause__, sqlite3.Error):
        code = getattr(exc.__cause__, "sqlite_errorcode", None)
    primary = None if code is None else int(code) & 0xFF
    advice = _ADVICE.get(primary, _ACCESS) if primary is not None else (
        _ACCESS if isinstance(exc, PermissionError) else "see the error")
    return f"cannot open the journal {path} ({exc}): {advice}; nothing was changed"


def _emptied(path: Path) -> bool:
    """Whether the journal file is there but empty, with no write-ahead log beside it: a
    journal SQLite made is never 0 bytes, so it was cut short (a full disk, a bad copy)."""
    try:
        if path.stat().st_size != 0:
            return False
    except OSError:
        return False
    wal = path.with_name(path.name + "-wal")
    return not (wal.exists() and wal.stat().st_size > 0)


def _fresh_table(path: Path, damage: JournalDamaged, open_new: Any) -> Any:
    """Set the damaged journal (and its -wal, -shm) aside and open a new one; if either
    fails, put the files back as they were and raise `JournalUnavailable`."""
    kept = path.with_name(f"{path.name}.unusable-{time.strftime('%Y%m%dT%H%M%S')}")
    parts = {suffix: path.with_name(path.name + suffix) for suffix in _PARTS}
    found = [suffix for suffix, part in parts.items() if part.exists()]
    moved: list[str] = []
    try:
        for suffix in found:
            parts[suffix].rename(kept.with_name(kept.name + suffix))
            moved.append(suffix)
        table = open_new()
    except (JournalError, sqlite3.Error, OSError) as exc:
        for suffix, part in parts.items():
            if suffix in moved or suffix not in found:  # begun by the new journal: empty
                part.unlink(missing_ok=True)
        for suffix in reversed(moved):
            kept.with_name(kept.name + suffix).rename(parts[suffix])
        raise JournalUnavailable(
            f"{damage}; it could not be set aside for a new journal ({exc}): move it away "
            "by hand, or free the disk, and start again") from exc
    table.note(said("{damage}; it was moved to {name} and a new journal started",
                    damage=str(damage), name=kept.name), "error", lasting=True)
    return table
