"""`bluffcam demo`: the dashboard playing a recorded game — no Pi, camera or buttons needed.

A temporary journal, the recorded frames in ``bluffcam/recordings/demo`` as the camera, the
button panel simulated on gpiozero mock pins, and the rounds the camera is unsure of (or the
recording contradicts) shown going through review. ``--headless`` plays the game through
without a web server, prints each round's reading and verdict, and exits 0 when the game
ended as the engine says it must.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from bluffcam.photo_budget import prune_photos
from engine.words import LANGUAGES, said

DEFAULT_PORT = 8080
#: seconds between two demo games in the browser demo (the game starts again)
PAUSE_BETWEEN_GAMES_S = 20.0


def positive_speed(text: str) -> float:
    """argparse's ``type`` for ``--speed``: a finite number above 0, refused at the command
    line rather than quietly played at some other speed."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number such as 2 or 0.5, got {text!r}") \
            from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0 (2 plays twice as fast), got {text!r}")
    return value


def play_on(player: Any, table: Any, stop: threading.Event, *, speed: float,
            once: bool) -> None:
    """Play the recorded game again and again (once with ``once``) until ``stop`` is set,
    pausing between games; a failure is shown on the dashboard rather than ending it. The
    pause's note names the pause as played at ``speed`` and belongs to the game just ended,
    so the board drops it when the next game starts."""
    pause = PAUSE_BETWEEN_GAMES_S / speed
    while not stop.is_set():
        try:
            player.play(stop)
        except Exception as exc:  # keep the dashboard up and say what went wrong
            table.note(said("demo stopped: {error}", error=str(exc)), "error")
            print(f"demo stopped: {exc}", file=sys.stderr, flush=True)
            return
        if once or stop.is_set():
            return
        # the earlier games' photos: a demo left on a TV all day kept 3.4 MB a game, in a
        # temporary folder that may be memory (tmpfs)
        prune_photos(table.reveals.folder, 0, table.reveals_in_use())
        table.note(said("demo: the game starts again in {seconds} s", seconds=round(pause)),
                   about_game=True)
        stop.wait(pause)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from web.server import port

    parser.add_argument("--port", type=port, default=DEFAULT_PORT,
                        help=f"dashboard port (default: {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1; 0.0.0.0 for the LAN)")
    parser.add_argument("--speed", type=positive_speed, default=1.0,
                        help="play faster (2) or slower (0.5) than a real table (default: 1)")
    parser.add_argument("--headless", action="store_true",
                        help="no dashboard: play the game through, print each round, exit")
    parser.add_argument("--once", action="store_true",
                        help="with the dashboard: play the game once, do not start it again")
    parser.add_argument("--recording", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--pin", default=None, help="table PIN (default: a random one)")
    parser.add_argument("--lang", choices=tuple(LANGUAGES), default=None,
                        help="the dashboard's language where a browser has not picked one "
                             "(default: en)")


def _load(args: argparse.Namespace) -> tuple[Any, Any]:
    from bluffcam.demo_player import DEMO_RECORDING, load_recording
    from calibration import load_profile

    recording = load_recording(args.recording or DEMO_RECORDING)
    profile_path = recording.profile_path or Path(__file__).resolve().parents[2] / \
        "calibration" / "demo.toml"
    profile = load_profile(profile_path)
    return recording, profile


def run(args: argparse.Namespace) -> int:
    from bluffcam.commands.serve import EMPTY_PIN, empty_pin
    from bluffcam.demo_player import RecordingError

    if empty_pin(args.pin):  # as serve refuses it
        print(f"bluffcam demo: {EMPTY_PIN}", file=sys.stderr)
        return 2
    try:
        recording, profile = _load(args)
    except (RecordingError, OSError, ValueError) as exc:
        print(f"bluffcam demo: the recorded game cannot be loaded: {exc}", file=sys.stderr)
        return 2
    from bluffcam.commands.serve import load_reader

    problem = load_reader(profile)  # now, so the first reveal takes its usual time
    if problem is not None:
        print(f"bluffcam demo: {problem}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bluffcam-demo-") as data:
        if args.headless:
            return _headless(recording, profile, Path(data))
        return _dashboard(recording, own_copy(profile, Path(data)), Path(data), args)


def own_copy(profile: Any, data: Path) -> Any:
    """The demo's profile as a file in the demo's temporary folder: fitting the zones again on
    the calibration page rewrites that copy, never the shipped calibration/demo.toml."""
    from calibration import load_profile, save_profile

    return load_profile(save_profile(profile, data / "profile.toml"))


def _headless(recording: Any, profile: Any, data: Path) -> int:
    from bluffcam.demo_player import DemoPlayer
    from bluffcam.table import Table

    table = Table(data / "journal.sqlite", None, profile, data_dir=data)
    script = recording.script
    print(f"bluffcam demo (headless): {script.get('game')} with {', '.join(script['players'])}"
          f" — {len(recording.reveals)} recorded reveals", flush=True)
    player = DemoPlayer(table, recording, step_s=0.0, review_pause_s=0.0,
                        report=lambda r: print(r.line(), flush=True),
                        narrate=lambda text: print(text, flush=True))
    try:
        player.play()
        told = told_outcome(table, script, player.rounds)
    finally:
        player.close()
        table.close()
    return 0 if told else 1


def told_outcome(table: Any, script: dict[str, Any], rounds: list[Any]) -> bool:
    """Print how the played game ended (its summary), or a FAIL where it did not end as the
    engine says the recording must; whether it did."""
    from bluffcam.demo_player import expected_outcome

    # the game as played, replayed: `export` reads it under the table's lock (the web
    # server may act meanwhile)
    final = expected_outcome(table.export()) if table.game is not None else None
    expected = expected_outcome(script)
    if final is None or final != expected:
        print(f"FAIL: the played game ended as {final}, the engine says {expected}",
              file=sys.stderr, flush=True)
        return False
    print(game_summary(rounds, final), flush=True)
    return True


def game_summary(rounds: list[Any], final: dict[str, Any]) -> str:
    """The last line of a demo game, once it ended as the engine says the recording ends."""
    reviewed = sum(1 for r in rounds if r.settled.startswith("needs review"))
    ending = f"game over: {final['winner']} wins" if final.get("winner") else "recording ends"
    return (f"{ending} — {len(rounds)} reveals, {reviewed} needed review, "
            "none adjudicated on a misread")


class _ToldGames:
    """The dashboard demo's player, each game told on the terminal as the headless demo
    tells it: a line as it begins, its summary (or a FAIL) as it ends."""

    def __init__(self, player: Any, table: Any) -> None:
        self.player, self.table, self.games = player, table, 0

    def play(self, stop: threading.Event) -> None:
        self.games += 1
        script = self.player.recording.script
        print(f"game {self.games}: {script.get('game')} with {', '.join(script['players'])}",
              flush=True)
        self.player.play(stop)
        if not stop.is_set():
            told_outcome(self.table, script, self.player.rounds)


def _dashboard(recording: Any, profile: Any, data: Path, args: argparse.Namespace) -> int:
    from bluffcam.commands.serve import table_language
    from bluffcam.demo_player import DemoPlayer
    from bluffcam.table import Table
    from web import allowed_hosts, create_app
    from web.join import phones_can_reach
    from web.server import make_dashboard_server, serve_until_interrupted, urls

    table = Table(data / "journal.sqlite", None, profile, data_dir=data)
    app = create_app({"TABLE_PIN": args.pin, "DATA_DIR": str(data),
                      "ALLOWED_HOSTS": allowed_hosts(args.host),
                      "PHONES_CAN_JOIN": phones_can_reach(args.host),
                      "LANGUAGE": table_language(args, profile)}, table=table)
    try:
        server = make_dashboard_server(app, args.host, args.port, log_requests=False)
    except OSError as exc:
        print(f"bluffcam demo: cannot listen on {args.host}:{args.port}: {exc} "
              "(try --port 0)", file=sys.stderr)
        table.close()
        return 2
    stop = threading.Event()
    player = DemoPlayer(table, recording, speed=args.speed,
                        report=lambda r: print(r.line(), flush=True),
                        narrate=lambda text: print(text, flush=True))

    def loop() -> None:
        stop.wait(2.0 / args.speed)  # a moment to open the browser
        play_on(_ToldGames(player, table), table, stop, speed=args.speed, once=args.once)

    thread = threading.Thread(target=loop, name="demo-player", daemon=True)
    thread.start()
    print("bluffcam demo: a recorded game on the dashboard (Ctrl+C to stop)")
    for url in urls(args.host, server.server_port):
        print(f"  board:   {url}\n  control: {url}control\n  review:  {url}review")
    print(f"  table PIN: {app.config['TABLE_PIN']}", flush=True)

    def on_stop() -> None:
        stop.set()
        thread.join(timeout=5)
        player.close()
        table.close()

    return serve_until_interrupted(server, on_stop=on_stop)
