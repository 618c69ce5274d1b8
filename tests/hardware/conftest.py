"""Panel fixtures: real gpiozero devices on mock pins, and a clock the test moves by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


class FakeClock:
    """Monotonic time the test advances, so debounce and long presses need no sleeping."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture()
def mock_factory() -> Iterator[MockFactory]:
    factory = MockFactory()
    previous = Device.pin_factory
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = previous


@pytest.fixture()
def clock() -> FakeClock:
    return FakeClock()
