"""`python -m tools.render ...`: regenerate the project's recorded images.

    python -m tools.render testdata [--out tests/data] [--only single/white]
    python -m tools.render demo [--out bluffcam/recordings/demo]
    python -m tools.render scene --seed 7 --out /tmp/scene.jpg [--dice 8] [--size 640x480]
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from pathlib import Path

import numpy as np

from tools.render.output import write_jpeg, write_json


def _testdata(args: argparse.Namespace) -> int:
    from tools.render.testdata import build, cases

    out = Path(args.out)
    index = []
    for case in cases():
        if args.only and not fnmatch.fnmatch(case.name, f"{args.only}*"):
            continue
        frames = list(build(case))
        if case.still_from is None and len(frames) == 1:
            frame = frames[0]
            image = f"{case.name}.jpg"
            write_jpeg(out / image, frame.image)
            write_json(out / f"{case.name}.json", {"image": Path(image).name, **frame.truth})
            files = [image]
        else:
            files = []
            truths = []
            for k, frame in enumerate(frames):
                image = f"{case.name}/{k + 1:04d}.jpg"
                write_jpeg(out / image, frame.image)
                files.append(image)
                truths.append({"image": Path(image).name, **frame.truth})
            write_json(out / case.name / "truth.json",
                       {"case": case.name, "seed": case.seed, "still_from": case.still_from,
                        "frames": truths})
        index.append({"case": case.name, "seed": case.seed, "files": files})
        print(f"{case.name}: {len(files)} frame(s)", file=sys.stderr)
    if not args.only:
        write_json(out / "index.json", {
            "generator": "tools/render (synthetic renders; see docs/recordings.md)",
            "command": "python -m tools.render testdata --out tests/data",
            "cases": index,
        })
    return 0


def _demo(args: argparse.Namespace) -> int:
    from tools.render.demo import write_demo

    write_demo(Path(args.out), calibration=Path(args.calibration))
    return 0


def _scene(args: argparse.Namespace) -> int:
    from tools.render.generate import (
        random_camera,
        random_effects,
        random_light,
        random_table,
        scatter_dice,
        visible_region,
    )
    from tools.render.renderer import render
    from tools.render.scene import Scene
    from tools.render.testdata import SINGLE_STYLES

    width, height = (int(v) for v in args.size.lower().split("x"))
    rng = np.random.default_rng(args.seed)
    die_px = float(rng.uniform(25, 80))
    cam = random_camera(rng, width, height, die_px=die_px)
    values = [int(v) for v in rng.integers(1, 7, args.dice)]
    styles = [str(s) for s in rng.choice(np.array(SINGLE_STYLES), 2, replace=False)]
    dice = scatter_dice(rng, visible_region(cam, 1.2 * die_px), values, styles=styles,
                        touching=0.3, size_jitter=0.1)
    scene = Scene(cam, random_light(rng), random_table(rng), args.seed, dice,
                  effects=random_effects(rng), noise_seed=args.seed)
    image, truth = render(scene)
    out = Path(args.out)
    write_jpeg(out, image)
    write_json(out.with_suffix(".json"), {"image": out.name, "seed": args.seed, **truth})
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.render", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("testdata", help="render the committed test scenes")
    p.add_argument("--out", default="tests/data")
    p.add_argument("--only", default="", help="only cases whose name starts with this")
    p.set_defaults(func=_testdata)
    p = sub.add_parser("demo", help="render the demo game's recorded frames")
    p.add_argument("--out", default="bluffcam/recordings/demo")
    p.add_argument("--calibration", default="calibration/demo.toml")
    p.set_defaults(func=_demo)
    p = sub.add_parser("scene", help="render one random scene")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--dice", type=int, default=8)
    p.add_argument("--size", default="640x480")
    p.set_defaults(func=_scene)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
