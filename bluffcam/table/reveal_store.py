"""Reveal records on disk: the annotated photo and what was read, corrected and applied.

The SQLite journal holds the game's actions; this store holds the evidence behind each
reveal action: the camera's reading, the problems that sent it to review, the seats a
person confirmed and the corrections between the two. A record is written (and fsynced)
before its reveal action is appended to the journal, so a journalled reveal always has
its record. Ids are ``r<N>``; nothing outside ``<data>/reveals`` is ever opened.

Each record names the journal it belongs to (``journal``, the journal's identity): games are
numbered from 1 again in a new journal, so setup and game number alone would let a journal
started after a damaged one was moved aside adopt the old one's reviews.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from calibration.files import replace_whole, sweep_leftovers

REVEAL_ID = re.compile(r"^r[0-9]{1,9}$")
#: the unmarked frame beside a reveal's marked photo
PHOTO_SUFFIX = ".photo.jpg"


class UnknownRevealError(LookupError):
    """A reveal id that is malformed or has no record."""


class UnreadableRevealError(UnknownRevealError):
    """A reveal whose record cannot be read (a torn or scribbled file): for the game it is as
    good as missing, but a person is told which one, and its photos are kept."""

    def __init__(self, reveal_id: str, why: object) -> None:
        super().__init__(f"reveal {reveal_id}: its record cannot be read ({why}); its photo "
                         "is kept — re-capture or enter the reveal by hand")
        self.reveal_id = reveal_id


def corrections(read: dict[str, list[int]], confirmed: dict[str, list[int]]) -> dict[str, Any]:
    """Per seat: the values a person removed from and added to the camera's reading."""
    changes: dict[str, Any] = {}
    for seat in sorted(set(read) | set(confirmed)):
        before = Counter(read.get(seat, []))
        after = Counter(confirmed.get(seat, []))
        removed = sorted((before - after).elements())
        added = sorted((after - before).elements())
        if removed or added:
            changes[seat] = {"removed": removed, "added": added}
    return changes


def confirmed_positions(seats: Any) -> dict[str, list[dict[str, Any]]] | None:
    """Where a confirmation names every die's place (``{"Ann": [{"value": 4, "x": 312.5,
    "y": 208.0}, ...]}``, as the review page sends it), the dice with their places in the
    photo's pixels; ``None`` where any die comes as a bare value or without both ``x`` and
    ``y`` (a button press, an API client): a record then keeps the values alone.

    Call after the values are checked. A place that is not a number of pixels is a
    ``ValueError`` naming the seat and the die: a broken request changes nothing."""
    placed: dict[str, list[dict[str, Any]]] = {}
    complete = True
    for seat, dice in seats.items():
        placed[seat] = []
        for k, die in enumerate(dice):
            if not isinstance(die, dict) or not ({"x", "y"} & set(die)):
                complete = False
                continue
            where = []
            for axis in ("x", "y"):
                v = die.get(axis)
                where_px = pixels(v)
                if where_px is None:
                    raise ValueError(f"seat {seat}: die {k + 1}'s {axis} must be a number of "
                                     f"pixels in the photo, got {json.dumps(v)[:40]}")
                where.append(round(where_px, 1))
            placed[seat].append({"value": int(die["value"]), "x": where[0], "y": where[1]})
    return placed if complete else None


def pixels(v: Any) -> float | None:
    """``v`` as a finite, non-negative number of pixels, else None (an integer of 400 digits
    has no float)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) and f >= 0 else None


#: the start of a file being written (renamed to its name once whole)
_WRITING = ".tmp-"


class RevealStore:
    """``<data>/reveals/<id>.json``, ``<id>.jpg`` (the photo marked with the reading) and
    ``<id>.photo.jpg`` (the same frame unmarked, for close-ups), written atomically."""

    def __init__(self, folder: Path, *, journal: str | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        #: the identity of the journal the records saved here belong to (None: not known)
        self.journal = journal
        sweep_leftovers(self.folder, _WRITING)  # a killed writer's half files

    def _path(self, reveal_id: str, suffix: str) -> Path:
        if not REVEAL_ID.match(reveal_id):
            raise UnknownRevealError(f"not a reveal id: {reveal_id!r} (expected r<number>)")
        return self.folder / f"{reveal_id}{suffix}"

    def next_id(self) -> str:
        numbers = [int(p.stem[1:]) for p in self.folder.glob("r*.json") if REVEAL_ID.match(p.stem)]
        return f"r{max(numbers, default=0) + 1}"

    def image_path(self, reveal_id: str) -> Path:
        path = self._path(reveal_id, ".jpg")
        if not path.is_file():
            raise UnknownRevealError(f"no image for reveal {reveal_id}")
        return path

    def has_image(self, reveal_id: str) -> bool:
        """Whether the reveal's photo was kept (a capture can fail to encode one)."""
        return self._path(reveal_id, ".jpg").is_file()

    def save_image(self, reveal_id: str, jpeg: bytes) -> None:
        self._write(self._path(reveal_id, ".jpg"), jpeg)

    def photo_path(self, reveal_id: str) -> Path:
        """The frame the reveal was read from, without the reading's marks."""
        path = self._path(reveal_id, PHOTO_SUFFIX)
        if not path.is_file():
            raise UnknownRevealError(f"no unmarked photo for reveal {reveal_id}")
        return path

    def save_photo(self, reveal_id: str, jpeg: bytes) -> None:
        self._write(self._path(reveal_id, PHOTO_SUFFIX), jpeg)

    def save(self, reveal_id: str, record: dict[str, Any]) -> None:
        """Write a record, naming this store's journal unless the record already names one."""
        stamped = record if self.journal is None else {"journal": self.journal, **record}
        data = json.dumps(stamped, indent=1, sort_keys=True).encode()
        self._write(self._path(reveal_id, ".json"), data)

    def load(self, reveal_id: str) -> dict[str, Any]:
        """The record (raises `UnknownRevealError`, or `UnreadableRevealError` for a torn one)."""
        path = self._path(reveal_id, ".json")
        try:
            return _read_record(path)
        except FileNotFoundError:
            raise UnknownRevealError(f"no reveal {reveal_id}") from None
        except (OSError, ValueError, RecursionError) as exc:
            raise UnreadableRevealError(reveal_id, exc) from None

    def scan(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every readable record, oldest first, and the ids of those that cannot be read (torn
        writes, scribbled files): skipped, but named, so that their loss is never silent."""
        numbered, unreadable = [], []
        for path in self.folder.glob("r*.json"):
            if not REVEAL_ID.match(path.stem):
                continue
            try:
                numbered.append((int(path.stem[1:]), _read_record(path)))
            except (OSError, ValueError, RecursionError):  # nested past Python's limit, too
                unreadable.append(path.stem)
        return ([record for _, record in sorted(numbered, key=lambda pair: pair[0])],
                sorted(unreadable, key=lambda i: int(i[1:])))

    def newest_first(self) -> Iterator[tuple[str, dict[str, Any] | None]]:
        """Each record's id and contents (None: it cannot be read), newest first, read only
        as they are asked for: a resumed table stops at its game's first reveal rather than
        read months of records (`scan` reads them all)."""
        paths = [p for p in self.folder.glob("r*.json") if REVEAL_ID.match(p.stem)]
        for path in sorted(paths, key=lambda p: int(p.stem[1:]), reverse=True):
            try:
                yield path.stem, _read_record(path)
            except FileNotFoundError:  # removed since the listing: as if never there
                continue
            except (OSError, ValueError, RecursionError):
                yield path.stem, None

    def stamp(self) -> int:
        """A number that changes whenever a record is written, replaced or removed (names,
        sizes and modification times of the record files): what a summary of `scan` can be
        kept by, since reading thousands of records takes seconds on a Pi."""
        seen = []
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".json"):
                        try:
                            info = entry.stat()  # a linked record: its target's
                        except OSError:
                            continue
                        seen.append((entry.name, info.st_mtime_ns, info.st_size))
        except OSError:  # the folder gone or unreadable: as `scan` has it, no records
            pass
        return hash(tuple(sorted(seen)))

    def _write(self, path: Path, data: bytes) -> None:
        """Write whole or not at all, the rename synced too: the record must be on disk
        before the journal entry that follows it."""
        replace_whole(path, data, prefix=_WRITING)


def _read_record(path: Path) -> dict[str, Any]:
    """One record file's object; ValueError where it is not one (torn, scribbled, not JSON,
    or an object that lacks what the table reads from it: a record edited by hand must be
    named as unreadable, not fail the request, or the start, that meets it)."""
    record = json.loads(path.read_bytes())
    if not isinstance(record, dict):
        raise ValueError("not a reveal record")
    why = _malformed(record, path.stem)
    if why:
        raise ValueError(why)
    return record


#: the record's keys the table reads, and the JSON type each must have where present
_KEY_TYPES: dict[str, type] = {
    "problems": list, "expected": dict, "set_aside": dict, "confirmed": dict,
    "corrections": dict, "reopened": list, "advice": list, "timing": dict,
}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _die_read(die: dict[str, Any]) -> bool:
    """A die as the camera read it: a value 1–6, and its place (a number, or none)."""
    value = die["value"]
    return (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6
            and all(die.get(axis) is None or _number(die[axis]) for axis in ("x", "y")))


def _card_named(card: dict[str, Any]) -> bool:
    """A card as the camera read it: its kind, or none where it could not tell."""
    return card["value"] is None or isinstance(card["value"], str)


def _malformed(record: dict[str, Any], reveal_id: str) -> str | None:
    """What is wrong with a record's shape (None: nothing)."""
    if record.get("id") != reveal_id:
        return f"its id is {json.dumps(record.get('id'))[:40]}, not {reveal_id}"
    read = record.get("read")
    if not isinstance(read, dict) or not all(
        isinstance(dice, list) and all(isinstance(d, dict) and "value" in d for d in dice)
        for dice in read.values()
    ):
        return "its reading is not a list of dice for each seat"
    named = _card_named if record.get("kind") == "cards" else _die_read
    if not all(named(d) for dice in read.values() for d in dice):
        return "its reading holds a die that is not a value 1–6 at a place in pixels" \
            if named is _die_read else "its reading holds a card not named by a word"
    for key, kind in _KEY_TYPES.items():
        if key in record and not isinstance(record[key], kind):
            return f'its "{key}" is not a JSON {"list" if kind is list else "object"}'
    if not all(isinstance(p, dict) for p in record.get("problems", [])):
        return 'its "problems" are not objects'
    index = record.get("action_index", 0)
    if isinstance(index, bool) or not isinstance(index, int):
        return 'its "action_index" is not a whole number'
    return None
