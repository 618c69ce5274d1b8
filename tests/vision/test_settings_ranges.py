"""Reader and stillness settings are refused by name when not a finite number in their
documented range: a NaN or an out-of-range value used to be accepted, and the reader then
quietly found no dice (or called pure noise a still scene)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pytest

from vision.params import NumberRange, ReaderParams
from vision.stillness import StillnessParams, prepare

NAN = float("nan")
INF = float("inf")


@pytest.mark.parametrize(("bad", "allowed"), [
    ({"min_pip_circularity": 7.0}, "0..1"),
    ({"min_pip_contrast": 1e9}, "0..255"),
    ({"min_pip_contrast": NAN}, "finite"),
    ({"max_pip_elongation": -1.0}, "at least 1"),
    ({"max_pip_elongation": 0.5}, "at least 1"),
    ({"min_pip_diameter_px": INF}, "finite"),
    ({"min_pip_diameter_px": -1.0}, "at least 0"),
    ({"pip_diameter_px": NAN}, "finite"),
    ({"pip_diameter_px": 0.0}, "more than 0"),
    ({"pip_diameter_px": 5.0, "pip_size_tolerance": NAN}, "finite"),
    ({"closer_look_below": NAN}, "finite"),
    ({"closer_look_below": INF}, "finite"),
    ({"min_confidence": NAN}, "finite"),
    ({"work_max_side": 32}, "at least 64"),
    ({"detector_sure": NAN}, "finite"),
    ({"detector_min_score": 1.0}, r"\(0, 1\)"),
    ({"verifier_drop_odds": NAN}, "finite"),
    ({"min_gradient_balance": INF}, "finite"),
    ({"max_dice": 0}, "at least 1"),
    ({"cover_doubt_odds": 0.0}, r"\(0, 1\]"),
    ({"cover_doubt_odds": NAN}, "finite"),
])
def test_reader_settings_out_of_range_are_refused_by_name(bad: dict[str, float],
                                                          allowed: str) -> None:
    name = list(bad)[-1]
    with pytest.raises(ValueError, match=f"{name} must be .*{allowed}"):
        ReaderParams(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [{"detector_views": 2.0}, {"max_dice": True},
                                 {"min_confidence": "0.5"}, {"work_max_side": None}])
def test_reader_settings_of_the_wrong_kind_are_refused_by_name(bad: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match=next(iter(bad))):
        ReaderParams(**bad)


def test_every_number_the_reader_takes_has_a_checked_range() -> None:
    defaults = ReaderParams()
    numbers = [f.name for f in fields(ReaderParams)
               if not isinstance(getattr(defaults, f.name), bool | str)]
    for name in numbers:  # NaN is no integer: TypeError for those, ValueError for the rest
        with pytest.raises((ValueError, TypeError), match=name):
            ReaderParams(**{name: NAN})  # type: ignore[arg-type]


def test_the_edges_of_each_range_and_the_defaults_are_accepted() -> None:
    assert ReaderParams() == ReaderParams.from_dict(ReaderParams().to_dict())
    ReaderParams(min_pip_circularity=0.0, max_pip_elongation=1.0, min_pip_diameter_px=0.0,
                 pip_diameter_px=9, pip_size_tolerance=1.0, min_pip_contrast=255.0,
                 closer_look_below=0.0,
                 detector_views=np.int64(4))  # type: ignore[arg-type]  # numpy ints too


def test_a_range_describes_itself_in_the_message() -> None:
    assert NumberRange(0.0, 1.0).describe() == "in 0..1"
    assert NumberRange(0.0, 1.0, least_open=True).describe() == "in (0, 1]"
    assert NumberRange(64, unit="px").describe() == "at least 64 px"


@pytest.mark.parametrize(("bad", "name"), [
    ({"pixel_threshold": NAN}, "pixel_threshold"),
    ({"pixel_threshold": 999.0}, "pixel_threshold"),
    ({"pixel_threshold": 255.0}, "pixel_threshold"),
    ({"pixel_threshold": -1.0}, "pixel_threshold"),
    ({"max_moving_fraction": NAN}, "max_moving_fraction"),
    ({"max_frames": 1}, "max_frames"),
    ({"still_frames": 0}, "still_frames"),
])
def test_stillness_settings_out_of_range_are_refused_by_name(bad: dict[str, float],
                                                             name: str) -> None:
    with pytest.raises(ValueError, match=name):
        StillnessParams(**bad)  # type: ignore[arg-type]


def test_stillness_defaults_and_an_unbounded_watch_are_accepted() -> None:
    assert StillnessParams().pixel_threshold == 25.0
    assert StillnessParams(max_frames=None, pixel_threshold=0).max_frames is None


def test_an_empty_frame_is_refused_by_name_not_by_opencv() -> None:
    with pytest.raises(ValueError, match=r"empty \(shape \(0, 5, 3\)\)"):
        prepare(np.zeros((0, 5, 3), np.uint8), StillnessParams())
