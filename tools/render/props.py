"""Things that are not dice but get in the way: dice cups (3D) and hands (2D overlays)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tools.render.dice import srgb_to_linear
from tools.render.geometry import Array, rot_axis


@dataclass
class Cup:
    """A dice cup: a solid frustum (wide end at `base`), axis tilted `tilt_deg` from upright."""

    base: Array  # world centre of the wide rim
    height: float = 85.0
    r_wide: float = 54.0
    r_narrow: float = 45.0
    tilt_deg: float = 0.0
    tilt_axis_deg: float = 0.0
    colour: tuple[int, int, int] = (40, 52, 92)  # BGR: brown leather

    def __post_init__(self) -> None:
        axis = np.array([np.cos(np.radians(self.tilt_axis_deg)),
                         np.sin(np.radians(self.tilt_axis_deg)), 0.0])
        self.rotation = rot_axis(axis, self.tilt_deg)  # local z (cup axis) -> world
        self.centre = self.base + self.rotation[:, 2] * self.height / 2.0

    @property
    def bound_radius(self) -> float:
        return float(np.hypot(self.height / 2.0, self.r_wide)) + 1e-6

    def to_local(self, p: Array) -> Array:
        return (p - self.centre) @ self.rotation

    def sdf(self, p: Array) -> Array:
        """Inigo Quilez's capped cone (axis = local z, wide end at -h)."""
        local = self.to_local(p)
        h = self.height / 2.0
        r1, r2 = self.r_wide, self.r_narrow
        qx = np.hypot(local[:, 0], local[:, 1])
        qy = local[:, 2]
        k1 = np.array([r2, h])
        k2 = np.array([r2 - r1, 2.0 * h])
        ca_x = qx - np.minimum(qx, np.where(qy < 0, r1, r2))
        ca_y = np.abs(qy) - h
        q = np.stack([qx, qy], axis=-1)
        tt = np.clip(((k1 - q) @ k2) / (k2 @ k2), 0.0, 1.0)
        cb = q - k1 + k2 * tt[:, None]
        sign = np.where((cb[:, 0] < 0) & (ca_y < 0), -1.0, 1.0)
        distance: Array = sign * np.sqrt(np.minimum(ca_x**2 + ca_y**2, (cb**2).sum(-1)))
        return distance

    def normal(self, p: Array) -> Array:
        e = 0.05
        grads = []
        for i in range(3):
            d = np.zeros(3)
            d[i] = e
            grads.append(self.sdf(p + d) - self.sdf(p - d))
        n = np.stack(grads, axis=-1)
        normals: Array = n / np.maximum(np.linalg.norm(n, axis=-1, keepdims=True), 1e-12)
        return normals

    def surface(self, p: Array, n: Array) -> tuple[Array, Array]:
        """Albedo (linear BGR) with a stitched leather band, and the normals unchanged."""
        local = self.to_local(p)
        base = srgb_to_linear(np.array(self.colour, dtype=np.float64))
        angle = np.arctan2(local[:, 1], local[:, 0])
        grain = 0.9 + 0.1 * np.sin(angle * 40.0 + np.sin(local[:, 2] * 0.7) * 3.0)
        band = (np.abs(local[:, 2] + self.height * 0.3) < 2.0) * 0.5
        albedo = base[None, :] * (grain * (1 - band))[:, None]
        return albedo, n

    def hull_points(self) -> Array:
        angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        ring = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=-1)
        h = self.height / 2.0
        low = ring * self.r_wide + np.array([0, 0, -h])
        high = ring * self.r_narrow + np.array([0, 0, h])
        corners: Array = self.centre + np.concatenate([low, high]) @ self.rotation.T
        return corners


@dataclass(frozen=True)
class Hand:
    """A hand reaching in from the image edge, drawn in image space as a soft blob.

    `u`, `v` place the palm (fractions of the image), `angle_deg` points the fingers,
    `scale` is the palm length as a fraction of the image height, `blur` the motion streak
    in pixels.
    """

    u: float
    v: float
    angle_deg: float
    scale: float = 0.22
    blur: float = 0.0
    skin: tuple[int, int, int] = (120, 150, 205)
