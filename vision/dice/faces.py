"""Stage 2: group pip candidates into die faces and check each group is a real face.

Pips of one face share a polarity, a size, a colour around them (the face) and an ellipse
shape (the view squashes every pip of one face the same way; a side face's pips are squashed
differently). Two pips are linked when all of that agrees and the straight path between them
stays on face colour (a seam between touching dice breaks it). Groups are then checked
against the six pip layouts in a frame where the view's squash is undone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.dice.pips import Pip

#: the six layouts on a 3x3 grid of cells (-1, 0, 1), as sets of (col, row)
_LAYOUTS: dict[int, list[frozenset[tuple[int, int]]]] = {
    1: [frozenset({(0, 0)})],
    2: [frozenset({(-1, -1), (1, 1)}), frozenset({(-1, 1), (1, -1)})],
    3: [frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(-1, 1), (0, 0), (1, -1)})],
    4: [frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1)})],
    5: [frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)})],
    6: [frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)})],
}


@dataclass(frozen=True, slots=True)
class Face:
    """A group of pips read as one die's top face (work-image pixels)."""

    value: int
    x: float
    y: float
    outline: NDArray[np.float64]
    confidence: float
    pip_diameter: float
    side: float
    shape: NDArray[np.float64]  # mean pip ellipse, area-normalised: the view's squash here


@dataclass(frozen=True, slots=True)
class PipContext:
    """What surrounds one pip: the face colour on a ring around it and how even it is."""

    ring_bgr: NDArray[np.float64]
    ring_spread: float
    center_bgr: NDArray[np.float64]


def pip_context(image: NDArray[np.uint8], pips: list[Pip]) -> list[PipContext]:
    """Sample a ring at 1.5 pip radii around every pip (vectorised)."""
    if not pips:
        return []
    h, w = image.shape[:2]
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    xs = np.array([p.x for p in pips])[:, None]
    ys = np.array([p.y for p in pips])[:, None]
    r = np.array([p.diameter for p in pips])[:, None] * 0.5 * 1.55
    px = np.clip(np.round(xs + r * np.cos(angles)), 0, w - 1).astype(int)
    py = np.clip(np.round(ys + r * np.sin(angles)), 0, h - 1).astype(int)
    ring = image[py, px].astype(np.float64)  # (n, 12, 3)
    med = np.median(ring, axis=1)
    spread = np.median(np.abs(ring - med[:, None, :]).sum(axis=2), axis=1)
    cx = np.clip(np.round(xs[:, 0]), 0, w - 1).astype(int)
    cy = np.clip(np.round(ys[:, 0]), 0, h - 1).astype(int)
    centre = image[cy, cx].astype(np.float64)
    return [PipContext(med[i], float(spread[i]), centre[i]) for i in range(len(pips))]


def link_pips(
    image: NDArray[np.uint8],
    pips: list[Pip],
    ctx: list[PipContext],
    size_tolerance: float,
    reach: float,
) -> list[list[int]]:
    """Connected groups of pips that could lie on one face (indices into ``pips``)."""
    n = len(pips)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if n == 0:
        return []
    xy = np.array([[p.x, p.y] for p in pips])
    d = np.array([p.diameter for p in pips])
    dist = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    dmax = np.maximum(d[:, None], d[None, :])
    ratio = dmax / np.minimum(d[:, None], d[None, :])
    dark = np.array([p.dark for p in pips])
    ring = np.array([c.ring_bgr for c in ctx])
    ring_diff = np.abs(ring[:, None, :] - ring[None, :, :]).sum(axis=2)
    cand = (
        (dist < reach * dmax)
        & (dist > 0.9 * dmax)
        & (ratio < size_tolerance)
        & (dark[:, None] == dark[None, :])
        & (ring_diff < 90)
    )
    ii, jj = np.nonzero(np.triu(cand, 1))
    for i, j in zip(ii.tolist(), jj.tolist(), strict=True):
        if not _similar_shape(pips[i], pips[j]):
            continue
        if not _path_on_face(image, pips, ctx, i, j):
            continue
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _similar_shape(a: Pip, b: Pip) -> bool:
    """Same squash: normalised covariances close (both near-round counts as similar)."""
    ca = a.cov / np.sqrt(max(np.linalg.det(a.cov), 1e-9))
    cb = b.cov / np.sqrt(max(np.linalg.det(b.cov), 1e-9))
    return float(np.abs(ca - cb).sum()) < 1.1


def _path_on_face(
    image: NDArray[np.uint8], pips: list[Pip], ctx: list[PipContext], i: int, j: int
) -> bool:
    """The segment between two pips (outside the pips) stays near the faces' colour."""
    a, b = pips[i], pips[j]
    length = float(np.hypot(b.x - a.x, b.y - a.y))
    n = max(int(length), 4)
    t = np.linspace(0.0, 1.0, n)
    ra = 0.5 * a.diameter * 1.25 / length
    rb = 0.5 * b.diameter * 1.25 / length
    t = t[(t > ra) & (t < 1.0 - rb)]
    if t.size == 0:
        return True
    xs = a.x + (b.x - a.x) * t
    ys = a.y + (b.y - a.y) * t
    # leave out samples inside any other pip of the pair's size
    keep = np.ones(t.size, dtype=bool)
    for k, p in enumerate(pips):
        if k in (i, j) or p.dark != a.dark:
            continue
        if abs(p.x - a.x) > length + p.diameter and abs(p.x - b.x) > length + p.diameter:
            continue
        keep &= (xs - p.x) ** 2 + (ys - p.y) ** 2 > (0.5 * p.diameter * 1.3) ** 2
    xs, ys = xs[keep], ys[keep]
    if xs.size == 0:
        return True
    h, w = image.shape[:2]
    px = np.clip(np.round(xs), 0, w - 1).astype(int)
    py = np.clip(np.round(ys), 0, h - 1).astype(int)
    samples = image[py, px].astype(np.float64)
    face = 0.5 * (ctx[i].ring_bgr + ctx[j].ring_bgr)
    pip_col = 0.5 * (ctx[i].center_bgr + ctx[j].center_bgr)
    contrast = float(np.abs(face - pip_col).sum())
    tol = max(0.5 * contrast, 45.0, 2.5 * max(ctx[i].ring_spread, ctx[j].ring_spread))
    off = np.abs(samples - face).sum(axis=1) > tol
    return int(off.sum()) <= max(1, int(0.06 * xs.size))


def read_face(
    image: NDArray[np.uint8], pips: list[Pip], group: list[int], ctx: list[PipContext]
) -> Face | None:
    """Check a group against the pip layouts; return the face or ``None``."""
    members = [pips[i] for i in group]
    n = len(members)
    if n == 0 or n > 6:
        return None
    xy = np.array([[p.x, p.y] for p in members])
    d = float(np.median([p.diameter for p in members]))
    cov = np.mean([p.cov / max(p.diameter**2, 1e-9) for p in members], axis=0)
    # undo the view's squash: whiten with the mean pip ellipse, keep the area
    ev, evec = np.linalg.eigh(cov)
    ev = np.maximum(ev, 1e-9)
    geo = np.sqrt(ev[0] * ev[1])
    unsquash = evec @ np.diag(np.sqrt(geo / ev)) @ evec.T
    squash = np.linalg.inv(unsquash)
    centre = xy.mean(axis=0)
    local = (xy - centre) @ unsquash.T
    contrast = float(np.mean([p.contrast for p in members]))
    spread = float(np.mean([ctx[i].ring_spread for i in group]))

    face_bgr = np.median([ctx[i].ring_bgr for i in group], axis=0)
    pip_bgr = np.mean([ctx[i].center_bgr for i in group], axis=0)
    tol = min(32.0 + 2.0 * spread, 0.3 * float(np.abs(face_bgr - pip_bgr).sum()), 60.0)
    tol = max(tol, 20.0)
    skip = [(p.x, p.y, 0.8 * p.diameter) for p in members]
    if n == 1:
        edges = face_edges(image, centre, squash, face_bgr, tol, 0.65 * d, 5.5 * d, skip)
        ok = (edges >= 1.0 * d) & (edges <= 5.0 * d)
        edge_score = float(ok.mean())
        if edge_score < 0.7:
            return None
        inner = edges[ok]
        if inner.max() > 2.2 * inner.min():
            return None
        side = 1.75 * float(np.median(inner))
        angle = 0.0
        residual = 0.0
    else:
        fit = _fit_layout(local, n, d)
        if fit is None:
            return None
        angle, cell, residual = fit
        side = 4.0 * cell
        if not 0.7 * d <= cell <= 4.5 * d:
            return None
        edges = face_edges(image, centre, squash, face_bgr, tol, 0.3 * cell, 4.0 * cell, skip)
        edge_score = float(((edges >= 1.4 * cell) & (edges <= 3.6 * cell)).mean())
        if n <= 3 and edge_score < 0.4:
            return None
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * side / 2
    outline = (corners @ rot.T) @ squash.T + centre

    conf = 1.0
    conf *= float(np.clip(1.0 - residual / 0.35, 0.0, 1.0)) ** 0.5
    conf *= float(np.clip((contrast - 15.0) / 40.0, 0.2, 1.0)) ** 0.5
    conf *= float(np.clip(1.0 - spread / 120.0, 0.2, 1.0))
    conf *= float(np.clip(0.4 + edge_score, 0.0, 1.0))
    if n == 1:
        fill = members[0].fill
        conf *= 0.9 * float(np.clip((fill - 0.75) / 0.2, 0.2, 1.0))
    shape = cov / np.sqrt(max(float(np.linalg.det(cov)), 1e-12))
    return Face(n, float(centre[0]), float(centre[1]), outline, float(conf), d, side, shape)


def _fit_layout(
    local: NDArray[np.float64], n: int, d: float
) -> tuple[float, float, float] | None:
    """Snap pips to the 3x3 grid; return (grid angle, cell size, residual/cell) or None."""
    diffs = local[:, None, :] - local[None, :, :]
    iu = np.triu_indices(len(local), 1)
    vec = diffs[iu]
    lengths = np.hypot(vec[:, 0], vec[:, 1])
    if lengths.min() < 0.9 * d:
        return None
    phi = np.arctan2(vec[:, 1], vec[:, 0])
    best: tuple[float, float, float] | None = None
    for angle in np.concatenate([phi, phi + np.pi / 4]).tolist():
        c, s = np.cos(-angle), np.sin(-angle)
        aligned = local @ np.array([[c, -s], [s, c]]).T
        cell = 0.5 * float(np.abs(aligned[:, 0]).max() + np.abs(aligned[:, 1]).max())
        if cell <= 0.5 * d:
            continue
        unit = aligned / cell
        snapped = np.clip(np.round(unit), -1, 1)
        residual = float(np.sqrt(((unit - snapped) ** 2).sum(axis=1).mean()))
        cells = frozenset((int(a), int(b)) for a, b in snapped)
        if len(cells) != n or cells not in _LAYOUTS[n]:
            continue
        if best is None or residual < best[2]:
            best = (angle, cell, residual)
    if best is None or best[2] > 0.35:
        return None
    return best


def face_edges(
    image: NDArray[np.uint8],
    centre: NDArray[np.float64],
    squash: NDArray[np.float64],
    face_bgr: NDArray[np.float64],
    tol: float,
    r_min: float,
    r_max: float,
    skip: list[tuple[float, float, float]],
    n_rays: int = 16,
    n_steps: int = 28,
) -> NDArray[np.float64]:
    """Distance (unsquashed px) along rays from ``centre`` to where the face colour ends.

    Rays that stay on face colour up to ``r_max`` give ``inf``. ``skip`` lists (x, y, radius)
    discs (the face's own pips) whose samples do not count.
    """
    h, w = image.shape[:2]
    angles = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    radii = np.linspace(r_min, r_max, n_steps)
    local = np.stack(
        [np.cos(angles)[:, None] * radii[None, :], np.sin(angles)[:, None] * radii[None, :]],
        axis=-1,
    )  # (rays, steps, 2)
    pts = local @ squash.T + centre
    px = np.round(pts[..., 0]).astype(int)
    py = np.round(pts[..., 1]).astype(int)
    outside = (px < 0) | (px >= w) | (py < 0) | (py >= h)
    samples = image[np.clip(py, 0, h - 1), np.clip(px, 0, w - 1)].astype(np.float64)
    in_pip = np.zeros(outside.shape, dtype=bool)
    for x, y, r in skip:
        in_pip |= (pts[..., 0] - x) ** 2 + (pts[..., 1] - y) ** 2 <= r * r
    off = np.abs(samples - face_bgr).sum(axis=-1) > tol
    # a sharp step also ends the face: a white die on a pale table differs little in colour
    step = np.zeros(off.shape, dtype=bool)
    step[:, 2:] = (
        (np.abs(samples[:, 2:] - samples[:, :-2]).sum(axis=-1) > max(24.0, 0.6 * tol))
        & ~in_pip[:, 2:] & ~in_pip[:, :-2]
    )
    off = (off | step) & ~in_pip
    off |= outside
    pair = off[:, :-1] & off[:, 1:]
    first = np.where(pair.any(axis=1), pair.argmax(axis=1), -1)
    return np.where(first >= 0, radii[np.maximum(first, 0)], np.inf)
