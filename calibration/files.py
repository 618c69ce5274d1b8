"""Files written whole or not at all, for a table that may lose power at any moment.

A profile half written stops the table from starting; a reveal record half written loses a
round's evidence. Each is written beside its place, synced, renamed over it, and the rename
synced too. The calibration profiles use this, and so does the table's reveal store
(`bluffcam.table.reveal_store`), which stands on this layer.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
import time
from pathlib import Path

#: how old a half-written file must be to be taken for one a killed writer left
LEFTOVER_AGE_S = 600


def replace_whole(target: Path, data: bytes, *, prefix: str | None = None,
                  mode_of: Path | None = None) -> None:
    """Write ``data`` to ``target`` whole or not at all (through ``<prefix>XXXX`` beside it,
    by default ``.<name>.XXXX``), as readable as ``mode_of`` where that exists. Half files a
    killed writer left with that prefix are swept first, once surely no one's."""
    prefix = prefix if prefix is not None else f".{target.name}."
    sweep_leftovers(target.parent, prefix)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=prefix)
    try:
        if mode_of is not None and mode_of.is_file():
            shutil.copymode(mode_of, temporary)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_folder(target.parent)


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` survive a power cut (the folder's entry is data too); a
    file system that cannot sync a folder leaves the rename as it stands."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sweep_leftovers(folder: Path, prefix: str, older_than_s: float = LEFTOVER_AGE_S) -> None:
    """Remove the half-written ``<prefix>*`` files in ``folder`` older than ``older_than_s``
    (younger ones may be another writer's, under way): a table left on for months must not
    gather one for every kill."""
    now = time.time()
    for leftover in folder.glob(f"{glob.escape(prefix)}*"):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > older_than_s:
                leftover.unlink()
