"""`bluffcam panel-test`: check the button box's wiring — prints presses, lights each seat LED.

Lights the seat LEDs one after another and beeps the buzzer once, then prints every press
(and long press) until Ctrl-C or ``--seconds`` pass. ``--mock`` runs on gpiozero's mock pins
(no Pi needed) and, with ``--demo-presses``, presses every button once by itself.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import queue
import sys
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hardware.panel import ButtonPanel, PanelWiring
from hardware.pin_library import factory_in_use, is_no_pin_library, no_pin_library_fix, pin_library


class PanelOpenError(Exception):
    """The panel cannot be opened: bad wiring, or no GPIO pins here; the message says which."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mock", action="store_true", help="use gpiozero mock pins (no Pi needed)")
    parser.add_argument(
        "--profile", type=Path, help="calibration profile whose [panel] overrides pins"
    )
    parser.add_argument(
        "--seconds", type=seconds, default=None, help="stop after this long (default: Ctrl-C)"
    )
    parser.add_argument("--led-s", type=seconds, default=0.4, help="how long each LED stays lit")
    parser.add_argument(
        "--demo-presses", action="store_true", help="with --mock: press every button once by itself"
    )


def seconds(text: str) -> float:
    """argparse's ``type`` for a duration: a finite number >= 0, refused at the command line
    rather than by ``time.sleep`` once the LEDs are already lit."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text!r}")
    if value > MAX_SECONDS:  # time.sleep overflows past a few centuries
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SECONDS:.0f} seconds (a day), "
                                         f"got {text!r}")
    return value


#: the longest duration a panel test takes: a day
MAX_SECONDS = 86_400.0


def _overrides(profile_path: Path | None) -> Mapping[str, Any]:
    if profile_path is None:
        return {}
    from bluffcam.profile_wiring import checked_panel
    from calibration import load_profile

    return checked_panel(load_profile(profile_path))


def open_panel(
    overrides: Mapping[str, Any], *, mock: bool, no_gpio_hint: str
) -> tuple[ButtonPanel, Any]:
    """The panel wired as ``overrides`` (a profile's ``[panel]``) say, and its pin factory:
    gpiozero's mock pins with ``mock``, else the Pi's own.

    `serve` opens its panel here too, so both commands refuse bad wiring and a machine
    without GPIO pins in the same words: `PanelOpenError`, ending in ``no_gpio_hint`` for the
    latter.
    """
    with warnings.catch_warnings(record=True) as fallbacks:
        # gpiozero warns of each pin library it could not use before the one it settles on;
        # they are named below if none could be used, and are noise if one could
        warnings.simplefilter("always")
        try:
            wiring = PanelWiring.from_dict(overrides)
            factory = _pin_factory(mock)
            return ButtonPanel(wiring=wiring, pin_factory=factory), factory
        except ValueError as exc:  # PanelConfigError, or a pin gpiozero refuses
            raise PanelOpenError(str(exc)) from exc
        except Exception as exc:  # no GPIO access (gpiozero's BadPinFactory, permissions)
            tried = "; ".join(str(w.message).removeprefix("Falling back from ")
                              for w in fallbacks if "Falling back from" in str(w.message))
            why = f"{exc} Tried {tried}" if tried else str(exc)
            fix = f"{no_pin_library_fix(tried)}; " if is_no_pin_library(exc) else ""
            raise PanelOpenError(f"cannot open the GPIO pins ({why}); {fix}{no_gpio_hint}"
                                 ) from exc


def _pin_factory(mock: bool) -> Any:
    if not mock:
        return None
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    return MockFactory()


def run(args: argparse.Namespace) -> int:
    try:
        overrides = _overrides(args.profile)
        panel, factory = open_panel(overrides, mock=args.mock, no_gpio_hint="try --mock off a Pi")
    except (PanelOpenError, ValueError) as exc:  # ValueError: the profile (ProfileError)
        print(f"panel-test: {exc}", file=sys.stderr)
        return 2
    wiring = panel.wiring
    # Ctrl-C at any point, the LED sweep too, ends the test without a traceback
    with panel, contextlib.suppress(KeyboardInterrupt):
        _sweep_and_listen(panel, wiring, factory, args)
    return 0


def _sweep_and_listen(panel: ButtonPanel, wiring: Any, factory: Any,
                      args: argparse.Namespace) -> None:
    """Light each seat's LED in turn, beep, then print each press until the time is up."""
    print(f"pin library: {pin_library(factory_in_use(factory))}")
    print("wiring (BCM):")
    for use, pin in wiring.pins():
        print(f"  {use:<12} GPIO{pin}")
    for seat in range(len(panel.leds)):
        print(f"LED seat {seat + 1} (GPIO{wiring.leds[seat]}) on")
        panel.show_turn(seat)
        time.sleep(args.led_s)
    panel.show_turn(None)
    if panel.buzzer is not None:
        print(f"buzzer (GPIO{wiring.buzzer}) beep")
        panel.buzzer.on()
        time.sleep(0.15)
        panel.buzzer.off()
    if args.mock and args.demo_presses and factory is not None:
        _press_everything(factory, panel)
    print("press buttons (Ctrl-C to stop)")
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    while deadline is None or time.monotonic() < deadline:
        try:
            event = panel.events.get(timeout=0.1)
        except queue.Empty:
            continue
        label = "long press" if event.is_long else "press"
        print(f"{label}: {event.key.value}", flush=True)


def _press_everything(factory: Any, panel: ButtonPanel) -> None:
    """Drive each button's mock pin low then high, as a finger would."""
    for key in panel.buttons:
        pin = factory.pin(panel.wiring.buttons[key])
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()
        time.sleep(0.05)
