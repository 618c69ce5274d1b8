"""Impus Bluff at the table: the registered card art, and camera reveals of a doubted batch.

The table's card art lives in ``<data>/cards/<kind>.png`` (upright faces, registered from
one photo per kind on the calibration page). A reveal reads a few still frames with
`vision.cards.read_cards` and judges them with `vision.card_reveal.check_card_reveal`: a
sure reading is applied, anything else waits as the table's pending review — the same
record, image and confirm flow as dice, with the one "seat" ``cards``:
``POST /api/reveals/<id>/confirm {"seats": {"cards": ["orc", "imp"]}}``.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bluffcam.reviews import PendingReview
from bluffcam.table_error import TableError
from engine import action_to_json, parse_action
from engine.words import said
from vision.card_library import CardLibrary, CardRegistrationError
from vision.card_reveal import CardRevealCheck, check_card_reveal
from vision.cards import draw_card_reading, read_cards

if TYPE_CHECKING:
    from bluffcam.table import Table

#: still frames read per card reveal (they must agree)
CARD_REVEAL_FRAMES = 3
#: the review "seat" a card reveal uses
CARDS_SEAT = "cards"
_KIND = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class CardArtStore:
    """``<data>/cards``: one upright face per registered kind; the library is cached."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._cached: tuple[tuple[str, ...], CardLibrary] | None = None

    @staticmethod
    def check_kind(kind: str) -> str:
        name = kind.strip().lower()
        if not _KIND.match(name):
            raise CardRegistrationError(
                f"{kind!r} is not a card kind name (lowercase letters, digits, - or _)"
            )
        return name

    def kinds(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.png") if _KIND.match(p.stem))

    def register(self, kind: str, photo: Any) -> str:
        """Find the card in ``photo``, keep its upright face; raises CardRegistrationError."""
        name = self.check_kind(kind)
        library = CardLibrary.register({name: photo})
        with self._lock:
            library.save_faces(self.folder)
            self._cached = None
        return name

    def delete(self, kind: str) -> bool:
        path = self.folder / f"{self.check_kind(kind)}.png"
        with self._lock:
            self._cached = None
            if not path.is_file():
                return False
            path.unlink()
            return True

    def library(self, kinds: list[str]) -> CardLibrary:
        """The library for ``kinds``; raises CardRegistrationError naming the missing ones."""
        missing = [k for k in kinds if k not in self.kinds()]
        if missing:
            raise CardRegistrationError(
                f"no card art for {', '.join(missing)}: register one photo per kind on the "
                "calibration page"
            )
        key = tuple(kinds)
        with self._lock:
            if self._cached is None or self._cached[0] != key:
                self._cached = (key, CardLibrary.from_directory(self.folder, kinds=kinds))
            return self._cached[1]


def card_store(table: Table) -> CardArtStore:
    """The table's card art store (one per table, made on first use)."""
    store = getattr(table, "_card_art", None)
    if store is None:
        store = CardArtStore(table.data_dir / "cards")
        table._card_art = store  # type: ignore[attr-defined]
    return store


def is_card_reveal_due(table: Table) -> bool:
    game = table.game
    reveal_due = getattr(game, "reveal_due", None)
    return callable(reveal_due) and reveal_due() is not None


def read_card_frames(frames: Iterator[Any], library: CardLibrary, expected: int,
                     count: int = CARD_REVEAL_FRAMES) -> tuple[CardRevealCheck, Any]:
    """Read ``count`` frames; the check and the last frame (for the annotated photo)."""
    readings, last = [], None
    for frame in frames:
        readings.append(read_cards(frame, library))
        last = frame
        if len(readings) >= count:
            break
    if last is None:
        raise ValueError("the camera gave no frame")
    return check_card_reveal(readings, expected), last


def capture_card_reveal(table: Table, *, replacing: str | None = None) -> dict[str, Any]:
    """The card version of `Table.capture_reveal` (it calls this when cards are due)."""
    from bluffcam.vision_adapter import encode_jpeg

    with table._capture_lock:
        with table._lock:
            game = table._require_game()
            table.check_replacing(replacing)
            expected = int(game.reveal_due())  # type: ignore[attr-defined]
            if table.camera is None:
                raise TableError("no camera: enter the reveal by hand", rule="camera")
            kinds = list(game.to_json().get("card_kinds", []))
            try:
                library = card_store(table).library(kinds)
            except CardRegistrationError as exc:
                raise TableError(str(exc), rule="cards") from None
            action_index = len(table._actions)
            previous = table._review
        try:
            check, frame = table.on_reading_thread(
                read_card_frames, table.camera_frames(), library, expected)
        except Exception as exc:  # a broken camera must not stop the game
            raise table.camera_raised(exc) from None
        jpeg = encode_jpeg(draw_card_reading(frame, check.reading))
        with table._lock:
            if len(table._actions) != action_index or not is_card_reveal_due(table):
                raise TableError("the game moved on while the camera was reading; try again")
            reveal_id = table.reveals.next_id()
            if jpeg is not None:
                with table._storing(f"the photo of reveal {reveal_id}"):
                    table.reveals.save_image(reveal_id, jpeg)
            seats = {CARDS_SEAT: [_card_json(c) for c in check.reading.cards]}
            problems = [p.to_json() for p in check.problems]
            record: dict[str, Any] = {
                "id": reveal_id, "kind": "cards", "setup": table._setup,
                "game": table._journal_game_id(), "action_index": action_index,
                "read": seats, "set_aside": {}, "problems": problems,
                "expected": {CARDS_SEAT: expected}, "captured_at": time.time(),
                "has_image": jpeg is not None,
            }
            action = check.action()
            if action is not None:
                try:
                    apply_card_reveal(table, reveal_id, record, list(action["reveal"]), "camera")
                    table._replaced(previous, reveal_id)
                    return table._state_unlocked()
                except ValueError as refused:  # e.g. more orcs than can be face down
                    problems.append({"kind": "rules", "seat": None, "x": None, "y": None,
                                     "message": str(getattr(refused, "message", refused))})
            record.update(status="needs_review", problems=problems)
            with table._storing(f"reveal {reveal_id}"):
                table.reveals.save(reveal_id, record)
            table._review = PendingReview(
                id=reveal_id, seats=seats, set_aside={}, problems=problems,
                expected={CARDS_SEAT: expected}, action_index=action_index,
            )
            table.announce_review(reveal_id)
            table._replaced(previous, reveal_id)
            return table._state_unlocked()


def is_card_review(review: PendingReview | None) -> bool:
    return review is not None and set(review.expected) == {CARDS_SEAT}


def confirm_card_review(table: Table, review: PendingReview, seats: Any) -> dict[str, Any]:
    """Apply a person's confirmed list of kinds (``{"cards": ["orc", "imp"]}``)."""
    cards = seats.get(CARDS_SEAT) if isinstance(seats, Mapping) else None
    if not isinstance(cards, list) or not all(
        isinstance(c.get("value") if isinstance(c, Mapping) else c, str) for c in cards
    ):
        raise TableError('send {"seats": {"cards": ["orc", "imp"]}}: the kinds turned up',
                         rule="format", status=400)
    kinds = [str(c.get("value") if isinstance(c, Mapping) else c) for c in cards]
    if not all(k.strip() for k in kinds):
        raise TableError("a card's kind is blank: name each card turned up (orc, imp, …)",
                         rule="format", status=400)
    record = table.reveals.load(review.id)
    apply_card_reveal(table, review.id, record, kinds, "confirmed")
    return table._state_unlocked()


def apply_card_reveal(table: Table, reveal_id: str, record: dict[str, Any],
                      kinds: list[str], how: str) -> None:
    """Journal the record, then the reveal action (the caller holds the table's lock)."""
    game = table._require_game()
    parsed = parse_action({"reveal": kinds})
    game.check(parsed)  # raises IllegalActionError (a ValueError) and changes nothing
    canonical = action_to_json(parsed)
    read = [str(c.get("value")) for c in record.get("read", {}).get(CARDS_SEAT, [])]
    index = len(table._actions)
    removed = sorted((Counter(read) - Counter(kinds)).elements())
    added = sorted((Counter(kinds) - Counter(read)).elements())
    record.update(
        status="applied", how=how, action=canonical, action_index=index,
        confirmed={CARDS_SEAT: kinds},
        corrections={CARDS_SEAT: {"removed": removed, "added": added}} if removed or added
        else {},
        applied_at=time.time(),
    )
    with table._storing(f"reveal {reveal_id}"):
        table.reveals.save(reveal_id, record)
        table._journal.append(canonical)
    game.apply(parsed)
    table._actions.append(canonical)
    table._reveal_ids[index] = reveal_id
    table._review = None
    table._last_reveal = {
        "id": reveal_id,
        "image_url": f"/api/reveals/{reveal_id}/image" if record.get("has_image") else None,
        "seats": record["confirmed"], "read": {CARDS_SEAT: read}, "dice": {},
        "cards": record.get("read", {}), "corrections": record["corrections"], "how": how,
        "action_index": index,
    }
    if record["corrections"]:  # in the players' words: piles, not reveal ids
        table._post(said("pile {n} corrected by hand", n=len(game.history)), about_game=True)
    table._changed()


def _card_json(card: Any) -> dict[str, Any]:
    """One card as a review entry: ``value`` is the kind (None = a person must name it)."""
    out: dict[str, Any] = card.to_json()
    out["value"] = out.pop("kind")
    return out
