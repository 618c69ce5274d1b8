"""Keep the reveal photos from filling the disk of a table left running for months.

Each camera reveal keeps two JPEGs (the marked photo and the unmarked frame: about 0.4 MB at
1280 x 960) and nothing else in the data folder grows as fast: the journal takes about 80
bytes an action and a reveal's record 2.5 KB. So `serve` removes the photos of the oldest
reveals, never those the dashboard can show now (`Table.reveals_in_use`), when they pass
a budget (``--keep-photos``) or when the disk's free space falls under `MIN_FREE_BYTES`.
The records stay: the game's history, the camera's record at this table and its counts
do not depend on the photos. `bluffcam export-reveals` skips a reveal whose photo is gone.
The looping `demo` keeps only the game on show's photos (a budget of nothing), and the
calibration page says what the photos take (`photo_usage`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.words import Said, said

#: the photos `serve` keeps unless told otherwise (``--keep-photos``): about 5,000 reveals
#: of 1280 x 960 frames, 800 of 12-megapixel ones
DEFAULT_KEEP_MB = 2000
MB = 1_000_000
#: free space on the data folder's disk under which old photos go whatever the budget, and
#: the board warns if that is not enough
MIN_FREE_BYTES = 500 * MB
#: how far over `MIN_FREE_BYTES` the free space must climb before the board hears of it
ROOM_AGAIN_BYTES = 100 * MB

_PHOTO = re.compile(r"^r([0-9]{1,9})(\.jpg|\.photo\.jpg)$")


@dataclass(frozen=True)
class Pruned:
    """What one pass did: photos removed (files), bytes freed, and what is left."""

    removed: int
    freed: int
    kept: int
    free: int

    @property
    def short_of_space(self) -> bool:
        """The disk is still under `MIN_FREE_BYTES` free: nothing more may be removed."""
        return self.free < MIN_FREE_BYTES

    @property
    def roomy(self) -> bool:
        """Free space well over `MIN_FREE_BYTES` (by `ROOM_AGAIN_BYTES`): the board's
        warning is taken back only then, so a disk that hovers at the line is not news
        every minute."""
        return self.free >= MIN_FREE_BYTES + ROOM_AGAIN_BYTES


def free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


def prune_photos(folder: Path, keep_bytes: int, in_use: Iterable[str], *,
                 free: Callable[[Path], int] | None = None) -> Pruned:
    """Remove the photos of the oldest reveals in ``folder`` (by their number) until those
    kept take at most ``keep_bytes`` and the disk has `MIN_FREE_BYTES` free, never those
    of the reveals ``in_use`` nor of the newest reveal (one may be in the middle of being
    saved). Files that vanish or cannot be removed are passed over. ``free`` measures the
    disk's free space (default `free_bytes`)."""
    free = free or free_bytes
    by_reveal = _photos_by_reveal(folder)
    kept = sum(size for files in by_reveal.values() for _, size in files)
    spare = free(folder)
    protected = {int(rid[1:]) for rid in in_use if rid[1:].isdigit()}
    protected.add(max(by_reveal, default=0))
    removed = freed = 0
    for number in sorted(by_reveal):
        if kept <= keep_bytes and spare >= MIN_FREE_BYTES:
            break
        if number in protected:
            continue
        for path, size in by_reveal[number]:
            try:
                path.unlink()
            except OSError:
                continue
            removed += 1
            freed += size
            kept -= size
        spare = free(folder)  # measured: a removal may free less (snapshots, hard links)
    return Pruned(removed, freed, kept, spare)


@dataclass(frozen=True)
class PhotoUsage:
    """What the reveal photos take: for the calibration page."""

    reveals: int
    bytes: int
    free: int

    def to_json(self, budget_bytes: int | None) -> dict[str, int | None]:
        return {"reveals": self.reveals, "bytes": self.bytes, "budget_bytes": budget_bytes,
                "free_bytes": self.free, "min_free_bytes": MIN_FREE_BYTES}


def photo_usage(folder: Path) -> PhotoUsage:
    """How many reveals keep photos in ``folder``, their bytes, and the free space of its
    disk (no photos where the folder is gone: the free space is then its parent's)."""
    try:
        by_reveal = _photos_by_reveal(folder)
    except OSError:
        by_reveal = {}
    spare = 0
    for place in (folder, folder.parent):
        try:
            spare = free_bytes(place)
            break
        except OSError:
            continue
    return PhotoUsage(len(by_reveal),
                      sum(size for files in by_reveal.values() for _, size in files), spare)


def _photos_by_reveal(folder: Path) -> dict[int, list[tuple[Path, int]]]:
    """Each reveal's number and its photo files with their sizes (links and folders passed
    over)."""
    by_reveal: dict[int, list[tuple[Path, int]]] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            match = _PHOTO.match(entry.name)
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            try:
                size = entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            by_reveal.setdefault(int(match.group(1)), []).append((Path(entry.path), size))
    return by_reveal


def low_space_text(pruned: Pruned) -> str:
    """The board's warning when even the old photos' removal leaves the disk nearly full."""
    return str(low_space_said(pruned))


def low_space_said(pruned: Pruned) -> Said:
    """`low_space_text` as words for a board in another language."""
    return said("the data folder's disk has only {mb} MB free and no older reveal photo is "
                "left to remove: free some space, or a capture or an action may soon be "
                "refused", mb=pruned.free // MB)
