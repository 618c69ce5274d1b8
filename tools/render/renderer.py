"""Ray-marching renderer: table texture warped into view, dice and cups ray-marched as
signed-distance solids, soft shadows, glare, hands, then camera effects.

Everything random comes from the scene (its seeds), so the same scene gives the same image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from tools.render.camera import Camera
from tools.render.dice import Die, linear_to_srgb, srgb_to_linear
from tools.render.geometry import Array, point_in_polygon
from tools.render.props import Cup, Hand
from tools.render.scene import Effects, Scene
from tools.render.textures import table_texture

Solid = Die | Cup
MARCH_STEPS = 72


@dataclass
class Rendered:
    """A clean render (linear light, output size) and its ground truth."""

    linear: Array  # (H, W, 3) float32, linear BGR
    truth: dict[str, Any]


def light_vector(scene: Scene) -> Array:
    az, el = np.radians([scene.light.azimuth_deg, scene.light.elevation_deg])
    return np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])


# -- table -----------------------------------------------------------------------------------
def _table_layer(scene: Scene, cam: Camera) -> Array:
    """Linear BGR albedo of the table as the camera sees it."""
    corners = np.array([[0, 0], [cam.width, 0], [cam.width, cam.height], [0, cam.height]], float)
    plane = cam.image_to_plane(corners)
    target = cam.image_to_plane(np.array([[cam.width / 2, cam.height / 2]]))[0]
    plane = np.clip(plane, target - 1500, target + 1500)
    x0, y0 = plane.min(axis=0) - 5
    x1, y1 = plane.max(axis=0) + 5
    ppm = cam.pixel_size_mm(np.array([target[0], target[1], 0.0]), 1.0) / scene.supersample
    ppm = min(ppm, 3000 / max(x1 - x0, y1 - y0))
    shape = (int((y1 - y0) * ppm) + 2, int((x1 - x0) * ppm) + 2)
    rng = np.random.default_rng(scene.table_seed)
    tex = table_texture(scene.table, rng, shape, ppm).astype(np.float32)
    texel_to_mm = np.array([[1 / ppm, 0, x0], [0, 1 / ppm, y0], [0, 0, 1]])
    warp = cam.plane_homography() @ texel_to_mm
    img = cv2.warpPerspective(
        tex, warp, (cam.width, cam.height), flags=cv2.INTER_AREA if ppm > 2 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    return srgb_to_linear(img.astype(np.float64)).astype(np.float32)


def _plane_grid(cam: Camera, step: int) -> tuple[Array, Array]:
    """Table-plane points and view vectors on a coarse pixel grid."""
    vs, us = np.mgrid[0 : cam.height + step : step, 0 : cam.width + step : step].astype(float)
    d = cam.rays(us, vs)
    t = -cam.position[2] / np.minimum(d[..., 2], -1e-6)
    points = cam.position + d * t[..., None]
    return points, -d


def _lighting_maps(scene: Scene, cam: Camera, light: Array) -> tuple[Array, Array]:
    """Uneven illumination and the lamp's glare on the table, both smooth, full size."""
    step = 16
    points, view = _plane_grid(cam, step)
    rng = np.random.default_rng(scene.table_seed + 17)
    spot = points.reshape(-1, 3)[rng.integers(points[..., 0].size)][:2]
    middle = points[points.shape[0] // 2, points.shape[1] // 2, :2]
    spread = np.linalg.norm(points[..., :2] - middle, axis=-1).max()
    dist = np.linalg.norm(points[..., :2] - spot, axis=-1) / max(spread, 1.0)
    illum = 1.0 - scene.light.falloff * np.clip(dist, 0, 1.5) ** 1.5
    half = light[None, None, :] + view
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    shine = {"wood": 150, "dark_wood": 150, "board": 250, "hex_board": 250, "paper": 30,
             "felt": 8, "cloth": 10}
    strength = {"felt": 0.15, "cloth": 0.2, "paper": 0.5}.get(scene.table, 1.0)
    glare = scene.light.glare * strength * np.clip(half[..., 2], 0, 1) ** shine.get(scene.table, 60)
    size = (cam.width, cam.height)
    illum_full = cv2.resize(illum.astype(np.float32), (size[0] + step, size[1] + step),
                            interpolation=cv2.INTER_LINEAR)[: size[1], : size[0]]
    glare_full = cv2.resize(glare.astype(np.float32), (size[0] + step, size[1] + step),
                            interpolation=cv2.INTER_LINEAR)[: size[1], : size[0]]
    return illum_full, glare_full


def _shadow_masks(solids: list[Solid], cam: Camera, light: Array) -> tuple[Array, Array]:
    """Hard cast-shadow and contact (ambient occlusion) masks on the table."""
    cast = np.zeros((cam.height, cam.width), np.float32)
    contact = np.zeros_like(cast)
    for solid in solids:
        pts = solid.corners() if isinstance(solid, Die) else solid.hull_points()
        on_plane = pts - (pts[:, 2:3] / light[2]) * light[None, :]
        on_plane[:, 2] = 0.0
        img = cam.project(np.concatenate([on_plane, pts[pts[:, 2] < 1.0] * [1, 1, 0]]))
        hull = cv2.convexHull(img.astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(cast, hull, 1.0, lineType=cv2.LINE_AA)
        low = pts[pts[:, 2] < 0.35 * _height(solid)]
        if len(low) >= 3:
            foot = cam.project(low * [1, 1, 0])
            cv2.fillConvexPoly(contact, cv2.convexHull(foot.astype(np.float32)).astype(np.int32),
                               1.0, lineType=cv2.LINE_AA)
    return cast, contact


def _height(solid: Solid) -> float:
    return solid.size if isinstance(solid, Die) else solid.height


# -- solids ----------------------------------------------------------------------------------
def _pixel_box(solid: Solid, cam: Camera) -> tuple[int, int, int, int] | None:
    r = solid.bound_radius
    offsets = np.array([[sx, sy, sz] for sx in (-r, r) for sy in (-r, r) for sz in (-r, r)])
    pts = solid.centre + offsets
    if (cam.depth(pts) <= 1.0).any():
        return 0, 0, cam.width, cam.height
    px = cam.project(pts)
    x0, y0 = np.floor(px.min(axis=0)).astype(int)
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, cam.width), min(y1, cam.height)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def _march(solid: Solid, cam: Camera, box: tuple[int, int, int, int]) -> tuple[Array, Array]:
    """Flat pixel indices hit and the ray distance to each hit."""
    x0, y0, x1, y1 = box
    vs, us = np.mgrid[y0:y1, x0:x1]
    us, vs = us.ravel().astype(float), vs.ravel().astype(float)
    d = cam.rays(us, vs)
    oc = cam.position - solid.centre
    b = d @ oc
    c = oc @ oc - solid.bound_radius**2
    disc = b * b - c
    keep = disc > 0
    flat = (vs * cam.width + us).astype(np.int64)[keep]
    d = d[keep]
    root = np.sqrt(disc[keep])
    t = np.maximum(-b[keep] - root, 0.0)
    t_far = -b[keep] + root
    eps = 2e-4 * _height(solid)
    active = np.arange(len(t))
    done = np.zeros(len(t), dtype=bool)
    for _ in range(MARCH_STEPS):
        if len(active) == 0:
            break
        p = cam.position + d[active] * t[active, None]
        dist = solid.sdf(p)
        t[active] += dist
        hit = dist < eps
        done[active[hit]] = True
        active = active[~hit & (t[active] < t_far[active])]
    return flat[done], t[done]


def _soft_shadow(points: Array, light: Array, blockers: list[Solid], scale: float) -> Array:
    """Sphere-traced soft shadow toward the lamp: 1 lit .. 0 fully shadowed.

    Only rays that pass near a blocker's bounding sphere are marched; the rest are lit.
    """
    lit = np.ones(len(points))
    for solid in blockers:
        oc = solid.centre - points
        along = oc @ light
        miss = np.linalg.norm(oc - along[:, None] * light[None, :], axis=-1)
        near = np.nonzero((along > -solid.bound_radius) & (miss < 1.4 * solid.bound_radius))[0]
        if len(near) == 0:
            continue
        pts = points[near]
        t = np.full(len(near), 0.02 * scale)
        res = np.ones(len(near))
        for _ in range(24):
            h = solid.sdf(pts + light[None, :] * t[:, None])
            res = np.minimum(res, 7.0 * h / t)
            t += np.clip(h, 0.02 * scale, 0.5 * scale)
        lit[near] = np.minimum(lit[near], np.clip(res, 0.0, 1.0))
    return lit * lit * (3 - 2 * lit)


def _near(a: Solid, b: Solid) -> bool:
    gap = np.linalg.norm(a.centre - b.centre) - a.bound_radius - b.bound_radius
    return bool(gap < 2.5 * max(_height(a), _height(b)))


# -- hands -----------------------------------------------------------------------------------
def _hand_mask(hand: Hand, cam: Camera) -> Array:
    h, w = cam.height, cam.width
    mask = np.zeros((h, w), np.float32)
    size = hand.scale * h
    cx, cy = hand.u * w, hand.v * h
    a = np.radians(hand.angle_deg)
    fwd = np.array([np.cos(a), np.sin(a)])
    side = np.array([-fwd[1], fwd[0]])
    palm = (int(cx), int(cy))
    cv2.ellipse(mask, palm, (int(size * 0.55), int(size * 0.45)), hand.angle_deg, 0, 360, 1.0, -1,
                cv2.LINE_AA)
    for i, (off, length) in enumerate(((-0.33, 0.75), (-0.11, 0.85), (0.11, 0.8), (0.31, 0.62))):
        base = np.array([cx, cy]) + fwd * size * 0.35 + side * size * off
        tip = base + fwd * size * length
        cv2.line(mask, tuple(base.astype(int)), tuple(tip.astype(int)), 1.0,
                 max(2, int(size * (0.2 if i else 0.21))), cv2.LINE_AA)
    thumb0 = np.array([cx, cy]) + side * size * 0.4
    thumb1 = thumb0 + (side * 0.7 + fwd * 0.6) * size * 0.6
    cv2.line(mask, tuple(thumb0.astype(int)), tuple(thumb1.astype(int)), 1.0,
             max(2, int(size * 0.22)), cv2.LINE_AA)
    arm_end = np.array([cx, cy]) - fwd * size * 6.0
    cv2.line(mask, palm, tuple(arm_end.astype(int)), 1.0, max(2, int(size * 0.75)), cv2.LINE_AA)
    return mask


def _draw_hands(frame: Array, scene: Scene, cam: Camera, light: Array) -> Array:
    """Hands over the picture: a soft shadow first, then the shaded, motion-blurred skin."""
    covered = np.zeros(frame.shape[:2], np.float32)
    for hand in scene.hands:
        mask = _hand_mask(hand, cam)
        # the hand floats ~80 mm above the table: its shadow lands offset away from the lamp
        shift = -light[:2] / max(light[2], 0.2) * 0.35 * hand.scale * cam.height
        m = np.array([[1, 0, shift[1] * 0 + shift[0]], [0, 1, shift[1]]], np.float32)
        shadow = cv2.warpAffine(mask, m, (cam.width, cam.height))
        shadow = cv2.GaussianBlur(shadow, (0, 0), 0.12 * hand.scale * cam.height)
        frame = frame * (1 - 0.55 * shadow[..., None])
        dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
        roundness = np.clip(dist / (0.12 * hand.scale * cam.height + 1e-6), 0, 1) ** 0.5
        skin = srgb_to_linear(np.array(hand.skin, dtype=np.float64)).astype(np.float32)
        layer = skin[None, None, :] * (0.35 + 0.75 * roundness[..., None])
        if hand.blur > 0:
            length = max(3, int(hand.blur * cam.width / 1000))
            kernel = np.zeros((length, length), np.float32)
            kernel[length // 2, :] = 1.0 / length
            rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), -hand.angle_deg, 1)
            kernel = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), np.float32)
            kernel /= max(kernel.sum(), 1e-6)
            layer = cv2.filter2D(layer * mask[..., None], -1, kernel)
            mask = cv2.filter2D(mask, -1, kernel)
            layer = layer / np.maximum(mask[..., None], 1e-4)
        frame = frame * (1 - mask[..., None]) + layer * mask[..., None]
        covered = np.maximum(covered, mask)
    return frame, covered  # type: ignore[return-value]


# -- the whole picture -----------------------------------------------------------------------
def render_clean(scene: Scene) -> Rendered:
    """The scene in linear light, without sensor effects, plus its ground truth."""
    ss = scene.supersample
    cam = scene.camera.scaled(ss)
    light = light_vector(scene)
    tint = np.array(scene.light.tint, np.float32)
    solids: list[Solid] = [*scene.dice, *scene.cups]

    albedo = _table_layer(scene, cam)
    illum, glare = _lighting_maps(scene, cam, light)
    cast, contact = _shadow_masks(solids, cam, light)
    die_px = [cam.pixel_size_mm(d.centre, d.size) for d in scene.dice] or [40.0]
    typical = float(np.median(die_px))
    cast = cv2.GaussianBlur(cast, (0, 0), max(0.6, scene.light.softness * typical))
    contact = cv2.GaussianBlur(contact, (0, 0), max(0.6, 0.12 * typical))
    direct = scene.light.intensity * light[2] * (1 - 0.85 * cast)
    frame = albedo * ((scene.light.ambient * (1 - 0.5 * contact) + direct) * illum)[..., None]
    frame = (frame + (glare * (1 - cast))[..., None]) * tint
    table_behind = frame.copy()

    zbuf = np.full(cam.width * cam.height, np.inf)
    owner = np.full(cam.width * cam.height, -1, dtype=np.int64)
    hits: list[tuple[Array, Array]] = []
    for k, solid in enumerate(solids):
        box = _pixel_box(solid, cam)
        idx, t = (np.zeros(0, np.int64), np.zeros(0)) if box is None else _march(solid, cam, box)
        hits.append((idx, t))
        closer = t < zbuf[idx]
        zbuf[idx[closer]] = t[closer]
        owner[idx[closer]] = k

    flat = frame.reshape(-1, 3)
    behind = table_behind.reshape(-1, 3)
    top_visible: list[float] = []
    for k, solid in enumerate(solids):
        idx, t = hits[k]
        vs, us = np.divmod(idx, cam.width)
        d = cam.rays(us.astype(float), vs.astype(float))
        p = cam.position + d * t[:, None]
        if isinstance(solid, Die):
            axis, sign = solid.top_axis()
            local = solid.to_local(p)
            on_top = (np.argmax(np.abs(local), axis=-1) == axis) & (np.sign(local[:, axis]) == sign)
            own = int(on_top.sum())
            seen = int((on_top & (owner[idx] == k)).sum())
            top_visible.append(seen / own if own else 0.0)
        mine = owner[idx] == k
        idx, p, d = idx[mine], p[mine], d[mine]
        if len(idx) == 0:
            continue
        n = solid.normal(p)
        if isinstance(solid, Die):
            from tools.render.dice import STYLES

            style = STYLES[solid.style]
            alb, n, pip, _ = solid.surface(p, n)
            ks, shin, trans = style.specular, style.shininess, style.translucency
        else:
            alb, n = solid.surface(p, n)
            pip = np.zeros(len(idx))
            ks, shin, trans = 0.15, 20.0, 0.0
        blockers = [o for j, o in enumerate(solids) if j != k and _near(solid, o)]
        lit = _soft_shadow(p + n * 0.01 * _height(solid), light, blockers, _height(solid))
        diffuse = np.clip(n @ light, 0, None) * lit * scene.light.intensity
        hemi = scene.light.ambient * (0.55 + 0.45 * n[:, 2])
        half = light[None, :] - d
        half /= np.linalg.norm(half, axis=-1, keepdims=True)
        spec = ks * (1 - 0.6 * pip) * np.clip((n * half).sum(-1), 0, 1) ** shin * lit
        spec *= 1.0 + 1.5 * scene.light.glare
        colour = alb * (hemi + diffuse)[:, None] + spec[:, None]
        if trans > 0:
            glow = alb / max(float(alb.max()), 1e-6)
            see_through = behind[idx] * (0.35 + 0.9 * glow) + alb * 0.25
            mix = trans * (1 - pip)[:, None]
            colour = colour * (1 - mix) + see_through * mix + spec[:, None] * mix
        flat[idx] = (colour * tint).astype(np.float32)

    frame, covered = _draw_hands(frame, scene, cam, light)
    out = cv2.resize(frame, (scene.camera.width, scene.camera.height), interpolation=cv2.INTER_AREA)
    covered_small = cv2.resize(covered, (scene.camera.width, scene.camera.height),
                               interpolation=cv2.INTER_AREA)
    truth = ground_truth(scene, top_visible, covered_small)
    return Rendered(out.astype(np.float32), truth)


def finish(rendered: Rendered, effects: Effects, noise_seed: int) -> Array:
    """Apply lens and sensor effects and return a BGR uint8 frame."""
    img = np.tanh(1.1 * rendered.linear) / np.float32(0.9)  # a soft shoulder instead of clipping
    h, w = img.shape[:2]
    if effects.vignette > 0:
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xs - w / 2) / (w / 2)) ** 2 + ((ys - h / 2) / (h / 2)) ** 2
        img *= (1 - effects.vignette * r2 / 2)[..., None]
    srgb = linear_to_srgb(img).astype(np.float32)
    if effects.defocus > 0:
        srgb = np.asarray(cv2.GaussianBlur(srgb, (0, 0), effects.defocus), np.float32)
    if effects.motion > 1:
        length = int(round(effects.motion)) | 1
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                      effects.motion_angle_deg, 1)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), np.float32)
        srgb = np.asarray(cv2.filter2D(srgb, -1, kernel / max(kernel.sum(), 1e-6)), np.float32)
    rng = np.random.default_rng(noise_seed)
    if effects.noise > 0:
        shot = np.sqrt(np.clip(srgb, 0, 255) / 255.0) * effects.noise
        srgb = srgb + rng.normal(0, 1, srgb.shape).astype(np.float32) * (0.5 * effects.noise + shot)
    out = np.clip(np.rint(srgb), 0, 255).astype(np.uint8)
    if effects.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, effects.jpeg_quality])
        assert ok
        out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def render(scene: Scene) -> tuple[Array, dict[str, Any]]:
    """Render a scene to a BGR uint8 image and its ground truth."""
    rendered = render_clean(scene)
    return finish(rendered, scene.effects, scene.noise_seed), rendered.truth


# -- ground truth ----------------------------------------------------------------------------
def ground_truth(scene: Scene, top_visible: list[float], covered: Array) -> dict[str, Any]:
    cam = scene.camera
    layout = scene.layout.to_image(cam) if scene.layout is not None else None
    dice = []
    for die, seen in zip(scene.dice, top_visible, strict=True):
        centre3, corners3 = die.top_face_points()
        centre = cam.project(centre3)
        outline = cam.project(corners3)
        # clockwise in image coordinates (y down), starting from the top-most corner
        area2 = sum(
            outline[i, 0] * outline[(i + 1) % 4, 1] - outline[(i + 1) % 4, 0] * outline[i, 1]
            for i in range(4)
        )
        if area2 < 0:
            outline = outline[::-1]
        start = int(np.argmin(outline[:, 1]))
        outline = np.roll(outline, -start, axis=0)
        u, v = int(np.clip(centre[0], 0, cam.width - 1)), int(np.clip(centre[1], 0, cam.height - 1))
        visible = float(seen) * float(1 - covered[v, u])
        entry: dict[str, Any] = {
            "value": int(die.value),
            "x": round(float(centre[0]), 2),
            "y": round(float(centre[1]), 2),
            "outline": [[round(float(a), 2), round(float(b), 2)] for a, b in outline],
            "size_px": round(float(np.mean(np.linalg.norm(outline - np.roll(outline, 1, 0),
                                                          axis=1))), 2),
            "style": die.style,
            "visible": round(visible, 3),
            "tilt_deg": round(abs(float(die.tilt_deg)), 1),
        }
        seat, area = _seat_of(layout, (float(centre[0]), float(centre[1])))
        entry["seat"] = seat
        entry["area"] = area
        entry["uncertain"] = bool(abs(die.tilt_deg) > 8 or visible < 0.7)
        entry.update(die.tags)
        dice.append(entry)
    truth: dict[str, Any] = {
        "width": cam.width,
        "height": cam.height,
        "table": scene.table,
        "dice": dice,
        "camera": cam.to_json(),
        "light": {"azimuth_deg": scene.light.azimuth_deg,
                  "elevation_deg": scene.light.elevation_deg},
        "cups": len(scene.cups),
        "hands": len(scene.hands),
    }
    if layout is not None:
        truth["layout"] = layout
    truth.update(scene.tags)
    return truth


def _seat_of(
    layout: dict[str, Any] | None, point: tuple[float, float]
) -> tuple[int | None, str | None]:
    if layout is None:
        return None, None
    for i, seat in enumerate(layout["seats"]):
        if point_in_polygon(point, np.array(seat["zone"])):
            return i, "zone"
        if point_in_polygon(point, np.array(seat["front"])):
            return i, "front"
    return None, None
