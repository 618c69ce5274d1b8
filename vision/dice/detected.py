"""Reading dice with the learned detector and the crop classifier together.

The detector (``vision.detector``) proposes dice with a presence score, a size and its own
guess of the value; the crop classifier (``vision.learned``) looks again at each proposal at
full resolution. The value is the one both networks find most likely together (leaning on
the classifier where they disagree), and the confidence is the lower of "a die is there" and
"this is its value", so that a weak proposal or a disagreement ends up below the reading's
threshold (a human looks) instead of being silently trusted or silently dropped. A
disagreement is settled only where the classifier's two networks, each on its own, are sure
of the same value: two looks that agree outvote the detector's weak value guess.

Proposals fainter than the detector's threshold (small coloured dice on a busy printed board
are often no stronger than the board's own pieces) get a closer look by the die verifier
(``vision.verifier``): where it and the classifier both call one a die, it is reported for
review, never as sure; a strong proposal the looks doubt is dropped where the verifier is
nearly sure it is no die. Where the dice found are small at the detector's working size (or none
were found), the frame is read again at twice that size, and what that closer look alone
finds goes through the same verifier and classifier, for review too. Where a big frame's
dice (one read at more than the detector's usual size) all look big, it is read again at the
usual size, the scale the detector reads best.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detector import (
    BIG_DIE,
    Candidate,
    clash,
    closer_candidates,
    find_candidates,
    input_scale,
    working_side,
)
from vision.dice.top_face import with_top_faces
from vision.learned import NOT_A_DIE, classify_crops, face_size, pool, read_crops
from vision.looks import FAINT, STRONG, WHOLE, looks_vector
from vision.params import ReaderParams
from vision.smear import doubt_smeared
from vision.types import Die, Reading, doubt_crowds
from vision.verifier import die_odds

#: a die cut out of a photo fills about this share of the crop's longer side. A frame the
#: caller calls a crop (``crop=True``) is also read as a whole by the classifier, and its
#: faint proposals are not looked at (there they are the pips of the die, enlarged: on the
#: single-die photos the verifier let three pips of a big translucent die through as dice).
#: It is never guessed from the frame's size: a small camera frame is no cut-out die
CROP_FILL = 1 / 1.28


#: where the two looks disagree (the die goes to review), the value offered is the favourite
#: of their mean weighted this much towards the detector and the rest towards the classifier:
#: there the classifier is right far more often (held-out photos: 89 dice against the
#: detector's 7; unseen renders: 96% against 59% named right, ``tools.bench.bench_value_looks``).
#: Their geometric mean lets a detector sure of a wrong value win;
#: this weight reads 0.7 points more held-out table dice right (0.2-0.4 do alike) and the
#: single-die crops as well as before, which the classifier alone does not (0.98 -> 0.96)
DETECTOR_WEIGHT_IN_DISPUTE = 0.3

#: a faint proposal the verifier accepts is still dropped where the classifier gives "not a
#: die" at least these odds: on held-out photos this keeps almost as many real dice as 0.5
#: does and fewer false ones (tables: accuracy / precision / image exact 0.876 / 0.906 /
#: 0.736 at 0.5, 0.874 / 0.914 / 0.744 here)
FAINT_NOT_A_DIE = 0.05

#: where the detector's favourite value differs from the classifier's, the classifier's
#: value may still be sure if each of its two networks (trained apart: one on the shared
#: photos, one with the project's renders too) gives that value at least these odds on its
#: own. The detector names values far worse than it finds dice (held-out phone photos: 52%
#: against the classifier's 89%; the demo's coloured 6s it reads as 4s), so requiring it to
#: agree sent most dice of a reveal to review for nothing. Measured on the held-out photos,
#: the demo's frames and 300 unseen renders: sure and right 1,127 -> 1,467 of
#: 2,273 dice, sure and wrong 3 -> 4 (a demo die half hidden by a hand: every look wrong);
#: the held-out photos as shot 2 -> 2 (``bluffcam bench-vision``), turned and mirrored
#: 13 -> 15 (``tools.bench.bench_orientations``: one oblique die whose labelled face every look
#: disputes, now sure in three orientations; one fewer on a heap of 41 dice); all photos
#: (mostly trained on) 29 -> 32. At 0.8 webcam dice became sure and wrong; at 0.95 half
#: the gain. BENCHMARKS.md, "Two looks"
CLASSIFIERS_OVERRULE = 0.9

#: a strong proposal's value is sure only where the classifier alone gives it at least these
#: odds. The detector's value odds are often all but certain (1.0), and pooled with them a
#: classifier that merely leans the same way (0.45-0.65) made a sure die: tomitomi3's black
#: dice, whose two pips sit close together like the outer pips of a three, were all read as
#: sure 3s that way (69 crops). At 0.55 34 of those 69 and 7 of kaggle_d6's sure and wrong
#: or extra dice go to review for one die read right there, and no held-out photo's die
#: changes; at 0.7 two held-out dice read right went too (BENCHMARKS.md, "Dice reader, the
#: sources added later")
CLASSIFIER_MIN_ODDS = 0.55


def value_verdict(
    first: NDArray[np.floating[Any]], look: NDArray[np.floating[Any]]
) -> tuple[int, float, bool]:
    """The value (1..6) to report from the detector's (``first``) and the classifier's
    (``look``) probabilities of faces 1..6, its probability, and whether the two looks'
    favourites agree (only then may the die be sure).

    Agreeing looks are pooled by their geometric mean (:func:`vision.learned.pool`: a
    calibrated consensus, not the overconfident product); disagreeing ones by
    ``DETECTOR_WEIGHT_IN_DISPUTE``.
    """
    agree = int(np.argmax(first)) == int(np.argmax(look))
    if agree:
        pooled = pool(np.stack([first, look]).astype(np.float32)[:, None, :])[0]
    else:
        pooled = DETECTOR_WEIGHT_IN_DISPUTE * first + (1 - DETECTOR_WEIGHT_IN_DISPUTE) * look
        pooled = pooled / max(float(pooled.sum()), 1e-12)
    value = int(pooled.argmax()) + 1
    return value, float(pooled[value - 1]), agree


def classifiers_overrule(by_net: NDArray[np.floating[Any]]) -> bool:
    """Whether every network of the classifier, on its own, names the same face value with
    odds of at least ``CLASSIFIERS_OVERRULE`` (``by_net``: (networks, 7) probabilities,
    class 0 "not a die")."""
    favourites = {int(p[1:].argmax()) + 1 for p in by_net}
    if len(by_net) < 2 or len(favourites) != 1:
        return False
    value = favourites.pop()
    return bool(all(float(p[value]) >= CLASSIFIERS_OVERRULE for p in by_net))


def presence(score: float, params: ReaderParams) -> float:
    """How sure (0..1) we are that a proposal is a die: 1 at ``detector_sure`` and above,
    falling linearly to 0 at ``detector_min_score``."""
    lo, hi = params.detector_min_score, params.detector_sure
    return float(np.clip((score - lo) / max(hi - lo, 1e-6), 0.0, 1.0))


def square_outline(x: float, y: float, size: float) -> NDArray[np.float64]:
    """An upright square of side ``size`` centred on (x, y), clockwise from top-left."""
    h = size / 2
    return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], float)


def read_detected(image: NDArray[np.uint8], params: ReaderParams, *,
                  crop: bool = False) -> Reading:
    """Every die in a BGR frame, by proposal (detector) and second look (classifier); faint
    proposals also by the verifier; a sure die whose face is smeared along a line sent to
    review (:func:`vision.smear.doubt_smeared`); a big frame whose dice all look big read
    again at the detector's usual size (:func:`_usual_size_read`); each die outlined by its
    top face (:func:`vision.dice.top_face.with_top_faces`). ``crop``: the caller says the
    frame is one die cut out of a photo (see ``CROP_FILL``)."""
    reading = doubt_smeared(image, _read(image, params, crop), params.min_gradient_balance)
    if params.reread_big_dice and not crop:
        again = _usual_size_read(image, reading, params)
        if again is not None:
            reading = doubt_smeared(image, again, params.min_gradient_balance)
    return with_top_faces(image, reading)


def _usual_size_read(image: NDArray[np.uint8], first: Reading,
                     params: ReaderParams) -> Reading | None:
    """The frame read again at ``params.detector_side`` where the first read was made at a
    larger working size (a frame over twice that size) and every die it is sure of is big
    there (``vision.detector.BIG_DIE`` input pixels or more), so that no die it found needs
    the larger size; ``None`` where that does not hold, or where the second read loses a die
    the first was sure of.

    A big frame is read at half its size so that a table camera's small dice are not shrunk
    to a few pixels; but a photo from a camera of more pixels holds the same dice bigger, and
    read larger the detector takes print, pips and board pieces for dice of their own. The
    held-out webcam photos enlarged four times read precision 0.849 at the larger size and
    0.975 read again (as shot 0.971); the same photos tiled into camera-sized frames, whose
    dice are not big, are not read again (BENCHMARKS.md, "Enlarged photos").

    The second read is made on a copy shrunk by a whole factor to about twice
    ``detector_side`` (the size of the photos the reader was measured on; a whole factor is
    OpenCV's fast path): a 12-MP frame is not resized whole again, and its big dice keep far
    more pixels than the classifier's crops need."""
    h, w = image.shape[:2]
    side = working_side(h, w, params.detector_side, params.detector_max_side)
    if side <= params.detector_side:
        return None
    # ``first`` is smear-checked (read_detected): a pip or a speck of print the check sent
    # to review does not hold the frame at the larger size (one such pip, sure at 0.85
    # without the check, kept an enlarged webcam photo's seven false dice)
    sure = first.sure
    scale = input_scale(h, w, side)
    if not sure or min(face_size(d) for d in sure) * scale < BIG_DIE:
        return None
    k = max(1, max(h, w) // (2 * params.detector_side))
    copy = image if k == 1 else np.asarray(
        cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA), np.uint8)
    usual = replace(params, detector_max_side=params.detector_side)
    again = _in_frame(_read(copy, usual), w, h)
    kept = all(any(np.hypot(d.x - e.x, d.y - e.y) < 0.5 * face_size(d) for e in again.dice)
               for d in sure)
    return again if kept else None


def _in_frame(reading: Reading, width: int, height: int) -> Reading:
    """A reading of a resized copy of a frame, in the frame's own pixels."""
    if (reading.width, reading.height) == (width, height):
        return reading
    factor = np.array([width / reading.width, height / reading.height])

    def back(points: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray((points + 0.5) * factor - 0.5, dtype=np.float64)

    centres = [back(np.array([d.x, d.y])) for d in reading.dice]
    dice = tuple(replace(d, x=float(c[0]), y=float(c[1]), outline=back(d.outline))
                 for d, c in zip(reading.dice, centres, strict=True))
    return replace(reading, dice=dice, width=width, height=height)


def _read(image: NDArray[np.uint8], params: ReaderParams, crop_sized: bool = False) -> Reading:
    """One read of the frame at the working size ``params`` give it (``crop_sized``: the
    caller's word that it is one die cut out of a photo)."""
    h, w = image.shape[:2]
    found = find_candidates(image, side=params.detector_side,
                            min_score=params.detector_min_score,
                            max_side=params.detector_max_side,
                            faint_score=None if crop_sized else params.detector_faint_score,
                            views=params.detector_views,
                            nets=params.detector_networks,
                            int8=params.int8_networks)
    strong = [c for c in found if c.score >= params.detector_min_score]
    faint = [c for c in found if c.score < params.detector_min_score]
    odds = die_odds(image, [(c.x, c.y, c.size) for c in faint])
    verified = [(c, float(p)) for c, p in zip(faint, odds, strict=True)
                if p >= params.verifier_min_odds]
    looked_at = strong + [c for c, _ in verified]
    views = read_crops(image, [(c.x, c.y, c.size) for c in looked_at], params.camera_up,
                       int8=params.int8_networks)
    by_net, up = views.probs, views.up
    second = pool(by_net)
    read = _without_unlikely_dice(image, [
        (c, die) for k, c in enumerate(strong)
        if (die := _die(c, second[k], params, by_net[:, k], views.features[:, k])) is not None],
        params)
    read += [(c, die) for (c, v), p in zip(verified, second[len(strong):], strict=True)
             if (die := _faint_die(c, p, v, params)) is not None]
    dice = [die for _, die in read]
    found = [c for c, _ in read]
    if not crop_sized and _dice_look_small(image, found, params):
        dice += _closer_look(image, found, params, up)
    if crop_sized and not any(presence(c.score, params) >= 1.0 for c in strong):
        whole = _whole_frame_die(image)
        if whole is not None:
            dice = [whole]
    dice.sort(key=lambda d: (d.y, d.x))
    return Reading(dice=doubt_crowds(tuple(dice), params.max_dice, params.min_confidence),
                   width=w, height=h, min_confidence=params.min_confidence)


def _without_unlikely_dice(image: NDArray[np.uint8], read: list[tuple[Candidate, Die]],
                           params: ReaderParams) -> list[tuple[Candidate, Die]]:
    """``read`` without the dice reported for review that the die verifier is nearly sure
    are none (odds under ``params.verifier_drop_odds``); dice read as sure are kept.

    Strong proposals the looks doubt are print, pips, side faces and board pieces as often
    as dice; the verifier, which looks at them in colour at full resolution and was trained
    on such proposals, tells many apart. On the held-out webcam photos this drops one
    lettered label and no die (precision 0.971 -> 0.975); on the same photos tiled into
    camera-sized frames, and enlarged, precision rises a point or five; on 300 unseen
    renders 4 false dice go for 2 right ones (BENCHMARKS.md, "Unlikely dice")."""
    if params.verifier_drop_odds <= 0:
        return read
    doubted = [k for k, (_, die) in enumerate(read) if die.confidence < params.min_confidence]
    if not doubted:
        return read
    odds = die_odds(image, [(read[k][0].x, read[k][0].y, read[k][0].size) for k in doubted])
    dropped = {k for k, p in zip(doubted, odds, strict=True) if p < params.verifier_drop_odds}
    return [pair for k, pair in enumerate(read) if k not in dropped]


def _dice_look_small(image: NDArray[np.uint8], found: list[Candidate],
                     params: ReaderParams) -> bool:
    """Whether the frame deserves a closer look: the dice found are under
    ``params.closer_look_below`` pixels at the detector's working size (their median face),
    or none were found."""
    if params.closer_look_below <= 0:
        return False
    if not found:
        return True
    h, w = image.shape[:2]
    side = working_side(h, w, params.detector_side, params.detector_max_side)
    face = float(np.median([c.size for c in found])) * input_scale(h, w, side)
    return face < params.closer_look_below


def _closer_look(image: NDArray[np.uint8], found: list[Candidate], params: ReaderParams,
                 up: int | None = None) -> list[Die]:
    """Dice the first read missed, from the frame read at twice the size
    (:func:`vision.detector.closer_candidates`): each new proposal (not on a die already
    found) is kept where the verifier and the classifier both call it a die, for review
    like a faint one: it was not seen at the usual size, so it is never sure. The
    classifier reads the new crops in the photo's ``up`` found by the first read (a few
    crops alone may pick a wrong one; held-out phone photos: one more die read right).

    On the held-out phone photos whose dice are small, the closer look keeps 11 dice the
    first read missed against 2 that are none (on the photos the networks trained on, 14
    against 3); reading those photos at twice the size throughout instead found as many
    but took precision from 0.913 to 0.731 (BENCHMARKS.md, "Closer look")."""
    fresh = [c for c in closer_candidates(image, side=params.detector_side,
                                          min_score=params.closer_score,
                                          max_side=params.detector_max_side,
                                          views=params.detector_views,
                                          nets=params.detector_networks,
                                          int8=params.int8_networks)
             if not any(clash(c, k) for k in found)]
    odds = die_odds(image, [(c.x, c.y, c.size) for c in fresh])
    verified = [(c, float(p)) for c, p in zip(fresh, odds, strict=True)
                if p >= params.verifier_min_odds]
    _, second = classify_crops(image, [(c.x, c.y, c.size) for c, _ in verified], up,
                               int8=params.int8_networks)
    return [die for (c, v), p in zip(verified, second, strict=True)
            if (die := _faint_die(c, p, v, params)) is not None]


def _whole_frame_die(image: NDArray[np.uint8]) -> Die | None:
    """The frame read as one die filling it, where the classifier is sure it is a die."""
    h, w = image.shape[:2]
    x, y, size = (w - 1) / 2, (h - 1) / 2, max(h, w) * CROP_FILL
    _, probs = classify_crops(image, [(x, y, size)])
    p = probs[0]
    if float(p[NOT_A_DIE]) >= 0.5:
        return None
    value = int(p[1:].argmax()) + 1
    confidence = float(np.clip(p[value], 0.0, 1.0))
    return Die(value=value, x=x, y=y, confidence=confidence,
               outline=square_outline(x, y, size),
               looks=looks_vector(p[1:], p, None, 1.0, WHOLE, 1.0, size, confidence))


def _die(c: Candidate, second: NDArray[np.float32], params: ReaderParams,
         by_net: NDArray[np.float32] | None = None,
         features: NDArray[np.float32] | None = None) -> Die | None:
    """One proposal as a die, or ``None`` where it is weak and the classifier sees no die.

    ``second`` is the classifier's pooled (7,) probabilities, ``by_net`` its networks' own
    (networks, 7), ``features`` what their last layers weighed (kept in the die's looks).
    Where the detector's and the classifier's favourite values differ, the die is reported
    below the reading's threshold (:func:`value_verdict`) unless each of
    the classifier's networks names the classifier's value on its own
    (:func:`classifiers_overrule`): two looks must agree before a die is adjudicated on,
    and their pooled odds for the value must reach ``params.min_value_odds``, the
    classifier's own ``CLASSIFIER_MIN_ODDS``.
    """
    sure = presence(c.score, params)
    not_a_die = float(second[NOT_A_DIE])
    if not_a_die >= 0.5 and sure < 1.0:
        return None
    value, odds, agree = value_verdict(c.values, second[1:])
    if not agree and by_net is not None and classifiers_overrule(by_net):
        value = int(second[1:].argmax()) + 1
        odds, agree = float(second[value]), True
    confidence = min(sure, odds, 1.0 - not_a_die)
    if not agree or odds < params.min_value_odds or second[value] < CLASSIFIER_MIN_ODDS:
        confidence = min(confidence, params.min_confidence * 0.9)
    confidence = float(np.clip(confidence, 0.0, 1.0))
    return Die(value=value, x=c.x, y=c.y, confidence=confidence,
               outline=square_outline(c.x, c.y, c.size),
               looks=looks_vector(c.values, second, by_net, c.score, STRONG, 1.0, c.size,
                                  confidence, features))


def _faint_die(c: Candidate, second: NDArray[np.float32], verifier_odds: float,
               params: ReaderParams) -> Die | None:
    """A faint proposal the verifier accepted, as a die for review (never sure), or ``None``
    where the classifier sees no die in it."""
    not_a_die = float(second[NOT_A_DIE])
    if not_a_die >= FAINT_NOT_A_DIE:
        return None
    value, odds, _ = value_verdict(c.values, second[1:])
    confidence = min(verifier_odds, odds, 1.0 - not_a_die, params.min_confidence * 0.9)
    confidence = float(np.clip(confidence, 0.0, 1.0))
    return Die(value=value, x=c.x, y=c.y, confidence=confidence,
               outline=square_outline(c.x, c.y, c.size),
               looks=looks_vector(c.values, second, None, c.score, FAINT, verifier_odds, c.size,
                                  confidence))
