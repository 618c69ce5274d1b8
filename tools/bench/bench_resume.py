"""Resume benchmark: how long a table with a long history takes to start.

    .venv/bin/python tools/bench/bench_resume.py                  # 1,700 and 30,000 records
    .venv/bin/python tools/bench/bench_resume.py --records 5000 --games 250

Makes a data folder like one after months of play: a journal of ``--games`` games and
``--records`` reveal records spread over the earlier ones (each a copy of a record the table
itself wrote for a camera reveal, renumbered), then the current game, at a pending review of
its second reveal. Times `bluffcam.table.Table` opening it (the journal read and replayed,
the records linked, tonight's games replayed) and checks the review came back. Prints
figures; asserts nothing else. Nothing outside a temporary folder is written.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from bluffcam.table import Table
from bluffcam.table.vision_bridge import RevealReading
from engine import Journal

SETUP = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
         "options": {"dice_per_player": 2}}
HANDS = {"Ann": [3, 5], "Ben": [4, 6]}


class _Camera:
    spec = "bench:"
    status = "ok"

    def frames(self) -> Iterator[Any]:
        yield from (np.zeros((48, 64, 3), np.uint8) for _ in range(3))


def _reading(sure: bool) -> RevealReading:
    seats = {name: [{"value": v, "x": 10.0 * i, "y": 5.0, "confidence": 0.97 if sure else 0.3}
                    for i, v in enumerate(values)] for name, values in HANDS.items()}
    problems = [] if sure else [{"kind": "uncertain", "seat": "Ann", "x": 0.0, "y": 5.0,
                                 "message": "Ann: die 0 uncertain"}]
    return RevealReading(seats, {}, problems, not sure, b"\xff\xd8fake\xff\xd9", [], 3)


def _to_reveal(table: Table) -> None:
    table.submit({"player": "Ann", "bid": "1x2"})
    table.submit({"player": "Ben", "challenge": True})


def make_history(data: Path, records: int, games: int) -> None:
    """A journal of ``games`` games whose last one waits on a review, and ``records``
    records of earlier games."""
    sure = [True]
    table = Table(data / "journal.sqlite", camera=_Camera(), data_dir=data,
                  reveal_reader=lambda frames, expected: _reading(sure[0]))
    table.new_game(SETUP)
    _to_reveal(table)
    table.capture_reveal()  # applied: the template record
    template = table.reveals.load("r1")
    table.close()
    with Journal(data / "journal.sqlite") as journal:
        for _ in range(games - 2):
            journal.start(SETUP, [{"player": "Ann", "bid": "1x2"}])
    folder = data / "reveals"
    for n in range(2, records + 1):
        record = {**template, "id": f"r{n}", "game": 1 + (n * (games - 2)) // (records + 1)}
        (folder / f"r{n}.json").write_text(json.dumps(record, indent=1, sort_keys=True))
    table = Table(data / "journal.sqlite", camera=_Camera(), data_dir=data,
                  reveal_reader=lambda frames, expected: _reading(sure[0]))
    table.new_game(SETUP)  # the current game: one reveal applied, the next one held
    _to_reveal(table)
    table.capture_reveal()
    bidder = str(table.game.turn) if table.game is not None else "Ann"
    table.submit({"player": bidder, "bid": "1x3"})
    table.submit({"player": "Ben" if bidder == "Ann" else "Ann", "challenge": True})
    sure[0] = False
    table.capture_reveal()
    table.close()


def time_resume(data: Path, repeats: int) -> list[float]:
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        table = Table(data / "journal.sqlite", data_dir=data)
        seconds.append(time.perf_counter() - started)
        assert table.review is not None, "the pending review did not come back"
        table.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, action="append",
                        help="reveal records of earlier games (repeatable; default 1700, 30000)")
    parser.add_argument("--games", type=int, default=0,
                        help="games in the journal (default: one for every 6 records)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{platform.node()} · {platform.processor() or platform.machine()} · "
          f"Python {platform.python_version()}", flush=True)
    for records in args.records or [1700, 30000]:
        games = args.games or max(3, records // 6)
        with tempfile.TemporaryDirectory(prefix="bench-resume-") as folder:
            make_history(Path(folder), records, games)
            seconds = time_resume(Path(folder), args.repeats)
        print(f"{records:>6} records, {games:>5} games: resume median "
              f"{statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
