"""`bluffcam serve`: the real table — camera, buttons, rules engine and dashboard.

The journal lives in ``--data`` (default: the user's data directory), so stopping and
starting again resumes the game exactly. Hardware is opened here, once, never in the Flask
app factory: no reloader is used, so nothing is opened twice. One server per data folder:
a second `serve` on a folder in use exits at once (see `lock_data_folder`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import functools
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bluffcam.photo_budget import DEFAULT_KEEP_MB, MB, low_space_said, prune_photos
from engine.words import DEFAULT_LANGUAGE, LANGUAGES, said

DEFAULT_PORT = 8080
#: the exit status for a profile that is missing or wrong (sysexits' EX_CONFIG): no restart
#: heals it, so deploy/bluffcam.service names it in RestartPreventExitStatus=
EXIT_CONFIG = 78
#: in the data folder: locked (flock) by the `serve` using the folder, with its pid inside
LOCK_NAME = "serve.lock"
#: the longest `serve` waits for the panel's thread to end as it stops (it polls every 0.1 s)
PANEL_STOP_S = 2.0


class DataFolderInUse(Exception):
    """Another process (another `serve`) holds the data folder's lock."""


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/bluffcam`` or ``~/.local/share/bluffcam``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "bluffcam"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from web.server import port

    parser.add_argument("--profile", metavar="FILE",
                        help="table calibration profile (TOML): seat zones, reader, panel wiring")
    parser.add_argument("--camera", metavar="SPEC",
                        help="picamera2[:WxH], opencv:<index|url> or files:<dir> "
                             "(default: the profile's camera; none without a profile; "
                             "'none': no camera)")
    parser.add_argument("--gpio", choices=("real", "mock", "none"), default="none",
                        help="button panel: real GPIO pins, gpiozero mock pins, or none "
                             "(default: none)")
    parser.add_argument("--data", metavar="DIR", type=Path, default=None,
                        help=f"journal and reveal photos (default: {default_data_dir()})")
    parser.add_argument("--host", default="0.0.0.0",
                        help="address to listen on (default: 0.0.0.0, the whole LAN)")
    parser.add_argument("--port", type=port, default=DEFAULT_PORT,
                        help=f"port (default: {DEFAULT_PORT})")
    parser.add_argument("--keep-photos", metavar="MB", type=megabytes, default=DEFAULT_KEEP_MB,
                        help="reveal photos to keep, in megabytes: the oldest reveals' go "
                             "first, and sooner when the disk is nearly full (default: "
                             f"{DEFAULT_KEEP_MB}: about 5,000 reveals of 1280 x 960)")
    parser.add_argument("--pin", default=None,
                        help="table PIN for changes (default: $BLUFFCAM_PIN, else a new "
                             "random one, shown on the board)")
    parser.add_argument("--lang", choices=tuple(LANGUAGES), default=None,
                        help="the dashboard's language where a phone or screen has not picked "
                             "one (default: the profile's lang, else en)")
    parser.add_argument("--allow-host", metavar="NAME", action="append", default=[],
                        help="a name the dashboard is opened by, besides its addresses, "
                             "localhost and this machine's name (.local, .lan …), e.g. a "
                             "name given by a router; repeat for more "
                             "(also $BLUFFCAM_ALLOW_HOSTS, space-separated)")
    parser.add_argument("--no-relearn", dest="relearn", action="store_false",
                        help="do not learn the profile again by itself after reviews people "
                             "confirmed (default: it does, every 5, where the profile file "
                             "may be written)")


def lock_data_folder(data_dir: Path) -> int:
    """Hold ``<data>/serve.lock`` exclusively while this process lives; returns the open
    descriptor (closing it lets the folder go).

    Two servers on one folder would each acknowledge actions, and the journal would keep
    only a mix of the two games. The kernel drops the lock with the process however it ends
    (SIGKILL, a power cut), so a crash never leaves the folder locked; the pid in the file
    only names the holder. Raises `DataFolderInUse`, or `OSError` where the folder cannot
    hold a lock at all.
    """
    path = data_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a read-only folder: lock the file an earlier start made there
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(fd)
        os.close(fd)
        raise DataFolderInUse(
            f"data folder {data_dir} is in use by another bluffcam serve{holder}: stop it, "
            "or give this one another --data") from None
    except BaseException:
        os.close(fd)
        raise
    with contextlib.suppress(OSError):  # a read-only lock file keeps the last holder's pid
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _lock_holder(fd: int) -> str:
    """`` (pid N)`` from the lock file, where the holder wrote it."""
    try:
        pid = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, ValueError):
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""


def open_camera_for(spec: str | None, resolution: tuple[int, int] | None = None, *,
                    lens_position: float | None = None) -> tuple[Any, Any]:
    """A camera that survives faults (its status shows on the board), or None, and its
    first frame (None where it gave none); asked for ``resolution`` (the profile's: its
    zones are in those pixels) where the spec names none. A spec no camera could answer to
    is a `CameraError` at once, not retried for ever."""
    if not spec or spec.strip().lower() == "none":
        return None, None
    from hardware.cameras import ResilientCamera, check_spec, open_camera

    check_spec(spec)
    camera = ResilientCamera(spec, opener=functools.partial(open_camera, resolution=resolution,
                                                            hold_last=True,
                                                            lens_position=lens_position))
    return camera, camera.read()  # opened now, so the board shows "ok" or why not at once


def frame_size_problem(frame: Any, profile: Any) -> str | None:
    """Why the profile's zones do not fit the camera's first frame (another size than they
    were fitted on), or None: said at start, not first at the first reveal."""
    if frame is None or profile is None:
        return None
    from calibration import ProfileError

    try:
        profile.zones.for_frame(frame)
    except ProfileError as exc:
        return str(exc)
    return None


#: how often `watch_camera` looks at a live camera between reveals
CAMERA_WATCH_S = 5.0


def watch_camera(table: Any, stop: threading.Event, every_s: float = CAMERA_WATCH_S) -> None:
    """Read a frame from the table's live camera every ``every_s``, so that the board says
    "camera offline" when it dies (not first at the next reveal) and the camera is reopened
    in the background once it is back. A recorded camera (``files:``) is not watched: each
    read would use up a frame of the recording."""
    from bluffcam.camera_news import CAMERA_TOPIC, camera_summary, camera_summary_said
    from hardware.cameras import is_recording

    last = table.camera_status()
    while not stop.wait(every_s):
        camera = table.camera
        if camera is None or is_recording(str(getattr(camera, "spec", ""))):
            continue
        table.snapshot()
        now = table.camera_status()
        if now != last:  # one banner that updates, never a new one at each retry
            table.note((camera_summary_said(camera) or camera_summary(now)) if now != "ok"
                       else said("camera back: reading again"),
                       "warning" if now != "ok" else "info", topic=CAMERA_TOPIC)
            last = now


#: how often `keep_photos` looks at the reveal photos (a minute's reveals take about 2 MB)
PHOTO_CHECK_S = 60.0
#: while the disk stays nearly full, the board's warning is said again every this many
#: looks (ten minutes): the board shows a message for two minutes, and a disk that filled
#: overnight must still be news when the players come
LOW_SPACE_REPEAT = 10


def keep_photos(table: Any, keep_bytes: int, stop: threading.Event,
                every_s: float = PHOTO_CHECK_S) -> None:
    """Keep the reveal photos within ``keep_bytes`` and the disk from filling, now and every
    ``every_s`` (`bluffcam.photo_budget`); say on the board when the disk is nearly full
    all the same, and when it has room again."""
    short = False
    passes = 0
    while True:
        try:
            pruned = prune_photos(table.reveals.folder, keep_bytes, table.reveals_in_use())
        except OSError as exc:  # the folder gone or unreadable: the table says so elsewhere
            print(f"bluffcam serve: cannot look at the reveal photos: {exc}", file=sys.stderr)
        else:
            if pruned.removed or passes == 0:  # and once at the start, for the host's log
                print(f"bluffcam serve: reveal photos: {pruned.kept / MB:.0f} MB kept of "
                      f"{keep_bytes / MB:.0f} MB"
                      + (f", {pruned.removed} old ones removed ({pruned.freed / MB:.0f} MB)"
                         if pruned.removed else "")
                      + f"; {pruned.free / MB:,.0f} MB free on the disk", flush=True)
            if pruned.short_of_space and (not short or passes % LOW_SPACE_REPEAT == 0):
                table.note(low_space_said(pruned), "warning")  # said again while it lasts
                short, passes = True, 0
            elif short and pruned.roomy:
                table.note(said("the data folder's disk has room again"), "info")
                short = False
            passes += 1
        if stop.wait(every_s):
            return


def megabytes(text: str) -> int:
    """argparse's ``type`` for ``--keep-photos``: a whole number of megabytes, 0 or more."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number of megabytes, 0 or more "
                                         f"(0 keeps only the photos on show), got {text!r}")
    return number


def open_panel_for(mode: str, profile: Any) -> Any:
    """The GPIO button panel for ``--gpio`` (None for ``none``), opened as `panel-test` opens
    it and before the camera and the journal, so that bad wiring or a machine without GPIO
    pins stops `serve` having changed nothing; raises `PanelOpenError` saying which."""
    if mode == "none":
        return None
    from bluffcam.commands.panel_test import open_panel

    overrides = dict(getattr(profile, "panel", {}) or {})
    panel, _ = open_panel(overrides, mock=mode == "mock",
                          no_gpio_hint="off a Pi use --gpio mock or --gpio none")
    return panel


def start_panel(panel: Any, table: Any) -> Callable[[], None]:
    """The panel's controller thread, turning presses into the table's actions; call the
    function returned to stop it. It returns once the thread has ended, so the panel can be
    closed then: closed under a thread that is lighting a seat LED, gpiozero raised."""
    from bluffcam.panel_controller import PanelController

    controller = PanelController(table, panel, on_message=lambda text: table.note(text))
    stop = threading.Event()
    thread = threading.Thread(target=controller.run, args=(stop,), name="panel", daemon=True)
    thread.start()

    def stop_panel() -> None:
        stop.set()
        thread.join(timeout=PANEL_STOP_S)

    return stop_panel


def table_language(args: argparse.Namespace, profile: Any) -> str:
    """--lang, else the profile's ``lang``, else English: the dashboard's language for a
    device that has not picked one (web.i18n)."""
    return str(getattr(args, "lang", None) or getattr(profile, "lang", None) or DEFAULT_LANGUAGE)


#: what `serve` and `demo` say of a --pin of spaces
EMPTY_PIN = "--pin is empty: give a PIN, or leave --pin out for a random one"


def empty_pin(pin: str | None) -> bool:
    """Whether --pin was given with nothing in it (a PIN of spaces no one could type)."""
    return pin is not None and not pin.strip()


def load_reader(profile: Any) -> str | None:
    """Read the dice reader's networks now, not at the first reveal (which then takes its
    usual time); the problem in words where they cannot be read, else ``None``."""
    from vision import ReaderParams, load_networks

    try:
        load_networks(profile.reader_params if profile is not None else ReaderParams())
    except Exception as exc:  # missing, truncated or not a model (ONNX Runtime, OpenCV errors)
        return f"the dice reader cannot start: {exc}"
    return None


def run(args: argparse.Namespace) -> int:
    data_dir: Path = args.data or default_data_dir()
    if data_dir.exists() and not data_dir.is_dir():
        print(f"bluffcam serve: --data {data_dir} is a file, not a folder: give a folder "
              "(it is made if missing)", file=sys.stderr)
        return 2
    if empty_pin(args.pin):
        print(f"bluffcam serve: {EMPTY_PIN}", file=sys.stderr)
        return 2
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        folder_lock = lock_data_folder(data_dir)  # before the panel, camera and journal
    except DataFolderInUse as exc:
        print(f"bluffcam serve: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"bluffcam serve: cannot use data folder {data_dir}: {exc}", file=sys.stderr)
        return 2
    try:
        return _serve(args, data_dir)
    finally:
        os.close(folder_lock)


def _serve(args: argparse.Namespace, data_dir: Path) -> int:
    """`run` with the data folder locked: open the profile, panel, camera and table, serve."""
    from bluffcam.commands.panel_test import PanelOpenError
    from bluffcam.table.opening import JournalUnavailable, open_table
    from web import allowed_hosts, create_app
    from web.join import phones_can_reach
    from web.server import make_dashboard_server, serve_until_interrupted, urls

    profile = None
    if args.profile:
        from bluffcam.profile_wiring import checked_panel
        from calibration import ProfileError, load_profile

        try:
            profile = load_profile(args.profile)
            checked_panel(profile)  # with --gpio none too: the file is wrong all the same
        except (OSError, ProfileError) as exc:
            print(f"bluffcam serve: {exc}", file=sys.stderr)
            return EXIT_CONFIG
    try:
        panel = open_panel_for(args.gpio, profile)
    except PanelOpenError as exc:
        print(f"bluffcam serve: {exc}", file=sys.stderr)
        return 2
    from hardware.cameras import CameraError

    try:
        camera, first_frame = open_camera_for(
            args.camera or (profile.camera if profile else None),
            profile.resolution if profile else None,
            lens_position=profile.lens_position if profile else None)
    except CameraError as exc:
        print(f"bluffcam serve: {exc}", file=sys.stderr)
        if panel is not None:
            panel.close()
        return 2
    try:
        table = open_table(data_dir, camera, profile)
    except JournalUnavailable as exc:
        print(f"bluffcam serve: {exc}", file=sys.stderr)
        if panel is not None:
            panel.close()
        if camera is not None:
            camera.close()
        return 2
    # --pin, else $BLUFFCAM_PIN (the deploy's env file), else create_app makes one
    pin = args.pin if args.pin is not None else os.environ.get("BLUFFCAM_PIN", "").strip() or None
    app = create_app({"TABLE_PIN": pin, "DATA_DIR": str(data_dir),
                      "ALLOWED_HOSTS": allowed_hosts(args.host, args.allow_host),
                      "PHONES_CAN_JOIN": phones_can_reach(args.host),
                      "PHOTO_BUDGET_MB": args.keep_photos,
                      "LANGUAGE": table_language(args, profile)}, table=table)
    try:
        server = make_dashboard_server(app, args.host, args.port)
    except OSError as exc:
        print(f"bluffcam serve: cannot listen on {args.host}:{args.port}: {exc}",
              file=sys.stderr)
        if panel is not None:
            panel.close()
        if camera is not None:
            camera.close()
        table.close()
        return 2
    stop_panel = start_panel(panel, table) if panel is not None else None
    from bluffcam.relearning import start_relearning

    relearner = start_relearning(table, profile, wanted=getattr(args, "relearn", True))
    watch_stop = threading.Event()
    threading.Thread(target=watch_camera, args=(table, watch_stop),
                     name="camera-watch", daemon=True).start()
    if camera is not None and camera.status != "ok":
        from bluffcam.camera_news import camera_status_said

        table.note(camera_status_said(camera) or camera.status, "warning")
    size_problem = frame_size_problem(first_frame, profile)
    if size_problem is not None:
        table.note(size_problem, "warning")
        print(f"bluffcam serve: warning: {size_problem}", file=sys.stderr)
    reader_problem = load_reader(profile) if camera is not None else None
    if reader_problem is not None:
        table.note(reader_problem, "warning")

    print(f"bluffcam: journal {data_dir / 'journal.sqlite'}"
          f"{' (resumed)' if table.game is not None else ''}")
    print(f"camera: {table.camera_status()}   panel: {args.gpio}")
    for url in urls(args.host, server.server_port):
        print(f"dashboard: {url}   (control: {url}control)")
    print(f"table PIN: {app.config['TABLE_PIN']}", flush=True)
    threading.Thread(target=keep_photos, args=(table, args.keep_photos * MB, watch_stop),
                     name="photo-budget", daemon=True).start()  # its first line after these

    def stop() -> None:
        watch_stop.set()
        if relearner is not None:
            relearner.close()
        stop_table(table, stop_panel, panel, camera)

    return serve_until_interrupted(server, on_stop=stop)


def stop_table(table: Any, stop_panel: Callable[[], None] | None, panel: Any,
               camera: Any) -> None:
    """Close what `serve` opened, in the one order that lets each part end cleanly. The
    table first: a reading under way (a panel's OK, a phone's capture) takes no more frames
    and ends, so the panel's thread, waiting on it, ends before its pins are closed (closed
    under it, gpiozero raised as the reading's result was shown), and a closed camera is
    not opened again by that reading."""
    table.close()
    if stop_panel is not None:
        stop_panel()
    if panel is not None:
        panel.close()
    if camera is not None:
        camera.close()
