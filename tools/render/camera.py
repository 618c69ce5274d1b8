"""A pinhole camera over the table plane (world z = 0, z up, millimetres).

The renderer casts rays from it and the ground truth projects 3D points through it,
so both agree exactly on where a die's top face lands in the image.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tools.render.geometry import Array


@dataclass(frozen=True)
class Camera:
    """OpenCV convention: camera x right, y down, z forward; `rotation` maps world -> camera."""

    width: int
    height: int
    focal: float
    position: Array
    rotation: Array

    @classmethod
    def looking_at(
        cls,
        width: int,
        height: int,
        *,
        target: tuple[float, float],
        distance: float,
        tilt_deg: float,
        azimuth_deg: float,
        roll_deg: float,
        hfov_deg: float,
    ) -> Camera:
        """A camera `distance` mm from `target`, tilted `tilt_deg` from straight down."""
        tilt, az, roll = np.radians([tilt_deg, azimuth_deg, roll_deg])
        away = np.array([np.cos(az), np.sin(az), 0.0])  # horizontal, target -> camera
        tgt = np.array([target[0], target[1], 0.0])
        position = tgt + distance * (np.sin(tilt) * away + np.array([0.0, 0.0, np.cos(tilt)]))
        forward = tgt - position
        forward /= np.linalg.norm(forward)
        down_hint = away  # image "down" points toward the camera's side of the table
        y_axis = down_hint - np.dot(down_hint, forward) * forward
        y_axis /= np.linalg.norm(y_axis)
        x_axis = np.cross(y_axis, forward)
        c, s = np.cos(roll), np.sin(roll)
        x_axis, y_axis = c * x_axis + s * y_axis, -s * x_axis + c * y_axis
        rotation = np.stack([x_axis, y_axis, forward])
        focal = (width / 2.0) / np.tan(np.radians(hfov_deg) / 2.0)
        return cls(width, height, float(focal), position, rotation)

    def scaled(self, factor: int) -> Camera:
        """The same view at `factor` times the resolution (for supersampling)."""
        return Camera(
            self.width * factor, self.height * factor, self.focal * factor,
            self.position, self.rotation,
        )

    @property
    def centre(self) -> tuple[float, float]:
        return (self.width - 1) / 2.0, (self.height - 1) / 2.0

    def project(self, points: Array) -> Array:
        """World points (..., 3) -> pixel coordinates (..., 2)."""
        cam = (np.asarray(points, dtype=np.float64) - self.position) @ self.rotation.T
        cx, cy = self.centre
        z = cam[..., 2:3]
        return np.concatenate(
            [self.focal * cam[..., 0:1] / z + cx, self.focal * cam[..., 1:2] / z + cy], axis=-1
        )

    def depth(self, points: Array) -> Array:
        return ((np.asarray(points) - self.position) @ self.rotation.T)[..., 2]

    def rays(self, us: Array, vs: Array) -> Array:
        """Unit world directions through pixel centres (us, vs)."""
        cx, cy = self.centre
        d = np.stack(
            [(us - cx) / self.focal, (vs - cy) / self.focal, np.ones_like(us, dtype=np.float64)],
            axis=-1,
        )
        d = d @ self.rotation
        rays: Array = d / np.linalg.norm(d, axis=-1, keepdims=True)
        return rays

    def plane_homography(self) -> Array:
        """3x3 map from table-plane (x, y, 1) in mm to image pixels."""
        cx, cy = self.centre
        k = np.array([[self.focal, 0, cx], [0, self.focal, cy], [0, 0, 1.0]])
        t = -self.rotation @ self.position
        homography: Array = k @ np.column_stack([self.rotation[:, 0], self.rotation[:, 1], t])
        return homography

    def image_to_plane(self, pixels: Array) -> Array:
        """Pixels (N, 2) -> table-plane points (N, 2) in mm."""
        h_inv = np.linalg.inv(self.plane_homography())
        pts = np.column_stack([pixels, np.ones(len(pixels))]) @ h_inv.T
        return pts[:, :2] / pts[:, 2:3]

    def pixel_size_mm(self, point: Array, size_mm: float) -> float:
        """How many pixels an object `size_mm` across spans at `point` (roughly)."""
        return float(self.focal * size_mm / self.depth(np.asarray(point, dtype=np.float64)))

    def to_json(self) -> dict[str, object]:
        return {
            "width": self.width,
            "height": self.height,
            "focal_px": round(self.focal, 3),
            "position_mm": [round(float(v), 3) for v in self.position],
            "rotation": [[round(float(v), 6) for v in row] for row in self.rotation],
        }
