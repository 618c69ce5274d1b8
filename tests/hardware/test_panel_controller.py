"""Whole rounds entered by button presses: real gpiozero (MockFactory) + the real rules engine.

`EngineTable` is a small stand-in for `bluffcam.table.Table` over the real engine; the last
test drives the real Table as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from bluffcam.panel_controller import Draft, PanelController
from engine import Game, new_game, parse_action
from hardware.panel import DEFAULT_BUTTON_PINS, ButtonPanel, Key


class EngineTable:
    """The Table's panel-facing surface over the real engine; reveals come from ``dice``."""

    def __init__(self, kind: str, players: list[str], dice: Mapping[str, list[int]],
                 options: Mapping[str, Any] | None = None) -> None:
        self.setup = {"game": kind, "players": players, "starter": players[0],
                      "options": dict(options or {})}
        self.game: Game = new_game(kind, players, starter=players[0], options=options)
        self.dice = dict(dice)
        self.actions: list[dict[str, Any]] = []
        self.sources: list[str] = []

    def state(self) -> dict[str, Any]:
        details = self.game.details()
        return {
            "setup": self.setup,
            "game": self.game.to_json(),
            "legal": {"kinds": details["legal"], "lowest_raises": details["lowest_raises"]},
            "details": {"dice_in_play": details.get("dice_in_play")},
            "review": None,
            "history": [entry.to_json() for entry in self.game.history],
        }

    def submit(self, action: Any, source: str = "web") -> dict[str, Any]:
        action = dict(action)
        if action.pop("reroll", False):
            action["set_aside"] = [self.dice[action["player"]][0]]
        parsed = parse_action(action)
        self.game.apply(parsed)  # raises IllegalActionError and changes nothing when illegal
        self.actions.append(action)
        self.sources.append(source)
        return self.state()

    def undo(self) -> dict[str, Any]:
        if not self.actions:
            raise ValueError("nothing to undo")
        kept = self.actions[:-1]
        self.game = new_game(self.setup["game"], self.setup["players"],
                             starter=self.setup["starter"], options=self.setup["options"])
        for action in kept:
            self.game.apply(parse_action(action))
        self.actions = kept
        return self.state()

    def capture_reveal(self) -> dict[str, Any]:
        hands = {
            name: self.dice[name][: hand.count]
            for name, hand in self.game.expected_reveal().items()
        }
        return self.submit({"reveal": hands}, source="camera")


class Rig:
    """A panel on mock pins wired to a controller; ``press`` drives a real pin."""

    def __init__(self, factory: MockFactory, table: Any) -> None:
        self.factory = factory
        self.now = 0.0
        self.panel = ButtonPanel(pin_factory=factory, clock=lambda: self.now, feedback_s=0.0)
        self.table = table
        self.messages: list[str] = []
        self.controller = PanelController(table, self.panel, on_message=self.messages.append)
        self.controller.refresh()

    def press(self, key: Key, *, hold_s: float = 0.1) -> bool:
        pin = self.factory.pin(DEFAULT_BUTTON_PINS[key])
        pin.drive_low()
        self.now += hold_s
        pin.drive_high()
        self.now += 0.2
        event = self.panel.events.get_nowait()
        assert self.panel.events.empty()
        done = self.controller.handle(event)
        self.panel.wait_feedback()
        return done

    def lit(self) -> list[int]:
        return [i for i, led in enumerate(self.panel.leds) if led.value]


DICE = {"Ann": [3, 3, 1, 5, 6], "Ben": [3, 2, 2, 4, 6], "Cho": [1, 4, 4, 5, 2]}


@pytest.fixture()
def rig(mock_factory: MockFactory) -> Iterator[Rig]:
    r = Rig(mock_factory, EngineTable("bluff", ["Ann", "Ben", "Cho"], DICE))
    yield r
    r.panel.close()


def test_a_whole_bluff_round_entered_by_presses(rig: Rig) -> None:
    assert rig.lit() == [0] and str(rig.controller.draft) == "1x2"  # Ann's turn, lowest bid
    rig.press(Key.FACE)  # 1x3
    rig.press(Key.UP)
    rig.press(Key.UP)  # 3x3
    assert str(rig.controller.draft) == "3x3"
    assert rig.press(Key.BID)
    assert rig.table.actions[-1] == {"player": "Ann", "bid": "3x3"}
    assert rig.lit() == [1] and str(rig.controller.draft) == "3x4"  # Ben: the lowest raise
    rig.press(Key.FACE)  # 3x5
    rig.press(Key.FACE)  # 3x6
    rig.press(Key.FACE)  # 2★ (the joker face comes after the number faces)
    assert str(rig.controller.draft) == "2*"
    assert rig.press(Key.BID)
    assert rig.lit() == [2]
    assert rig.press(Key.DOUBT)  # Cho challenges 2★
    assert rig.table.actions[-1] == {"player": "Cho", "challenge": True}
    assert rig.lit() == [] and rig.table.game.phase == "reveal"
    buzzer = rig.factory.pin(18)
    buzzer.clear_states()
    assert rig.press(Key.OK)  # take the reveal: two ★ (1s) on the table — the bid holds
    assert sum(1 for s in buzzer.states if s.state) == 3  # the verdict fanfare
    assert rig.table.sources == ["panel", "panel", "panel", "camera"]
    assert rig.table.game.phase == "bidding"
    loser = rig.table.game.history[-1].to_json()
    assert loser["bid"] == "2*"
    assert rig.lit() == [1]  # B15: the bidder (Ben) won the challenge and starts
    assert rig.controller.refused == 0


def test_impossible_presses_blink_buzz_and_change_nothing(rig: Rig) -> None:
    buzzer = rig.factory.pin(18)
    buzzer.clear_states()
    assert not rig.press(Key.DOUBT)  # no bid to doubt yet
    assert not rig.press(Key.DOWN)  # below the lowest legal bid
    assert not rig.press(Key.PASS)  # Bluff has no pass
    assert not rig.press(Key.OK)  # no reveal due
    assert rig.table.actions == [] and rig.controller.refused == 4
    assert sum(1 for s in buzzer.states if s.state) == 8  # two buzzes per refusal
    assert rig.lit() == [0]  # the turn LED is shown again after the blinking
    rig.press(Key.UP)
    rig.press(Key.UP)
    rig.press(Key.BID)  # Ann bids 3x2
    rig.controller.draft = Draft(2, 6)  # Ben composes a bid below 3x2 (e.g. a stale draft)
    assert not rig.press(Key.BID)
    assert rig.table.actions == [{"player": "Ann", "bid": "3x2"}]
    assert any("not a raise" in m for m in rig.messages)
    assert rig.lit() == [1]


def test_short_undo_resets_the_draft_and_long_undo_takes_back_a_bid(rig: Rig) -> None:
    rig.press(Key.UP)
    rig.press(Key.UP)
    assert str(rig.controller.draft) == "3x2"
    rig.press(Key.UNDO)
    assert str(rig.controller.draft) == "1x2" and rig.table.actions == []
    rig.press(Key.BID)
    assert rig.lit() == [1]
    rig.press(Key.UNDO, hold_s=1.5)
    assert rig.table.actions == [] and rig.lit() == [0]


def test_reroll_submits_a_raise_and_reroll(rig: Rig) -> None:
    rig.press(Key.UP)
    assert rig.press(Key.REROLL)
    assert rig.table.actions[-1] == {"player": "Ann", "bid": "2x2", "set_aside": [3]}


def test_reroll_switched_off_at_the_table_is_refused_in_those_words(
        mock_factory: MockFactory) -> None:
    rig = Rig(mock_factory, EngineTable("bluff", ["Ann", "Ben", "Cho"], DICE,
                                        options={"reroll": False}))
    try:
        assert not rig.press(Key.REROLL)  # Ann has five dice: the cup is not the reason
        assert rig.messages[-1] == (
            "refused: REROLL: raise and re-roll is switched off at this table (B8)")
        assert rig.table.actions == []
    finally:
        rig.panel.close()


def test_up_stops_at_the_dice_in_play(rig: Rig) -> None:
    """Three players with five dice: no bid counts more than 15 (the phone stops there too)."""
    presses = 0
    while rig.press(Key.UP):
        presses += 1
    assert str(rig.controller.draft) == "15x2" and presses == 14
    assert rig.messages[-1] == "refused: 15x2: no bid counts more than the 15 dice in play"


def test_scam_pass_and_scam_call(mock_factory: MockFactory) -> None:
    dice = {"Ann": [2, 2, 5], "Ben": [2, 6, 1], "Cho": [4, 4, 3]}
    rig = Rig(mock_factory, EngineTable("scam", ["Ann", "Ben", "Cho"], dice))
    try:
        assert str(rig.controller.draft) == "2x1"
        assert not rig.press(Key.DOUBT)  # nothing to call Scam! on
        rig.press(Key.FACE)  # 2x2
        assert not rig.press(Key.REROLL)  # Bluff's alone: said so, not blamed on the dice
        assert rig.messages[-1].endswith("REROLL: scam has no raise and re-roll")
        assert rig.table.actions == []
        assert rig.press(Key.BID)
        assert rig.press(Key.PASS)  # Ben passes
        assert rig.table.actions[-1] == {"player": "Ben", "pass": True}
        assert rig.press(Key.DOUBT)  # Cho: "Scam!"
        assert rig.table.actions[-1] == {"player": "Cho", "scam": True}
        rig.press(Key.OK)
        assert rig.table.game.to_json()["players"][0]["score"] == 3  # S8: the bid held
    finally:
        rig.panel.close()


def test_the_real_table_takes_panel_actions(mock_factory: MockFactory, tmp_path: Path) -> None:
    from bluffcam.table import Table

    table = Table(tmp_path / "journal.sqlite")
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ben"})
    rig = Rig(mock_factory, table)
    try:
        assert rig.lit() == [1]
        rig.press(Key.UP)
        assert rig.press(Key.BID)
        assert table.state()["game"]["bid"] == "2x2"
        assert rig.lit() == [0]
        assert not rig.press(Key.OK)  # no reveal due: refused, nothing changes
        assert rig.press(Key.DOUBT)
        assert table.state()["game"]["phase"] == "reveal"
        assert not rig.press(Key.OK)  # no camera on this table: refused with the reason
        assert any("no camera" in m for m in rig.messages)
    finally:
        rig.panel.close()
        table.close()


def test_a_players_led_is_the_one_at_their_seat(mock_factory: MockFactory,
                                                tmp_path: Path) -> None:
    """Ann at seat 2 and Ben at seat 5 of the panel's six: their turns light LEDs 2 and 5."""
    from bluffcam.table import Table

    table = Table(tmp_path / "journal.sqlite")
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                    "seats": [2, 5]})
    rig = Rig(mock_factory, table)
    try:
        assert rig.lit() == [1]
        assert rig.press(Key.BID)
        assert rig.lit() == [4]
    finally:
        rig.panel.close()
        table.close()


def test_a_press_made_while_the_camera_reads_is_refused_not_kept_for_the_next_round(
        rig: Rig) -> None:
    """OK waits for a still scene and reads the reveal (a second or more): a press made
    meanwhile was aimed at the old board and must not become the next round's action."""
    rig.press(Key.BID)  # Ann 1x2
    rig.press(Key.DOUBT)  # Ben challenges
    capture = rig.table.capture_reveal
    queued: list[Any] = []

    def slow_capture() -> dict[str, Any]:
        pin = rig.factory.pin(DEFAULT_BUTTON_PINS[Key.BID])
        pin.drive_low()  # someone presses BID while the camera is busy
        rig.now += 0.1
        pin.drive_high()
        rig.now += 1.0
        queued.append(rig.panel.events.get_nowait())
        return capture()

    rig.table.capture_reveal = slow_capture
    assert rig.press(Key.OK)
    assert rig.table.game.phase == "bidding" and len(rig.table.actions) == 3
    assert not rig.controller.handle(queued[0])
    assert "pressed while the last press was still being carried out" in rig.messages[-1]
    assert len(rig.table.actions) == 3  # the new round has no bid in it
    assert rig.press(Key.BID)  # pressed again now, it applies
    assert len(rig.table.actions) == 4


def test_two_presses_made_together_are_not_applied_to_two_turns(rig: Rig) -> None:
    """BID and DOUBT pressed in the same instant on Ann's turn: the bid is hers; the doubt,
    queued behind it, was aimed at her turn too and must not become Ben's challenge."""
    for key in (Key.BID, Key.DOUBT):
        rig.factory.pin(DEFAULT_BUTTON_PINS[key]).drive_low()
    rig.now += 0.1
    for key in (Key.BID, Key.DOUBT):
        rig.factory.pin(DEFAULT_BUTTON_PINS[key]).drive_high()
    rig.now += 0.2
    first, second = rig.panel.events.get_nowait(), rig.panel.events.get_nowait()
    assert {first.key, second.key} == {Key.BID, Key.DOUBT}
    rig.controller.handle(first)
    assert not rig.controller.handle(second)
    assert "pressed while the last press was still being carried out" in rig.messages[-1]
    assert len(rig.table.actions) <= 1 and rig.table.game.phase == "bidding"


def test_presses_that_only_compose_a_bid_queue_without_being_refused(rig: Rig) -> None:
    """An encoder's quick clicks (or UP pressed fast) move no game: none is refused."""
    pin = rig.factory.pin(DEFAULT_BUTTON_PINS[Key.UP])
    for _ in range(3):
        pin.drive_low()
        rig.now += 0.06
        pin.drive_high()
        rig.now += 0.06
    rig.now += 0.2
    events = [rig.panel.events.get_nowait() for _ in range(3)]
    assert all(rig.controller.handle(e) for e in events)
    assert str(rig.controller.draft) == "4x2"


def test_serve_stops_the_panels_thread_before_its_pins_are_closed(
        mock_factory: MockFactory, tmp_path: Path) -> None:
    """`serve`'s stop used to close the panel while its thread was still lighting a seat's
    LED for the last change, and gpiozero printed a traceback on every stop."""
    import threading
    import time

    from bluffcam.commands.serve import start_panel
    from bluffcam.table import Table

    table = Table(tmp_path / "journal.sqlite")
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    panel = ButtonPanel(pin_factory=mock_factory, feedback_s=0.0)
    lighting = threading.Event()
    show_turn = panel.show_turn

    def slow_show_turn(seat: int | None) -> None:  # the thread is mid-refresh at the stop
        lighting.set()
        time.sleep(0.3)
        show_turn(seat)

    panel.show_turn = slow_show_turn  # type: ignore[method-assign]
    failures: list[BaseException] = []
    previous_hook = threading.excepthook
    threading.excepthook = lambda args: failures.append(args.exc_value or Exception())
    try:
        stop_panel = start_panel(panel, table)
        assert lighting.wait(2)
        lighting.clear()
        table.submit({"player": "Ann", "bid": "2x3"})
        assert lighting.wait(2)
        stop_panel()
        assert not any(t.name == "panel" and t.is_alive() for t in threading.enumerate())
        panel.close()
    finally:
        threading.excepthook = previous_hook
        table.close()
    assert failures == []


def test_a_new_game_starts_the_panels_bid_afresh(mock_factory: MockFactory,
                                                 tmp_path: Path) -> None:
    """A new game with the same starter looks like the old game's start in every field but
    its number: the bid composed for the old one (5x2, unseen: the panel has no display)
    was the new game's first bid at BID."""
    from bluffcam.table import Table

    table = Table(tmp_path / "journal.sqlite")
    setup = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"}
    table.new_game(setup)
    rig = Rig(mock_factory, table)
    try:
        for _ in range(4):
            rig.press(Key.UP)
        assert str(rig.controller.draft) == "5x2"
        table.new_game(setup)  # from the dashboard
        rig.controller.refresh()
        assert str(rig.controller.draft) == "1x2"
        assert rig.press(Key.BID)
        assert table.state()["game"]["bid"] == "1x2"
    finally:
        rig.panel.close()
        table.close()


def test_ok_while_another_screens_capture_reads_is_refused(mock_factory: MockFactory,
                                                          tmp_path: Path) -> None:
    """A phone's capture is reading when OK is pressed: the press ran a second reading once
    the first ended and threw away the review it had left."""
    import threading

    from bluffcam.table import Table

    table = Table(tmp_path / "journal.sqlite")
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    table.submit({"player": "Ann", "bid": "1x2"})
    table.submit({"player": "Ben", "challenge": True})
    rig = Rig(mock_factory, table)
    reading, finish = threading.Event(), threading.Event()

    def phone_capture() -> None:
        reading.set()
        assert finish.wait(10)

    phone = threading.Thread(target=table.on_reading_thread, args=(phone_capture,))
    phone.start()
    try:
        assert reading.wait(10)
        rig.controller.refresh()
        assert not rig.press(Key.OK)
        assert rig.messages[-1].endswith("the camera is already reading the dice")
    finally:
        finish.set()
        phone.join(10)
        rig.panel.close()
        table.close()


def test_serve_stops_cleanly_while_the_panels_ok_waits_on_a_camera_reading(
        mock_factory: MockFactory, tmp_path: Path) -> None:
    """OK pressed, the camera reading, then serve stops. The panel's thread waited on the
    reading past its join, its pins were closed under it, and gpiozero raised twice as the
    reading's refusal was shown; the reading had reopened the closed camera as well."""
    import threading
    import time

    import numpy as np

    from bluffcam.commands.serve import start_panel, stop_table
    from bluffcam.table import Table
    from bluffcam.vision_adapter import RevealReading

    class EndlessCamera:
        """A live camera: a frame every 50 ms for as long as it is read."""

        spec, status = "endless", "ok"
        read_after_close = False
        closed = False

        def frames(self) -> Iterator[Any]:
            while True:
                time.sleep(0.05)
                EndlessCamera.read_after_close |= EndlessCamera.closed
                yield np.zeros((48, 64, 3), np.uint8)

        def close(self) -> None:
            EndlessCamera.closed = True

    reading = threading.Event()

    def reader(frames: Iterator[Any], expected: Mapping[str, Any]) -> RevealReading:
        reading.set()
        for _ in frames:  # up to REVEAL_MAX_FRAMES: six seconds, past the panel's join
            pass
        return RevealReading({}, {}, [], True, None)

    table = Table(tmp_path / "journal.sqlite", camera=EndlessCamera(), reveal_reader=reader)
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    table.submit({"player": "Ann", "bid": "1x2"})
    table.submit({"player": "Ben", "challenge": True})
    panel = ButtonPanel(pin_factory=mock_factory, feedback_s=0.0)
    failures: list[BaseException] = []
    previous_hook = threading.excepthook
    threading.excepthook = lambda args: failures.append(args.exc_value or Exception())
    try:
        stop_panel = start_panel(panel, table)
        ok = mock_factory.pin(DEFAULT_BUTTON_PINS[Key.OK])
        ok.drive_low()
        time.sleep(0.1)
        ok.drive_high()
        assert reading.wait(5)
        stop_table(table, stop_panel, panel, EndlessCamera())
        assert not any(t.name == "panel" and t.is_alive() for t in threading.enumerate())
    finally:
        threading.excepthook = previous_hook
    assert failures == []
    assert EndlessCamera.closed and not EndlessCamera.read_after_close


def test_perudo_dudo_and_the_calza_press(mock_factory: MockFactory) -> None:
    """Perudo: DOUBT calls dudo; PASS, which Perudo has no use for, calls calza (P10)."""
    dice = {"Ann": [2, 2, 5, 1, 3], "Ben": [2, 6, 1, 4, 4]}
    rig = Rig(mock_factory, EngineTable("perudo", ["Ann", "Ben"], dice))
    try:
        assert str(rig.controller.draft) == "1x2"
        assert not rig.press(Key.PASS)  # no bid to call calza on
        assert rig.messages[-1].endswith("no bid to call calza on, or calza is off")
        rig.press(Key.UP)
        rig.press(Key.UP)
        rig.press(Key.UP)
        assert rig.press(Key.BID)  # Ann: 4x2
        assert rig.table.actions[-1] == {"player": "Ann", "bid": "4x2"}
        assert rig.press(Key.PASS)  # Ben: calza
        assert rig.table.actions[-1] == {"player": "Ben", "calza": True}
        rig.press(Key.OK)  # 2s and aces: 2, 2, 1, 2, 1 = 5, not 4: Ben loses a die
        assert rig.table.game.to_json()["players"][1]["dice"] == 4
        rig.press(Key.BID)  # Ben opens
        assert rig.press(Key.DOUBT)  # Ann: dudo
        assert rig.table.actions[-1] == {"player": "Ann", "dudo": True}
    finally:
        rig.panel.close()


def test_the_panel_does_not_press_for_the_computer(mock_factory: MockFactory) -> None:
    table = EngineTable("perudo", ["Ann", "Cho"], {"Ann": [2] * 5, "Cho": [3] * 5})
    table.setup["computer"] = {"player": "Cho", "level": "hard"}
    rig = Rig(mock_factory, table)
    try:
        assert rig.press(Key.BID)  # Ann's turn: her bid
        assert not rig.press(Key.DOUBT)  # Cho's turn: the computer plays itself
        assert rig.messages[-1].endswith("Cho is the computer's seat: it plays itself")
        assert len(table.actions) == 1
    finally:
        rig.panel.close()
