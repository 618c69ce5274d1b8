"""One or more tests per Bluff rule id (RULES.md B1–B17)."""

from __future__ import annotations

import pytest
from engine_helpers import ABC, bid, bluff, challenge, play, refused, reveal

from engine import Bid, BluffGame, ExpectedHand, IllegalActionError, Phase, SetupError, new_game
from engine.odds import expected_count

# A reveal used by several tests: 3s and ★ (joker 1) = 3; ★ alone = 1; 5s and ★ = 6.
HANDS = {"Ann": [3, 3, 2, 2, 2], "Ben": [5, 5, 5, 5, 5], "Cho": [1, 6, 6, 6, 6]}


def test_B1_two_to_six_players_seated_clockwise() -> None:
    for count in (2, 6):
        assert len(bluff([f"P{i}" for i in range(count)]).players) == count
    for count in (1, 7):
        with pytest.raises(SetupError) as error:
            bluff([f"P{i}" for i in range(count)])
        assert error.value.rule == "B1"
    with pytest.raises(SetupError, match="must differ"):
        bluff(["Ann", "Ann"])


def test_B1_play_passes_clockwise_and_out_of_turn_is_refused() -> None:
    game = bluff(starter="Ben")
    assert game.turn == "Ben"
    play(game, bid("Ben", "1x2"))
    assert game.turn == "Cho"
    play(game, bid("Cho", "1x3"))
    assert game.turn == "Ann"
    error = refused(game, bid("Cho", "2x2"))
    assert error.rule == "B1" and "Ann's turn" in error.message
    assert refused(game, bid("Zed", "2x2")).rule == "B1"


def test_B1_turn_skips_players_who_are_out() -> None:
    game = bluff(dice_per_player=1)
    play(game, bid("Ann", "1x2"), challenge("Ben"), reveal(Ann=[3], Ben=[4], Cho=[4]))
    assert game.to_json()["players"][0] == {"name": "Ann", "dice": 0, "out": True}
    assert game.turn == "Ben"  # B15: the challenger starts
    play(game, bid("Ben", "1x4"))
    assert game.turn == "Cho"
    play(game, bid("Cho", "1x5"))
    assert game.turn == "Ben"  # Ann is skipped


def test_B2_dice_per_player_options() -> None:
    assert bluff().to_json()["players"][0]["dice"] == 5
    assert bluff(dice_per_player=3).to_json()["players"][0]["dice"] == 3
    czech5 = bluff(["a", "b", "c", "d", "e"], dice_per_player="czech")
    czech6 = bluff(["a", "b", "c", "d", "e", "f"], dice_per_player="czech")
    assert {p["dice"] for p in czech5.to_json()["players"]} == {6}
    assert {p["dice"] for p in czech6.to_json()["players"]} == {5}
    split4 = bluff(["a", "b", "c", "d"], dice_per_player="split")
    assert {p["dice"] for p in split4.to_json()["players"]} == {7}  # 30 // 4, rounded down
    for bad in (0, 31, "lots", True):
        with pytest.raises(SetupError) as error:
            bluff(dice_per_player=bad)
        assert error.value.rule == "B2"


def test_B3_starter_chosen_at_setup_default_first() -> None:
    assert bluff().turn == "Ann"
    assert bluff(starter="Cho").turn == "Cho"
    with pytest.raises(SetupError) as error:
        bluff(starter="Zed")
    assert error.value.rule == "B3"


def test_B4_joker_counts_for_every_number_bid() -> None:
    game = play(bluff(), bid("Ann", "6x6"), challenge("Ben"))
    # 6s and ★: Cho has four 6s and a 1 = 5, so 6x6 fails by one.
    play(game, reveal(**HANDS))
    assert game.history[0].actual == 5
    assert game.history[0].changes == (("Ann", -1),)


def test_B4_joker_face_six_option() -> None:
    game = play(bluff(joker_face=6), bid("Ann", "4x3"), challenge("Ben"))
    # 3s and ★ where ★ is the 6: Ann's two 3s + Cho's four 6s = 6.
    play(game, reveal(**HANDS))
    assert game.history[0].actual == 6
    for wrong in (2, 6.0, True, "6"):  # 6.0 is not the face 6: it would be shown as "6.0s"
        with pytest.raises(SetupError) as error:
            bluff(joker_face=wrong)
        assert error.value.rule == "B4" and repr(wrong) in error.value.message


def test_B4_a_number_bid_cannot_name_the_joker_face() -> None:
    error = refused(bluff(), bid("Ann", "3x1"))
    assert error.rule == "B5" and "joker face 1" in error.message
    error = refused(bluff(joker_face=6), bid("Ann", "3x6"))
    assert "3★" in error.message


def test_B5_joker_bid_counts_only_jokers_and_set_aside_dice_count() -> None:
    game = play(bluff(), bid("Ann", "1x4"), bid("Ben", "1*", 1), challenge("Cho"))
    hands = {"Ann": [2, 2, 2, 2, 2], "Ben": [1, 3, 3, 3, 3], "Cho": [4, 4, 4, 4, 4]}
    play(game, reveal(**hands))
    # Only Ben's set-aside 1 is a joker; the 4s do not count for a ★ bid.
    assert game.history[0].actual == 1
    assert game.history[0].verdict.startswith("★: 1, bid was 1 — exact")


def test_B6_first_bid_any_later_bids_strictly_higher() -> None:
    game = play(bluff(), bid("Ann", "7x5"))
    assert refused(game, bid("Ben", "7x5")).rule == "B6"
    assert refused(game, bid("Ben", "7x3")).rule == "B6"
    assert refused(game, bid("Ben", "3*")).rule == "B6"
    play(game, bid("Ben", "7x6"), bid("Cho", "4*"), bid("Ann", "8x2"))
    assert game.current_bid == Bid(8, 2)


def test_B6_message_names_input_and_lowest_raise() -> None:
    game = play(bluff(["Ann", "Ben"]), bid("Ann", "4x2"))
    error = refused(game, bid("Ben", "2*"))
    assert error.message == (
        "4×2 → 2★ is not a raise: 2★ ranks below 4×any; the lowest ★ raise is 3★ (B6)"
    )
    game = play(bluff(["Ann", "Ben"]), bid("Ann", "2*"))
    error = refused(game, bid("Ben", "3x6"))
    assert "the lowest number raise is 4×2" in error.message


def test_B6_lowest_raises_follow_the_board() -> None:
    game = play(bluff(), bid("Ann", "3x4"))
    assert [str(b) for b in game.lowest_raises()] == ["3x5", "3x6", "2*", "4x2", "4x3", "4x4"]
    game = play(bluff(joker_face=6), bid("Ann", "2*"))
    assert [str(b) for b in game.lowest_raises()] == ["4x1", "4x2", "4x3", "4x4", "4x5", "3*"]
    assert [str(b) for b in bluff().lowest_raises()][-1] == "1*"


def test_B6_a_bid_may_jump_any_distance() -> None:
    game = play(bluff(), bid("Ann", "1x2"), bid("Ben", "12x6"), bid("Cho", "9*"))
    assert str(game.current_bid) == "9*"


def test_B7_raise_passes_the_turn() -> None:
    game = play(bluff(), bid("Ann", "2x3"))
    assert (game.turn, game.to_json()["bid"], game.phase) == ("Ben", "2x3", Phase.BIDDING)
    assert game.legal_action_kinds() == ["bid", "set_aside", "challenge"]


def test_B7_other_actions_are_not_bluff_actions() -> None:
    assert refused(bluff(), {"player": "Ann", "pass": True}).rule == "B7"
    assert refused(bluff(), {"player": "Ann", "scam": True}).rule == "B7"


def test_B8_raise_and_reroll_sets_dice_aside() -> None:
    game = play(bluff(), bid("Ann", "2x4", 4, 4))
    assert game.details()["set_aside"]["Ann"] == [4, 4]
    assert game.turn == "Ben"
    play(game, bid("Ben", "3x4"), bid("Cho", "4x4"), bid("Ann", "5x4", 4, 1))
    assert game.details()["set_aside"]["Ann"] == [4, 4, 4, 1]
    # Ann has 1 die left in the cup: she cannot set aside any more.
    play(game, bid("Ben", "5x5"), bid("Cho", "5x6"))
    error = refused(game, bid("Ann", "6x2", 2))
    assert error.rule == "B8" and "1 in the cup" in error.message
    assert game.legal_action_kinds() == ["bid", "challenge"]


def test_B8_at_least_one_die_stays_in_the_cup() -> None:
    error = refused(bluff(), bid("Ann", "2x4", 4, 4, 4, 4, 4))
    assert error.rule == "B8" and "at least one must stay" in error.message
    game = play(bluff(), bid("Ann", "2x4", 4, 4, 4, 4))  # four of five is fine
    assert isinstance(game, BluffGame) and game.in_cup("Ann") == 1


def test_B8_empty_set_aside_is_refused() -> None:
    error = refused(bluff(), {"player": "Ann", "bid": "2x4", "set_aside": []})
    assert error.rule == "B8"


def test_B8_reroll_option_off() -> None:
    error = refused(bluff(reroll=False), bid("Ann", "2x4", 4))
    assert error.rule == "B8" and "switched off" in error.message
    assert bluff(reroll=False).legal_action_kinds() == ["bid"]


def test_B8_all_dice_return_to_the_cup_next_round() -> None:
    game = play(bluff(), bid("Ann", "2x4", 4, 4), challenge("Ben"))
    play(game, reveal(Ann=[4, 4, 2, 3, 5], Ben=[2, 2, 2, 2, 2], Cho=[3, 3, 3, 3, 3]))
    assert game.details()["set_aside"] == {"Ann": [], "Ben": [], "Cho": []}


def test_B9_set_aside_dice_are_public_and_the_reveal_must_contain_them() -> None:
    game = play(bluff(), bid("Ann", "2x4", 4, 6), challenge("Ben"))
    assert game.expected_reveal()["Ann"] == ExpectedHand(count=5, set_aside=(4, 6))
    assert isinstance(game, BluffGame) and game.public_faces() == [4, 6]
    error = refused(game, reveal(Ann=[4, 4, 2, 3, 5], Ben=[2] * 5, Cho=[3] * 5))
    assert error.rule == "B9" and "lacks the set-aside [6]" in error.message


def test_B10_challenge_needs_a_bid_and_the_turn() -> None:
    game = bluff()
    assert refused(game, challenge("Ann")).rule == "B10"
    play(game, bid("Ann", "2x2"))
    assert refused(game, challenge("Cho")).rule == "B1"
    play(game, challenge("Ben"))
    assert (game.phase, game.turn) == (Phase.REVEAL, None)
    assert game.legal_action_kinds() == ["reveal"]


def test_B10_while_a_reveal_is_due_nobody_bids() -> None:
    game = play(bluff(), bid("Ann", "2x2"), challenge("Ben"))
    assert refused(game, bid("Cho", "3x2")).rule == "B10"


def test_B10_reveal_without_challenge_is_refused() -> None:
    assert refused(bluff(), reveal(**HANDS)).rule == "B10"


def test_B10_reveal_must_show_every_remaining_player_with_the_right_count() -> None:
    game = play(bluff(), bid("Ann", "2x2"), challenge("Ben"))
    error = refused(game, reveal(Ann=HANDS["Ann"], Ben=HANDS["Ben"]))
    assert error.rule == "B10" and "missing Cho" in error.message
    error = refused(game, reveal(**HANDS, Dan=[1]))
    assert "Dan is not in play" in error.message
    error = refused(game, reveal(Ann=[2, 2, 2, 2], Ben=HANDS["Ben"], Cho=HANDS["Cho"]))
    assert error.rule == "B10" and "4 dice for Ann, who has 5" in error.message


def test_B11_bid_too_high_bidder_loses_the_difference() -> None:
    game = play(bluff(), bid("Ann", "5x3"), challenge("Ben"), reveal(**HANDS))
    entry = game.history[0]
    assert (entry.actual, dict(entry.changes)) == (3, {"Ann": -2})
    assert entry.verdict == "3s and ★: 3, bid was 5 — Ann loses 2 dice"
    assert game.to_json()["players"][0]["dice"] == 3


def test_B12_bid_too_low_challenger_loses_the_difference() -> None:
    game = play(bluff(), bid("Ann", "1x3"), challenge("Ben"), reveal(**HANDS))
    entry = game.history[0]
    assert dict(entry.changes) == {"Ben": -2}
    assert entry.verdict == "3s and ★: 3, bid was 1 — Ben loses 2 dice"


def test_B13_exact_hit_everyone_but_the_bidder_loses_one() -> None:
    game = play(bluff(), bid("Ann", "3x3"), challenge("Ben"), reveal(**HANDS))
    entry = game.history[0]
    assert dict(entry.changes) == {"Ben": -1, "Cho": -1}
    assert entry.verdict == "3s and ★: 3, bid was 3 — exact: Ben, Cho lose 1 die each"


def test_B13_option_challenger_pays_bidder_at_start_count_the_die_leaves() -> None:
    game = bluff(exact="challenger_pays_bidder")
    play(game, bid("Ann", "5x3"), challenge("Ben"), reveal(**HANDS))  # Ann loses 2
    play(game, bid("Ben", "1x2"), challenge("Cho"))
    play(game, reveal(Ann=[3, 3, 3], Ben=[2, 2, 2, 2, 2], Cho=[4] * 5))  # 2s and ★: 5
    assert dict(game.history[1].changes) == {"Cho": -4}
    play(game, bid("Ben", "3x3"), challenge("Cho"))
    play(game, reveal(Ann=[3, 3, 3], Ben=[2, 2, 2, 2, 2], Cho=[4]))  # exact: 3
    entry = game.history[2]
    # Ben already has 5, the start count, so Cho's die leaves the game; Cho had 1: out.
    assert dict(entry.changes) == {"Cho": -1}
    assert entry.verdict == (
        "3s and ★: 3, bid was 3 — exact: Cho loses 1 die; Ben already has 5, the start count, "
        "so the die leaves the game; Cho is out"
    )
    assert game.to_json()["players"][1]["dice"] == 5


def test_B13_option_challenger_pays_bidder_below_start_count() -> None:
    game = bluff(exact="challenger_pays_bidder")
    play(game, bid("Ann", "7x2"), challenge("Ben"), reveal(**HANDS))  # 2s and ★: 4
    assert dict(game.history[0].changes) == {"Ann": -3}
    play(game, bid("Ben", "1x2"), bid("Cho", "1x3"), bid("Ann", "2x4"), challenge("Ben"))
    play(game, reveal(Ann=[4, 4], Ben=[5] * 5, Cho=[6] * 5))
    entry = game.history[1]
    assert dict(entry.changes) == {"Ben": -1, "Ann": 1}
    assert entry.verdict == "4s and ★: 2, bid was 2 — exact: Ben gives Ann 1 die"
    assert [p["dice"] for p in game.to_json()["players"]] == [3, 4, 5]


def test_B13_option_challenger_pays_a_bidder_one_below_the_start_count_up_to_it() -> None:
    """The cap's edge: a bidder one die short of the start count gets the die and is back
    at the start count (the die leaves the game only from a bidder already there)."""
    game = bluff(exact="challenger_pays_bidder")
    play(game, bid("Ann", "1x5"), challenge("Ben"), reveal(Ann=[2] * 5, Ben=[3] * 5, Cho=[4] * 5))
    assert game.to_json()["players"][0]["dice"] == game.start_dice - 1
    play(game, bid("Ben", "1x4"), bid("Cho", "1x5"), bid("Ann", "1x6"), challenge("Ben"))
    play(game, reveal(Ann=[2] * 4, Ben=[6, 2, 2, 2, 2], Cho=[4] * 5))  # 6s and ★: 1, exact
    entry = game.history[1]
    assert dict(entry.changes) == {"Ben": -1, "Ann": 1}
    assert entry.verdict == "6s and ★: 1, bid was 1 — exact: Ben gives Ann 1 die"
    assert [p["dice"] for p in game.to_json()["players"]] == [game.start_dice, 4, 5]


def test_B13_protect_last_die_spares_bystanders_only() -> None:
    game = bluff(["Ann", "Ben", "Cho", "Dan"], dice_per_player=1, protect_last_die=True)
    play(game, bid("Ann", "1x2"), challenge("Ben"))
    play(game, reveal(Ann=[2], Ben=[3], Cho=[4], Dan=[5]))
    entry = game.history[0]
    assert dict(entry.changes) == {"Ben": -1}  # the challenger still pays
    assert "Cho keeps their last die" in entry.verdict
    assert entry.out == ("Ben",)
    with pytest.raises(SetupError) as error:
        bluff(exact="challenger_pays_bidder", protect_last_die=True)
    assert error.value.rule == "B13"


def test_B14_nobody_loses_more_dice_than_they_have() -> None:
    game = play(bluff(["Ann", "Ben"], dice_per_player=2), bid("Ann", "4x2"), challenge("Ben"))
    play(game, reveal(Ann=[3, 3], Ben=[3, 3]))
    entry = game.history[0]
    assert dict(entry.changes) == {"Ann": -2}
    assert entry.verdict == (
        "2s and ★: 0, bid was 4 — Ann loses 2 dice (all they had; the penalty was 4); "
        "Ann is out; Ben wins"
    )
    assert game.to_json()["players"][0] == {"name": "Ann", "dice": 0, "out": True}


def test_B14_a_player_with_no_dice_is_out_and_not_in_the_reveal() -> None:
    game = bluff(dice_per_player=1)
    play(game, bid("Ann", "1x2"), challenge("Ben"), reveal(Ann=[3], Ben=[4], Cho=[4]))
    out = refused(game, bid("Ann", "1x5"))  # told why, not only whose turn it is
    assert out.rule == "B14"
    assert out.message == "Ann has no dice left and is out of the game (B14)"
    play(game, bid("Ben", "1x4"), challenge("Cho"))
    assert set(game.expected_reveal()) == {"Ben", "Cho"}
    assert refused(game, bid("Ann", "5x5")).rule in {"B1", "B10"}


def test_B15_next_round_starts_with_the_winner_of_the_challenge() -> None:
    held = play(bluff(), bid("Ann", "1x3"), challenge("Ben"), reveal(**HANDS))
    assert held.turn == "Ann" and held.history[0].next_starter == "Ann"
    exact = play(bluff(), bid("Ann", "3x3"), challenge("Ben"), reveal(**HANDS))
    assert exact.turn == "Ann"
    failed = play(bluff(), bid("Ann", "9x3"), challenge("Ben"), reveal(**HANDS))
    assert failed.turn == "Ben" and failed.current_bid is None
    assert failed.phase is Phase.BIDDING


def test_B16_last_player_with_dice_wins_and_the_game_is_over() -> None:
    game = play(bluff(["Ann", "Ben"], dice_per_player=1), bid("Ann", "1x2"), challenge("Ben"))
    play(game, reveal(Ann=[3], Ben=[3]))
    assert game.to_json() == {
        "game": "bluff",
        "phase": "over",
        "turn": None,
        "bid": None,
        "winner": "Ben",
        "players": [
            {"name": "Ann", "dice": 0, "out": True},
            {"name": "Ben", "dice": 1, "out": False},
        ],
    }
    assert game.legal_action_kinds() == []
    assert refused(game, bid("Ben", "1x2")).rule == "B16"


def test_B17_expected_count_is_a_third_for_numbers_a_sixth_for_jokers() -> None:
    assert expected_count(Bid(1, 3), 30) == pytest.approx(10.0)
    assert expected_count(Bid(1), 30) == pytest.approx(5.0)
    game = play(bluff(), bid("Ann", "2x4", 4, 1))
    odds = game.details()["odds"]
    assert odds["expected"] == pytest.approx(2 + 13 / 3)
    assert odds["probability"] == 1.0


def test_new_game_kinds_and_unknown_kind() -> None:
    assert new_game("bluff", ABC).kind == "bluff"
    with pytest.raises(SetupError) as error:
        new_game("poker", ABC)
    assert error.value.rule == "format"
    with pytest.raises(SetupError) as error:
        new_game("bluff", ABC, options={"jokers": 1})
    assert error.value.rule == "options" and "jokers" in error.value.message


def test_B10_a_reveal_naming_a_player_twice_or_strangers_is_refused_by_name() -> None:
    from engine.actions import Reveal

    game = play(bluff(), bid("Ann", "2x2"), challenge("Ben"))
    twice = Reveal((("Ann", (1,) * 5), ("Ben", (2,) * 5), ("Ann", (3,) * 5), ("Cho", (4,) * 5)))
    with pytest.raises(IllegalActionError) as error:
        game.apply(twice)
    assert (error.value.rule, error.value.message) == ("B10", "the reveal lists Ann twice (B10)")
    error_two = refused(game, reveal(**HANDS, Dan=[1], Eve=[2]))
    assert error_two.message == ("the reveal must show every remaining player's dice: Dan, Eve "
                                 "are not in play (B10)")


def test_legal_bids_stop_at_the_count_asked_for() -> None:
    game = play(bluff(), bid("Ann", "2x2"))
    assert isinstance(game, BluffGame)
    capped = game.legal_bids(max_count=3)
    assert capped and max(b.count for b in capped) == 3
    assert max(b.count for b in game.legal_bids()) == game.dice_in_play()


def test_B8_too_many_dice_set_aside_are_counted_in_words() -> None:
    error = refused(bluff(), bid("Ann", "2x4", 4, 4, 4, 4, 4))
    assert error.message == ("Ann sets aside 5 dice with 5 in the cup: at least one must stay "
                             "in the cup to re-roll (B8)")


def test_the_details_name_the_round() -> None:
    game = bluff()
    assert game.details()["round"] == 1
    play(game, bid("Ann", "5x3"), challenge("Ben"), reveal(**HANDS))
    assert game.details()["round"] == 2


def test_an_unknown_option_is_named_with_the_game() -> None:
    with pytest.raises(SetupError) as error:
        bluff(nonsense=1)
    assert error.value.message.startswith("unknown Bluff option(s) nonsense; known: ")


def test_the_round_record_names_the_challenger() -> None:
    game = play(bluff(), bid("Ann", "5x3"), challenge("Ben"), reveal(**HANDS))
    assert (game.history[0].bidder, game.history[0].challenger) == ("Ann", "Ben")


def test_the_odds_shown_count_the_games_own_joker() -> None:
    from engine.odds import bid_probability

    game = play(bluff(joker_face=6), bid("Ann", "3x4", 6, 6))  # two public 6s: jokers here
    shown = game.details()["odds"]["probability"]
    assert shown == bid_probability(Bid(3, 4), 13, (6, 6), None, 6)
    assert shown != bid_probability(Bid(3, 4), 13, (6, 6), None, 1)
    game_ones = play(bluff(), bid("Ann", "3x4"))
    assert game_ones.details()["odds"]["probability"] == bid_probability(Bid(3, 4), 15, (), None, 1)


def test_option_and_reveal_refusals_carry_their_rule() -> None:
    with pytest.raises(SetupError) as error:
        bluff(protect_last_die="yes")
    assert error.value.rule == "B13"
    assert refused(bluff(), reveal(**HANDS)).message == ("no reveal is due: nobody has "
                                                         "challenged (B10)")


def test_a_bluff_round_is_recorded_in_dice() -> None:
    game = play(bluff(), bid("Ann", "5x3"), challenge("Ben"), reveal(**HANDS))
    assert game.history[0].to_json()["unit"] == "dice"
