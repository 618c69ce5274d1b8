"""Die geometry and looks: a rounded cube with pips on all six faces (opposites sum to 7).

A die is a signed-distance solid, so the renderer can ray-march it from any angle and the
pips on its side faces show up exactly where a real camera would see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tools.render.geometry import Array, rot_axis, rot_x, rot_y, rot_z

#: value -> (local axis index, sign) of the face that shows it; opposite faces sum to 7.
FACE_OF_VALUE: dict[int, tuple[int, int]] = {
    1: (2, 1), 6: (2, -1), 2: (1, 1), 5: (1, -1), 3: (0, 1), 4: (0, -1),
}
#: [axis, 0 for +, 1 for -] -> value
VALUE_OF_FACE = np.zeros((3, 2), dtype=np.int64)
for _v, (_axis, _sign) in FACE_OF_VALUE.items():
    VALUE_OF_FACE[_axis, 0 if _sign > 0 else 1] = _v

#: rotation (local -> world) that puts the face of each value on top
_FACE_UP: dict[int, Array] = {
    1: np.eye(3), 6: rot_x(180), 2: rot_x(90), 5: rot_x(-90), 3: rot_y(-90), 4: rot_y(90),
}


def pip_layout(value: int, offset: float) -> Array:
    """Pip centres (k, 2) in face coordinates where the face spans [-1, 1]."""
    d = offset
    layouts = {
        1: [(0, 0)],
        2: [(-d, -d), (d, d)],
        3: [(-d, -d), (0, 0), (d, d)],
        4: [(-d, -d), (d, -d), (-d, d), (d, d)],
        5: [(-d, -d), (d, -d), (0, 0), (-d, d), (d, d)],
        6: [(-d, -d), (-d, 0), (-d, d), (d, -d), (d, 0), (d, d)],
    }
    return np.array(layouts[value], dtype=np.float64)


@dataclass(frozen=True)
class DieStyle:
    """How a die looks. Colours are BGR 0-255 (sRGB)."""

    body: tuple[int, int, int]
    pips: tuple[int, int, int]
    specular: float = 0.35
    shininess: float = 40.0
    translucency: float = 0.0  # 0 opaque .. 1 glass; mixes in the table behind
    grain: tuple[int, int, int] | None = None  # a second body colour -> wooden grain


STYLES: dict[str, DieStyle] = {
    "white": DieStyle((232, 236, 238), (28, 26, 26)),
    "ivory": DieStyle((190, 222, 236), (30, 30, 34), specular=0.25),
    "white_red": DieStyle((236, 238, 240), (38, 30, 190)),
    "red": DieStyle((38, 34, 178), (238, 238, 238), specular=0.45),
    "green": DieStyle((60, 128, 36), (236, 240, 236), specular=0.4),
    "blue": DieStyle((160, 74, 22), (240, 236, 232), specular=0.4),
    "black": DieStyle((30, 28, 28), (232, 232, 232), specular=0.3, shininess=140),
    "yellow": DieStyle((40, 196, 232), (30, 30, 30)),
    "translucent_red": DieStyle((50, 40, 210), (245, 245, 245), 0.7, 90, translucency=0.5),
    "translucent_blue": DieStyle((200, 110, 40), (245, 245, 245), 0.7, 90, translucency=0.5),
    "translucent_green": DieStyle((90, 190, 60), (245, 245, 245), 0.7, 90, translucency=0.5),
    "wood": DieStyle((110, 160, 205), (32, 40, 58), 0.12, 12, grain=(66, 104, 150)),
}


@dataclass
class Die:
    """One die on (or leaning over) the table; `rotation` maps die-local axes to world."""

    value: int
    centre: Array
    rotation: Array
    size: float
    style: str
    rounding: float = 0.12  # corner radius as a fraction of the size
    pip_offset: float = 0.5
    pip_radius: float = 0.19
    tilt_deg: float = 0.0
    tags: dict[str, object] = field(default_factory=dict)

    @classmethod
    def lying(
        cls, value: int, x: float, y: float, yaw_deg: float, size: float, style: str, **kw: float
    ) -> Die:
        """A die resting flat on the table with `value` up."""
        rotation = rot_z(yaw_deg) @ _FACE_UP[value]
        return cls(value, np.array([x, y, size / 2.0]), rotation, size, style, **kw)  # type: ignore[arg-type]

    def tilted(self, axis_deg: float, tilt_deg: float) -> Die:
        """This die rotated `tilt_deg` about a horizontal axis, lowest point back on the table."""
        axis = np.array([np.cos(np.radians(axis_deg)), np.sin(np.radians(axis_deg)), 0.0])
        rotation = rot_axis(axis, tilt_deg) @ self.rotation
        die = Die(
            self.value, self.centre.copy(), rotation, self.size, self.style, self.rounding,
            self.pip_offset, self.pip_radius, tilt_deg, dict(self.tags),
        )
        die.centre[2] -= die.lowest_z()
        die.value = die.top_value()
        return die

    # -- geometry -------------------------------------------------------------------------
    @property
    def half(self) -> float:
        return self.size / 2.0

    @property
    def bound_radius(self) -> float:
        return float(self.half * np.sqrt(3.0) + 1e-6)

    def to_local(self, p: Array) -> Array:
        return (p - self.centre) @ self.rotation

    def sdf(self, p: Array) -> Array:
        r = self.rounding * self.size
        q = np.abs(self.to_local(p)) - (self.half - r)
        outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
        inside = np.minimum(q.max(axis=-1), 0.0)
        distance: Array = outside + inside - r
        return distance

    def normal(self, p: Array) -> Array:
        r = self.rounding * self.size
        local = self.to_local(p)
        q = np.maximum(np.abs(local) - (self.half - r), 0.0)
        n = np.sign(local) * q
        norm = np.linalg.norm(n, axis=-1, keepdims=True)
        axis = np.argmax(np.abs(local), axis=-1)
        fallback = np.zeros_like(local)
        fallback[np.arange(len(local)), axis] = np.sign(local[np.arange(len(local)), axis])
        n = np.where(norm > 1e-9, n / np.maximum(norm, 1e-12), fallback)
        return n @ self.rotation.T

    def corners(self) -> Array:
        h = self.half
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        return self.centre + (signs * h) @ self.rotation.T

    def lowest_z(self) -> float:
        r = self.rounding * self.size
        core = self.centre + (
            np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
            * (self.half - r)
        ) @ self.rotation.T
        return float(core[:, 2].min() - r)

    def top_axis(self) -> tuple[int, int]:
        """(local axis, sign) of the face whose normal points most upward."""
        up = self.rotation[2]  # world z expressed in local axes
        axis = int(np.argmax(np.abs(up)))
        return axis, int(np.sign(up[axis]))

    def top_value(self) -> int:
        axis, sign = self.top_axis()
        return int(VALUE_OF_FACE[axis, 0 if sign > 0 else 1])

    def top_face_points(self) -> tuple[Array, Array]:
        """World centre (3,) and the 4 corners (4, 3) of the top face, in order around it."""
        axis, sign = self.top_axis()
        others = [a for a in range(3) if a != axis]
        h = self.half
        centre_local = np.zeros(3)
        centre_local[axis] = sign * h
        corners_local = []
        for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            c = centre_local.copy()
            c[others[0]] = su * h
            c[others[1]] = sv * h
            corners_local.append(c)
        to_world = self.rotation.T
        return (
            self.centre + centre_local @ to_world,
            self.centre + np.array(corners_local) @ to_world,
        )

    def surface_samples(self, per_edge: int = 9) -> Array:
        """Points along the 12 edges (rounded in by the corner radius), for contact tests."""
        r = self.rounding * self.size
        h = self.half - r * 0.3
        t = np.linspace(-h, h, per_edge)
        pts = []
        for axis in range(3):
            o = [a for a in range(3) if a != axis]
            for su in (-1, 1):
                for sv in (-1, 1):
                    p = np.zeros((per_edge, 3))
                    p[:, axis] = t
                    p[:, o[0]] = su * h
                    p[:, o[1]] = sv * h
                    pts.append(p)
        return self.centre + np.concatenate(pts) @ self.rotation.T

    # -- looks ----------------------------------------------------------------------------
    def surface(self, p: Array, n: Array) -> tuple[Array, Array, Array, Array]:
        """Albedo (M,3 linear BGR), perturbed normals, pip mask (M,), face value (M,)."""
        style = STYLES[self.style]
        local = self.to_local(p)
        axis = np.argmax(np.abs(local), axis=-1)
        rows = np.arange(len(local))
        sign = np.sign(local[rows, axis])
        value = VALUE_OF_FACE[axis, np.where(sign > 0, 0, 1)]
        u_axis = np.where(axis == 0, 1, 0)
        v_axis = np.where(axis == 2, 1, 2)
        uv = np.stack([local[rows, u_axis], local[rows, v_axis]], axis=-1) / self.half
        nearest_d = np.full(len(local), np.inf)
        nearest_off = np.zeros((len(local), 2))
        for v in range(1, 7):
            sel = value == v
            if not sel.any():
                continue
            pips = pip_layout(v, self.pip_offset)
            diff = uv[sel, None, :] - pips[None, :, :]
            dist = np.linalg.norm(diff, axis=-1)
            k = np.argmin(dist, axis=-1)
            nearest_d[sel] = dist[np.arange(len(k)), k]
            nearest_off[sel] = diff[np.arange(len(k)), k]
        rp = self.pip_radius
        edge = 0.035
        pip = np.clip((rp - nearest_d) / edge + 0.5, 0.0, 1.0)
        body = srgb_to_linear(np.array(style.body, dtype=np.float64))
        albedo = np.tile(body, (len(local), 1))
        if style.grain is not None:
            grain = srgb_to_linear(np.array(style.grain, dtype=np.float64))
            s = local / self.size
            rings = np.sin(
                70.0 * np.hypot(s[:, 0] + 0.9, s[:, 2] - 0.7)
                + 3.0 * np.sin(9.0 * s[:, 1])
                + 1.5 * np.sin(23.0 * s[:, 0] + 4.0 * s[:, 2])
            )
            mix = (0.5 + 0.5 * rings) ** 2.0
            albedo = albedo * (1 - mix[:, None]) + grain * mix[:, None]
        pip_colour = srgb_to_linear(np.array(style.pips, dtype=np.float64))
        albedo = albedo * (1 - pip[:, None]) + pip_colour * pip[:, None]
        # a pip is a shallow dimple: tilt the normal toward the pip centre, darken the rim
        basis = self.rotation.T  # rows: local axes in world
        tangent_u = basis[u_axis]
        tangent_v = basis[v_axis]
        inside = np.clip(nearest_d / rp, 0.0, 1.0)
        dimple = (pip > 0)[:, None] * 0.9 * (nearest_off / max(rp, 1e-6))
        bent = n - dimple[:, 0:1] * tangent_u - dimple[:, 1:2] * tangent_v
        bent /= np.linalg.norm(bent, axis=-1, keepdims=True)
        rim = 1.0 - 0.35 * pip * inside**4
        albedo = albedo * rim[:, None]
        return albedo, bent, pip, value


def srgb_to_linear(c: Array) -> Array:
    return np.power(np.clip(c / 255.0, 0.0, 1.0), 2.2)


def linear_to_srgb(c: Array) -> Array:
    srgb: Array = np.clip(np.power(np.clip(c, 0.0, None), 1 / 2.2) * 255.0, 0.0, 255.0)
    return srgb
