"""The reader's settings: a frozen dataclass a calibration profile can override.

Every size is relative to the image or estimated from it unless a profile pins it, so the
defaults work on a photo from an unseen camera.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from numbers import Integral, Real
from typing import Any, NamedTuple


class NumberRange(NamedTuple):
    """A setting's documented range. Checked on construction so that a NaN, an infinity or a
    value out of range is refused by name instead of quietly making the reader see nothing
    (every comparison with NaN is false, so NaN slips through a plain ``x < low`` test)."""

    least: float
    most: float = math.inf
    least_open: bool = False
    most_open: bool = False
    unit: str = ""

    def describe(self) -> str:
        """The range in words: ``0..1``, ``(0, 1]``, ``at least 64 px``."""
        unit = f" {self.unit}" if self.unit else ""
        if math.isinf(self.most):
            return f"{'more than' if self.least_open else 'at least'} {self.least:g}{unit}"
        if not (self.least_open or self.most_open):
            return f"in {self.least:g}..{self.most:g}{unit}"
        return (f"in {'(' if self.least_open else '['}{self.least:g}, "
                f"{self.most:g}{')' if self.most_open else ']'}{unit}")

    def check(self, name: str, value: object, *, integer: bool = False) -> None:
        """Raise TypeError (not a number) or ValueError (not finite, or out of range)."""
        kind = "an integer" if integer else "a number"
        if isinstance(value, bool) or not isinstance(value, Integral if integer else Real):
            raise TypeError(f"{name} must be {kind} {self.describe()}, got {value!r}")
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"{name} must be a finite number {self.describe()}, got {value!r}")
        above = number > self.least if self.least_open else number >= self.least
        below = number < self.most if self.most_open else number <= self.most
        if not (above and below):
            raise ValueError(f"{name} must be {self.describe()}, got {value!r}")


def check_numbers(settings: Any, ranges: dict[str, NumberRange]) -> None:
    """Check each of a settings dataclass's numbers named in ``ranges``: an ``int`` field must
    hold an integer, and a field that may be ``None`` may hold it."""
    for f in fields(settings):
        value = getattr(settings, f.name)
        if f.name in ranges and not (value is None and "None" in str(f.type)):
            ranges[f.name].check(f.name, value, integer=type(f.default) is int)


#: The documented range of each of :class:`ReaderParams`' numbers; pairs of settings that
#: bound each other are checked in ``__post_init__`` as well.
_READER_RANGES: dict[str, NumberRange] = {
    "min_confidence": NumberRange(0.0, 1.0),
    "min_value_odds": NumberRange(0.0, 1.0),
    "work_max_side": NumberRange(64, unit="px"),
    "pip_diameter_px": NumberRange(0.0, least_open=True, unit="px"),
    "pip_size_tolerance": NumberRange(1.0),
    "min_pip_contrast": NumberRange(0.0, 255.0),
    "min_pip_circularity": NumberRange(0.0, 1.0),
    "max_pip_elongation": NumberRange(1.0),
    "min_pip_diameter_px": NumberRange(0.0, unit="px"),
    "max_dice": NumberRange(1),
    "detector_side": NumberRange(64, 2048, unit="px"),
    "detector_max_side": NumberRange(64, 4096, unit="px"),
    "detector_min_score": NumberRange(0.0, 1.0, least_open=True, most_open=True),
    "detector_sure": NumberRange(0.0, 1.0, least_open=True),
    "detector_faint_score": NumberRange(0.0, 1.0, least_open=True),
    "verifier_min_odds": NumberRange(0.0, 1.0, least_open=True),
    "verifier_drop_odds": NumberRange(0.0, 1.0, most_open=True),
    "detector_views": NumberRange(1, 4),
    "detector_networks": NumberRange(1, 2),
    "closer_look_below": NumberRange(0.0, unit="px (0: off)"),
    "closer_score": NumberRange(0.0, 1.0, least_open=True),
    "min_gradient_balance": NumberRange(0.0, 1.0, most_open=True),
    "cover_doubt_odds": NumberRange(0.0, 1.0, least_open=True),
    "die_size_px": NumberRange(4.0, 4096.0, unit="px"),
    "camera_up": NumberRange(0, 3, unit="quarter turns"),
}

#: settings a table profile gives from its own tables (``[dice]``, ``[table]``), never from
#: ``[reader]``: the one scale to read at and the area to read depend on where this camera
#: stands, which the profile measures (``vision.dice.calibrated``)
FROM_PROFILE = ("die_size_px", "table_box", "camera_up", "table_resolution")


@dataclass(frozen=True, slots=True)
class ReaderParams:
    """Settings for :func:`vision.read_dice`.

    Attributes:
        min_confidence: dice read with a confidence (0..1) below this are reported as
            uncertain (``Reading.uncertain``); callers must not adjudicate on them.
        min_value_odds: (learned method) a die whose value the two looks, pooled, give
            less than these odds (0..1) is reported as uncertain, however sure its presence:
            a value favoured at 0.6-0.7 was wrong several times as often as the sure dice
            around it (BENCHMARKS.md, "Long-trained detector"); 0.8 for today's
            classifier, which left 0.7-0.8 sure and wrong on the unseen renders (BENCHMARKS.md,
            "The value odds bar raised to 0.8"). 0 turns it off.
        work_max_side: frames whose longer side exceeds this many pixels are downscaled to it
            before reading (speed); coordinates are always reported in the original frame.
        pip_diameter_px: expected pip diameter in frame pixels; ``None`` estimates it from
            the image (the usual case). A profile for a fixed camera may pin it.
        pip_size_tolerance: how far (as a ratio) a pip may differ in size from the typical
            pip of its die and still count (1.0 = identical only).
        min_pip_contrast: the least grey-level difference (0..255) between a pip and the face
            around it.
        min_pip_circularity: the least 4*pi*area/perimeter^2 (0..1) of a pip's outline after
            undoing the perspective squash (1 = perfect disc).
        max_pip_elongation: the greatest major/minor axis ratio (at least 1) of a pip
            (oblique views).
        min_pip_diameter_px: pips smaller than this (in work-image pixels) are ignored as noise.
        pip_polarity: ``"auto"`` (pips darker or lighter than the face), ``"dark"`` or
            ``"light"``.
        max_dice: a reading with more dice than this is treated as unreliable (all uncertain).
        method: ``"learned"`` (the default: a small detector network proposes dice and a crop
            classifier looks again, see ``vision.dice.detected``) or ``"classical"`` (the pip
            reader, no network for finding dice; see ``vision.reader``).
        detector_side: the learned detector reads frames scaled so that their longer side is
            this many pixels (small frames are enlarged at most twice; frames over twice
            this are shrunk only 2x, up to ``detector_max_side``:
            ``vision.detector.working_side``).
        detector_max_side: the most a big frame's working side grows to (time: the detector
            costs about the square of the side); at ``detector_side`` or less it never grows.
            A slow board may lower it in its profile.
        detector_min_score: detector proposals weaker than this (0..1) are ignored; those
            between it and ``detector_sure`` are kept with a confidence that falls with the
            score, so a faint die is reported as uncertain rather than dropped.
        detector_sure: a proposal at least this strong is surely a die.
        detector_faint_score: fainter proposals, down to this score, get a closer look by
            the die verifier (``vision.verifier``); at or above ``detector_min_score`` that is
            off. A faint die is never sure: it is reported for review, not adjudicated on.
        verifier_min_odds: a faint proposal is kept as a die only where the verifier gives
            it at least these odds (0..1).
        verifier_drop_odds: a die the looks doubt (one to be reported for review) is dropped
            where the verifier gives it under these odds (0..1) of being a die; 0 keeps every
            one. Dice read as sure are never dropped.
        closer_look_below: where the dice the first read found are smaller than this many
            pixels at the detector's working size (their median face), or where it found
            none, the frame is read again at twice that size (``vision.detector.closer_side``)
            for dice the first read missed; each such proposal of at least
            ``closer_score`` is kept where the verifier and the classifier call it a die,
            for review like a faint one. 0 turns the closer look off.
        closer_score: the least heat (0..1) of a proposal at the closer look.
        reread_big_dice: where a frame over twice ``detector_side`` was read at a larger
            working size and every die read as sure is big there, read it again at
            ``detector_side`` (``vision.dice.detected``): a photo from a camera of many pixels
            holds its dice big, and read larger the detector takes print and pips for dice.
        detector_views: how many views of the frame (itself, its half turn, its two mirror
            images) the detector reads and averages, 1..4; each view costs one more detector
            read (``vision.detector.VIEWS``). 1 by default: 4 views read the held-out photos
            about a point better on average over their turns and mirror images, but take
            the median read from 11 to 29 ms (BENCHMARKS.md, "Orientation").
        detector_networks: how many detector networks read the frame and are averaged, 1..2
            (``vision.detector.networks``: the shipped one, then the wide one). 2 by
            default: the pair reads the held-out phone photos 1 to 2 points better than
            the first alone, with fewer dice read sure and wrong, for about 5 ms more a
            read on the development VM; 1 is the faster reader for a slow board
            (BENCHMARKS.md, "Two detectors").
        int8_networks: (learned method) read with the 8-bit copies of the two detectors and
            the two crop classifiers (``vision.models_int8``, made by
            ``tools/train/quantise.py``) instead of the float files: about 1.5 times
            less CPU a read (ONNX Runtime; OpenCV's dnn reads the float files whatever
            this says). Off by default: on the held-out photos they read a photo or two
            fewer fully right; a table profile turns them on where its own photos read as
            well (BENCHMARKS.md, "Reading with a table profile").
        learned_check: (classical method) let the small learned classifier
            (``vision.learned``) check each die's value: agreement keeps it, disagreement
            makes the die uncertain, a sure "not a die" drops it.
        min_gradient_balance: a die read as sure whose crop's gradients along their weakest
            direction carry less than this share of those along their strongest (a die
            smeared by motion: ``vision.smear``) is reported for review instead; 0 turns the
            check off. Smeared pips pass for more pips with every look agreeing. 0.35 because
            at 0.3 an 11-px streak on one die of a sharp frame (0.301) was read as a sure 6
            (BENCHMARKS.md, "Smeared dice").
        cover_doubt_odds: (reveals) a die the vote made sure is sent to review where the
            cover check (``vision.cover_check``) gives over these odds (0..1] that something
            lies over part of it (a finger, a sleeve, a cup's rim): the pips left in sight
            of a half-hidden die are read surely and wrongly. 1 turns the check off. 0.9
            because 0.97 leaves no needless review on the held-out photos but
            lets one more drawn finger's misread through on the demo's reveals
            (BENCHMARKS.md, "Something over a die").
        die_size_px: (from a table profile's ``[dice]``) a die's size in frame pixels as
            this camera sees it (the detector's extent). With it the reader reads at the
            one scale that size implies and drops proposals far from it
            (``vision.dice.calibrated``); ``None`` estimates the scale from the frame.
        table_box: (from a table profile's ``[table]``) the table area's bounding box
            ``(left, top, right, bottom)`` in frame pixels: only that box, grown by a
            margin, is read. ``None`` reads the whole frame.
        camera_up: (from a table profile's ``[dice]``) the quarter turn (0..3) in which
            the crop classifier reads this camera's dice (``vision.learned.photo_up``):
            a mounted camera's up does not change, so each frame need not search the four
            turns for it (a third of the classifier's time). ``None`` searches.
        table_resolution: (from a table profile's ``[camera]``) the ``(width, height)`` of
            the frames ``die_size_px`` and ``table_box`` were measured in: a frame of
            another size (a photo read with the profile) is read as without them.
            ``None``: any frame.
        table_head: (learned method) a table's own head (``vision.table_head``, written by
            ``bluffcam adapt``): the ``.npz`` file that decides each die's value and
            sureness again, from the looks, by what this table's labelled photos taught it.
            A profile names it relative to itself; ``None``: the general reader.
    """

    min_confidence: float = 0.6
    min_value_odds: float = 0.8
    work_max_side: int = 1280
    pip_diameter_px: float | None = None
    pip_size_tolerance: float = 1.8
    min_pip_contrast: float = 22.0
    min_pip_circularity: float = 0.72
    max_pip_elongation: float = 2.6
    min_pip_diameter_px: float = 2.2
    pip_polarity: str = "auto"
    max_dice: int = 60
    learned_check: bool = True
    method: str = "learned"
    detector_side: int = 320
    detector_max_side: int = 960
    detector_min_score: float = 0.4
    detector_sure: float = 0.6
    detector_faint_score: float = 0.2
    verifier_min_odds: float = 0.8
    verifier_drop_odds: float = 0.05
    detector_views: int = 1
    detector_networks: int = 2
    int8_networks: bool = False
    closer_look_below: float = 12.0
    closer_score: float = 0.3
    reread_big_dice: bool = True
    min_gradient_balance: float = 0.35
    cover_doubt_odds: float = 0.9
    die_size_px: float | None = None
    table_box: tuple[float, float, float, float] | None = None
    camera_up: int | None = None
    table_resolution: tuple[int, int] | None = None
    table_head: str | None = None

    def __post_init__(self) -> None:
        check_numbers(self, _READER_RANGES)
        _check_box(self.table_box)
        if self.table_resolution is not None and (
                not isinstance(self.table_resolution, tuple) or len(self.table_resolution) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                           for v in self.table_resolution)):
            raise ValueError("table_resolution must be (width, height) in whole pixels, got "
                             f"{self.table_resolution!r}")
        if self.table_head is not None and (
                not isinstance(self.table_head, str) or not self.table_head.strip()):
            raise ValueError(f"table_head must be the path of a table head file (.npz), "
                             f"got {self.table_head!r}")
        if self.pip_polarity not in ("auto", "dark", "light"):
            raise ValueError(
                f"pip_polarity must be 'auto', 'dark' or 'light', got {self.pip_polarity!r}"
            )
        if self.method not in ("learned", "classical"):
            raise ValueError(f"method must be 'learned' or 'classical', got {self.method!r}")
        if not self.detector_min_score < self.detector_sure:
            raise ValueError(
                "detector scores need 0 < detector_min_score < detector_sure <= 1, got "
                f"{self.detector_min_score} and {self.detector_sure}"
            )
        if not self.verifier_drop_odds < self.verifier_min_odds:
            raise ValueError(
                "verifier_drop_odds must be in [0, verifier_min_odds), "
                f"got {self.verifier_drop_odds}"
            )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReaderParams:
        """Build from a profile's ``[reader]`` table; unknown keys are an error, not ignored."""
        known = {f.name: f for f in fields(cls) if f.name not in FROM_PROFILE}
        measured = sorted(set(data) & set(FROM_PROFILE))
        if measured:
            raise ValueError(
                f"{', '.join(measured)}: not a [reader] setting; a profile gives the dice's "
                "size and the camera's up in [dice] (size_px, up), the table area in [table]"
            )
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(
                f"unknown reader setting(s): {', '.join(unknown)}; known: {', '.join(known)}"
            )
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = getattr(cls(), name)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ValueError(f"reader setting {name} must be true or false, got {value!r}")
            elif isinstance(value, bool):
                raise ValueError(f"reader setting {name} must be a number or string, got {value!r}")
            elif isinstance(default, float) or (name == "pip_diameter_px" and value is not None):
                if not isinstance(value, int | float):
                    raise ValueError(f"reader setting {name} must be a number, got {value!r}")
                value = float(value)
            elif isinstance(default, int) and not isinstance(value, int):
                raise ValueError(f"reader setting {name} must be an integer, got {value!r}")
            elif isinstance(default, str) and not isinstance(value, str):
                raise ValueError(f"reader setting {name} must be a string, got {value!r}")
            values[name] = value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain values, as ``[reader]`` stores them: ``None`` entries are
        left out (TOML has no null), and so are the settings the profile gives elsewhere."""
        return {k: v for k, v in asdict(self).items()
                if v is not None and k not in FROM_PROFILE}


def _check_box(box: object) -> None:
    """A table box must be four finite numbers, left < right and top < bottom."""
    if box is None:
        return
    if (not isinstance(box, tuple) or len(box) != 4
            or not all(isinstance(v, Real) and not isinstance(v, bool) for v in box)):
        raise TypeError(f"table_box must be (left, top, right, bottom) in pixels, got {box!r}")
    left, top, right, bottom = (float(v) for v in box)
    if not all(math.isfinite(v) for v in (left, top, right, bottom)):
        raise ValueError(f"table_box must be four finite numbers, got {box!r}")
    if not (left < right and top < bottom):
        raise ValueError(f"table_box must have left < right and top < bottom, got {box!r}")
