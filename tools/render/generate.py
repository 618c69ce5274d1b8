"""Random but seeded scene building: cameras, lights, and dice placed without overlaps.

Every function takes a numpy Generator, so a scene is fully determined by its seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tools.render.camera import Camera
from tools.render.dice import STYLES, Die
from tools.render.geometry import Array, convex_overlap, point_in_polygon, square_corners
from tools.render.scene import Effects, Light
from tools.render.textures import TABLE_KINDS

DIE_MM = 16.0
ALL_STYLES = tuple(STYLES)


def random_camera(
    rng: np.random.Generator,
    width: int,
    height: int,
    *,
    die_px: float,
    die_mm: float = DIE_MM,
    tilt: tuple[float, float] = (5.0, 25.0),
    target: tuple[float, float] = (0.0, 0.0),
) -> Camera:
    """A camera whose view puts a die at `target` about `die_px` pixels across."""
    hfov = float(rng.uniform(45, 65))
    focal = (width / 2.0) / np.tan(np.radians(hfov) / 2.0)
    distance = focal * die_mm / die_px + die_mm  # die_px is measured at the die's top face
    return Camera.looking_at(
        width, height, target=target, distance=float(distance),
        tilt_deg=float(rng.uniform(*tilt)), azimuth_deg=float(rng.uniform(-110, -70)),
        roll_deg=float(rng.uniform(-8, 8)), hfov_deg=hfov,
    )


def random_light(rng: np.random.Generator, *, glare: float | None = None) -> Light:
    warm = rng.uniform(-0.08, 0.1)
    return Light(
        azimuth_deg=float(rng.uniform(0, 360)),
        elevation_deg=float(rng.uniform(35, 75)),
        intensity=float(rng.uniform(0.8, 1.15)),
        ambient=float(rng.uniform(0.25, 0.45)),
        softness=float(rng.uniform(0.06, 0.3)),
        tint=(float(1 - warm), 1.0, float(1 + warm)),
        falloff=float(rng.uniform(0.0, 0.35)),
        glare=float(rng.uniform(0.05, 0.5) if glare is None else glare),
    )


def random_effects(rng: np.random.Generator, *, mild: bool = False) -> Effects:
    scale = 0.5 if mild else 1.0
    return Effects(
        defocus=float(rng.choice([0.0, 0.0, rng.uniform(0.4, 1.3) * scale])),
        motion=float(rng.choice([0.0, 0.0, 0.0, rng.uniform(2, 5) * scale])),
        motion_angle_deg=float(rng.uniform(0, 180)),
        noise=float(rng.uniform(1.0, 4.0) * scale),
        jpeg_quality=int(rng.integers(55, 92)) if not mild else None,
        vignette=float(rng.uniform(0.0, 0.3)),
    )


def random_table(rng: np.random.Generator) -> str:
    return str(rng.choice(TABLE_KINDS))


def visible_region(cam: Camera, margin_px: float) -> Array:
    """The table-plane polygon (mm) seen by the camera, shrunk by `margin_px` at the edges."""
    m = margin_px
    corners = np.array(
        [[m, m], [cam.width - m, m], [cam.width - m, cam.height - m], [m, cam.height - m]], float
    )
    return cam.image_to_plane(corners)


def _fits(footprint: Array, placed: Sequence[Die], gap: float) -> bool:
    return all(not convex_overlap(footprint, _footprint(other), gap) for other in placed)


def _footprint(die: Die) -> Array:
    corners = die.corners()
    hull2 = corners[:, :2]
    from cv2 import convexHull

    return convexHull(hull2.astype(np.float32)).reshape(-1, 2).astype(np.float64)


def scatter_dice(
    rng: np.random.Generator,
    region: Array,
    values: Sequence[int],
    *,
    size: float = DIE_MM,
    styles: Sequence[str] = ("white",),
    placed: Sequence[Die] = (),
    touching: float = 0.0,
    gap: float = 2.0,
    size_jitter: float = 0.0,
) -> list[Die]:
    """Dice with the given top values lying inside `region` (mm polygon), not overlapping.

    With probability `touching` a die is pushed against one already placed.
    """
    dice: list[Die] = []
    lo, hi = region.min(axis=0), region.max(axis=0)
    for value in values:
        style = str(styles[int(rng.integers(len(styles)))])
        s = size * float(1 + rng.uniform(-size_jitter, size_jitter))
        others = [*placed, *dice]
        die = None
        if others and rng.random() < touching:
            die = _touching(rng, value, s, style, rng.choice(np.array(others, dtype=object)),
                            others, region)
        for _ in range(400):
            if die is not None:
                break
            x, y = rng.uniform(lo, hi)
            cand = Die.lying(value, float(x), float(y), float(rng.uniform(0, 90)), s, style)
            inside = all(point_in_polygon((float(cx), float(cy)), region)
                         for cx, cy in _footprint(cand))
            if inside and _fits(_footprint(cand), others, gap):
                die = cand
        if die is None:
            raise ValueError(f"no room for {len(values)} dice of {size} mm in the region")
        dice.append(die)
    return dice


def _touching(
    rng: np.random.Generator, value: int, size: float, style: str, anchor: Die,
    others: Sequence[Die], region: Array,
) -> Die | None:
    """A die slid toward `anchor` until their footprints meet (a hair apart)."""
    for _ in range(20):
        angle = rng.uniform(0, 2 * np.pi)
        direction = np.array([np.cos(angle), np.sin(angle)])
        aligned = rng.random() < 0.5
        yaw = float(np.degrees(np.arctan2(anchor.rotation[1, 0], anchor.rotation[0, 0])))
        yaw = yaw if aligned else float(rng.uniform(0, 90))
        lo, hi = 0.5 * size, 2.5 * size
        for _ in range(30):
            mid = (lo + hi) / 2
            x, y = anchor.centre[:2] + direction * mid
            fp = square_corners(float(x), float(y), yaw, size)
            if convex_overlap(fp, _footprint(anchor), 0.0):
                lo = mid
            else:
                hi = mid
        x, y = anchor.centre[:2] + direction * (hi + 0.15)
        cand = Die.lying(value, float(x), float(y), yaw, size, style)
        fp = _footprint(cand)
        rest = [o for o in others if o is not anchor]
        inside = all(point_in_polygon((float(a), float(b)), region) for a, b in fp)
        if inside and _fits(fp, rest, 0.3):
            cand.tags["touching"] = True
            anchor.tags["touching"] = True
            return cand
    return None


def cocked_against(rng: np.random.Generator, anchor: Die, value_hint: int, style: str,
                   tilt_deg: float = 28.0) -> Die:
    """A die leaning on `anchor`: tilted toward it and slid until the two just touch."""
    angle = float(rng.uniform(0, 360))
    direction = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle)), 0.0])
    base = Die.lying(value_hint, 0.0, 0.0, float(rng.uniform(0, 90)), anchor.size, style)
    # tilt so the side facing the anchor rises: rotate about the axis perpendicular to it
    tilted = base.tilted(angle + 90.0, -tilt_deg)

    def gap(dist: float) -> float:
        moved = Die(tilted.value, tilted.centre.copy(), tilted.rotation, tilted.size,
                    tilted.style, tilted.rounding, tilted.pip_offset, tilted.pip_radius,
                    tilted.tilt_deg)
        moved.centre[:2] = anchor.centre[:2] - direction[:2] * dist
        return float(min(anchor.sdf(moved.surface_samples(15)).min(),
                         moved.sdf(anchor.surface_samples(15)).min()))

    lo, hi = 0.3 * anchor.size, 2.0 * anchor.size
    for _ in range(40):
        mid = (lo + hi) / 2
        if gap(mid) < 0.1:
            lo = mid
        else:
            hi = mid
    tilted.centre[:2] = anchor.centre[:2] - direction[:2] * (hi + 0.05)
    tilted.tags["cocked"] = True
    return tilted
