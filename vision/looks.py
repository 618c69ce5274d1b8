"""What each look said about one die, kept with the die so that a table's own head
(``vision.table_head``) can decide its value again without reading the photo twice.

A die's ``looks`` is a float32 vector laid out as below: the detector's value odds, the
crop classifier's pooled odds and each of its networks' odds (class 0: "not a die"), the
proposal's score and size, how it was proposed, the verifier's odds where it asked, and what
each network's last layer weighed (``FEATURE_WIDTH`` numbers: zeros where the die
was not read by both networks apart), from which a table's head learns this table's dice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

#: how a die was proposed: a strong proposal, a faint one the verifier (or the closer look)
#: let through, or the whole frame read as one die
STRONG, FAINT, WHOLE = 0, 1, 2

DETECTOR = slice(0, 6)
POOLED = slice(6, 13)
NET_A = slice(13, 20)
NET_B = slice(20, 27)
SCORE, KIND, VERIFIER, SIZE, CONFIDENCE = 27, 28, 29, 30, 31
#: what each classifier network's last layer weighs, numbers a crop (the width of the shipped
#: networks' ``features`` output: ``vision.learned``)
FEATURE_WIDTH = 96
#: each network's features, the photos network's first
FEATURES = slice(32, 32 + 2 * FEATURE_WIDTH)
LENGTH = FEATURES.stop


def looks_vector(detector: NDArray[np.floating[Any]], pooled: NDArray[np.floating[Any]],
                 by_net: NDArray[np.floating[Any]] | None, score: float, kind: int,
                 verifier: float, size: float, confidence: float,
                 features: NDArray[np.floating[Any]] | None = None) -> NDArray[np.float32]:
    """The ``looks`` of one die. ``by_net`` (networks, 7) may be ``None`` where only the
    pooled odds were taken (faint and closer proposals): each network then counts as the pool.
    ``confidence`` is the one the reader's value decision gave it, before any later check
    (the smear check, a crowd) doubted it. ``features`` (networks, ``FEATURE_WIDTH``): what
    each network's last layer weighed; ``None`` leaves zeros."""
    nets = np.asarray(by_net if by_net is not None and len(by_net) else [pooled], np.float32)
    out = np.empty(LENGTH, np.float32)
    out[DETECTOR] = np.asarray(detector, np.float32)[:6]
    out[POOLED] = np.asarray(pooled, np.float32)[:7]
    out[NET_A] = nets[0][:7]
    out[NET_B] = nets[-1][:7]
    out[SCORE], out[KIND], out[VERIFIER], out[SIZE] = score, kind, verifier, size
    out[CONFIDENCE] = confidence
    out[FEATURES] = 0.0
    if features is not None:
        out[FEATURES] = np.asarray(features, np.float32).reshape(-1)
    return out
