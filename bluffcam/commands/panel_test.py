"""`bluffcam panel-test`: check the button box's wiring — prints presses, lights each seat LED.

Lights the seat LEDs one after another and beeps the buzzer once, then prints every press
(and long press) until Ctrl-C or ``--seconds`` pass. ``--mock`` runs on gpiozero's mock pins
(no Pi needed) and, with ``--demo-presses``, presses every button once by itself.
"""

from __future__ import annotations

import argparse
import queue
import sys
import time
from pathlib import Path
from typing import Any

from hardware.panel import ButtonPanel, PanelConfigError, PanelWiring


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mock", action="store_true", help="use gpiozero mock pins (no Pi needed)")
    parser.add_argument(
        "--profile", type=Path, help="calibration profile whose [panel] overrides pins"
    )
    parser.add_argument(
        "--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)"
    )
    parser.add_argument("--led-s", type=float, default=0.4, help="how long each LED stays lit")
    parser.add_argument(
        "--demo-presses", action="store_true", help="with --mock: press every button once by itself"
    )


def _wiring(profile_path: Path | None) -> PanelWiring:
    if profile_path is None:
        return PanelWiring()
    from calibration import load_profile

    return PanelWiring.from_dict(load_profile(profile_path).panel)


def _pin_factory(mock: bool) -> Any:
    if not mock:
        return None
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    return MockFactory()


def run(args: argparse.Namespace) -> int:
    try:
        wiring = _wiring(args.profile)
        factory = _pin_factory(args.mock)
        panel = ButtonPanel(wiring=wiring, pin_factory=factory)
    except (PanelConfigError, ValueError) as exc:
        print(f"panel-test: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # no GPIO access: say how to run without a Pi
        print(
            f"panel-test: cannot open the GPIO pins ({exc}); try --mock off a Pi", file=sys.stderr
        )
        return 2
    with panel:
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
        try:
            while deadline is None or time.monotonic() < deadline:
                try:
                    event = panel.events.get(timeout=0.1)
                except queue.Empty:
                    continue
                label = "long press" if event.is_long else "press"
                print(f"{label}: {event.key.value}", flush=True)
        except KeyboardInterrupt:
            pass
    return 0


def _press_everything(factory: Any, panel: ButtonPanel) -> None:
    """Drive each button's mock pin low then high, as a finger would."""
    for key in panel.buttons:
        pin = factory.pin(panel.wiring.buttons[key])
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()
        time.sleep(0.05)
