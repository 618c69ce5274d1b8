"""Render the card test data: one registration photo per card, and reveal scenes with truth.

    .venv/bin/python -m tools.cards [--out tests/data/cards] [--faces DIR]

Writes ``register/<kind>.jpg`` (one card of each kind alone on the table, as the calibration
page asks for), ``scenes/<name>.jpg`` and ``truth.json``. Deterministic: running it again
gives the same files.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from tools.cards.faces import CARD_KINDS, draw_back, draw_face
from tools.cards.scenes import SceneSpec, render_scene

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "cards"

SCENES: tuple[SceneSpec, ...] = (
    SceneSpec("reveal_orc_imp", ["orc", "imp"], seed=11),
    SceneSpec("reveal_dragons_goblin", ["dragon", "dragon", "goblin"], seed=12),
    SceneSpec(
        "reveal_four_tilted",
        ["polymorph", "elf", "faun", "skeleton"],
        seed=13,
        tilt=0.2,
        card_width=(130.0, 160.0),
    ),
    SceneSpec(
        "reveal_five_dim",
        ["gnome", "troll", "harpy", "orc", "imp"],
        seed=14,
        light=0.5,
        noise=6.0,
        card_width=(120.0, 150.0),
    ),
    SceneSpec("face_down_among", ["elf", None, "goblin"], seed=15),
    SceneSpec("single_close", ["skeleton"], seed=16, card_width=(240.0, 270.0), tilt=0.08),
    SceneSpec("small_far", ["faun", "troll", "imp"], seed=17, card_width=(95.0, 110.0), blur=1.0),
    SceneSpec("empty_table", [], seed=18),
    SceneSpec(
        "fanned_overlap",
        ["gnome", "orc", "orc", "elf"],
        seed=19,
        fan=True,
        card_width=(150.0, 170.0),
    ),
)


def registration_spec(kind: str, index: int) -> SceneSpec:
    return SceneSpec(
        f"register_{kind}",
        [kind],
        seed=100 + index,
        size=(640, 480),
        card_width=(210.0, 230.0),
        tilt=0.06,
        light=0.15,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--faces", type=Path, default=None, help="also write the flat card faces (PNG) here"
    )
    args = parser.parse_args(argv)
    out: Path = args.out
    (out / "register").mkdir(parents=True, exist_ok=True)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    truth: dict[str, object] = {"registration": {}, "scenes": {}}
    for index, kind in enumerate(CARD_KINDS):
        photo, cards = render_scene(registration_spec(kind, index))
        path = f"register/{kind}.jpg"
        cv2.imwrite(str(out / path), photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
        truth["registration"][kind] = {"file": path, "card": cards[0].to_json()}  # type: ignore[index]
    for spec in SCENES:
        photo, cards = render_scene(spec)
        path = f"scenes/{spec.name}.jpg"
        cv2.imwrite(str(out / path), photo, [cv2.IMWRITE_JPEG_QUALITY, spec.jpeg_quality])
        truth["scenes"][spec.name] = {  # type: ignore[index]
            "file": path,
            "width": spec.size[0],
            "height": spec.size[1],
            "cards": [card.to_json() for card in cards],
        }
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    if args.faces is not None:
        args.faces.mkdir(parents=True, exist_ok=True)
        for kind in CARD_KINDS:
            cv2.imwrite(str(args.faces / f"{kind}.png"), draw_face(kind))
        cv2.imwrite(str(args.faces / "back.png"), draw_back())
    print(f"wrote {len(CARD_KINDS)} registration photos and {len(SCENES)} scenes to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
