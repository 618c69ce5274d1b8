"""The button panel on real gpiozero devices with mock pins (MockFactory).

A pulled-up button is pressed by driving its pin low. MockPin does not bounce, so bounce
is simulated by driving rapid low/high edges while the fake clock barely moves.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.panel import (
    DEFAULT_BUTTON_PINS,
    ButtonPanel,
    Key,
    PanelConfigError,
    PanelEvent,
    PanelWiring,
)


def drain(events: queue.Queue[PanelEvent]) -> list[tuple[str, str]]:
    out = []
    while not events.empty():
        event = events.get_nowait()
        out.append((event.key.value, event.kind))
    return out


def press(factory: MockFactory, clock: Any, key: Key, hold_s: float = 0.1) -> None:
    pin = factory.pin(DEFAULT_BUTTON_PINS[key])
    pin.drive_low()
    clock.advance(hold_s)
    pin.drive_high()
    clock.advance(0.2)


@pytest.fixture()
def panel(mock_factory: MockFactory, clock: Any) -> Iterator[ButtonPanel]:
    with ButtonPanel(pin_factory=mock_factory, clock=clock, feedback_s=0.001) as p:
        yield p


def test_each_button_press_becomes_one_event(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    for key in Key:
        press(mock_factory, clock, key)
    assert drain(panel.events) == [(k.value, "press") for k in Key]


def test_bounce_on_press_and_release_gives_one_event(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    pin = mock_factory.pin(DEFAULT_BUTTON_PINS[Key.BID])
    for _ in range(4):  # contact chatter within 8 ms
        pin.drive_low()
        clock.advance(0.001)
        pin.drive_high()
        clock.advance(0.001)
    pin.drive_low()
    clock.advance(0.15)
    for _ in range(3):  # release chatter
        pin.drive_high()
        clock.advance(0.001)
        pin.drive_low()
        clock.advance(0.001)
    pin.drive_high()
    clock.advance(0.5)
    assert drain(panel.events) == [("BID", "press")]
    press(mock_factory, clock, Key.BID)  # and the button still works afterwards
    assert drain(panel.events) == [("BID", "press")]


def test_two_deliberate_presses_are_two_events(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    press(mock_factory, clock, Key.UP, hold_s=0.08)
    press(mock_factory, clock, Key.UP, hold_s=0.08)
    assert drain(panel.events) == [("UP", "press"), ("UP", "press")]


def test_long_and_short_presses_of_undo_and_ok(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    press(mock_factory, clock, Key.UNDO, hold_s=0.2)
    press(mock_factory, clock, Key.UNDO, hold_s=1.5)
    press(mock_factory, clock, Key.OK, hold_s=0.99)
    press(mock_factory, clock, Key.OK, hold_s=1.0)
    assert drain(panel.events) == [
        ("UNDO", "press"),
        ("UNDO", "long_press"),
        ("OK", "press"),
        ("OK", "long_press"),
    ]


def test_long_press_key_reports_only_on_release(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    pin = mock_factory.pin(DEFAULT_BUTTON_PINS[Key.UNDO])
    pin.drive_low()
    clock.advance(2.0)
    assert drain(panel.events) == []
    pin.drive_high()
    assert drain(panel.events) == [("UNDO", "long_press")]


def test_leds_show_whose_turn(panel: ButtonPanel) -> None:
    panel.show_turn(2)
    assert [led.value for led in panel.leds] == [0, 0, 1, 0, 0, 0]
    panel.show_turn(None)
    assert [led.value for led in panel.leds] == [0] * 6


def test_refuse_blinks_and_buzzes_then_shows_the_turn_again(
    panel: ButtonPanel, mock_factory: MockFactory
) -> None:
    panel.show_turn(1)
    buzzer_pin = mock_factory.pin(18)
    led_pin = mock_factory.pin(17)  # seat 1's LED (not the turn)
    buzzer_pin.clear_states()
    led_pin.clear_states()
    panel.refuse()
    panel.wait_feedback()
    assert [s.state for s in buzzer_pin.states] == [False, True, False, True, False]
    assert [s.state for s in led_pin.states] == [False, True, False, True, False]
    assert [led.value for led in panel.leds] == [0, 1, 0, 0, 0, 0]


def test_a_refusal_during_a_blink_does_not_wait_for_it_but_blinks_after_it(
    mock_factory: MockFactory
) -> None:
    """The controller refuses presses as they come: were a second refusal to wait for the
    first one's blinks, the press after it would count as made while the table was still
    busy (and be refused too)."""
    panel = ButtonPanel(pin_factory=mock_factory, feedback_s=0.2)
    try:
        panel.show_turn(1)
        led_pin = mock_factory.pin(17)
        led_pin.clear_states()
        panel.refuse()
        first = panel._feedback_thread
        panel.refuse()  # returns at once: the first blink (0.8 s) is still running
        assert first is not None and first.is_alive()
        panel.wait_feedback()
        assert [s.state for s in led_pin.states] == [False] + [True, False] * 4  # both ran
        assert [led.value for led in panel.leds] == [0, 1, 0, 0, 0, 0]
    finally:
        panel.close()


def test_rotary_encoder_replaces_up_down(mock_factory: MockFactory, clock: Any) -> None:
    wiring = PanelWiring.from_dict({"encoder": [6, 13]})
    with ButtonPanel(wiring=wiring, pin_factory=mock_factory, clock=clock) as p:
        assert Key.UP not in p.buttons and Key.DOWN not in p.buttons
        a, b = mock_factory.pin(6), mock_factory.pin(13)
        # one detent clockwise: A leads B (gpiozero's quadrature sequence)
        for pin_a, pin_b in [(a, b), (b, a)]:
            pin_a.drive_low()
            pin_b.drive_low()
            pin_a.drive_high()
            pin_b.drive_high()
        assert sorted(drain(p.events)) == [("DOWN", "press"), ("UP", "press")]


def test_wiring_overrides_and_errors() -> None:
    wiring = PanelWiring.from_dict({"bid": 4, "leds": [17, 27, 22], "buzzer": -1})
    assert wiring.buttons[Key.BID] == 4 and wiring.leds == (17, 27, 22) and wiring.buzzer is None
    with pytest.raises(PanelConfigError, match="BCM pin 17 is wired to both"):
        PanelWiring.from_dict({"bid": 17})
    with pytest.raises(PanelConfigError, match="panel.bogus: unknown key"):
        PanelWiring.from_dict({"bogus": 3})
    with pytest.raises(PanelConfigError, match="BID: BCM pin must be 0..27"):
        PanelWiring.from_dict({"bid": 40})
    with pytest.raises(PanelConfigError, match="at most 6 seat LEDs"):
        PanelWiring.from_dict({"leds": [0, 1, 2, 3, 4, 7, 8]})


def test_a_failed_device_releases_the_pins_already_taken(mock_factory: MockFactory) -> None:
    wiring = PanelWiring.from_dict({"leds": [17]})
    taken = ButtonPanel(wiring=wiring, pin_factory=mock_factory)  # holds every pin
    with pytest.raises(Exception, match="in use|GPIOPinInUse|already"):
        ButtonPanel(wiring=wiring, pin_factory=mock_factory)
    taken.close()
    ButtonPanel(wiring=wiring, pin_factory=mock_factory).close()  # the pins were freed


def test_a_quick_tap_on_a_key_that_reports_on_release_is_not_lost(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    """OK touched for 25 ms: its release came within the debounce time and was taken for
    bounce, so the press was never reported. Nothing follows it, so it was a tap."""
    pin = mock_factory.pin(DEFAULT_BUTTON_PINS[Key.OK])
    pin.drive_low()
    clock.advance(0.025)
    pin.drive_high()
    event = panel.events.get(timeout=2)  # reported once the quiet time has passed
    assert (event.key, event.kind) == (Key.OK, "press")
    assert drain(panel.events) == []


def test_a_chattering_ok_is_still_one_press_after_its_quiet_time(
    panel: ButtonPanel, mock_factory: MockFactory, clock: Any
) -> None:
    """Chatter ending pressed: the early releases were bounce; the one release counts."""
    import time

    pin = mock_factory.pin(DEFAULT_BUTTON_PINS[Key.OK])
    for _ in range(3):
        pin.drive_low()
        clock.advance(0.002)
        pin.drive_high()
        clock.advance(0.002)
    pin.drive_low()  # held down now
    time.sleep(0.1)  # the quiet time of each early release passes, in real time too
    assert drain(panel.events) == []
    clock.advance(0.3)
    pin.drive_high()
    assert drain(panel.events) == [("OK", "press")]
