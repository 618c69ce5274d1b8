"""The occluders the cover check learns from: the mask says what they hide."""

from __future__ import annotations

import numpy as np
import pytest

from tools.render.occluders import KINDS, hidden_share, occlude


def _table() -> np.ndarray:
    return np.full((240, 320, 3), (60, 120, 160), np.uint8)


@pytest.mark.parametrize("kind", KINDS)
def test_an_occluder_past_the_centre_hides_much_of_the_face(kind: str) -> None:
    rng = np.random.default_rng(3)
    image, mask = occlude(_table(), 160, 120, 30, kind, rng, reach=-0.3)
    assert hidden_share(mask, 160, 120, 30) > 0.5
    assert image.shape == (240, 320, 3) and image.dtype == np.uint8
    assert not np.array_equal(image, _table())


@pytest.mark.parametrize("kind", KINDS)
def test_an_occluder_well_beside_the_die_hides_none_of_it(kind: str) -> None:
    rng = np.random.default_rng(4)
    _, mask = occlude(_table(), 160, 120, 30, kind, rng, reach=1.2)
    assert hidden_share(mask, 160, 120, 30) == 0.0
    assert mask.max() > 0.5  # it was drawn, beside the die


def test_hidden_share_counts_the_covered_part_of_the_face() -> None:
    mask = np.zeros((100, 100), np.float32)
    mask[:, 50:] = 1.0
    assert hidden_share(mask, 50, 50, 20) == pytest.approx(0.5)
    assert hidden_share(mask, 20, 50, 20) == 0.0
    assert hidden_share(mask, 500, 500, 20) == 0.0  # off the picture


def test_an_unknown_occluder_is_named() -> None:
    with pytest.raises(ValueError, match="unknown occluder 'glove'"):
        occlude(_table(), 10, 10, 5, "glove", np.random.default_rng(0), 0.0)
