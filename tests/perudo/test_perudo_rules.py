"""Hand scenarios for every Perudo rule (docs/perudo.md, P1–P14) and option."""

from __future__ import annotations

from typing import Any

import pytest
from perudo_helpers import bid, calza, dice, dudo, last, perudo, play, refused, reveal

from engine import Bid, SetupError, new_game
from engine.perudo import (
    PalificoOrder,
    PerudoGame,
    PerudoOrder,
    probability_at_least,
    probability_exact,
)


# ----------------------------------------------------------------- setup
def test_P1_two_to_six_players() -> None:
    with pytest.raises(SetupError) as error:
        perudo(["Ann"])
    assert error.value.rule == "P1"
    with pytest.raises(SetupError):
        perudo([f"P{i}" for i in range(7)])
    assert perudo([f"P{i}" for i in range(6)]).turn == "P0"


def test_P1_turn_goes_clockwise_and_out_of_turn_is_refused() -> None:
    game = play(perudo(), bid("Ann", "2x3"))
    assert game.turn == "Ben"
    assert refused(game, bid("Cho", "3x3")).rule == "P1"


def test_P2_five_dice_each_by_default_and_the_option() -> None:
    assert dice(perudo()) == {"Ann": 5, "Ben": 5, "Cho": 5}
    assert dice(perudo(dice_per_player=3)) == {"Ann": 3, "Ben": 3, "Cho": 3}
    for bad in (0, 11, "5", True):
        with pytest.raises(SetupError) as error:
            perudo(dice_per_player=bad)
        assert error.value.rule == "P2"


def test_P3_the_starter_is_chosen_at_setup() -> None:
    assert perudo(starter="Cho").turn == "Cho"
    with pytest.raises(SetupError) as error:
        perudo(starter="Zed")
    assert error.value.rule == "P3"


def test_unknown_and_malformed_options_are_refused() -> None:
    with pytest.raises(SetupError) as error:
        perudo(joker_face=6)
    assert error.value.rule == "options"
    with pytest.raises(SetupError) as error:
        perudo(calza="yes")
    assert error.value.rule == "P10"
    with pytest.raises(SetupError) as error:
        perudo(palifico=1)
    assert error.value.rule == "P12"


# ----------------------------------------------------------- bids, order
def test_P4_aces_count_for_number_bids() -> None:
    game = play(perudo(), bid("Ann", "4x5"), dudo("Ben"),
                reveal(Ann=[1, 5, 2, 2, 2], Ben=[1, 3, 3, 3, 3], Cho=[5, 4, 4, 4, 4]))
    assert last(game)["actual"] == 4
    assert dice(game)["Ben"] == 4  # the bid held: the doubter pays


def test_P5_ace_bids_are_written_as_stars_and_count_only_aces() -> None:
    game = play(perudo(), bid("Ann", "2x5"))
    error = refused(game, bid("Ben", "3x1"))
    assert error.rule == "P5" and '"3*"' in error.message
    play(game, bid("Ben", "1*"), dudo("Cho"),
         reveal(Ann=[5, 5, 5, 5, 5], Ben=[2, 2, 2, 2, 2], Cho=[3, 3, 3, 3, 3]))
    assert last(game)["actual"] == 0
    assert dice(game)["Ben"] == 4


@pytest.mark.parametrize(
    ("current", "new", "ok"),
    [
        ("3x4", "3x5", True),   # same count, higher face
        ("3x4", "3x3", False),  # same count, lower face
        ("3x4", "4x2", True),   # higher count, any face
        ("3x4", "2*", True),    # to aces: half of 3 rounded up
        ("4x4", "2*", True),    # half of 4
        ("5x4", "2*", False),   # half of 5 rounded up is 3
        ("5x4", "3*", True),
        ("2*", "5x2", True),    # from aces: double plus one
        ("2*", "4x6", False),
        ("2*", "3*", True),
        ("2*", "2*", False),
    ],
)
def test_P6_raises(current: str, new: str, ok: bool) -> None:
    order = PerudoOrder()
    assert order.is_raise(Bid.parse(current), Bid.parse(new)) is ok


def test_P6_refusal_names_the_rule_and_the_lowest_switch() -> None:
    game = play(perudo(), bid("Ann", "5x4"))
    error = refused(game, bid("Ben", "2*"))
    assert error.rule == "P6" and "3" in error.message
    play(game, bid("Ben", "3*"))
    error = refused(game, bid("Cho", "6x6"))
    assert error.rule == "P6" and "7" in error.message


def test_P6_lowest_raises() -> None:
    game = play(perudo(), bid("Ann", "3x4"))
    assert [str(b) for b in game.lowest_raises()] == ["3x5", "3x6", "4x2", "4x3", "4x4", "2*"]
    play(game, bid("Ben", "2*"))
    assert [str(b) for b in game.lowest_raises()] == ["5x2", "5x3", "5x4", "5x5", "5x6", "3*"]


def test_P7_perudo_has_no_re_roll_and_no_other_games_actions() -> None:
    game = play(perudo(), bid("Ann", "2x3"))
    assert refused(game, {"player": "Ben", "bid": "3x3", "set_aside": [3]}).rule == "P7"
    assert refused(game, {"player": "Ben", "challenge": True}).rule == "P7"
    assert refused(game, {"player": "Ben", "pass": True}).rule == "P7"


def test_P9_a_round_may_not_open_with_aces() -> None:
    game = perudo()
    error = refused(game, bid("Ann", "1*"))
    assert error.rule == "P9"
    assert all(b.face is not None for b in game.lowest_raises())
    assert all(b.face is not None for b in game.legal_bids())


# ----------------------------------------------------------------- dudo
def test_P8_dudo_right_the_bidder_loses_one_die_whatever_the_shortfall() -> None:
    game = play(perudo(), bid("Ann", "9x6"), dudo("Ben"),
                reveal(Ann=[2, 2, 2, 2, 2], Ben=[3, 3, 3, 3, 3], Cho=[4, 4, 4, 4, 4]))
    assert dice(game) == {"Ann": 4, "Ben": 5, "Cho": 5}
    assert last(game)["verdict"] == "6s and aces: 0, bid was 9 — dudo right: Ann loses 1 die"


def test_P8_dudo_wrong_the_caller_loses_one_die() -> None:
    game = play(perudo(), bid("Ann", "2x6"), dudo("Ben"),
                reveal(Ann=[6, 6, 6, 1, 1], Ben=[3, 3, 3, 3, 3], Cho=[4, 4, 4, 4, 4]))
    assert dice(game) == {"Ann": 5, "Ben": 4, "Cho": 5}


def test_P8_dudo_needs_a_bid_and_a_reveal_follows() -> None:
    game = perudo()
    assert refused(game, dudo("Ann")).rule == "P8"
    play(game, bid("Ann", "2x3"), dudo("Ben"))
    assert game.legal_action_kinds() == ["reveal"]
    assert refused(game, bid("Cho", "3x3")).rule == "P8"
    assert refused(game, reveal(Ann=[1] * 5, Ben=[1] * 5)).rule == "P8"
    assert refused(game, reveal(Ann=[1] * 5, Ben=[1] * 5, Cho=[1] * 4)).rule == "P8"


def test_P8_no_reveal_without_dudo_or_calza() -> None:
    assert refused(perudo(), reveal(Ann=[1] * 5, Ben=[1] * 5, Cho=[1] * 5)).rule == "P8"


# ----------------------------------------------------------------- calza
def test_P10_calza_right_gives_the_caller_a_die_back() -> None:
    game = play(perudo(), bid("Ann", "3x4"), dudo("Ben"),
                reveal(Ann=[2] * 5, Ben=[3] * 5, Cho=[5] * 5))
    assert dice(game)["Ann"] == 4
    play(game, bid("Ann", "2x4"), bid("Ben", "3x4"), calza("Cho"),
         reveal(Ann=[4, 2, 2, 2], Ben=[1, 3, 3, 3, 3], Cho=[5, 5, 5, 5, 1]))
    # Cho has 5, the most: right, but no die to gain
    assert dice(game) == {"Ann": 4, "Ben": 5, "Cho": 5}
    assert "already has 5" in last(game)["verdict"]
    assert game.turn == "Cho"


def test_P10_calza_right_below_the_start_count_gains_one() -> None:
    game = play(perudo(), bid("Ann", "3x4"), dudo("Ben"),
                reveal(Ann=[2] * 5, Ben=[3] * 5, Cho=[5] * 5))
    play(game, bid("Ann", "2x4"), bid("Ben", "3x3"), bid("Cho", "4x3"), calza("Ann"),
         reveal(Ann=[3, 2, 2, 2], Ben=[1, 3, 6, 6, 6], Cho=[5, 5, 5, 5, 3]))
    assert dice(game)["Ann"] == 5
    assert last(game)["verdict"] == (
        "3s and aces: 4, bid was 4 — calza right: Ann gets 1 die back")
    assert game.turn == "Ann"  # P14: after a calza, the caller starts


def test_P10_calza_wrong_the_caller_loses_one() -> None:
    game = play(perudo(), bid("Ann", "3x4"), calza("Ben"),
                reveal(Ann=[4] * 5, Ben=[3] * 5, Cho=[5] * 5))
    assert dice(game) == {"Ann": 5, "Ben": 4, "Cho": 5}
    assert game.turn == "Ben"


def test_P10_calza_option_off() -> None:
    game = play(perudo(calza=False), bid("Ann", "3x4"))
    assert game.legal_action_kinds() == ["bid", "dudo"]
    error = refused(game, calza("Ben"))
    assert error.rule == "P10" and "off" in error.message


def test_P10_calza_needs_a_bid() -> None:
    assert refused(perudo(), calza("Ann")).rule == "P10"


# ---------------------------------------------------- out, end, starter
def test_P11_and_P14_out_player_skipped_last_one_wins() -> None:
    game = play(perudo(["Ann", "Ben", "Cho"], dice_per_player=1), bid("Ann", "2x6"),
                dudo("Ben"), reveal(Ann=[2], Ben=[3], Cho=[4]))
    # Ann lost her only die: out; P14 the next seat with dice starts
    assert dice(game) == {"Ann": 0, "Ben": 1, "Cho": 1}
    assert game.turn == "Ben"
    assert refused(game, bid("Ann", "1x2")).rule == "P11"
    play(game, bid("Ben", "1x2"), dudo("Cho"), reveal(Ben=[2], Cho=[5]))
    assert game.winner == "Ben" and game.phase.value == "over"
    assert refused(game, bid("Ben", "1x2")).rule == "P11"
    assert last(game)["verdict"].endswith("Cho is out; Ben wins")


def test_P14_the_loser_of_a_dudo_starts() -> None:
    game = play(perudo(), bid("Ann", "2x6"), bid("Ben", "3x6"), dudo("Cho"),
                reveal(Ann=[6] * 5, Ben=[3] * 5, Cho=[4] * 5))
    assert game.turn == "Cho" and last(game)["next_starter"] == "Cho"


# -------------------------------------------------------------- palifico
def _to_one_die(**options: Any) -> PerudoGame:
    """Ann 2 dice → Ann loses a dudo down to 1: her palifico round opens."""
    game = perudo(["Ann", "Ben", "Cho"], dice_per_player=2, **options)
    return play(game, bid("Ann", "6x6"), dudo("Ben"),
                reveal(Ann=[2, 2], Ben=[3, 3], Cho=[4, 4]))


def test_P12_reduced_to_one_die_opens_a_palifico_round() -> None:
    game = _to_one_die()
    assert game.palifico_for == "Ann" and game.turn == "Ann"
    assert "Ann opens a palifico round" in last(game)["verdict"]
    assert any("palifico round" in r for r in game.house_rules())


def test_P12_option_off_no_palifico() -> None:
    game = _to_one_die(palifico=False)
    assert game.palifico_for is None
    assert refused(game, bid("Ann", "1*")).rule == "P9"


def test_P12_once_per_player() -> None:
    game = _to_one_die()
    # palifico round: Ann bids 1x5 ; Ben dudo; 5s alone count
    play(game, bid("Ann", "1x5"), dudo("Ben"), reveal(Ann=[5], Ben=[1, 1], Cho=[2, 2]))
    assert dice(game) == {"Ann": 1, "Ben": 1, "Cho": 2}
    assert game.palifico_for == "Ben"
    # Ben's round: Ben bids, Cho calls calza wrong and is down to one: Cho's palifico
    play(game, bid("Ben", "1x3"), calza("Cho"), reveal(Ann=[3], Ben=[3], Cho=[4, 4]))
    assert dice(game) == {"Ann": 1, "Ben": 1, "Cho": 1}
    assert game.palifico_for == "Cho"
    # Cho calza right gains back to 2 … then loses again to 1: no second palifico
    play(game, bid("Cho", "1x2"), bid("Ann", "2x2"), calza("Ben"),
         reveal(Ann=[2], Ben=[2], Cho=[5]))
    assert dice(game) == {"Ann": 1, "Ben": 2, "Cho": 1}
    assert game.palifico_for is None
    play(game, bid("Ben", "2x4"), bid("Cho", "3x4"), dudo("Ann"),
         reveal(Ann=[1], Ben=[4, 4], Cho=[3]))
    assert dice(game) == {"Ann": 0, "Ben": 2, "Cho": 1}
    play(game, bid("Ben", "2x4"), dudo("Cho"), reveal(Ben=[4, 5], Cho=[6]))
    # Ben down to one for the first time: his palifico was used already
    assert dice(game) == {"Ann": 0, "Ben": 1, "Cho": 1}
    assert game.palifico_for is None


def test_P13_palifico_aces_are_not_wild_and_may_open() -> None:
    game = _to_one_die()
    play(game, bid("Ann", "2x4"), dudo("Ben"),
         reveal(Ann=[4], Ben=[1, 1], Cho=[3, 3]))
    assert last(game)["actual"] == 1
    assert last(game)["verdict"].startswith("4s: 1, bid was 2")
    game = _to_one_die()
    play(game, bid("Ann", "1*"))
    assert game.current_bid == Bid(1)


def test_P13_palifico_the_face_stays_except_for_one_die_players() -> None:
    game = _to_one_die()
    play(game, bid("Ann", "1x4"))
    error = refused(game, bid("Ben", "2x5"))
    assert error.rule == "P13" and "face stays" in error.message
    assert refused(game, bid("Ben", "1x5")).rule == "P13"
    assert [str(b) for b in game.lowest_raises()] == ["2x4"]
    play(game, bid("Ben", "2x4"), bid("Cho", "3x4"))
    # Ann has one die herself: she may change the face (higher count, or same count higher face)
    assert refused(game, bid("Ann", "3x2")).rule == "P13"
    play(game, bid("Ann", "3x6"))
    assert game.current_bid == Bid(3, 6)


def test_P13_palifico_order_aces_are_the_lowest_face() -> None:
    order = PalificoOrder()
    assert order.is_raise(Bid(2), Bid(2, 2))
    assert not order.is_raise(Bid(2, 2), Bid(2))
    assert order.is_raise(Bid(2, 6), Bid(3))


def test_palifico_ends_after_its_round() -> None:
    game = _to_one_die()
    play(game, bid("Ann", "1x4"), dudo("Ben"), reveal(Ann=[4], Ben=[2, 2], Cho=[3, 3]))
    # Ben lost to one die: his own palifico; after it, an ordinary round
    assert game.palifico_for == "Ben"
    play(game, bid("Ben", "2x6"), dudo("Cho"), reveal(Ann=[4], Ben=[6], Cho=[3, 3]))
    assert game.palifico_for is None and game.is_out("Ben") and game.turn == "Cho"
    assert refused(game, bid("Cho", "1*")).rule == "P9"


# ----------------------------------------------------------------- odds
def test_odds_with_and_without_palifico() -> None:
    # one hidden die: a 4 (or, wild, an ace) with 2/6; palifico 1/6
    assert probability_at_least(Bid(1, 4), 1) == pytest.approx(2 / 6)
    assert probability_at_least(Bid(1, 4), 1, palifico=True) == pytest.approx(1 / 6)
    assert probability_at_least(Bid(1), 1) == pytest.approx(1 / 6)
    assert probability_at_least(Bid(2, 4), 1, own_faces=[1]) == pytest.approx(2 / 6)
    assert probability_at_least(Bid(2, 4), 1, own_faces=[1], palifico=True) == 0.0
    assert probability_exact(Bid(1, 4), 2) == pytest.approx(2 * (2 / 6) * (4 / 6))
    with pytest.raises(ValueError, match="hidden_dice"):
        probability_at_least(Bid(1, 4), -1)


def test_details_odds_follow_palifico() -> None:
    game = _to_one_die()
    play(game, bid("Ann", "1x4"))
    details = game.details()
    assert details["palifico"] == "Ann" and details["joker_face"] is None
    assert details["odds"]["probability"] == pytest.approx(1 - (5 / 6) ** 5)


def test_export_replays_to_the_same_state() -> None:
    game = _to_one_die()
    play(game, bid("Ann", "1x4"))
    again = type(game).from_script(game.export())
    assert again.details() == game.details()
    assert new_game("perudo", ["A", "B"]).kind == "perudo"
