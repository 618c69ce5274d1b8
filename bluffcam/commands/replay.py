"""`bluffcam replay SCRIPT.json`: apply a game script and print the resulting state as JSON.

Exit 0 when every action applied, 2 when the setup or an action was refused (the output then
has an ``"error"`` object and the state as it was before the refused action), 1 for a bug.
The script format is the game export the dashboard offers; see docs/engine.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from typing import Any

EXIT_BUG = 1
EXIT_REFUSED = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("script", metavar="SCRIPT.json", help="the game script ('-' reads stdin)")
    parser.add_argument(
        "--history", action="store_true", help="also print each finished round's verdict"
    )


def _read(path: str) -> Any:
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _refused(message: str) -> int:
    output = {"error": {"index": None, "rule": "format", "message": f"{message} (format)"}}
    print(json.dumps(output, ensure_ascii=False))
    return EXIT_REFUSED


def run(args: argparse.Namespace) -> int:
    from engine import run_script
    from engine.game import game_from_setup

    try:
        script = _read(args.script)
    except OSError as error:
        return _refused(f"cannot read {args.script}: {error.strerror or error}")
    except (ValueError, UnicodeDecodeError) as error:
        return _refused(f"{args.script} is not JSON: {error}")
    except RecursionError:
        return _refused(f"{args.script} is nested too deeply to be a game script")
    try:
        output, code = run_script(script)
        if args.history and "players" in output:
            game = game_from_setup(script)
            for obj in script.get("actions", [])[: output.get("error", {}).get("index")]:
                game.apply_json(obj)
            output["history"] = [entry.to_json() for entry in game.history]
    except Exception:  # a bug in the engine, not a refused input
        traceback.print_exc()
        return EXIT_BUG
    print(json.dumps(output, ensure_ascii=False))
    return code
