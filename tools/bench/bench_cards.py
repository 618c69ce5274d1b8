"""Time the card reader on the rendered card photos and print the figures (no asserts).

.venv/bin/python -m tools.bench.bench_cards [--repeat 3] [--data tests/data/cards]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from tools.cards.__main__ import DEFAULT_OUT
from vision.card_library import CardLibrary
from vision.card_types import CardReaderParams
from vision.cards import read_cards
from vision.io import load_image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="time read_cards on rendered photos")
    parser.add_argument("--data", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    truth = json.loads((args.data / "truth.json").read_text(encoding="utf-8"))
    params = CardReaderParams()
    start = time.perf_counter()
    library = CardLibrary.from_directory(args.data / "register", params)
    print(f"register {len(library.kinds)} kinds: {time.perf_counter() - start:.3f} s")
    correct = 0
    for name, scene in sorted(truth["scenes"].items()):
        frame = load_image(args.data / scene["file"])
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            reading = read_cards(frame, library, params)
            times.append(time.perf_counter() - start)
        want = Counter(c["kind"] for c in scene["cards"] if c["face_up"])
        ok = Counter(reading.kinds()) == want and len(reading.cards) == len(scene["cards"])
        correct += ok
        print(
            f"{name:24s} {frame.shape[1]}x{frame.shape[0]}  median {statistics.median(times):.3f} s"
            f"  cards {len(reading.cards)}  {'ok' if ok else 'WRONG'}"
        )
    print(f"{correct}/{len(truth['scenes'])} scenes read exactly")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
