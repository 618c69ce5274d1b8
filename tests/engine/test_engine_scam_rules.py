"""One or more tests per Scam rule id (RULES.md S1–S9)."""

from __future__ import annotations

import pytest
from engine_helpers import bid, challenge, pass_, play, refused, reveal, scam, scam_call

from engine import ExpectedHand, Phase, SetupError

FOUR = ["Ann", "Ben", "Cho", "Dan"]
# 4s: 2 (Ann, Ben); 1s: 2; 5s: 3. No jokers in Scam.
HANDS = {"Ann": [4, 1, 1], "Ben": [4, 2, 2], "Cho": [3, 3, 3], "Dan": [5, 5, 5]}


def all_pass_after(game_bidder: str) -> list[dict[str, object]]:
    order = FOUR[FOUR.index(game_bidder) + 1 :] + FOUR[: FOUR.index(game_bidder)]
    return [pass_(name) for name in order]


def test_S1_three_or_four_players_unless_allowed() -> None:
    for names in (["a", "b", "c"], FOUR):
        assert scam(names).players == names
    for names in (["a", "b"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(SetupError) as error:
            scam(names)
        assert error.value.rule == "S1"
    assert len(scam(["a", "b"], allow_any_players=True).players) == 2
    assert len(scam(list("abcdef"), allow_any_players=True).players) == 6
    with pytest.raises(SetupError):
        scam(list("abcdefg"), allow_any_players=True)


def test_S1_reveal_has_three_dice_per_player() -> None:
    game = play(scam(), bid("Ann", "2x4"), scam_call("Ben"))
    assert game.expected_reveal() == {name: ExpectedHand(3) for name in FOUR}
    error = refused(game, reveal(**{**HANDS, "Dan": [5, 5]}))
    assert error.rule == "S1" and "2 dice for Dan" in error.message
    assert refused(game, reveal(Ann=[1, 2, 3])).rule == "S6"


def test_S2_first_bidder_moves_one_seat_clockwise_each_round() -> None:
    game = scam()
    assert game.turn == "Ann"
    play(game, bid("Ann", "2x4"))
    assert game.turn == "Ben"  # bidding goes clockwise
    play(game, *all_pass_after("Ann"), reveal(**HANDS))
    assert game.turn == "Ben"
    play(game, bid("Ben", "2x2"), scam_call("Cho"), reveal(**HANDS))
    assert game.turn == "Cho"
    play(game, *[pass_(n) for n in ["Cho", "Dan", "Ann", "Ben"]])
    assert game.turn == "Dan"
    assert refused(game, bid("Ann", "2x1")).rule == "S2"  # not Ann's turn: bidding goes clockwise


def test_S2_starter_option() -> None:
    assert scam(starter="Cho").turn == "Cho"
    with pytest.raises(SetupError) as error:
        scam(starter="Zed")
    assert error.value.rule == "S2"


def test_S3_plain_bids_lowest_two_ones_no_jokers() -> None:
    game = scam()
    assert refused(game, bid("Ann", "1x6")).rule == "S3"
    error = refused(game, bid("Ann", "2*"))
    assert error.rule == "S3" and "no jokers" in error.message
    assert [str(b) for b in game.lowest_raises()] == [f"2x{f}" for f in range(1, 7)]
    play(game, bid("Ann", "2x4"))
    assert [str(b) for b in game.lowest_raises()] == ["2x5", "2x6", "3x1", "3x2", "3x3", "3x4"]
    error = refused(game, bid("Ben", "2x3"))
    assert error.message == "2×4 → 2×3 is not a raise: same count needs a higher face than 4 (S3)"
    play(game, bid("Ben", "2x6"), bid("Cho", "3x1"))
    assert str(game.current_bid) == "3x1"


def test_S4_pass_then_bid_again_later() -> None:
    game = play(scam(), pass_("Ann"), bid("Ben", "2x3"), pass_("Cho"), pass_("Dan"))
    play(game, bid("Ann", "2x5"))
    assert (game.turn, str(game.current_bid)) == ("Ben", "2x5")
    assert game.legal_action_kinds() == ["bid", "pass", "scam"]


def test_S4_scam_needs_a_bid_and_other_actions_are_refused() -> None:
    game = scam()
    assert game.legal_action_kinds() == ["bid", "pass"]
    assert refused(game, scam_call("Ann")).rule == "S4"
    assert refused(game, challenge("Ann")).rule == "S4"
    assert refused(game, bid("Ann", "2x4", 4)).rule == "S4"
    assert refused(game, pass_("Ben")).rule == "S2"  # not Ben's turn


def test_S5_round_ends_when_every_other_player_has_passed() -> None:
    game = play(scam(), bid("Ann", "2x4"), pass_("Ben"), pass_("Cho"))
    assert game.phase is Phase.BIDDING and game.turn == "Dan"
    play(game, pass_("Dan"))
    assert (game.phase, game.turn, game.legal_action_kinds()) == (Phase.REVEAL, None, ["reveal"])
    error = refused(game, bid("Ann", "3x4"))
    assert error.rule == "S6" and "the hidden dice must be revealed first" in error.message
    assert "cups" not in error.message  # Scam's dice lie hidden on the table (S1)


def test_S5_a_new_bid_resets_the_passes() -> None:
    game = play(scam(), bid("Ann", "2x4"), pass_("Ben"), pass_("Cho"), bid("Dan", "2x5"))
    play(game, pass_("Ann"), pass_("Ben"))
    assert game.phase is Phase.BIDDING
    play(game, pass_("Cho"))
    assert game.phase is Phase.REVEAL


def test_S5_nobody_bids_and_everybody_passes_no_score() -> None:
    game = play(scam(), *[pass_(n) for n in FOUR])
    entry = game.history[0]
    assert entry.bid is None and entry.changes == () and "nobody scores" in entry.verdict
    assert game.phase is Phase.BIDDING and game.turn == "Ben"
    assert [p["score"] for p in game.to_json()["players"]] == [0, 0, 0, 0]


def test_S5_scam_ends_the_round_at_once() -> None:
    game = play(scam(), bid("Ann", "2x4"), scam_call("Ben"))
    assert game.phase is Phase.REVEAL


def test_S6_the_bid_holds_with_at_least_n_of_the_face_and_ones_are_not_jokers() -> None:
    game = play(scam(), bid("Ann", "3x4"), *all_pass_after("Ann"), reveal(**HANDS))
    entry = game.history[0]
    assert entry.actual == 2  # Ann's 1s do not count
    assert entry.verdict == "4s: 2, bid was 3 — the bid fails: nobody scores"


def test_S7_no_scam_the_highest_bidder_scores_one_if_the_bid_holds() -> None:
    game = play(scam(), bid("Ann", "2x4"), *all_pass_after("Ann"), reveal(**HANDS))
    assert game.history[0].verdict == "4s: 2, bid was 2 — the bid holds: Ann scores 1"
    assert game.to_json()["players"][0] == {"name": "Ann", "score": 1, "out": False}


def test_S8_scam_bid_holds_bidder_scores_three() -> None:
    game = play(scam(), bid("Ann", "3x5"), scam_call("Ben"), reveal(**HANDS))
    entry = game.history[0]
    assert (entry.challenger, dict(entry.changes)) == ("Ben", {"Ann": 3})
    assert entry.verdict == "Scam! 5s: 3, bid was 3 — the bid holds: Ann scores 3"


def test_S8_scam_bid_fails_caller_scores_two() -> None:
    game = play(scam(), bid("Ann", "2x1"), bid("Ben", "3x1"), scam_call("Cho"))
    play(game, reveal(**HANDS))
    entry = game.history[0]
    assert dict(entry.changes) == {"Cho": 2}
    assert [p["score"] for p in game.to_json()["players"]] == [0, 0, 2, 0]


def test_S9_first_to_the_target_wins() -> None:
    game = scam(target=4)
    play(game, bid("Ann", "3x5"), scam_call("Ben"), reveal(**HANDS))  # Ann 3
    assert game.phase is Phase.BIDDING
    play(game, bid("Ben", "2x4"), pass_("Cho"), pass_("Dan"), pass_("Ann"), reveal(**HANDS))
    play(game, bid("Cho", "3x2"), pass_("Dan"), pass_("Ann"), pass_("Ben"), reveal(**HANDS))
    assert [p["score"] for p in game.to_json()["players"]] == [3, 1, 0, 0]
    play(game, pass_("Dan"), bid("Ann", "2x1"), pass_("Ben"), pass_("Cho"), pass_("Dan"))
    play(game, reveal(**HANDS))
    assert (game.phase, game.winner, game.turn) == (Phase.OVER, "Ann", None)
    assert game.history[-1].verdict.endswith("Ann reaches 4 and wins")
    assert refused(game, bid("Ben", "2x2")).rule == "S9"


def test_S9_target_option_validated() -> None:
    assert scam().to_json()["players"][0]["score"] == 0
    for bad in (0, "ten", True):
        with pytest.raises(SetupError) as error:
            scam(target=bad)
        assert error.value.rule == "S9"


def test_each_round_is_numbered_and_recorded_in_points() -> None:
    game = play(scam(), bid("Ann", "3x5"), scam_call("Ben"), reveal(**HANDS))
    first = game.history[0].to_json()
    assert (first["round"], first["unit"], first["challenger"]) == (1, "points", "Ben")
    assert game.details()["round"] == 2
    play(game, bid("Ben", "2x4"), scam_call("Cho"))
    details = game.details()
    assert (details["round"], details["caller"], details["bidder"]) == (2, "Cho", "Ben")
    play(game, reveal(**HANDS))
    assert [entry.number for entry in game.history] == [1, 2]
    assert game.details()["round"] == 3


def test_S1_a_reveal_one_die_short_says_die_not_dice() -> None:
    game = play(scam(), bid("Ann", "2x4"), scam_call("Ben"))
    error = refused(game, reveal(**{**HANDS, "Dan": [5]}))
    assert error.rule == "S1" and "the reveal shows 1 die for Dan; " in error.message


def test_S4_a_bluff_action_is_no_scam_action_in_words() -> None:
    game = play(scam(), bid("Ann", "2x4"))
    error = refused(game, challenge("Ben"))
    assert error.rule == "S4"
    assert error.message.endswith("is not a Scam action: bid, pass, or call Scam! (S4)")


def test_the_details_count_the_passes_since_the_bid() -> None:
    game = play(scam(), bid("Ann", "2x4"), pass_("Ben"))
    assert game.details()["passes"] == 1  # in a row since the last bid


def test_an_unknown_scam_option_is_named_with_the_game() -> None:
    with pytest.raises(SetupError) as error:
        scam(nonsense=1)
    assert error.value.message.startswith("unknown Scam option(s) nonsense; known: ")


def test_the_legal_bids_all_beat_the_current_one() -> None:
    from engine import Bid

    game = play(scam(), bid("Ann", "3x4"))
    legal = game.legal_bids()
    assert legal and Bid(3, 4) not in legal and Bid(3, 5) in legal and Bid(2, 6) not in legal
