"""`serve` learning its table again by itself, after people confirmed the camera's doubts.

Every reveal that went to review and that a person confirmed or corrected on the review page
is a labelled photo of exactly this table (``bluffcam.labelled_photos``). After ``EVERY`` of
them since the last learning, the table's profile is learned again
(``bluffcam.adaptation``: its head and its die size) from every reviewed reveal kept and
every photo taught on the calibration page, on a thread of its own:

- a press or a reveal never waits for it: the learning reads its photos outside the table's
  lock and pauses while the camera reads (`Table.camera_reading`); the learned profile is
  written to a folder of its own, then swapped in under the table's lock in one step (head,
  profile file, the profile the table reads by), and only when no reveal is due;
- never two at once; confirmations during a learning count towards the next;
- a learning that fails is logged and said on the board, and the table keeps reading by the
  profile it had (no game state is touched); the next try comes after ``EVERY`` more.

The count since the last learning is kept in ``<data>/relearning.json``, so a table that is
restarted each evening still learns after its fifth confirmed review.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from bluffcam.adaptation import Adapted, adapt_profile, head_path
from bluffcam.camera_record import is_dice_record
from bluffcam.labelled_photos import export_reveals
from bluffcam.table.errors import TableError
from bluffcam.teaching import FOLDER as TAUGHT_FOLDER
from bluffcam.teaching import Teaching, TeachingError
from calibration import load_profile, save_profile
from calibration.files import replace_whole
from engine.words import Said, said, said_n
from vision.table_head import load_head

log = logging.getLogger(__name__)

#: confirmed reviews between two learnings. Each is a photo of some 5 to 30 dice this
#: table's reader doubted; five of them add as many labelled dice as the head's ridge
#: holds it by (`vision.adapt.RIDGE`: 20 dice) and more, so each learning has something new
#: to learn from, while a learning (about a second a photo on a Raspberry Pi, shared with
#: the game) comes at most once in a few rounds
EVERY = 5
#: the reviewed reveals a learning reads, newest first: enough for one table, and a learning
#: months into a table's life stays about a minute long
MAX_REVIEWED = 60
#: how often an installation refused because a reveal is due is tried again (seconds)
RETRY_S = 2.0
#: how often the learning looks whether the camera has finished reading (seconds)
CAMERA_POLL_S = 0.05
#: the count kept between restarts, in the data folder
STATE_FILE = "relearning.json"
#: the board's topic: the last word on re-learning replaces the one before
TOPIC = "relearning"

Learn = Callable[..., Adapted]


class RelearnTable(Protocol):
    """What the re-learning needs of the `bluffcam.table.Table`."""

    profile: Any
    data_dir: Path

    @property
    def reveals(self) -> Any: ...

    @property
    def camera_reading(self) -> bool: ...

    def rewrite_profile(self, write: Callable[[], Any]) -> Any: ...

    def note(self, text: str | Said, level: str = "info", *, topic: str | None = None) -> None: ...


class Superseded(Exception):
    """Another profile was installed while this one was learned (teaching, new zones)."""


class Closed(Exception):
    """The table is closing: the learning stops where it is."""


def relearning_possible(profile: Any) -> str | None:
    """Why `serve` cannot learn this profile again by itself (None: it can): no profile
    file, or one it may not write (nor write beside)."""
    path = getattr(profile, "path", None) if profile is not None else None
    if path is None:
        return "no profile file"
    path = Path(path)
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        return f"{path} may not be written"
    return None


class Relearner:
    """Counts a table's confirmed reviews and learns its profile again every ``every``."""

    def __init__(self, table: RelearnTable, profile: str | os.PathLike[str], *,
                 every: int = EVERY, retry_s: float = RETRY_S,
                 learn: Learn = adapt_profile) -> None:
        if every < 1:
            raise ValueError(f"every: learn again after 1 or more confirmed reviews, got {every}")
        self._table = table
        self.profile = Path(profile)
        self.every = every
        self.retry_s = retry_s
        self._learn = learn
        self._state = Path(table.data_dir) / STATE_FILE
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._running = False
        self._taken = 0
        self.since = self._load_since()
        #: learnings finished (installed, failed or superseded), for the board and tests
        self.finished = 0
        self.installed = 0
        self.failed = 0
        #: the last learning's outcome in words
        self.last = ""

    # ------------------------------------------------------------------ counting

    def confirmed(self, reveal_id: str) -> None:
        """The hook `Table.confirm_review` calls: counts a confirmed dice reveal whose photo
        was kept, and starts a learning when enough have come. Never raises, never waits
        for a learning."""
        try:
            if not self._labelled(reveal_id):
                return
        except Exception:  # a record it cannot read: that photo cannot teach anyway
            log.exception("re-learning: reveal %s not counted", reveal_id)
            return
        with self._lock:
            self.since += 1
            try:
                self._save_since()
            except OSError as exc:  # counted all the same; a restart forgets this one
                log.warning("re-learning: the count could not be kept (%s)", exc)
            self._start_if_due()

    def _labelled(self, reveal_id: str) -> bool:
        """Whether the reveal became a labelled photo: a dice reveal a person confirmed,
        with its unmarked photo kept."""
        record = self._table.reveals.load(reveal_id)
        if not is_dice_record(record) or record.get("status") != "applied" or \
                record.get("how") != "confirmed":
            return False
        try:
            self._table.reveals.photo_path(reveal_id)
        except LookupError:
            return False
        return True

    def _start_if_due(self) -> None:
        """Start a learning where one is due and none runs (the caller holds the lock)."""
        if self._running or self._stop.is_set() or self.since < self.every:
            return
        self._running, self._taken = True, self.since
        threading.Thread(target=self._run, name="relearning", daemon=True).start()

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no learning runs (True), or ``timeout`` seconds (False)."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._running, timeout)

    def close(self) -> None:
        """Stop: a learning under way ends at its next pause, installing nothing."""
        self._stop.set()

    # ------------------------------------------------------------------ learning

    def _run(self) -> None:
        counted = True
        try:
            adapted = self._learn_and_install()
        except Superseded:
            counted = False  # learned from an older profile: learned again at once
            self.last = "superseded by a profile installed meanwhile"
        except Closed:
            counted = False
            self.last = "stopped: the table is closing"
        except Exception as exc:  # any failure: the table reads on by the profile it had
            log.warning("re-learning %s failed: %s", self.profile, exc, exc_info=True)
            self.failed += 1
            self.last = f"failed: {exc}"
            self._note(said("the camera could not learn this table again ({error}); it reads "
                            "as before", error=str(exc)), "warning")
        else:
            self.installed += 1
            photos = adapted.head.photos
            size = f"; {adapted.size.note}" if adapted.size is not None and \
                adapted.size.changed else ""
            self.last = f"learned from {photos} photos{size}"
            log.info("re-learned %s: %s", self.profile, adapted.summary())
            self._note(said_n("the camera learned this table again, from {n} photo{size}",
                              "the camera learned this table again, from {n} photos{size}",
                              photos, size=size), "info")
        with self._lock:
            if counted:
                self.since = max(0, self.since - self._taken)
                with contextlib.suppress(OSError):
                    self._save_since()
            self.finished += 1
            self._running = False
            self._start_if_due()
            self._lock.notify_all()

    def _learn_and_install(self) -> Adapted:
        base = self._table.profile
        data = Path(self._table.data_dir)
        with tempfile.TemporaryDirectory(dir=data, prefix=".relearning-") as photos, \
                tempfile.TemporaryDirectory(dir=self.profile.parent,
                                            prefix=".relearning-") as learned:
            manifests = self.manifests(Path(photos))
            out = Path(learned) / self.profile.name
            adapted = self._learn(manifests, out, self.profile, before_each=self._pause)
            self._install(base, out)
        return adapted

    def manifests(self, folder: Path) -> list[Path]:
        """The labelled photos to learn from: the newest ``MAX_REVIEWED`` reviewed reveals
        (exported into ``folder``) and the photos taught on the calibration page."""
        out: list[Path] = []
        reveals = Path(self._table.data_dir) / "reveals"
        if reveals.is_dir():
            summary = export_reveals(reveals, folder)
            if sum(summary.photos.values()):
                manifest = folder / "manifest.json"
                _keep_newest(manifest, MAX_REVIEWED)
                out.append(manifest)
        taught = Teaching(Path(self._table.data_dir) / TAUGHT_FOLDER)
        try:
            if taught.count():
                out.append(taught.manifest)
        except TeachingError as exc:
            log.warning("re-learning without the taught photos: %s", exc)
        if not out:
            raise TeachingError("no labelled photo kept to learn from")
        return out

    def _pause(self) -> None:
        """Before each photo: wait while the camera reads (a reveal comes first); stop when
        the table closes."""
        while self._table.camera_reading:
            if self._stop.wait(CAMERA_POLL_S):
                break
        if self._stop.is_set():
            raise Closed

    def _install(self, base: Any, out: Path) -> None:
        """The learned profile at ``out`` (and its head) in place of the table's, in one step
        under the table's lock; tried again every ``retry_s`` while a reveal is due."""
        learned = load_profile(out)  # checked before anything is replaced, its head too
        load_head(head_path(out))

        def write() -> Any:
            if self._table.profile is not base:
                raise Superseded
            return install_files(learned, out, self.profile)

        while True:
            try:
                self._table.rewrite_profile(write)
                return
            except TableError:  # a reveal is due: its dice are read by the profile it began
                if self._stop.wait(self.retry_s):  # with
                    raise Closed from None

    # ------------------------------------------------------------------ the count kept

    def _load_since(self) -> int:
        try:
            since = json.loads(self._state.read_text(encoding="utf-8")).get("since", 0)
        except (OSError, ValueError, AttributeError):
            return 0
        return since if isinstance(since, int) and not isinstance(since, bool) and \
            since >= 0 else 0

    def _save_since(self) -> None:
        replace_whole(self._state, json.dumps({"since": self.since}).encode())

    def _note(self, text: Said, level: str) -> None:
        with contextlib.suppress(Exception):  # the board is closed: the log has said it
            self._table.note(text, level, topic=TOPIC)


def install_files(learned: Any, out: Path, profile: Path) -> Any:
    """Move the head learned beside ``out`` beside ``profile`` and save ``learned`` there;
    the profile as loaded again. Where saving fails, the head is put back as it was."""
    new_head, head = head_path(out), head_path(profile)
    kept = head.read_bytes() if head.is_file() else None
    os.replace(new_head, head)
    try:
        save_profile(replace(learned, path=profile), profile)
    except BaseException:
        with contextlib.suppress(OSError):
            if kept is None:
                head.unlink()
            else:
                replace_whole(head, kept)
        raise
    return load_profile(profile)


def _keep_newest(manifest: Path, most: int) -> None:
    """The manifest cut to its ``most`` newest reveals (by reveal number)."""
    entries: Sequence[dict[str, Any]] = json.loads(manifest.read_text(encoding="utf-8"))
    if len(entries) <= most:
        return
    newest = sorted(entries, key=lambda e: int(str(e.get("reveal", "r0"))[1:] or 0))[-most:]
    manifest.write_text(json.dumps(newest, indent=1) + "\n", encoding="utf-8")


def start_relearning(table: Any, profile: Any, *, wanted: bool = True) -> Relearner | None:
    """`serve`'s re-learning, hooked to the table's confirmed reviews, where it is wanted
    (``--no-relearn`` not given) and possible (`relearning_possible`); else None."""
    if not wanted or relearning_possible(profile) is not None:
        return None
    relearner = Relearner(table, profile.path)
    table.after_review.append(relearner.confirmed)
    return relearner
