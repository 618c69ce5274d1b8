"""Frames in, readings out: the dice reader and its helpers.

    from vision import read_dice, draw_reading, ReaderParams, Reading, Die
    reading = read_dice(frame_bgr_uint8, ReaderParams())
"""

from vision.draw import draw_reading
from vision.io import ImageLoadError, load_image
from vision.params import ReaderParams
from vision.reader import load_networks, read_dice
from vision.types import Die, Reading

__all__ = [
    "Die",
    "ImageLoadError",
    "ReaderParams",
    "Reading",
    "draw_reading",
    "load_image",
    "load_networks",
    "read_dice",
]
