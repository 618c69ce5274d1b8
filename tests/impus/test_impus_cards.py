"""I1 and I2: the deck and the deal, and the table's options."""

from __future__ import annotations

import pytest

from engine import SetupError
from engine.cards import DEFAULT_KINDS, IMP, CardOptions, build_deck, deal_counts, plural
from tests.impus.conftest import cards, impus


def test_I1_deck_is_ten_kinds_of_four_plus_spares_and_polymorphs() -> None:
    deck = build_deck(4, CardOptions())
    assert len(deck.kinds_in_play) == 10
    assert all(deck.count_of(kind) == 4 for kind in deck.kinds_in_play)
    assert deck.polymorphs == 2
    assert deck.size == 42
    three = build_deck(3, CardOptions())
    assert three.count_of(IMP) == 6 and three.polymorphs == 0


def test_I1_seed_names_are_the_defaults_and_two_kinds_are_the_tables_choice() -> None:
    seed = ("orc", "gnome", "elf", "faun", "skeleton", "dragon", "goblin", "imp")
    assert DEFAULT_KINDS[:8] == seed
    kinds = [*DEFAULT_KINDS[:8], "Wraith", "kobold"]
    game = impus(["Ann", "Ben"], {"kinds": kinds})
    assert "wraith" in game.to_json()["kinds"] and "kobold" in game.to_json()["kinds"]


@pytest.mark.parametrize(
    "kinds, fragment",
    [
        (list(DEFAULT_KINDS[:9]), "10 kinds"),
        ([*DEFAULT_KINDS[:9], "orc"], "must differ"),
        ([*DEFAULT_KINDS[:7], "troll", "harpy", "kobold"], "imp"),
        ([*DEFAULT_KINDS[:9], "polymorph"], "joker"),
        ([*DEFAULT_KINDS[:9], "  "], "empty"),
    ],
)
def test_I1_bad_kind_names_are_refused(kinds: list[str], fragment: str) -> None:
    with pytest.raises(SetupError) as caught:
        impus(["Ann", "Ben"], {"kinds": kinds})
    assert caught.value.rule == "I1"
    assert fragment in caught.value.message


@pytest.mark.parametrize(
    "players, polymorphs, hands",
    [
        (2, True, [21, 21]),
        (3, True, [14, 14, 14]),
        (4, True, [10, 10, 11, 11]),
        (5, True, [8, 8, 8, 9, 9]),
        (6, True, [7] * 6),
        (4, False, [10] * 4),
        (5, False, [8] * 5),
    ],
)
def test_I2_deal_matches_the_seed_schema(players: int, polymorphs: bool, hands: list[int]) -> None:
    names = [f"P{i}" for i in range(players)]
    game = impus(names, {"polymorphs": polymorphs})
    assert list(cards(game).values()) == hands
    dealt = 2 if polymorphs and players in (4, 5) else 0
    assert game.to_json()["polymorphs"] == dealt
    assert game.to_json()["card_kinds"][-1] == ("polymorph" if dealt else "harpy")
    assert "imp" in game.to_json()["card_kinds"] and "imp" not in game.to_json()["kinds"]


def test_I2_removing_kinds_shrinks_the_deck_by_four_each() -> None:
    game = impus(["Ann", "Ben"], {"remove_kinds": ["dragon", "Faun"]})
    assert sum(cards(game).values()) == 34
    assert "dragon" not in game.to_json()["kinds"]
    deck = build_deck(3, CardOptions(removed=("dragon",)))
    assert deal_counts(3, deck) == [12, 13, 13]


def test_I2_imps_are_never_removed() -> None:
    with pytest.raises(SetupError) as caught:
        impus(["Ann", "Ben"], {"remove_kinds": ["imp"]})
    assert caught.value.rule == "I2" and "imps" in caught.value.message


@pytest.mark.parametrize(
    "options, rule",
    [
        ({"remove_kinds": ["unicorn"]}, "I2"),
        ({"remove_kinds": "orc"}, "I2"),
        ({"polymorphs": "yes"}, "I2"),
        ({"jokers": True}, "options"),
    ],
)
def test_I2_bad_options_are_refused(options: dict[str, object], rule: str) -> None:
    with pytest.raises(SetupError) as caught:
        impus(["Ann", "Ben"], options)
    assert caught.value.rule == rule


@pytest.mark.parametrize("count", [1, 7])
def test_I2_player_count_is_two_to_six(count: int) -> None:
    with pytest.raises(SetupError) as caught:
        impus([f"P{i}" for i in range(count)])
    assert caught.value.rule == "I2"


def test_plural_for_verdicts() -> None:
    kinds = ("orc", "elf", "harpy", "imp")
    assert [plural(k) for k in kinds] == ["orcs", "elves", "harpies", "imps"]
    assert plural("orc", 1) == "orc"
