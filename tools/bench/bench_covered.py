"""How reveals fare with something lying over part of a die: the demo's rounds with fingers,
hands, sleeves, cups and cards drawn over (or beside) each die in turn.

Dev-time only. Run from the repository root:

    .venv/bin/python -m tools.bench.bench_covered

For each of the recorded demo's reveals (``bluffcam/recordings/demo``: rendered by the
project, with the true dice beside them) it takes the still frame, draws one occluder at a
time near one die (``tools.render.occluders``), and runs the reveal (``vision.reveal
.capture_reveal``, the demo's profile, the engine's expected hands). Each case ends one of
three ways: the verdict would be applied on a right reading, applied on a wrong one (the
silent misread the cover check is for), or sent to review. It prints each count with the
cover check and without (the same reading, its "covered" problems set aside), for dice
partly hidden (``--reach`` below 0.5) and for occluders that only lie beside a die.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration import load_profile
from engine import Game
from tools.render.occluders import KINDS, hidden_share, occlude
from vision.io import load_image
from vision.reveal import capture_reveal

#: the recorded demo game (its frames rendered by the project, with their truth)
DEMO = Path(__file__).resolve().parents[2] / "bluffcam" / "recordings" / "demo"


def game_before(script: dict[str, Any], action_index: int) -> Game:
    """The recorded game (``game.json``) as it stood before action ``action_index``: the
    engine's expected hands and seating at that reveal."""
    return Game.from_script(dict(script, actions=list(script["actions"])[:action_index]))


def still_frame(entry: dict[str, Any]) -> NDArray[np.uint8]:
    """The last, still frame of one of the manifest's recorded reveals or re-rolls."""
    return load_image(sorted((DEMO / entry["frames"]).glob("*.jpg"))[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reach", type=float, nargs="+", default=[-0.3, 0.0, 0.25, 0.9],
                    help="where each occluder's edge lies, in faces from the die's centre "
                    "(0.5 and more: beside the die)")
    ap.add_argument("--seeds", type=int, default=1, help="draws per die, occluder and reach")
    ap.add_argument("--list", action="store_true",
                    help="name each case applied on a wrong reading with the check on")
    args = ap.parse_args()
    manifest = json.loads((DEMO / "manifest.json").read_text())
    script = json.loads((DEMO / "game.json").read_text())
    profile = load_profile(Path("calibration/demo.toml"))
    tally: dict[str, Counter[str]] = {}
    for reveal in manifest["reveals"]:
        game = game_before(script, reveal["action_index"])
        still = still_frame(reveal)
        truth = {p: sorted(v) for p, v in reveal["truth"].items()}
        for n, die in enumerate(reveal["dice"]):
            for reach in args.reach:
                for kind in KINDS:
                    for seed in range(args.seeds):
                        rng = np.random.default_rng([reveal["round"], n, seed, KINDS.index(kind)])
                        image, mask = occlude(still, die["x"], die["y"], die["size_px"], kind,
                                              rng, reach)
                        hidden = hidden_share(mask, die["x"], die["y"], die["size_px"])
                        group = ("beside (0%)" if hidden == 0 else "partly hidden (1-49%)"
                                 if hidden < 0.5 else "mostly hidden (50%+)")
                        result = capture_reveal(image, profile.zones, game.expected_reveal(),
                                                profile.reader_params, stillness=None,
                                                seating=list(game.players))
                        read = {p: sorted(d.value for d in result.seats[p] + result.set_aside[p])
                                for p in truth}
                        right = read == truth
                        others = [p for p in result.problems if p.kind != "covered"]
                        for check, problems in (("with check", result.problems),
                                                ("without", others)):
                            outcome = ("review" if problems else
                                       "applied, right" if right else "APPLIED, WRONG")
                            tally.setdefault(f"{group}, {check}", Counter())[outcome] += 1
                        if args.list and not result.problems and not right:
                            print(f"round {reveal['round']}: {kind} at {reach} over "
                                  f"{die['player']}'s {die['value']} ({hidden:.0%} hidden), "
                                  f"read {read}")
    for key in sorted(tally):
        counts = tally[key]
        total = sum(counts.values())
        parts = ", ".join(f"{k} {counts[k]}" for k in ("applied, right", "APPLIED, WRONG",
                                                          "review"))
        print(f"{key:40s} {total:4d} cases: {parts}")


if __name__ == "__main__":
    main()
