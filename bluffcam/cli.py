"""The `bluffcam` console script: a thin dispatcher over one module per subcommand.

Subcommand modules are imported only when chosen, so `bluffcam replay` never pays for
OpenCV or Flask, and a broken optional part cannot stop the others from running.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

#: name -> (module under bluffcam.commands, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "play a recorded game on the dashboard (no Pi, camera or buttons needed)"),
    "serve": ("serve", "run the table: camera, buttons, rules engine and dashboard"),
    "replay": ("replay", "apply a game script (JSON) and print the resulting state"),
    "selfplay": ("selfplay", "pit the computer player's levels against each other and "
                 "baselines; print win rates"),
    "read": ("read", "read the dice in photos and print one JSON line per image"),
    "bench-vision": ("bench_vision", "measure the dice reader on a labelled photo manifest"),
    "export-reveals": ("export_reveals", "write a table's settled reveals as labelled photos "
                       "for bench-vision"),
    "adapt": ("adapt", "teach a table profile its own reader from labelled photos of the table"),
    "calibrate": ("calibrate", "grab a frame and write a table calibration profile"),
    "panel-test": ("panel_test", "print button presses and light each seat LED"),
}


def _load(module_name: str) -> ModuleType:
    return importlib.import_module(f"bluffcam.commands.{module_name}")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="bluffcam", description="A table companion for bluffing dice games."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = args_list[0] if args_list else None
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.set_defaults(_module=module_name)
        if name == chosen:
            _load(module_name).add_arguments(sub_parser)
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    return int(_load(args._module).run(args))


if __name__ == "__main__":
    raise SystemExit(main())
