"""Impus Bluff entered by button presses: real gpiozero (MockFactory), the real Impus engine.

FACE cycles the claimable kinds, UP/DOWN the batch size, BID plays, DOUBT is "don't
believe", REROLL casts a polymorph; impossible presses blink, buzz and change nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from bluffcam.panel_controller import PanelController
from engine import Game, new_game, parse_action
from hardware.panel import DEFAULT_BUTTON_PINS, ButtonPanel, Key

PLAYERS = ["Ann", "Ben", "Cho", "Dan"]  # four players: the last two are dealt a polymorph


class ImpusTable:
    """The Table's panel-facing surface over the real Impus engine; reveals are given."""

    def __init__(self) -> None:
        self.game: Game = new_game("impus", PLAYERS, starter="Ann")
        self.actions: list[dict[str, Any]] = []
        self.next_reveal: list[str] = []

    def state(self) -> dict[str, Any]:
        details = self.game.details()
        return {"game": self.game.to_json(), "review": None,
                "legal": {"kinds": details["legal"], "lowest_raises": []},
                "history": [entry.to_json() for entry in self.game.history]}

    def submit(self, action: Any, source: str = "web") -> dict[str, Any]:
        self.game.apply(parse_action(dict(action)))  # raises and changes nothing when illegal
        self.actions.append(dict(action))
        return self.state()

    def undo(self) -> dict[str, Any]:
        raise ValueError("not used here")

    def capture_reveal(self) -> dict[str, Any]:
        return self.submit({"reveal": self.next_reveal}, source="camera")


class Rig:
    def __init__(self, factory: MockFactory) -> None:
        self.factory = factory
        self.now = 0.0
        self.panel = ButtonPanel(pin_factory=factory, clock=lambda: self.now, feedback_s=0.0)
        self.table = ImpusTable()
        self.messages: list[str] = []
        self.controller = PanelController(self.table, self.panel, on_message=self.messages.append)
        self.controller.refresh()

    def press(self, key: Key) -> bool:
        pin = self.factory.pin(DEFAULT_BUTTON_PINS[key])
        pin.drive_low()
        self.now += 0.1
        pin.drive_high()
        self.now += 0.2
        done = self.controller.handle(self.panel.events.get_nowait())
        self.panel.wait_feedback()
        return done

    def lit(self) -> list[int]:
        return [i for i, led in enumerate(self.panel.leds) if led.value]

    def cards(self) -> dict[str, int]:
        return {p["name"]: p["cards"] for p in self.table.game.to_json()["players"]}


@pytest.fixture()
def rig(mock_factory: MockFactory) -> Iterator[Rig]:
    r = Rig(mock_factory)
    yield r
    r.panel.close()


def test_a_pile_played_believed_doubted_and_taken_by_presses(rig: Rig) -> None:
    kinds = rig.table.game.to_json()["kinds"]
    assert "imp" not in kinds
    assert rig.lit() == [0] and str(rig.controller.card_draft) == f"1 × {kinds[0]}"
    rig.press(Key.FACE)
    rig.press(Key.UP)  # 2 × the second kind
    assert rig.press(Key.BID)
    assert rig.table.actions[-1] == {"player": "Ann", "play": 2, "claim": kinds[1]}
    assert rig.lit() == [1] and rig.controller.card_draft is not None
    assert rig.controller.card_draft.kind == kinds[1]  # a believer's draft follows the claim
    assert rig.press(Key.BID)  # Ben believes: one more card, no claim named
    assert rig.table.actions[-1] == {"player": "Ben", "play": 1}
    assert rig.press(Key.DOUBT)  # Cho: "don't believe"
    assert rig.table.actions[-1] == {"player": "Cho", "doubt": True}
    assert rig.table.game.phase == "reveal" and rig.lit() == []
    rig.table.next_reveal = ["imp"]  # Ben's card was a lie
    before = rig.cards()
    assert rig.press(Key.OK)
    assert rig.cards()["Ben"] == before["Ben"] + 3  # I5: the checked player takes the pile
    assert rig.lit() == [2]  # I6: the player after the taker starts a new pile
    assert rig.controller.refused == 0


def test_every_kind_is_offered_and_the_imp_never(rig: Rig) -> None:
    kinds = rig.table.game.to_json()["kinds"]
    seen = []
    for _ in kinds:
        assert rig.controller.card_draft is not None
        seen.append(rig.controller.card_draft.kind)
        rig.press(Key.FACE)
    assert seen == kinds and rig.controller.card_draft.kind == kinds[0]  # it wraps around


def test_impossible_presses_blink_buzz_and_change_nothing(rig: Rig) -> None:
    buzzer = rig.factory.pin(18)
    buzzer.clear_states()
    assert not rig.press(Key.DOUBT)  # no batch to doubt
    assert not rig.press(Key.DOWN)  # a batch is at least one card
    assert not rig.press(Key.REROLL)  # a polymorph needs a started pile
    assert not rig.press(Key.PASS)  # Impus has no pass
    assert not rig.press(Key.OK)  # no reveal due
    held = rig.cards()["Ann"]
    for _ in range(held - 1):
        assert rig.press(Key.UP)
    assert not rig.press(Key.UP)  # not more cards than in hand
    assert rig.table.actions == [] and rig.controller.refused == 6
    assert sum(1 for s in buzzer.states if s.state) == 12  # two buzzes per refusal
    assert any(f"holds only {held}" in m for m in rig.messages)
    assert any("DOUBT: there is no batch to doubt" in m for m in rig.messages)  # not a "bid"
    assert rig.lit() == [0]


def test_reroll_casts_a_polymorph_naming_the_selected_kind(rig: Rig) -> None:
    kinds = rig.table.game.to_json()["kinds"]
    rig.press(Key.BID)  # Ann: 1 × kinds[0]
    rig.press(Key.BID)  # Ben believes
    assert rig.lit() == [2]  # Cho holds a polymorph (4 players: the last two seats)
    assert not rig.press(Key.REROLL)  # the selected kind is the claim: refused
    assert rig.table.actions[-1] == {"player": "Ben", "play": 1}
    rig.press(Key.FACE)
    assert rig.press(Key.REROLL)
    assert rig.table.actions[-1] == {"player": "Cho", "polymorph": kinds[1]}
    assert rig.table.game.to_json()["claim"] == kinds[1]
    assert rig.lit() == [3]
