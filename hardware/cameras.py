"""Camera sources behind one small interface, chosen by a spec string.

Specs: ``picamera2`` or ``picamera2:2028x1520`` (the Pi camera), ``opencv:0`` (a USB webcam
index), ``opencv:<url>`` (an RTSP/HTTP stream, e.g. a phone's IP-camera app) and
``files:<dir>`` (recorded frames in name order — the demo and the tests).

Every source hands out BGR ``uint8`` frames of shape ``(H, W, 3)`` and raises `CameraError`
with a message a player can act on (and, for the faults a board names, its words to translate:
hardware/camera_words.py). `ResilientCamera` wraps a source so that a camera that fails
mid-game is reported and retried, never crashing the caller.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import time
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from hardware.camera_errors import (
    device_holders,
    opencv_open_problem,
    opencv_open_words,
    picamera2_import_problem,
    picamera2_open_problem,
)
from hardware.camera_words import CLOSED, NOT_OPENED, CameraFault, Words, said

Frame = NDArray[np.uint8]

#: picamera2 needs this long after ``start()`` for exposure and white balance to settle.
PICAMERA2_SETTLE_S = 2.0
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
SPEC_HELP = "expected picamera2[:WxH], opencv:<index|url> or files:<dir>"
#: this many byte-identical frames in a row mean a stuck driver or stream, not a still table
#: (a live sensor's noise changes every frame); fewer than a reveal's still-scene wait needs,
#: so no reveal is ever read from them
FROZEN_AFTER_FRAMES = 3


class CameraError(RuntimeError):
    """A camera could not be opened or stopped giving frames; the message says why.

    ``words``, where hardware has them, say the message for the players in a language of
    theirs: the same English, less any shell command it gives whoever runs the table (the
    board never shows one). A fault without them is shown in its English."""

    def __init__(self, message: str, words: Words | None = None) -> None:
        super().__init__(message)
        self.words = words

    @classmethod
    def saying(cls, words: Words) -> CameraError:
        """The error whose message is ``words``' English."""
        return cls(str(words), words)


class EndOfFrames(CameraError):
    """A `files:` source has played every recorded frame (and is not looping)."""


class CameraSource(ABC):
    """One camera: ``read()`` a BGR frame, ``close()`` when done; also a context manager."""

    spec: str

    @abstractmethod
    def read(self) -> Frame:
        """Grab the next frame as BGR uint8 ``(H, W, 3)``; raise `CameraError` on failure."""

    @abstractmethod
    def close(self) -> None:
        """Release the device; safe to call twice."""

    def lock_exposure(self) -> None:
        """Hold exposure and white balance for a reveal's frames, where the camera can
        (a recording or a webcam cannot: nothing to do)."""
        return None

    def unlock_exposure(self) -> None:
        """Let exposure and white balance follow the light again."""
        return None

    def frames(self) -> Iterator[Frame]:
        """Frames until the source ends (a `files:` source without loop) — for `vision.reveal`."""
        while True:
            try:
                yield self.read()
            except EndOfFrames:
                return

    def __enter__(self) -> CameraSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


def parse_resolution(text: str) -> tuple[int, int]:
    """``"2028x1520"`` -> ``(2028, 1520)``; raise `CameraError` naming the bad text."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise CameraError(
            f"bad resolution {text!r}: expected WIDTHxHEIGHT, e.g. 2028x1520"
        ) from None
    if width <= 0 or height <= 0:
        raise CameraError(f"bad resolution {text!r}: width and height must be positive")
    return width, height


def _as_bgr(frame: Any, spec: str) -> Frame:
    """Check a frame's shape and drop an alpha/padding channel (XBGR8888 arrives as 4 bytes)."""
    array = np.asarray(frame)
    if array.ndim == 2:
        array = cv2.cvtColor(array, cv2.COLOR_GRAY2BGR)
    if array.ndim != 3 or array.shape[2] not in (3, 4) or array.size == 0:
        raise CameraError(f"{spec}: got a frame of shape {array.shape}, expected (H, W, 3)")
    if array.shape[2] == 4:
        array = array[:, :, :3]
    if array.dtype != np.uint8:
        raise CameraError(f"{spec}: got {array.dtype} pixels, expected uint8")
    return np.ascontiguousarray(array)


# --------------------------------------------------------------------------- picamera2


def _import_picamera2() -> ModuleType:
    try:
        return importlib.import_module("picamera2")
    except Exception as exc:  # ImportError, or ValueError from apt's simplejpeg under numpy 2
        raise CameraError(picamera2_import_problem(exc)) from exc


def _libcamera_controls() -> Any:
    """libcamera's control enums (AfModeEnum ...), which picamera2 is built on; None where it
    cannot be imported (a stand-in picamera2 in the tests), and the plain numbers are used."""
    try:
        return importlib.import_module("libcamera").controls
    except Exception:
        return None


#: libcamera's AfModeEnum.Manual: the lens stays where LensPosition puts it
AF_MODE_MANUAL = 0
#: the video configuration's buffers: the stillness wait and the votes read frame after frame,
#: and the camera fills the next buffer while the reader holds one
VIDEO_BUFFERS = 4


class Picamera2Camera(CameraSource):
    """The Raspberry Pi camera through picamera2, asking for RGB888 (= OpenCV's BGR bytes).

    A thin adapter: picamera2 runs only on a Pi, so off one it cannot run, and its tests check
    the calls it makes (with a stand-in picamera2), not what the camera then does. It asks for
    a video configuration of `VIDEO_BUFFERS` buffers, lets exposure and white balance settle,
    and focuses a lens that can (Camera Module 3) once: to ``lens_position`` (dioptres, from
    the profile) where given, else with one autofocus cycle; the lens then stays put, so it
    never hunts on the hands over the table. ``lens_position`` afterwards holds where it is
    (None for a fixed-focus camera).
    """

    def __init__(
        self,
        *,
        resolution: tuple[int, int] | None = None,
        settle_s: float = PICAMERA2_SETTLE_S,
        lens_position: float | None = None,
        module: ModuleType | None = None,
        controls: Any = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.spec = "picamera2" + (f":{resolution[0]}x{resolution[1]}" if resolution else "")
        self._closed = True
        picamera2 = module if module is not None else _import_picamera2()
        if controls is None and module is None:  # the real picamera2: libcamera is there
            controls = _libcamera_controls()
        self._controls = controls
        main: dict[str, Any] = {"format": "RGB888"}
        if resolution is not None:
            main["size"] = resolution
        try:
            self._camera = picamera2.Picamera2()
        except Exception as exc:  # picamera2 raises bare RuntimeError/IndexError
            raise CameraError(picamera2_open_problem(self.spec, exc)) from exc
        try:
            config = self._camera.create_video_configuration(main=main,
                                                             buffer_count=VIDEO_BUFFERS)
            self._camera.configure(config)
            self._camera.start()
            # auto-exposure and white balance settle before focusing and the first frame
            (sleep or time.sleep)(settle_s)
            self.lens_position = self._focus_once(lens_position)
        except Exception as exc:
            self._camera.close()
            raise CameraError(f"{self.spec}: could not start the camera: {exc}") from exc
        self._closed = False

    def _focus_once(self, lens_position: float | None) -> float | None:
        if "AfMode" not in getattr(self._camera, "camera_controls", {}):
            return None  # a fixed-focus camera (Camera Module 2, the HQ camera)
        if lens_position is not None:
            manual = getattr(getattr(self._controls, "AfModeEnum", None), "Manual",
                             AF_MODE_MANUAL)
            self._camera.set_controls({"AfMode": manual, "LensPosition": float(lens_position)})
            return float(lens_position)
        # AfMode Auto + one trigger: the lens moves for this cycle only, never after
        self._camera.autofocus_cycle()
        position = self._camera.capture_metadata().get("LensPosition")
        return None if position is None else float(position)

    def lock_exposure(self) -> None:
        """Hold exposure, gain and white balance where they are (for a reveal's frames)."""
        metadata = self._camera.capture_metadata()
        held = {key: metadata[key] for key in ("ExposureTime", "AnalogueGain", "ColourGains")
                if key in metadata}
        self._camera.set_controls({"AeEnable": False, "AwbEnable": False, **held})

    def unlock_exposure(self) -> None:
        self._camera.set_controls({"AeEnable": True, "AwbEnable": True})

    def read(self) -> Frame:
        if self._closed:
            raise CameraError(f"{self.spec}: camera is closed")
        try:
            frame = self._camera.capture_array()
        except Exception as exc:
            raise CameraError(f"{self.spec}: capture failed: {exc}") from exc
        return _as_bgr(frame, self.spec)

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self._camera.stop()
        finally:
            self._camera.close()


# --------------------------------------------------------------------------- OpenCV


#: how long a stream may take to open, or to give its next frame, before it counts as lost
STREAM_TIMEOUT_MS = 5000
#: entries a files: folder may hold, sub-folders included, before it is refused as no recording
MAX_LISTED = 100_000


class OpenCVCamera(CameraSource):
    """A USB webcam (``opencv:0``) or a network stream (``opencv:rtsp://…``)."""

    def __init__(self, target: int | str, *, resolution: tuple[int, int] | None = None) -> None:
        self.spec = f"opencv:{target}"
        self._index = target if isinstance(target, int) else None
        # a stream that stalls (a phone's Wi-Fi, a server that accepts and never answers)
        # would hold the camera, and every button waiting on it, for OpenCV's default 30 s
        self._capture = cv2.VideoCapture(target, cv2.CAP_ANY, [
            cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
            cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS])
        if not self._capture.isOpened():
            self._capture.release()
            if isinstance(target, int):
                raise _webcam_problem(self.spec, target, device_holders(f"/dev/video{target}"))
            raise CameraError.saying(said("{camera}: could not open the camera; is the stream "
                                          "URL right and reachable from here?",
                                          camera=self.spec))
        if resolution is not None:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])

    def read(self) -> Frame:
        ok, frame = self._capture.read()
        if not ok or frame is None:
            # a webcam another program streams from may open here and then give nothing
            if self._index is not None and (holders := device_holders(
                    f"/dev/video{self._index}")):
                raise _webcam_problem(self.spec, self._index, holders)
            raise CameraError.saying(said("{camera}: no frame (camera disconnected or stream "
                                          "ended)", camera=self.spec))
        return _as_bgr(frame, self.spec)

    def close(self) -> None:
        self._capture.release()


def _webcam_problem(spec: str, index: int, holders: list[str]) -> CameraError:
    """A webcam that did not open or gave nothing: held by another program, or not there."""
    return CameraError(opencv_open_problem(spec, index, holders),
                       opencv_open_words(spec, holders))


# --------------------------------------------------------------------------- recorded files


def list_frame_files(directory: Path) -> list[Path]:
    """Image files under ``directory`` in name order, entering sub-folders where they sort.
    Hidden entries (a name starting with ".", such as the "._frame.jpg" metadata a Mac
    leaves on a memory stick) are not frames. Sub-folders that are links are not entered: a
    link to its own folder would list the frames over and over without end, and one to
    ``/usr`` would list a disk. Past `MAX_LISTED` entries the folder is refused by name."""
    listed = 0

    def walk(folder: Path) -> list[Path]:
        nonlocal listed
        found: list[Path] = []
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            listed += 1
            if listed > MAX_LISTED:
                raise CameraError(f"files:{directory}: more than {MAX_LISTED} entries under "
                                  "it; point files: at the folder of the recorded frames")
            if entry.name.startswith("."):
                continue
            if entry.is_dir():
                if not entry.is_symlink():
                    found.extend(walk(entry))
            elif entry.suffix.lower() in IMAGE_SUFFIXES:
                found.append(entry)
        return found

    return walk(directory)


class FileCamera(CameraSource):
    """Recorded frames played back in name order; ``loop=True`` starts again at the end,
    ``hold_last=True`` keeps showing the last frame, as a camera above a table that no
    longer changes would (what `serve` wants of a recording: a reveal waits for a still
    scene, which a recording of a few frames a reveal would end before giving).

    A file that does not decode is skipped (and listed in ``skipped``): one damaged frame
    must not stop a recording, since a camera source that raises is reopened from its
    first frame. Only where no file decodes at all does reading fail."""

    def __init__(self, directory: str | os.PathLike[str], *, loop: bool = False,
                 hold_last: bool = False) -> None:
        self.directory = Path(directory)
        self.spec = f"files:{directory}"
        if not self.directory.is_dir():
            raise CameraError(f"{self.spec}: {self.directory} is not a folder")
        self.paths = list_frame_files(self.directory)
        if not self.paths:
            raise CameraError(
                f"{self.spec}: no image files ({', '.join(IMAGE_SUFFIXES)}) in {self.directory}"
            )
        self.loop = loop
        self.hold_last = hold_last
        self.position = 0
        self.skipped: list[Path] = []
        self._last: Frame | None = None

    def read(self) -> Frame:
        if self.hold_last and self._last is not None and self.position >= len(self.paths):
            return self._last.copy()
        frame = self._next()
        if self.hold_last:
            self._last = frame
        return frame

    def _next(self) -> Frame:
        for _ in range(len(self.paths)):
            if self.position >= len(self.paths):
                if not self.loop:
                    raise EndOfFrames(
                        f"{self.spec}: all {len(self.paths)} recorded frames played")
                self.position = 0
            path = self.paths[self.position]
            self.position += 1
            if not path.is_file():  # not "all frames played", nor a frame that is damaged
                gone = self.directory if not self.directory.is_dir() else path
                raise CameraError(f"{self.spec}: {gone} is gone (moved or deleted while "
                                  "playing)")
            frame = _read_frame_file(path)
            if frame is not None:
                return _as_bgr(frame, self.spec)
            if path not in self.skipped:
                self.skipped.append(path)
        raise CameraError(f"{self.spec}: could not decode {self.skipped[0]}"
                          + (f" nor {len(self.skipped) - 1} other files"
                             if len(self.skipped) > 1 else ""))

    def close(self) -> None:
        self.position = len(self.paths)


# --------------------------------------------------------------------------- spec -> source


def is_recording(spec: str) -> bool:
    """Whether a spec names recorded frames (``files:``), not a live camera: a recording
    repeats frames honestly and is used up by reading it."""
    return spec.strip().lower().startswith("files:")


def check_spec(spec: str) -> None:
    """Raise `CameraError` for a spec no camera could ever answer to (an unknown kind, no
    index or folder, a resolution that is not WxH), without opening anything: a program
    that retries a camera (`ResilientCamera`) must not retry a typo forever."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "picamera2":
        try:
            parse_resolution(rest) if rest else None
        except CameraError as exc:
            raise CameraError(f"bad camera spec {spec!r}: {exc}") from None
    elif kind in _NEEDS:
        if not rest:
            raise CameraError(f"bad camera spec {spec!r}: {kind} needs {_NEEDS[kind]}")
    else:
        raise CameraError(f"unknown camera spec {spec!r}: {SPEC_HELP}")


#: what follows the colon of a spec that cannot do without it
_NEEDS = {"opencv": "an index or URL, e.g. opencv:0", "files": "a folder, e.g. files:frames/"}


def open_camera(
    spec: str,
    *,
    resolution: tuple[int, int] | None = None,
    loop: bool = False,
    hold_last: bool = False,
    picamera2_module: ModuleType | None = None,
    lens_position: float | None = None,
) -> CameraSource:
    """Open the camera a spec names; raise `CameraError` with what to fix.

    ``resolution`` applies where the spec gives none; ``loop`` and ``hold_last`` only to
    ``files:`` sources (`FileCamera`); ``lens_position`` (a profile's, dioptres) only to
    ``picamera2``, which autofocuses once without it.
    """
    check_spec(spec)
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "picamera2":
        size = parse_resolution(rest) if rest else resolution
        return Picamera2Camera(resolution=size, module=picamera2_module,
                               lens_position=lens_position)
    if kind == "opencv":
        target: int | str = int(rest) if rest.isdigit() else rest
        return OpenCVCamera(target, resolution=resolution)
    return FileCamera(rest, loop=loop, hold_last=hold_last)


# --------------------------------------------------------------------------- resilience

class ResilientCamera:
    """Keeps a camera going through failures: reports status, retries with backoff.

    ``read()`` returns a frame, or ``None`` while the camera is offline; it never raises, so
    the game goes on and a reveal can still be entered by hand. ``status`` reads ``"ok"`` or
    ``"camera offline: <why>"`` for the logs and the CLI; ``status_words`` says the same as
    words to translate, and ``fault`` why it is offline as data (its words, the retry's
    seconds), so that a board in another language needs no English read back. A source
    that keeps handing out the very same frame (`FROZEN_AFTER_FRAMES`) is treated as
    failed: reopened, never read from.
    """

    def __init__(
        self,
        spec: str,
        *,
        opener: Callable[[str], CameraSource] = open_camera,
        first_retry_s: float = 1.0,
        max_retry_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.spec = spec
        self._opener = opener
        self._first_retry_s = first_retry_s
        self._max_retry_s = max_retry_s
        self._clock = clock
        self._source: CameraSource | None = None
        self._retry_s = first_retry_s
        self._next_attempt = clock()
        #: why the camera is offline (one value, so a reader never sees half of a change):
        #: a fault, or its own words before the first try and once closed; None while ok
        self._offline: Words | CameraFault | None = NOT_OPENED
        # a recording repeats a frame honestly (a still scene, a held last frame): only a
        # live source handing out the very same bytes is stuck
        self._watch_frozen = not is_recording(spec)
        self.failures = 0
        self._lock = threading.Lock()
        self._last_print: int | None = None
        self._repeats = 0

    @property
    def online(self) -> bool:
        return self._source is not None

    @property
    def fault(self) -> CameraFault | None:
        """The fault the camera is offline for; None while ok, before the first try, closed."""
        offline = self._offline
        return offline if isinstance(offline, CameraFault) else None

    @property
    def status_words(self) -> Words | None:
        """`status` as words to translate; None while ok."""
        offline = self._offline
        return offline.status_words() if isinstance(offline, CameraFault) else offline

    @property
    def status(self) -> str:
        """``"ok"`` or ``"camera offline: <why>"``: `status_words`' English."""
        words = self.status_words
        return "ok" if words is None else str(words)

    def read(self) -> Frame | None:
        """The next frame, or ``None`` when offline (retried at most once per backoff step)."""
        with self._lock:  # the dashboard's snapshot and a reveal may read at the same time
            return self._read_unlocked()

    def _read_unlocked(self) -> Frame | None:
        if self._source is None:
            if self._clock() < self._next_attempt:
                return None
            try:
                self._source = self._opener(self.spec)
            except Exception as exc:  # any failure is reported, never raised into the game
                self._fail(exc)
                return None
        try:
            frame = self._source.read()
        except Exception as exc:
            self._drop_source()
            self._fail(exc)
            return None
        if self._watch_frozen and self._is_frozen(frame):
            self._drop_source()
            self._fail(CameraError.saying(said(
                "{camera}: frozen: the last {n} frames were identical (a stuck driver or "
                "stream, or a lens covered in the dark)", camera=self.spec,
                n=FROZEN_AFTER_FRAMES)))
            return None
        self._offline = None
        self._retry_s = self._first_retry_s
        return frame

    def lock_exposure(self) -> None:
        """Hold exposure and white balance for a reveal, where the camera can; a camera that
        fails at it is left to the next read to notice."""
        with self._lock, contextlib.suppress(Exception):
            if self._source is not None:
                self._source.lock_exposure()

    def unlock_exposure(self) -> None:
        with self._lock, contextlib.suppress(Exception):
            if self._source is not None:
                self._source.unlock_exposure()

    def frames(self) -> Iterator[Frame]:
        """Frames while the camera is online; ends at the first failure (the caller reports it)."""
        while (frame := self.read()) is not None:
            yield frame

    def _is_frozen(self, frame: Frame) -> bool:
        fingerprint = zlib.crc32(np.ascontiguousarray(frame[::4, ::4]).tobytes())
        self._repeats = self._repeats + 1 if fingerprint == self._last_print else 0
        self._last_print = fingerprint
        if self._repeats + 1 >= FROZEN_AFTER_FRAMES:
            self._last_print, self._repeats = None, 0
            return True
        return False

    def close(self) -> None:
        with self._lock:
            self._drop_source()
            self._offline = CLOSED

    def _drop_source(self) -> None:
        if self._source is not None:
            # closing a broken device may fail too; it is gone either way
            with contextlib.suppress(Exception):
                self._source.close()
            self._source = None
        self._last_print, self._repeats = None, 0

    def _fail(self, exc: BaseException) -> None:
        self.failures += 1
        message = str(exc) or type(exc).__name__
        words = exc.words if isinstance(exc, CameraError) else None
        self._offline = CameraFault(message, words, self._retry_s)
        self._next_attempt = self._clock() + self._retry_s
        self._retry_s = min(self._retry_s * 2, self._max_retry_s)

    def __enter__(self) -> ResilientCamera:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _read_frame_file(path: Path) -> Any:
    """A recorded frame, or None where it cannot be read or decoded. Read by Python and
    decoded in memory: OpenCV's own imread crashed the process on a path that is not valid
    UTF-8."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
