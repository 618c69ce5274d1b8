"""What went wrong with a camera, in words a player can act on.

picamera2 and OpenCV report the same few faults in many shapes: the import of picamera2 in a
venv with numpy 2 fails in apt's simplejpeg ("numpy.dtype size changed"), a camera held by
the running service fails as "Failed to acquire camera: Device or resource busy", and
OpenCV only says it could not open. These functions read those messages, the whole
exception chain, and name the fix; they never touch a device, so they are tested off a Pi
with the real message strings.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from hardware.camera_words import Words, said

#: the words numpy's C-API checks print when a module built for numpy 1.x meets numpy 2
NUMPY_ABI_SIGNS = (
    "numpy.dtype size changed",
    "numpy.ndarray size changed",
    "compiled using NumPy 1.x cannot be run in",
    "_ARRAY_API not found",
)
#: the fix picamera2's maintainers give: a simplejpeg built for numpy 2, from PyPI, in the venv
NUMPY_ABI_FIX = (
    "apt's simplejpeg (which picamera2 imports) was built for numpy 1.x, but this "
    "virtual environment has numpy 2: install simplejpeg from PyPI into it with "
    "`.venv/bin/pip install --upgrade simplejpeg` (./run does this when it sets the "
    "venv up), then try again"
)
PICAMERA2_MISSING_FIX = (
    "picamera2 is not installed (it only runs on a Raspberry Pi). On the Pi run "
    "`sudo apt install python3-picamera2` and make the virtual environment with "
    "`python3 -m venv --system-site-packages .venv` (./run does) so it can see the apt "
    "package (do not pip-install picamera2)"
)
#: how libcamera and picamera2 say another process holds the camera
BUSY_SIGNS = (
    "device or resource busy",
    "failed to acquire camera",
    "camera in use",
    "in use by another process",
    "returned unexpected code: -16",
    "[errno 16]",
)
STOP_THE_SERVICE = (
    "the camera is in use by another program, most likely the bluffcam service: stop it "
    "with `sudo systemctl stop bluffcam` (start it again afterwards with "
    "`sudo systemctl start bluffcam`)"
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and those it was raised from or during, outermost first, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _text(exc: BaseException) -> str:
    return " | ".join(f"{type(e).__name__}: {e}" for e in _chain(exc))


def is_numpy_abi_mismatch(exc: BaseException) -> bool:
    """A module compiled for numpy 1.x failed to import under numpy 2 (or the reverse)."""
    text = _text(exc)
    return any(sign in text for sign in NUMPY_ABI_SIGNS)


def picamera2_import_problem(exc: BaseException) -> str:
    """Why ``import picamera2`` failed and what to do, for any exception it raised."""
    if is_numpy_abi_mismatch(exc):
        return f"picamera2 cannot be imported: {NUMPY_ABI_FIX}. Import error: {exc}"
    missing = next((e for e in _chain(exc) if isinstance(e, ModuleNotFoundError)), None)
    if missing is not None and missing.name == "libcamera":
        return ("picamera2 cannot be imported: libcamera's Python bindings are missing: "
                "`sudo apt install python3-picamera2` brings them (python3-libcamera), and "
                "the venv must see system packages (`python3 -m venv "
                "--system-site-packages .venv`; ./run makes it so). Import error: "
                f"{exc}")
    if missing is not None and missing.name in ("picamera2", None):
        return f"{PICAMERA2_MISSING_FIX}. Import error: {exc}"
    return f"picamera2 cannot be imported ({type(exc).__name__}: {exc}); {PICAMERA2_MISSING_FIX}"


def is_camera_busy(exc: BaseException) -> bool:
    """Whether the failure says another process holds the camera (EBUSY, libcamera's
    "Pipeline handler in use by another process")."""
    if any(isinstance(e, OSError) and e.errno == 16 for e in _chain(exc)):
        return True
    text = _text(exc).lower()
    return any(sign in text for sign in BUSY_SIGNS)


def picamera2_open_problem(spec: str, exc: BaseException) -> str:
    """Why ``Picamera2()`` failed: busy (stop the service) or no camera (check the cable)."""
    if is_camera_busy(exc):
        return f"{spec}: {STOP_THE_SERVICE} ({exc})"
    return (f"{spec}: no camera found ({type(exc).__name__}: {exc}); check the ribbon cable "
            "(a Pi 5 needs the 22-pin one) and `rpicam-hello --list-cameras`")


def device_holders(device: str | os.PathLike[str], *, proc: Path = Path("/proc"),
                   me: int | None = None) -> list[str]:
    """``"NAME (pid N)"`` for each other process with ``device`` open, as far as /proc lets
    this user see (all of them as root, one's own processes otherwise). OpenCV says only
    that it could not open a webcam; this tells a busy one from a missing one."""
    target = os.path.realpath(device)
    me = os.getpid() if me is None else me
    holders = []
    try:
        entries = list(proc.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # gone, or another user's
            continue
        for fd in fds:
            try:
                if os.path.realpath(os.readlink(fd)) == target:
                    name = (entry / "comm").read_text(encoding="utf-8").strip()
                    holders.append(f"{name} (pid {entry.name})")
                    break
            except OSError:
                continue
    return holders


def opencv_open_problem(spec: str, index: int, holders: list[str]) -> str:
    """Why ``opencv:INDEX`` did not open: held by another process, or not there."""
    words = opencv_open_words(spec, holders)
    if words is None:
        return (f"{spec}: /dev/video{index} is held by {', '.join(holders)}; "
                f"{STOP_THE_SERVICE}")
    return f"{words} (`ls /dev/video*`)"


def opencv_open_words(spec: str, holders: list[str]) -> Words | None:
    """`opencv_open_problem` as words for the players, less its command (the board never
    shows one); None for a webcam another program holds, which only whoever runs the table
    can free (said as it is)."""
    if holders:
        return None
    return said("{camera}: could not open the camera; is the webcam plugged in, and is the "
                "index right?", camera=spec)


def main() -> int:
    """``python -m hardware.camera_errors``: import picamera2 here; print why not, and exit 1.
    ./run calls it after setting the venv up."""
    try:
        importlib.import_module("picamera2")
    except Exception as exc:  # ValueError from simplejpeg as much as ImportError
        print(picamera2_import_problem(exc), file=sys.stderr)
        return 1
    print("picamera2 imports in this Python")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
