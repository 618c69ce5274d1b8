"""The button box beside the table: GPIO buttons in, `PanelEvent`s out; seat LEDs and a buzzer.

Callbacks hold no game logic: they debounce, measure long presses and put events on a queue
(on a Pi they arrive on gpiozero's background thread). `bluffcam.panel_controller` turns the
events into game actions. Debounce is ours, not gpiozero's ``bounce_time``: mock pins do not
simulate bounce and `RotaryEncoder` does not pass ``bounce_time`` to its pins.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import TracebackType
from typing import Any

from gpiozero import LED, Button, Buzzer, RotaryEncoder  # type: ignore[import-untyped]
from gpiozero.pins import Factory  # type: ignore[import-untyped]


class Key(StrEnum):
    """The panel's buttons."""

    FACE = "FACE"  # cycle the face (the creature kind in Impus)
    UP = "UP"  # count + 1
    DOWN = "DOWN"  # count - 1
    BID = "BID"  # submit the composed bid
    REROLL = "REROLL"  # bid and re-roll (the camera reads the set-aside dice)
    DOUBT = "DOUBT"  # challenge / "Scam!" / dudo / "don't believe"
    PASS = "PASS"  # Scam: pass the turn; Perudo: calza (it has no pass)
    OK = "OK"  # take the reveal / next round
    UNDO = "UNDO"  # short: clear the composed bid; long: undo the last action


#: Default BCM pins (physical header pins in docs/hardware.md). All avoid I2C/SPI/UART pins.
DEFAULT_BUTTON_PINS: dict[Key, int] = {
    Key.FACE: 5,
    Key.UP: 6,
    Key.DOWN: 13,
    Key.BID: 19,
    Key.REROLL: 26,
    Key.DOUBT: 16,
    Key.PASS: 20,
    Key.OK: 21,
    Key.UNDO: 12,
}
DEFAULT_LED_PINS: tuple[int, ...] = (17, 27, 22, 23, 24, 25)
DEFAULT_BUZZER_PIN = 18
DEFAULT_ENCODER_PINS = (6, 13)  # the UP/DOWN pins, re-used when an encoder replaces them
#: Buttons whose long press means something: they report on release (short or long).
LONG_PRESS_KEYS = frozenset({Key.OK, Key.UNDO})
MAX_SEATS = 6


class PanelConfigError(ValueError):
    """Bad wiring: a pin used twice, an unknown key, too many LEDs; the message says which."""


@dataclass(frozen=True, slots=True)
class PanelEvent:
    """One thing a player did on the panel. ``kind``: ``"press"`` or ``"long_press"``."""

    key: Key
    kind: str = "press"
    at: float = 0.0

    @property
    def is_long(self) -> bool:
        return self.kind == "long_press"


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelWiring:
    """Which BCM pin does what. ``encoder`` = (A, B) pins replaces the UP/DOWN buttons."""

    buttons: Mapping[Key, int] = field(default_factory=lambda: dict(DEFAULT_BUTTON_PINS))
    leds: tuple[int, ...] = DEFAULT_LED_PINS
    buzzer: int | None = DEFAULT_BUZZER_PIN
    encoder: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if len(self.leds) > MAX_SEATS:
            raise PanelConfigError(f"at most {MAX_SEATS} seat LEDs, got {len(self.leds)}")
        used: dict[int, str] = {}
        for name, pin in self.pins():
            if not isinstance(pin, int) or isinstance(pin, bool) or not 0 <= pin <= 27:
                raise PanelConfigError(f"{name}: BCM pin must be 0..27, got {pin!r}")
            if pin in used:
                raise PanelConfigError(f"BCM pin {pin} is wired to both {used[pin]} and {name}")
            used[pin] = name

    def pins(self) -> list[tuple[str, int]]:
        """Every (use, pin) pair; with an encoder the UP/DOWN buttons are not wired."""
        pairs = [
            (key.value, pin)
            for key, pin in self.buttons.items()
            if not (self.encoder and key in (Key.UP, Key.DOWN))
        ]
        pairs += [(f"LED seat {i + 1}", pin) for i, pin in enumerate(self.leds)]
        if self.buzzer is not None:
            pairs.append(("buzzer", self.buzzer))
        if self.encoder:
            pairs += [("encoder A", self.encoder[0]), ("encoder B", self.encoder[1])]
        return pairs

    @classmethod
    def from_dict(cls, overrides: Mapping[str, Any]) -> PanelWiring:
        """Defaults with overrides from a profile's ``[panel]`` table or a config file.

        Keys: a button name in lower case (``bid = 22``), ``leds = [..]``, ``buzzer = 18``
        (or ``buzzer = -1`` for none), ``encoder = [a, b]``.
        """
        buttons = dict(DEFAULT_BUTTON_PINS)
        changes: dict[str, Any] = {}
        for raw_key, value in overrides.items():
            key = raw_key.lower()
            if key.upper() in Key.__members__:
                buttons[Key(key.upper())] = value
            elif key == "leds":
                if not isinstance(value, list | tuple):
                    raise PanelConfigError(f"panel.leds must be a list of pins, got {value!r}")
                changes["leds"] = tuple(value)
            elif key == "buzzer":
                changes["buzzer"] = None if value in (None, -1) else value
            elif key == "encoder":
                if value is True:
                    value = DEFAULT_ENCODER_PINS
                if value is False:
                    continue
                if not isinstance(value, list | tuple) or len(value) != 2:
                    raise PanelConfigError(
                        f"panel.encoder must be [a, b] pins or true, got {value!r}"
                    )
                changes["encoder"] = (value[0], value[1])
            else:
                known = ", ".join(
                    [k.lower() for k in Key.__members__] + ["leds", "buzzer", "encoder"]
                )
                raise PanelConfigError(f"panel.{raw_key}: unknown key; known: {known}")
        return replace(cls(), buttons=buttons, **changes)


class _Debouncer:
    """Our own debounce and long-press timing for one button.

    An edge within ``debounce_s`` of the previous edge is bounce and ignored, and restarts
    the quiet time: a contact that chatters longer than ``debounce_s`` is still one press. Keys in
    `LONG_PRESS_KEYS` report on release, as a press or (held ``long_press_s``+) a long press;
    the others report at once on press.
    """

    def __init__(
        self,
        key: Key,
        emit: Callable[[PanelEvent], None],
        *,
        debounce_s: float,
        long_press_s: float,
        clock: Callable[[], float],
    ) -> None:
        self.key = key
        self._emit = emit
        self._debounce_s = debounce_s
        self._long_press_s = long_press_s
        self._clock = clock
        self._pressed_at: float | None = None
        self._last_edge = float("-inf")
        self._lock = threading.Lock()

    def pressed(self) -> None:
        now = self._clock()
        with self._lock:
            if now - self._last_edge < self._debounce_s:
                self._last_edge = now  # still bouncing: the quiet time starts again
                return
            self._last_edge = now
            self._pressed_at = now
        if self.key not in LONG_PRESS_KEYS:
            self._emit(PanelEvent(self.key, "press", now))

    def released(self) -> None:
        now = self._clock()
        with self._lock:
            if self._pressed_at is None or now - self._last_edge < self._debounce_s:
                # still bouncing: the quiet time starts again. Or a tap quicker than the
                # quiet time, on a key that reports on release: told apart by what follows
                if self._pressed_at is not None and self.key in LONG_PRESS_KEYS:
                    self._settle_later(now)
                self._last_edge = now
                return
            self._last_edge = now
            held = now - self._pressed_at
            self._pressed_at = None
        if self.key in LONG_PRESS_KEYS:
            self._released_after(held, now)

    def _settle_later(self, edge: float) -> None:
        """Look again once ``debounce_s`` has passed: a release no edge followed was the end
        of a quick tap (OK or UNDO touched for under 30 ms), not bounce, and is reported."""
        timer = threading.Timer(self._debounce_s, self._settle, args=(edge,))
        timer.daemon = True
        timer.start()

    def _settle(self, edge: float) -> None:
        with self._lock:
            if self._last_edge != edge or self._pressed_at is None:
                return  # another edge came: it was bounce, and that edge decides
            held = edge - self._pressed_at
            self._pressed_at = None
        self._released_after(held, edge)

    def _released_after(self, held: float, at: float) -> None:
        """Report a release of a key that reports on release: long or short by ``held``."""
        kind = "long_press" if held >= self._long_press_s else "press"
        self._emit(PanelEvent(self.key, kind, at))


class ButtonPanel:
    """The GPIO panel. Presses become `PanelEvent`s on ``events``; LEDs show whose turn it is.

    ``pin_factory=None`` uses gpiozero's default (set ``GPIOZERO_PIN_FACTORY=mock`` to run
    without a Pi); tests pass ``MockFactory()``.
    """

    def __init__(
        self,
        *,
        wiring: PanelWiring | None = None,
        pin_factory: Factory | None = None,
        events: queue.Queue[PanelEvent] | None = None,
        debounce_s: float = 0.03,
        long_press_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        feedback_s: float = 0.15,
    ) -> None:
        self.wiring = wiring or PanelWiring()
        self.events: queue.Queue[PanelEvent] = events if events is not None else queue.Queue()
        #: what stamps each event's ``at`` (the controller compares presses with it)
        self.clock = clock
        self._feedback_s = feedback_s
        self._feedback_thread: threading.Thread | None = None
        self._turn: int | None = None
        self._devices: list[Any] = []
        self.buttons: dict[Key, Button] = {}
        self._debouncers: dict[Key, _Debouncer] = {}
        try:
            for key, pin in self.wiring.buttons.items():
                if self.wiring.encoder and key in (Key.UP, Key.DOWN):
                    continue
                button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self._devices.append(button)
                debouncer = _Debouncer(
                    key,
                    self.events.put,
                    debounce_s=debounce_s,
                    long_press_s=long_press_s,
                    clock=clock,
                )
                button.when_pressed = _no_args(debouncer.pressed)
                button.when_released = _no_args(debouncer.released)
                self.buttons[key] = button
                self._debouncers[key] = debouncer
            self.encoder: RotaryEncoder | None = None
            if self.wiring.encoder:
                a, b = self.wiring.encoder
                self.encoder = RotaryEncoder(a, b, bounce_time=None, pin_factory=pin_factory)
                self._devices.append(self.encoder)
                self.encoder.when_rotated_clockwise = _no_args(lambda: self._turned(Key.UP))
                self.encoder.when_rotated_counter_clockwise = _no_args(
                    lambda: self._turned(Key.DOWN)
                )
            self.leds = [LED(pin, pin_factory=pin_factory) for pin in self.wiring.leds]
            self._devices.extend(self.leds)
            self.buzzer = (
                Buzzer(self.wiring.buzzer, pin_factory=pin_factory)
                if self.wiring.buzzer is not None
                else None
            )
            if self.buzzer is not None:
                self._devices.append(self.buzzer)
        except Exception:
            self.close()
            raise

    def _turned(self, key: Key) -> None:
        # the encoder's quadrature decoding already rejects bounce: one detent, one step
        self.events.put(PanelEvent(key, "press", self.clock()))

    # ------------------------------------------------------------------ output

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat whose turn it is (None: all off)."""
        self._turn = seat
        for index, led in enumerate(self.leds):
            if index == seat:
                led.on()
            else:
                led.off()

    @property
    def turn(self) -> int | None:
        return self._turn

    def refuse(self) -> None:
        """An impossible press: blink every seat LED twice and buzz, then show the turn again."""
        self._run_feedback(blinks=2, buzz=True)

    def fanfare(self) -> None:
        """A verdict: three short buzzes."""
        self._run_feedback(blinks=3, buzz=True, leds=False)

    def _run_feedback(self, *, blinks: int, buzz: bool, leds: bool = True) -> None:
        """Start the blinks at once, after the ones already running, without waiting for
        them here: the caller is handling a press, and a wait would stretch how long the
        next press counts as made while this one was carried out."""
        thread = threading.Thread(
            target=self._feedback, args=(self._feedback_thread, blinks, buzz, leds),
            name="panel-feedback", daemon=True,
        )
        self._feedback_thread = thread
        thread.start()

    def _feedback(self, after: threading.Thread | None, blinks: int, buzz: bool,
                  leds: bool) -> None:
        if after is not None:
            after.join(5.0)
        step = self._feedback_s
        for _ in range(blinks):
            for led in self.leds if leds else []:
                led.on()
            if buzz and self.buzzer is not None:
                self.buzzer.on()
            time.sleep(step)
            for led in self.leds if leds else []:
                led.off()
            if self.buzzer is not None:
                self.buzzer.off()
            time.sleep(step)
        self.show_turn(self._turn)

    def wait_feedback(self, timeout: float | None = 5.0) -> None:
        """Block until a running blink/buzz finishes (tests; and before closing)."""
        thread = self._feedback_thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        self.wait_feedback()
        devices, self._devices = self._devices, []
        # each Button's hold thread takes ~0.1 s to stop: close them side by side
        closers = [threading.Thread(target=_close_quietly, args=(d,)) for d in devices]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _close_quietly(device: Any) -> None:
    with contextlib.suppress(Exception):
        device.close()


def _no_args(function: Callable[[], None]) -> Callable[[], None]:
    """gpiozero passes the device to 1-argument callbacks; ours take none."""

    def callback() -> None:
        function()

    return callback
