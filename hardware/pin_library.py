"""Which pin library gpiozero drives the button box with, in words; and what to install when
it finds none. On a Pi 5 (and with kernel 6.6 on a Pi 4) only lgpio works, and a venv
without it finds nothing: `panel-test` says which one it got so a wrong one is seen at once.
"""

from __future__ import annotations

from typing import Any

#: gpiozero's pin factory classes -> the library each drives the pins with
LIBRARIES = {
    "LGPIOFactory": "lgpio",
    "RPiGPIOFactory": "RPi.GPIO",
    "PiGPIOFactory": "pigpio",
    "NativeFactory": "gpiozero's native pins",
    "MockFactory": "gpiozero's mock pins",
}
NO_PIN_LIBRARY_FIX = (
    "on a Pi install lgpio, the pin library that works on a Pi 4 and a Pi 5: "
    "`.venv/bin/pip install lgpio` (64-bit Pi OS; ./run installs it there) or "
    "`sudo apt install python3-lgpio` with a venv made with --system-site-packages"
)


LGPIO_FAILED_FIX = (
    "lgpio is installed but could not drive the pins: on a Pi, is this user in the gpio group "
    "(`sudo usermod -aG gpio $USER`, then log in again)?"
)


def no_pin_library_fix(tried: str) -> str:
    """What to do when gpiozero loaded no pin library, from what it said of each it tried
    (``lgpio: No module named 'lgpio'; rpigpio: ...``): install lgpio, or, where lgpio is
    there and failed, let the user at the pins."""
    if "lgpio:" in tried and "No module named 'lgpio'" not in tried:
        return LGPIO_FAILED_FIX
    return NO_PIN_LIBRARY_FIX


def pin_library(factory: Any) -> str:
    """``"lgpio (LGPIOFactory)"``: the library, then gpiozero's name for its factory."""
    name = type(factory).__name__
    return f"{LIBRARIES.get(name, name)} ({name})"


def factory_in_use(factory: Any | None) -> Any:
    """The factory devices were given, or, for None, the default gpiozero settled on when
    the first device was made (``Device.pin_factory``)."""
    if factory is not None:
        return factory
    from gpiozero import Device  # type: ignore[import-untyped]

    return Device.pin_factory


def is_no_pin_library(exc: BaseException) -> bool:
    """gpiozero could load none of its default pin libraries (BadPinFactory; not a
    GPIOZERO_PIN_FACTORY that names one that does not exist)."""
    from gpiozero.exc import BadPinFactory  # type: ignore[import-untyped]

    return isinstance(exc, BadPinFactory) and "any default pin factory" in str(exc)
