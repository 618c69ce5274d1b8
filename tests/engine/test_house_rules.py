"""Each game's chosen variants in words, as the board shows them beside the game's name."""

from __future__ import annotations

from typing import Any

import pytest

from engine.game import game_from_setup


def _rules(game: str, players: list[str], **options: Any) -> list[str]:
    return game_from_setup({"game": game, "players": players, "starter": players[0],
                            "options": options}).house_rules()


def test_plain_bluff_names_its_dice_joker_and_exact_hit() -> None:
    assert _rules("bluff", ["Ann", "Ben"]) == [
        "5 dice each", "★ = the 1s", "exact bid: all but the bidder lose a die"]


@pytest.mark.parametrize(("options", "players", "first"), [
    ({"dice_per_player": "split"}, 3, "10 dice each (30 shared out)"),
    ({"dice_per_player": "split"}, 4, "7 dice each (30 shared out, 2 left over)"),
    ({"dice_per_player": 1}, 3, "1 die each"),
    ({"dice_per_player": "czech"}, 4, "6 dice each"),
    ({"dice_per_player": "czech"}, 6, "5 dice each"),  # B2: five each with six players
    ({"dice_per_player": 3}, 2, "3 dice each"),
])
def test_bluff_says_the_dice_each_player_starts_with(options: dict[str, Any], players: int,
                                                       first: str) -> None:
    names = ["Ann", "Ben", "Cho", "Dan", "Eve", "Fay"][:players]
    assert _rules("bluff", names, **options)[0] == first


def test_bluff_variants_are_each_named() -> None:
    rules = _rules("bluff", ["Ann", "Ben"], joker_face=6, exact="challenger_pays_bidder",
                   reroll=False)
    assert rules[1:] == ["★ = the 6s", "exact bid: the challenger gives the bidder a die",
                         "no raise and re-roll"]
    protected = _rules("bluff", ["Ann", "Ben"], protect_last_die=True)
    # B13: the bidder and the challenger are not protected
    assert protected[-1] == "exact bid: a last die is safe, but not the bidder's or challenger's"


def test_scam_names_its_target_and_impus_its_short_game() -> None:
    assert _rules("scam", ["Ann", "Ben", "Cho"], target=5) == ["first to 5 points"]
    assert _rules("scam", ["Ann", "Ben", "Cho"], target=1) == ["first to 1 point"]
    # the polymorphs left out where the deal has them (I2: 4 and 5 players), not elsewhere
    assert _rules("impus", ["Ann", "Ben", "Cho", "Dan"], polymorphs=False) == ["no polymorphs"]
    assert _rules("impus", ["Ann", "Ben", "Cho"], polymorphs=False) == []
    assert _rules("impus", ["Ann", "Ben", "Cho"]) == []  # the board lists the kinds in play
    assert _rules("impus", ["Ann", "Ben", "Cho"], remove_kinds=["troll"]) == [
        "short game: no troll"]
