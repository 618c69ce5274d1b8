"""Is this camera picture good enough to read dice from? Advice for the calibration page.

The reader copes with a lot, but not with everything equally (BENCHMARKS.md, "Conditions",
``tools.bench.bench_conditions``): held-out photos made dark, blown out or grainy are read worse,
and only under those conditions did dice read sure and wrong appear. A table host can fix
all three in a minute (a lamp, the camera's exposure, more light) if told, so the
calibration page's test read says which one it sees, with the figure it saw.

The thresholds sit between the shared photos as shot and the same photos under each
condition: the webcam photos' median grey is 140-161 (under-exposed: 40-55), no pixel is
clipped (over-exposed: 1-17% white), their noise is under 1 grey level (with sensor noise of
sd 12 added: 9). Most shared phone photos carry the dataset's salt-and-pepper specks and are
called grainy: rightly, they read 0.74 against 0.95 for the clean ones
(``tools.bench.bench_impulse``).

With a reading, it also names dice too small for the reader: what the host fixes
then is where the camera is, not the light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detector import MAX_SHRINK, input_scale, working_side
from vision.learned import face_size
from vision.params import ReaderParams
from vision.smear import is_smeared
from vision.types import Reading
from vision.words import Words, said, said_n

#: a picture whose median grey level is under this is dark
DARK_MEDIAN = 60
#: a pixel this bright in every channel is clipped to white
CLIPPED_LEVEL = 250
#: a picture with more than this share of its pixels clipped is blown out
BLOWN_SHARE = 0.02
#: a picture whose estimated noise (grey levels, standard deviation) is over this is grainy
GRAINY_SD = 6.0
#: the noise is estimated on at most this many pixels square from the middle (time: a 12-MP
#: frame is not filtered whole)
NOISE_WINDOW = 512
#: brightness and clipping are measured on every k-th pixel, k such that this many remain
#: along the longer side
SAMPLE_SIDE = 640
#: dice whose median face the reader sees under this many pixels at its working size are
#: small for it. Per frame, by that median (``python -m tools.bench.bench_dice_size``): the shared
#: table photos read 0.79 of their dice right where they are small and 0.94 elsewhere (sure
#: and right: 0.32 against 0.77); 300 unseen renders 0.75 against 0.93 (0.40 against 0.69).
#: The webcam photos' dice are 14-40 px there, the demo's 22-24 px; a third of the phone
#: photos' are under the bar.
SMALL_DICE_PX = 14.0
#: Immerkaer's noise kernel: the difference of two Laplacians, blind to edges and ramps
_NOISE_KERNEL = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)


@dataclass(frozen=True, slots=True)
class Advice:
    """One thing about the picture the table host can fix. ``kind``: dark, blown_out,
    grainy, smeared, small_dice."""

    kind: str
    message: str
    #: the message as an id with parameters (``vision.words``), for a page in another language
    words: Words | None = field(default=None, compare=False)

    @classmethod
    def saying(cls, kind: str, words: Words) -> Advice:
        """Advice whose message is ``words`` in English, the words kept beside it."""
        return cls(kind, str(words), words)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.words is not None:
            out["said"] = self.words.to_json()  # the page says it in its language
        return out


def _middle_grey(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The middle ``NOISE_WINDOW`` pixels square of ``frame``, grey, at full resolution (noise
    is a per-pixel thing: a shrunk or sampled copy would hide or change it)."""
    h, w = frame.shape[:2]
    top, left = max(0, (h - NOISE_WINDOW) // 2), max(0, (w - NOISE_WINDOW) // 2)
    window = np.ascontiguousarray(frame[top:top + NOISE_WINDOW, left:left + NOISE_WINDOW])
    if window.ndim == 2:
        return window
    return np.asarray(cv2.cvtColor(window, cv2.COLOR_BGR2GRAY), np.uint8)


def noise_sd(grey: NDArray[np.uint8]) -> float:
    """The standard deviation (grey levels) of a grey picture's pixel noise, by Immerkaer's
    method (1996): fast, and its kernel sees noise rather than the scene's edges."""
    h, w = grey.shape
    if h < 3 or w < 3:
        return 0.0
    response = np.abs(cv2.filter2D(grey.astype(np.float32), -1, _NOISE_KERNEL))[1:-1, 1:-1]
    return float(np.sqrt(np.pi / 2) * response.sum() / (6 * (h - 2) * (w - 2)))


def frame_advice(frame: NDArray[np.uint8], reading: Reading | None = None,
                 params: ReaderParams | None = None) -> list[Advice]:
    """What to fix about a BGR (or grey) camera picture before playing; empty when nothing.
    With the ``reading`` made from it (with ``params``), dice smeared by motion (gradient
    balance under ``params.min_gradient_balance``: ``vision.smear``) and dice too small for
    the reader (:func:`small_dice_advice`) are named too."""
    params = params or ReaderParams()
    # brightness and clipping from every k-th pixel (a sample, not an average: the shares and
    # the median stay unbiased, and a 12-MP frame costs what a 640-px one does)
    step = max(1, -(-max(frame.shape[:2]) // SAMPLE_SIDE))
    sample = frame[::step, ::step]
    grey = sample if sample.ndim == 2 else np.asarray(
        cv2.cvtColor(np.ascontiguousarray(sample), cv2.COLOR_BGR2GRAY), np.uint8)
    advice: list[Advice] = []
    median = float(np.median(grey))
    if median < DARK_MEDIAN:
        advice.append(Advice.saying("dark", said(
            "The picture is dark (median brightness {level} of 255): add light over the table "
            "or raise the exposure.", level=round(median))))
    lowest = sample if sample.ndim == 2 else sample.min(axis=2)
    blown = float((lowest >= CLIPPED_LEVEL).mean())
    if blown > BLOWN_SHARE:
        advice.append(Advice.saying("blown_out", said(
            "{percent}% of the picture is blown out to white: dim the light or lower the "
            "exposure, white dice vanish into a bright table.", percent=round(100 * blown))))
    noise = noise_sd(_middle_grey(frame))
    if noise > GRAINY_SD:
        advice.append(Advice.saying("grainy", said(
            "The picture is grainy (noise of about {level} grey levels): add light, noise "
            "hides small pips.", level=round(noise))))
    if reading is not None:
        smeared = sum(1 for d in reading.dice
                      if is_smeared(frame, d, params.min_gradient_balance))
        if smeared:
            advice.append(Advice.saying("smeared", said_n(
                "{n} die looks smeared: keep the camera and the table still while it reads.",
                "{n} dice look smeared: keep the camera and the table still while it reads.",
                smeared)))
        small = small_dice_advice(frame.shape[0], frame.shape[1], reading, params)
        if small is not None:
            advice.append(small)
    return advice


def _working_scale(height: int, width: int, params: ReaderParams) -> float:
    """How much the reader scales such a frame (``vision.detector.working_side``)."""
    return input_scale(height, width, working_side(height, width, params.detector_side,
                                                   params.detector_max_side))


def working_face(height: int, width: int, reading: Reading,
                 params: ReaderParams) -> float | None:
    """The median face of ``reading``'s dice (of a ``height`` x ``width`` frame) in the
    pixels of the size the reader works at; ``None`` without dice."""
    if not reading.dice:
        return None
    face = float(np.median([face_size(d) for d in reading.dice]))
    return face * _working_scale(height, width, params)


def small_dice_advice(height: int, width: int, reading: Reading,
                      params: ReaderParams) -> Advice | None:
    """Advice where the dice of ``reading`` (of a ``height`` x ``width`` frame) are small at
    the size the reader works at (their median face under ``SMALL_DICE_PX``), else ``None``.

    It is the working size that counts: a big frame is shrunk (``vision.detector``), so a
    higher resolution helps only up to the frame the reader reads at half size, and beyond
    that only bringing the camera closer does."""
    seen = working_face(height, width, reading, params)
    if seen is None or seen >= SMALL_DICE_PX:
        return None
    scale = _working_scale(height, width, params)
    sharpest = int(params.detector_max_side * MAX_SHRINK)
    fixes = (said("Move the camera closer to the table or zoom in, or raise its resolution (up "
                  "to {px} px across).", px=sharpest) if max(height, width) < sharpest
             else said("Move the camera closer to the table or zoom in."))
    size = f"{width}×{height}"
    return Advice.saying("small_dice", said(
        "The dice are small in the picture (about {px} px across in this {size} picture); "
        "the reader is far surer of dice of {sure_px} px and more here. {fixes}",
        px=round(seen / scale), size=size, sure_px=round(SMALL_DICE_PX / scale),
        fixes=fixes))
