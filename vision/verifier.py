"""The die verifier: is this faint detector proposal a die?

The detector (``vision.detector``) reads a frame at a small working size, where a small
coloured die on a busy printed board is only a faint peak of its heat map (0.1-0.4), no
stronger than the board's own die-sized pieces. This small colour network
(``vision/models/dice_verifier.onnx``, trained by ``tools/train/train_dice_verifier.py`` on the
detector's own proposals, hard negatives included) looks at each faint proposal at full
resolution and says how likely it is to be a die. Runtime: numpy, and ONNX Runtime or
OpenCV (``vision.onnx_net``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.detector import normalise
from vision.learned import die_crop
from vision.onnx_net import LazyNet

MODEL_PATH = Path(__file__).with_name("models") / "dice_verifier.onnx"
#: side in pixels of the colour crop the network sees
CROP_PX = 40
#: a crop spans this many times the proposal's face size (context: a die's edges and shadow)
CROP_SPAN = 2.0

NET = LazyNet(MODEL_PATH, "die verifier", "tools/train/train_dice_verifier.py")


def die_odds(image: NDArray[np.uint8], proposals: list[tuple[float, float, float]]
             ) -> NDArray[np.float32]:
    """For each (x, y, face_size) in a BGR frame, the probability (0..1) that a die is there."""
    return crop_odds(NET, image, proposals, CROP_SPAN, CROP_PX)


def crop_odds(net: LazyNet, image: NDArray[np.uint8], spots: list[tuple[float, float, float]],
              span: float, out_px: int) -> NDArray[np.float32]:
    """For each (x, y, size) in a BGR frame, the probability a one-logit colour network
    ``net`` gives its ``out_px`` crop ``span`` sizes across (the verifier, the cover check)."""
    if not spots:
        return np.zeros(0, np.float32)
    return net_odds(net, np.stack([die_crop(image, x, y, span * size, out_px=out_px)
                                   for x, y, size in spots]))


def net_odds(net: LazyNet, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The probability a one-logit colour network gives each of a stack of BGR crops."""
    logits = net.run(normalise(crops)).reshape(-1)
    return np.asarray(1.0 / (1.0 + np.exp(-logits)), dtype=np.float32)
