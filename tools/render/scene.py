"""What a rendered picture contains: camera, light, table, dice, cups, hands and effects."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.render.camera import Camera
from tools.render.dice import Die
from tools.render.layout import Layout
from tools.render.props import Cup, Hand


@dataclass(frozen=True)
class Light:
    """A directional lamp plus sky-like ambient light; `falloff` makes one side dimmer."""

    azimuth_deg: float = 30.0
    elevation_deg: float = 55.0
    intensity: float = 1.0
    ambient: float = 0.35
    softness: float = 0.15  # penumbra, as a fraction of an object's height in pixels
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR multipliers (white balance)
    falloff: float = 0.15
    glare: float = 0.25  # strength of the lamp's reflection on the table and dice


@dataclass(frozen=True)
class Effects:
    """Camera imperfections applied after rendering (in output pixels)."""

    defocus: float = 0.0  # Gaussian sigma
    motion: float = 0.0  # streak length
    motion_angle_deg: float = 0.0
    noise: float = 2.0  # sensor noise sigma on 0-255
    jpeg_quality: int | None = None  # an extra in-memory JPEG round trip (camera compression)
    vignette: float = 0.15


@dataclass
class Scene:
    camera: Camera
    light: Light
    table: str
    table_seed: int
    dice: list[Die] = field(default_factory=list)
    cups: list[Cup] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    effects: Effects = field(default_factory=Effects)
    noise_seed: int = 0
    supersample: int = 2
    layout: Layout | None = None
    tags: dict[str, object] = field(default_factory=dict)
