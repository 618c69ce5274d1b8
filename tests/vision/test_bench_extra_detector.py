"""tools.bench.bench_extra_detector: a file given joins the reader's average of detector
networks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tools.bench.bench_extra_detector import add_members
from vision import detector, load_image

DATA = Path(__file__).resolve().parents[1] / "data"


def test_an_extra_network_is_averaged_in_as_one_more_member(
        monkeypatch: pytest.MonkeyPatch) -> None:
    image = load_image(DATA / "touching" / "touching_1.jpg")
    first, _ = detector.heat_maps(image, 320, nets=1)
    pair, _ = detector.heat_maps(image, 320)
    monkeypatch.setattr(detector, "networks", detector.networks)  # put back after the test
    add_members([detector.MODEL_PATH])  # the first network again, as a third member

    assert [net.path for net in detector.networks()] == [
        detector.MODEL_PATH, detector.WIDE_MODEL_PATH, detector.MODEL_PATH]
    assert len(detector.networks(1)) == 1  # a read of fewer networks is left alone
    three, _ = detector.heat_maps(image, 320)
    # the mean of three maps, the first network's counted twice
    np.testing.assert_allclose(three, (2 * pair + first) / 3, atol=1e-5)
    assert not np.allclose(three, pair, atol=1e-3)
