"""Scoring the reader against a labelled photo manifest (the format of
../shared/datasets/manifest.json). Pure scoring lives here; `bluffcam bench-vision` prints it.

Matching (issue #3): each labelled box is matched with the nearest predicted centre inside
the box grown by 25% on each side, one prediction per box, nearest pairs first (see
:func:`match`); where a photo's boxes are null the value multisets are compared instead.
A die is correct when its match has the labelled value.

Precision is correct ÷ judged predictions. On a complete photo every prediction is judged.
On a photo whose manifest entry says ``complete: false`` some dice are not labelled, and the
manifest's own definition is that "extra detections there are not necessarily wrong": only
the predictions matched to a labelled die are judged there, and the others are counted as
``unjudged`` rather than as wrong.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.io import load_image
from vision.params import ReaderParams
from vision.reader import load_networks, read_dice
from vision.types import Reading


@dataclass(frozen=True, slots=True)
class LabelledDie:
    value: int
    box: tuple[float, float, float, float] | None


@dataclass(frozen=True, slots=True)
class Entry:
    image: str
    dice: tuple[LabelledDie, ...]
    complete: bool
    source: str
    subset: str
    #: boxes [x, y, w, h] of things in the photo that are no labelled die (the manifest's
    #: ``ignore``): a reading centred in one, and in no labelled die's box, is not judged
    ignore: tuple[tuple[float, float, float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class ImageScore:
    entry: Entry
    predicted: tuple[tuple[int, float, float], ...]
    correct: int
    ms: float
    #: the dice reported as sure (confidence at or above the reading's threshold), and how
    #: many of those are right: a sure wrong die is a silent misread
    sure: int = 0
    sure_correct: int = 0
    #: predictions that can be judged right or wrong: all of them on a complete photo, only
    #: those matched to a labelled die on an incomplete one
    judged: int = 0

    @property
    def labelled(self) -> int:
        return len(self.entry.dice)

    @property
    def exact(self) -> bool:
        return sorted(v for v, _, _ in self.predicted) == sorted(d.value for d in self.entry.dice)

    @property
    def face_error(self) -> int:
        pred = Counter(v for v, _, _ in self.predicted)
        want = Counter(d.value for d in self.entry.dice)
        return sum(abs(pred[f] - want[f]) for f in range(1, 7))


@dataclass(slots=True)
class Summary:
    name: str
    images: int = 0
    labelled: int = 0
    predicted: int = 0
    judged: int = 0
    correct: int = 0
    complete: int = 0
    exact: int = 0
    face_error_sum: int = 0
    sure: int = 0
    sure_correct: int = 0
    #: dice found on complete photos, of which ``sure`` are reported sure
    predicted_on_complete: int = 0
    ms: list[float] = field(default_factory=list)

    def add(self, s: ImageScore) -> None:
        self.images += 1
        self.labelled += s.labelled
        self.predicted += len(s.predicted)
        self.judged += s.judged
        self.correct += s.correct
        self.sure += s.sure
        self.sure_correct += s.sure_correct
        self.ms.append(s.ms)
        if s.entry.complete:
            self.complete += 1
            self.predicted_on_complete += len(s.predicted)
            self.exact += int(s.exact)
            self.face_error_sum += s.face_error

    def to_json(self) -> dict[str, Any]:
        ms = sorted(self.ms)
        return {
            "name": self.name,
            "images": self.images,
            "labelled": self.labelled,
            "predicted": self.predicted,
            "accuracy": _ratio(self.correct, self.labelled),
            "unjudged": self.predicted - self.judged,
            "precision": _ratio(self.correct, self.judged),
            "image_exact": _ratio(self.exact, self.complete),
            "face_error": _ratio(self.face_error_sum, self.complete),
            "sure_precision": _ratio(self.sure_correct, self.sure),
            "sure_wrong": self.sure - self.sure_correct,
            "sure_share": _ratio(self.sure, self.predicted_on_complete),
            "median_ms": round(statistics.median(ms), 1) if ms else None,
            "p95_ms": round(float(np.percentile(ms, 95)), 1) if ms else None,
        }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def load_manifest(path: str | Path) -> tuple[Path, list[Entry]]:
    """The manifest's folder (image paths are relative to it) and its entries, every label
    checked here: a bad one is named before any photo is read, not met in the scoring."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the manifest ({exc})") from exc
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to be a manifest") from None
    if not isinstance(raw, list):
        raise ValueError(f"{path}: a manifest is a JSON list of photos")
    return p.parent, [_entry(item, f"{path}: entry {k}") for k, item in enumerate(raw)]


def _entry(item: object, where: str) -> Entry:
    """One photo of a manifest, or ValueError naming the entry and the field that is wrong."""
    if not isinstance(item, dict):
        raise ValueError(f'{where}: must be an object with "image" and "dice", '
                         f"got {json.dumps(item)}")
    image = item.get("image")
    if not isinstance(image, str) or not image:
        raise ValueError(f'{where}: "image" must be a path relative to the manifest, '
                         f"got {json.dumps(image)}")
    where = f"{where} ({image})"
    dice = item.get("dice")
    if not isinstance(dice, list):
        raise ValueError(f'{where}: "dice" must be a list, got {json.dumps(dice)}')
    complete = item.get("complete", True)
    if not isinstance(complete, bool):
        raise ValueError(f'{where}: "complete" must be true or false, got {json.dumps(complete)}')
    names = {key: item.get(key, "?") for key in ("source", "subset")}
    for key, name in names.items():
        if not isinstance(name, str):
            raise ValueError(f'{where}: "{key}" must be a string, got {json.dumps(name)}')
    labelled = tuple(_labelled_die(d, f"{where}: dice[{i}]") for i, d in enumerate(dice))
    ignore = item.get("ignore", [])
    if not isinstance(ignore, list):
        raise ValueError(f'{where}: "ignore" must be a list of boxes, got {json.dumps(ignore)}')
    boxes = tuple(_ignored_box(b, f"{where}: ignore[{i}]") for i, b in enumerate(ignore))
    return Entry(image, labelled, complete, names["source"], names["subset"], boxes)


def _ignored_box(box: object, where: str) -> tuple[float, float, float, float]:
    """One ``ignore`` box: [x, y, width, height] in pixels."""
    if not (isinstance(box, list) and len(box) == 4
            and all(_finite_number(v) for v in box) and box[2] > 0 and box[3] > 0):
        raise ValueError(f"{where}: must be [x, y, width, height] (finite numbers, width and "
                         f"height above 0), got {json.dumps(box)}")
    x, y, w, h = (float(v) for v in box)
    return (x, y, w, h)


def _labelled_die(die: object, where: str) -> LabelledDie:
    """One labelled die: a value 1..6 and a box [x, y, width, height] in pixels, or null."""
    if not isinstance(die, dict):
        raise ValueError(f'{where}: must be an object with "value" and "box", '
                         f"got {json.dumps(die)}")
    value = die.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise ValueError(f'{where}: "value" must be a whole number 1..6, got {json.dumps(value)}')
    box = die.get("box")
    if box is None:
        return LabelledDie(value, None)
    if not (isinstance(box, list) and len(box) == 4
            and all(_finite_number(v) for v in box) and box[2] > 0 and box[3] > 0):
        raise ValueError(f'{where}: "box" must be null or [x, y, width, height] (finite '
                         f"numbers, width and height above 0), got {json.dumps(box)}")
    x, y, w, h = (float(v) for v in box)
    return LabelledDie(value, (x, y, w, h))


def _finite_number(value: object) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def score_image(entry: Entry, reading: Reading, ms: float) -> ImageScore:
    predicted = tuple((d.value, d.x, d.y) for d in reading.dice)
    # sure dice are scored on complete photos only: there an unmatched die is surely wrong
    sure = tuple((d.value, d.x, d.y) for d in reading.sure) if entry.complete else ()
    sure_correct = count_correct(entry.dice, sure)
    correct, matched = match(entry.dice, predicted)
    judged = len(predicted) if entry.complete else matched
    return ImageScore(entry, predicted, correct, ms, len(sure), sure_correct, judged)


def count_correct(
    labelled: Sequence[LabelledDie], predicted: Sequence[tuple[int, float, float]]
) -> int:
    """Correct dice by the issue's matching rule."""
    return match(labelled, predicted)[0]


def match(
    labelled: Sequence[LabelledDie], predicted: Sequence[tuple[int, float, float]]
) -> tuple[int, int]:
    """(correct, matched): predictions matched to a labelled die by the issue's rule
    (:func:`matched_pairs`), and how many of them have its value. Where boxes are null, dice
    match by value only and any die beyond the labelled count is unmatched."""
    if any(d.box is None for d in labelled):
        want = Counter(d.value for d in labelled)
        got = Counter(v for v, _, _ in predicted)
        return sum((want & got).values()), min(len(predicted), len(labelled))
    pairs = matched_pairs(labelled, predicted)
    return sum(int(predicted[k][0] == labelled[i].value) for i, k in pairs), len(pairs)


def matched_pairs(
    labelled: Sequence[LabelledDie], predicted: Sequence[tuple[int, float, float]]
) -> list[tuple[int, int]]:
    """(labelled index, predicted index) of each labelled box (none may be null) matched with
    the nearest predicted centre inside the box grown by 25% on each side, one each.

    A prediction may lie inside the grown boxes of two touching dice. The pairs are taken
    nearest first over the whole photo, so each die gets the nearest prediction no closer die
    claims, whatever order the labels are listed in. (Labels taking their nearest unused
    prediction in listed order would let a die listed first take its neighbour's prediction
    and leave the neighbour unmatched: the score would depend on the label file's order.)
    """
    # nearest first; at equal distance a pair whose values agree first, then by the die's
    # box and value, so that not even a tie depends on the order the labels are listed in
    pairs: list[tuple[float, bool, tuple[float, float, float, float], int, int, int]] = []
    for i, d in enumerate(labelled):
        if d.box is None:
            raise ValueError("matched_pairs needs every labelled die's box")
        x, y, w, h = d.box
        cx, cy = x + w / 2, y + h / 2
        for k, (value, px, py) in enumerate(predicted):
            if in_grown_box(d.box, px, py):
                pairs.append(((px - cx) ** 2 + (py - cy) ** 2, value != d.value, d.box,
                              d.value, k, i))
    taken_labels: set[int] = set()
    taken_predictions: set[int] = set()
    out: list[tuple[int, int]] = []
    for *_, k, i in sorted(pairs):
        if i not in taken_labels and k not in taken_predictions:
            taken_labels.add(i)
            taken_predictions.add(k)
            out.append((i, k))
    return out


def in_grown_box(box: tuple[float, float, float, float], x: float, y: float) -> bool:
    """Whether (x, y) lies in the box (x, y, w, h) grown by 25% on each side: where the
    issue's rule looks for a labelled die's prediction."""
    bx, by, w, h = box
    return bx - 0.25 * w <= x <= bx + 1.25 * w and by - 0.25 * h <= y <= by + 1.25 * h


def run_bench(
    root: Path,
    entries: Iterable[Entry],
    params: ReaderParams | None = None,
    reader: Callable[..., Reading] = read_dice,
) -> list[ImageScore]:
    """Read every entry's photo; the time counts the read only, not loading the file."""
    return score_frames(((entry, load_image(root / entry.image)) for entry in entries),
                        params, reader)


def held_out_table_photos(manifest: str | Path) -> list[tuple[Entry, NDArray[np.uint8]]]:
    """The table photos of a manifest that no network of the project trained on
    (:func:`vision.learned.held_out_photos`), loaded: what the dev-time benches that change
    a photo (turn, smear, noise, ...) read."""
    from vision.learned import held_out_photos

    root, entries = load_manifest(manifest)
    held = held_out_photos()
    return [(e, load_image(root / e.image)) for e in entries
            if e.image in held and e.subset == "table"]


def score_frames(
    frames: Iterable[tuple[Entry, NDArray[np.uint8]]],
    params: ReaderParams | None = None,
    reader: Callable[..., Reading] = read_dice,
) -> list[ImageScore]:
    """Read and score frames already in memory (a photo turned, noised, ...) against their
    entries' labels; the time counts the read only."""
    params = params or ReaderParams()
    if reader is read_dice:
        load_networks(params)  # not charged to the first photo's time
    scores = []
    for entry, image in frames:
        # a photo of one die cut out of a bigger one is read as a crop: the manifest says so
        crop = {"crop": True} if entry.subset == "crop" and reader is read_dice else {}
        t0 = time.perf_counter()
        reading = reader(image, params, **crop)
        ms = (time.perf_counter() - t0) * 1000.0
        scores.append(score_image(entry, reading, ms))
    return scores


def summarise(scores: Iterable[ImageScore]) -> list[Summary]:
    """Per source/subset, per subset, then overall."""
    groups: dict[str, Summary] = {}
    overall = Summary("overall")
    for s in scores:
        for name in (f"{s.entry.source}/{s.entry.subset}", f"subset:{s.entry.subset}"):
            groups.setdefault(name, Summary(name)).add(s)
        overall.add(s)
    return [groups[k] for k in sorted(groups)] + [overall]
