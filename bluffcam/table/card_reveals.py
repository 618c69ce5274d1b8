"""Card reveals at the desk (Impus Bluff): the registered card art, and a doubted batch read.

The table's card art lives in ``<data>/cards/<kind>.png`` (upright faces, registered from
one photo per kind on the calibration page). A reveal reads a few still frames with
`vision.cards.read_cards` and judges them with `vision.card_reveal.check_card_reveal`: a
sure reading is applied, anything else waits as the table's pending review — the same
record, image and confirm flow as dice (`bluffcam.table.reveal_desk`), with the one "seat"
``cards``: ``POST /api/reveals/<id>/confirm {"seats": {"cards": ["orc", "imp"]}}``.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bluffcam.table.camera_port import CameraPort
from bluffcam.table.errors import TableError
from bluffcam.table.reveal_records import PendingReview, RevealRecord
from bluffcam.table.vision_bridge import encode_jpeg
from engine import Game
from engine.words import Said, said
from vision.card_library import CardLibrary, CardRegistrationError
from vision.card_reveal import CardRevealCheck, check_card_reveal
from vision.cards import draw_card_reading, read_cards

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


@dataclass
class CardTaken:
    """One card reading: the frames' agreed check and the marked photo."""

    check: CardRevealCheck
    annotated_jpeg: bytes | None
    expected: int
    photo_jpeg: bytes | None = None  # the unmarked frame is not kept for cards

    def record(self, reveal_id: str, *, setup: Any, game: int | None,
               action_index: int) -> RevealRecord:
        return RevealRecord(
            id=reveal_id, kind="cards", setup=setup, game=game, action_index=action_index,
            read={CARDS_SEAT: [_card_json(c) for c in self.check.reading.cards]},
            problems=[p.to_json() for p in self.check.problems],
            expected={CARDS_SEAT: self.expected}, has_image=self.annotated_jpeg is not None,
        )

    def sure(self, record: dict[str, Any]) -> dict[str, Any] | None:
        action = self.check.action()
        return None if action is None else {CARDS_SEAT: list(action["reveal"])}


class CardReveals:
    """The cards `RevealKind` of `bluffcam.table.reveal_desk`."""


    def __init__(self, port: CameraPort, art: CardArtStore) -> None:
        self._port = port
        self._art = art

    def corrected(self, settled: int) -> Said:
        return said("pile {n} corrected by hand", n=settled)

    def plan(self, game: Game) -> tuple[CardLibrary, int]:
        expected = int(getattr(game, "reveal_due", lambda: 0)() or 0)
        kinds = list(game.to_json().get("card_kinds", []))
        try:
            return self._art.library(kinds), expected
        except CardRegistrationError as exc:
            raise TableError(str(exc), rule="cards") from None

    def read(self, plan: tuple[CardLibrary, int], truth: Any) -> CardTaken:
        library, expected = plan
        try:
            check, frame = self._port.on_reading_thread(
                read_card_frames, self._port.frames(), library, expected)
        except Exception as exc:  # a broken camera must not stop the game
            raise self._port.raised(exc) from None
        return CardTaken(check, encode_jpeg(draw_card_reading(frame, check.reading)), expected)

    def confirmed(self, seats: Any, review: PendingReview) -> tuple[dict[str, Any], None]:
        """A person's list of kinds (``{"cards": ["orc", "imp"]}``), checked."""
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
        return {CARDS_SEAT: kinds}, None

    def complete(self, game: Game, seats: dict[str, Any]) -> dict[str, Any]:
        return seats

    def seats_of(self, reveal: Any) -> dict[str, Any]:
        return {CARDS_SEAT: list(reveal) if isinstance(reveal, list) else []}

    def reveal_of(self, seats: dict[str, Any]) -> Any:
        return list(seats[CARDS_SEAT])

    def corrections(self, record: dict[str, Any], seats: dict[str, Any]) -> dict[str, Any]:
        read = [str(c.get("value")) for c in record.get("read", {}).get(CARDS_SEAT, [])]
        kinds = list(seats.get(CARDS_SEAT, []))
        removed = sorted((Counter(read) - Counter(kinds)).elements())
        added = sorted((Counter(kinds) - Counter(read)).elements())
        return {CARDS_SEAT: {"removed": removed, "added": added}} if removed or added else {}


def _card_json(card: Any) -> dict[str, Any]:
    """One card as a review entry: ``value`` is the kind (None = a person must name it)."""
    out: dict[str, Any] = card.to_json()
    out["value"] = out.pop("kind")
    return out
