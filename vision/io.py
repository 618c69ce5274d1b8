"""Loading images from disk with errors that say what is wrong."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


class ImageLoadError(ValueError):
    """A path that cannot be read as an image (missing, not an image, or corrupt)."""


#: the most pixels `load_image` decodes: a 200-megapixel phone photo fits, while a file
#: declaring more (a 16000 x 16000 PNG would take 1.5 GB as it is read) is refused from its
#: header, before any memory is taken
MAX_PIXELS = 250_000_000


def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read an image file as a BGR uint8 array, or raise ImageLoadError naming the problem."""
    p = Path(path)
    try:
        if not p.exists():
            raise ImageLoadError(f"{path}: no such file")
        if p.is_dir():
            raise ImageLoadError(f"{path}: is a directory, not an image")
        # read(), not np.fromfile: fromfile seeks, so a pipe (``/dev/stdin``) would fail
        data = np.frombuffer(p.read_bytes(), dtype=np.uint8)
    except OSError as exc:  # a name too long, a loop of links, no permission
        raise ImageLoadError(f"{path}: cannot be read ({exc.strerror})") from exc
    if data.size == 0:
        raise ImageLoadError(f"{path}: empty file, not an image")
    size = declared_size(data[:1 << 20].tobytes())  # past the EXIF and colour profiles
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise ImageLoadError(f"{path}: its header declares {size[0]} x {size[1]} pixels; at "
                             f"most {MAX_PIXELS // 1_000_000} megapixels are read")
    try:
        image = decode_image(data)
    except cv2.error as exc:  # a header claiming more pixels than OpenCV will allocate
        raise ImageLoadError(f"{path}: not a readable image ({_last_line(exc)})") from None
    if image is None:
        raise ImageLoadError(f"{path}: not a readable image (corrupt or unsupported format)")
    return image


def declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG, PNG, BMP or WebP header, without decoding; None if unknown."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        if data.startswith(b"BM"):
            width, height = struct.unpack("<ii", data[18:26])
            return int(width), abs(int(height))
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_size(data)
        if data.startswith(b"\xff\xd8"):
            return _jpeg_size(data)
    except struct.error:  # a header cut short
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The frame size in the first SOF segment."""
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return int(width), int(height)
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        i += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None


def write_image(path: str | Path, image: NDArray[Any]) -> bool:
    """Write an image as its file name's suffix says (PNG without one); False where it cannot
    be encoded or written. Encoded in memory and written by Python: OpenCV's own imwrite
    crashed the whole process on a path that is not valid UTF-8."""
    target = Path(path)
    try:
        ok, encoded = cv2.imencode(target.suffix or ".png", image)
        if not ok:
            return False
        target.write_bytes(encoded.tobytes())
    except (cv2.error, OSError):
        return False
    return True


def decode_image(data: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
    """An image file's bytes as a BGR uint8 array (upright by its EXIF, transparency laid
    over `BACKDROP`), or None where they are no image OpenCV reads. OpenCV's own error
    (``cv2.error``) goes through: a header claiming too many pixels."""
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        return None
    if _may_be_transparent(data):
        image = _over_backdrop(cv2.imdecode(data, cv2.IMREAD_UNCHANGED), image)
    return np.ascontiguousarray(image, dtype=np.uint8)


#: what shows through a transparent image's clear parts: a mid grey, against which white
#: dice and black dice both keep their outlines (the colour hidden under a clear pixel is
#: often black, and then a black die on it would vanish)
BACKDROP = 128.0


def _may_be_transparent(data: NDArray[np.uint8]) -> bool:
    """A PNG with an alpha channel or a transparent colour, or a WebP (which may have one)."""
    head = data[:4096].tobytes()
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) > 25:
        colour_type = head[25]  # IHDR: 4 grey with alpha, 6 colour with alpha
        return colour_type in (4, 6) or b"tRNS" in head.split(b"IDAT", 1)[0]
    return head.startswith(b"RIFF") and head[8:12] == b"WEBP"


def _over_backdrop(full: NDArray[Any] | None, opaque: NDArray[Any]) -> NDArray[Any]:
    """The image laid over `BACKDROP` by its alpha, as a viewer shows it; ``opaque`` (the
    plain colour decode) where the file turns out to have no alpha after all."""
    if full is None or full.ndim != 3 or full.shape[2] != 4 or full.shape[:2] != opaque.shape[:2]:
        return opaque
    top = 65535.0 if full.dtype == np.uint16 else 255.0
    alpha = full[..., 3:4].astype(np.float32) / top
    colour = full[..., :3].astype(np.float32) * (255.0 / top)
    blended = colour * alpha + BACKDROP * (1.0 - alpha)
    flattened: NDArray[np.uint8] = np.clip(blended + 0.5, 0, 255).astype(np.uint8)
    return flattened


def _last_line(exc: Exception) -> str:
    """OpenCV's error without its source file and line: the last line of its message."""
    return str(exc).strip().splitlines()[-1].strip("> ").strip()[:160]
