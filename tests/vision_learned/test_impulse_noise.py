"""Salt-and-pepper noise for the detector's training and its bench (tools.render.impulse_noise)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tools.bench.bench_impulse import NOISY_SHARE
from tools.render.impulse_noise import impulse_share, salt_and_pepper, switching_median
from tools.train.train_dice_detector import Sample, add_impulses, training_window


def die_like_scene() -> np.ndarray:
    """Grey felt with a white die showing a 5 (pips 5 px across), softened as a lens does:
    edges and pips, no single-pixel specks."""
    img = np.full((120, 160, 3), 90, np.uint8)
    cv2.rectangle(img, (50, 30), (90, 70), (235, 235, 235), -1)
    for x, y in ((58, 38), (82, 38), (70, 50), (58, 62), (82, 62)):
        cv2.circle(img, (x, y), 2, (20, 20, 20), -1)
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 0.8), np.uint8)


def test_a_share_of_pixels_turns_black_or_white_half_each() -> None:
    img = np.full((200, 200, 3), 128, np.uint8)
    out = salt_and_pepper(img, 0.1, np.random.default_rng(0))
    white = (out == 255).all(axis=2).mean()
    black = (out == 0).all(axis=2).mean()
    assert white == pytest.approx(0.05, abs=0.01) and black == pytest.approx(0.05, abs=0.01)
    assert ((out == 128).all(axis=2) | (out == 255).all(axis=2) | (out == 0).all(axis=2)).all()
    assert (img == 128).all()  # the input is not touched


def test_coloured_specks_set_each_channel_on_its_own() -> None:
    img = np.full((200, 200, 3), 128, np.uint8)
    out = salt_and_pepper(img, 0.2, np.random.default_rng(1), coloured=True)
    hit = (out != 128).any(axis=2)
    assert hit.mean() == pytest.approx(0.2, abs=0.03)
    assert np.isin(out[hit], (0, 255)).all()
    mixed = ~(out[hit] == out[hit][:, :1]).all(axis=1)  # e.g. (0, 255, 0): a coloured speck
    assert mixed.mean() > 0.5


def test_amount_must_be_a_share() -> None:
    with pytest.raises(ValueError, match="amount must be a share"):
        salt_and_pepper(die_like_scene(), 1.5, np.random.default_rng(0))


def test_impulse_share_tells_a_noisy_photo_from_a_clean_one() -> None:
    clean = die_like_scene()
    assert impulse_share(clean) < NOISY_SHARE / 10  # pips and edges are not specks
    noisy = salt_and_pepper(clean, 0.01, np.random.default_rng(2), jpeg_quality=85)
    assert impulse_share(noisy) > NOISY_SHARE  # even after JPEG smudges them


def test_training_adds_impulses_at_a_drawn_amount_and_keeps_the_image_size() -> None:
    clean = die_like_scene()
    rng = np.random.default_rng(3)
    shares = [impulse_share(add_impulses(clean, rng)) for _ in range(20)]
    assert min(shares) > 0 and max(shares) > 3 * min(shares)  # amounts vary
    assert add_impulses(clean, rng).shape == clean.shape


def _sample() -> Sample:
    image = cv2.resize(die_like_scene(), (320, 240), interpolation=cv2.INTER_LINEAR)
    dice = np.array([[140.0, 100.0, 80.0, 5, True, False]])
    return Sample(image, 1.0, 1.0, dice, "render")


def test_training_windows_get_impulses_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.train.train_dice_detector as training

    # windows at the photo's own scale: shrinking would average the specks away
    monkeypatch.setattr(training, "window_scale", lambda sample, rng, *_: sample.factor)
    sample = _sample()
    plain_a, dice_a = training_window(sample, np.random.default_rng(5), degrade=0.0)
    plain_b, dice_b = training_window(sample, np.random.default_rng(5), degrade=0.0,
                                      impulse=0.0)
    # impulse 0 draws nothing more: the default recipe's windows stay as they were
    assert np.array_equal(plain_a, plain_b) and np.array_equal(dice_a, dice_b)
    noisy = [training_window(sample, np.random.default_rng(seed), degrade=0.0, impulse=1.0)[0]
             for seed in range(6)]
    assert np.mean([impulse_share(w) for w in noisy]) > NOISY_SHARE
    assert impulse_share(plain_a) < NOISY_SHARE


def test_a_switching_median_takes_the_specks_and_leaves_the_pips() -> None:
    clean = die_like_scene()
    noisy = salt_and_pepper(clean, 0.01, np.random.default_rng(3))
    out = switching_median(noisy)
    assert impulse_share(out) < impulse_share(noisy) / 10
    assert np.array_equal(switching_median(clean), clean)  # nothing there is an impulse
    hit = (noisy != clean).any(axis=2)
    assert np.abs(out[hit].astype(int) - clean[hit].astype(int)).mean() < 20
