"""I3–I9: claims, believing and doubting, who takes the pile, discards, polymorph, the end."""

from __future__ import annotations

import pytest

from engine import IllegalActionError, Phase
from engine.impus import ImpusGame
from tests.impus.conftest import cards, impus, play, refused

ANN_CLAIMS_TWO_ORCS = {"player": "Ann", "play": 2, "claim": "orc"}


def test_I3_first_batch_names_one_kind_and_its_count() -> None:
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS)
    state = game.to_json()
    assert state["claim"] == "orc" and state["pile"] == 2
    assert state["last_batch"] == {"player": "Ann", "count": 2, "claim": "orc"}
    assert cards(game) == {"Ann": 12, "Ben": 14, "Cho": 14}
    assert state["turn"] == "Ben"


def test_I3_a_new_pile_must_name_a_kind() -> None:
    error = refused(impus(["Ann", "Ben"]), {"player": "Ann", "play": 2}, "I3")
    # in words a player reads on the phone, not the replay object
    assert error.message == ("Ann's play of 2 cards: a new pile's first batch must name a kind "
                             "(I3)")


def test_I3_an_imp_may_never_be_named() -> None:
    error = refused(impus(["Ann", "Ben"]), {"player": "Ann", "play": 3, "claim": "imp"}, "I3")
    assert "imp" in error.message


def test_I3_a_removed_or_unknown_kind_cannot_be_named() -> None:
    game = impus(["Ann", "Ben"], {"remove_kinds": ["dragon"]})
    refused(game, {"player": "Ann", "play": 1, "claim": "dragon"}, "I3")
    refused(game, {"player": "Ann", "play": 1, "claim": "unicorn"}, "I3")


def test_I3_a_batch_is_one_or_more_cards_from_the_hand() -> None:
    game = impus(["Ann", "Ben"])
    refused(game, {"player": "Ann", "play": 0, "claim": "orc"}, "I3")
    error = refused(game, {"player": "Ann", "play": 22, "claim": "orc"}, "I3")
    assert "holds only 21 cards" in error.message


def test_I4_a_believer_adds_cards_of_the_same_kind() -> None:
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS, {"player": "Ben", "play": 3})
    assert game.to_json()["pile"] == 5 and game.claim == "orc"
    play(game, {"player": "Cho", "play": 1, "claim": "orc"})  # naming the same kind is fine
    assert game.to_json()["last_batch"] == {"player": "Cho", "count": 1, "claim": "orc"}
    error = refused(game, {"player": "Ann", "play": 1, "claim": "elf"}, "I4")
    assert "'orc'" in error.message


def test_I4_doubt_turns_up_only_the_last_batch() -> None:
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS, {"player": "Ben", "play": 3})
    play(game, {"player": "Cho", "doubt": True})
    assert game.phase is Phase.REVEAL and game.turn is None
    assert game.reveal_due() == 3 and game.legal_action_kinds() == ["reveal"]
    error = refused(game, {"reveal": ["orc", "imp"]}, "I4")
    assert "3 cards" in error.message
    refused(game, {"player": "Ann", "play": 1}, "I4")


def test_I4_nothing_to_doubt_on_an_empty_table_and_only_in_turn() -> None:
    game = impus(["Ann", "Ben", "Cho"])
    refused(game, {"player": "Ann", "doubt": True}, "I4")
    play(game, ANN_CLAIMS_TWO_ORCS)
    refused(game, {"player": "Cho", "doubt": True}, "I4")
    refused(game, {"reveal": ["orc", "orc"]}, "I4")


def test_I1_reveal_names_only_cards_of_this_deck() -> None:
    game = play(impus(["Ann", "Ben"]), ANN_CLAIMS_TWO_ORCS, {"player": "Ben", "doubt": True})
    error = refused(game, {"reveal": ["orc", "unicorn"]}, "I1")
    assert "unicorn" in error.message
    refused(game, {"reveal": ["orc", "polymorph"]}, "I1")  # no polymorphs with 2 players


def test_I5_true_claim_doubter_takes_the_whole_pile() -> None:
    game = play(
        impus(["Ann", "Ben", "Cho"]),
        ANN_CLAIMS_TWO_ORCS,
        {"player": "Ben", "play": 1},
        {"player": "Cho", "doubt": True},
        {"reveal": ["ORC"]},
    )
    assert cards(game) == {"Ann": 12, "Ben": 13, "Cho": 17}
    entry = game.history[-1].to_json()
    assert entry["truthful"] is True and entry["taker"] == "Cho" and entry["pile_size"] == 3
    assert entry["verdict"] == "1 orc claimed, turned up orc — Cho takes the pile (3 cards)"


def test_I5_a_lie_makes_the_checked_player_take_the_pile() -> None:
    game = play(
        impus(["Ann", "Ben", "Cho"]),
        {"player": "Ann", "play": 4, "claim": "goblin"},
        {"player": "Ben", "play": 2},
        {"player": "Cho", "play": 3},
        {"player": "Ann", "doubt": True},
        {"reveal": ["goblin", "imp", "goblin"]},
    )
    assert cards(game) == {"Ann": 10, "Ben": 12, "Cho": 20}
    verdict = game.history[-1].to_json()["verdict"]
    assert verdict == ("3 goblins claimed, turned up goblin, imp, goblin"
                       " — Cho takes the pile (9 cards)")
    assert game.to_json()["pile"] == 0 and game.claim is None


def test_I3_names_the_starter_of_the_first_pile() -> None:
    """Out of turn before any pile was taken is I3 (the starting player), not I6 (the
    player after the one who took a pile)."""
    game = impus(["Ann", "Ben", "Cho"])
    refused(game, {"player": "Ben", "play": 2, "claim": "orc"}, "I3")
    refused(game, {"player": "Ben", "doubt": True}, "I3")


def test_I6_next_player_after_the_taker_starts_a_new_pile() -> None:
    game = play(
        impus(["Ann", "Ben", "Cho"]),
        ANN_CLAIMS_TWO_ORCS,
        {"player": "Ben", "doubt": True},
        {"reveal": ["orc", "orc"]},
    )
    assert game.turn == "Cho"  # Ben took the pile
    refused(game, {"player": "Ann", "play": 1, "claim": "elf"}, "I6")  # Cho starts it
    refused(game, {"player": "Cho", "play": 1}, "I3")
    play(game, {"player": "Cho", "play": 1, "claim": "elf"})
    assert game.claim == "elf"
    refused(game, {"player": "Cho", "play": 1}, "I4")  # the pile begun, play passes on (I4)


def test_I7_four_of_a_kind_are_discarded_face_up() -> None:
    game = impus(["Ann", "Ben", "Cho"])
    play(game, {"player": "Ben", "discard": "dragon"})
    state = game.to_json()
    assert state["discards"] == [{"player": "Ben", "kind": "dragon", "count": 4}]
    assert cards(game)["Ben"] == 10
    error = refused(game, {"player": "Cho", "discard": "dragon"}, "I7")
    assert "already discarded" in error.message


def test_I7_imps_are_never_discarded() -> None:
    error = refused(impus(["Ann", "Ben"]), {"player": "Ann", "discard": "imp"}, "I7")
    assert "imps are never discarded" in error.message


def test_I7_discard_is_at_once_after_the_deal_or_taking_the_pile() -> None:
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS)
    refused(game, {"player": "Cho", "discard": "elf"}, "I7")
    play(game, {"player": "Ben", "doubt": True})
    refused(game, {"player": "Ben", "discard": "elf"}, "I7")  # reveal pending
    play(game, {"reveal": ["orc", "gnome"]})  # Ann lied and takes the pile
    refused(game, {"player": "Ben", "discard": "elf"}, "I7")
    play(game, {"player": "Ann", "discard": "gnome"})
    assert cards(game)["Ann"] == 10
    assert game.discard_candidates() == ["Ann"]


def test_I7_discarding_the_last_cards_makes_a_player_safe() -> None:
    game = play(
        impus(
            ["Ann", "Ben", "Cho"],
            {"remove_kinds": ["gnome", "elf", "faun", "skeleton", "dragon", "goblin", "troll"]},
        ),
    )
    # 3 players, orc + harpy + 6 imps = 14 cards: hands 4, 5, 5
    assert cards(game) == {"Ann": 4, "Ben": 5, "Cho": 5}
    play(game, {"player": "Ann", "discard": "orc"})
    assert game.to_json()["safe"] == ["Ann"] and game.turn == "Ben"
    play(game, {"player": "Ben", "discard": "harpy"})
    assert cards(game) == {"Ann": 0, "Ben": 1, "Cho": 5} and game.phase is Phase.BIDDING
    play(game, {"player": "Ben", "play": 1, "claim": "orc"}, {"player": "Cho", "play": 1})
    assert (
        game.phase is Phase.OVER
        and game.loser == "Cho"
        and game.to_json()["safe"]
        == [
            "Ann",
            "Ben",
        ]
    )


def test_I8_polymorph_changes_the_claim_and_cannot_be_doubted() -> None:
    game = play(
        impus(["Ann", "Ben", "Cho", "Dan"], starter="Ben"),
        {"player": "Ben", "play": 2, "claim": "dragon"},
        {"player": "Cho", "polymorph": "goblin"},  # the last two seats are dealt one each
    )
    state = game.to_json()
    assert state["claim"] == "goblin" and state["pile"] == 3 and cards(game)["Cho"] == 10
    assert "doubt" not in game.legal_action_kinds()
    error = refused(game, {"player": "Dan", "doubt": True}, "I8")
    assert "polymorph" in error.message
    refused(game, {"player": "Dan", "play": 1, "claim": "dragon"}, "I4")
    play(game, {"player": "Dan", "play": 1}, {"player": "Ann", "doubt": True})
    play(game, {"reveal": ["goblin"]})
    assert cards(game)["Ann"] == 10 + 4  # the face-up polymorph goes with the pile
    assert game.may_hold_polymorphs("Ann") == 1
    assert game.history[-1].to_json()["claim"] == "goblin"


def test_I8_polymorph_rules_kind_start_and_supply() -> None:
    game = impus(["Ann", "Ben", "Cho", "Dan"], starter="Ben")
    refused(game, {"player": "Ben", "polymorph": "elf"}, "I8")  # no pile yet
    play(game, {"player": "Ben", "play": 1, "claim": "elf"})
    refused(game, {"player": "Cho", "polymorph": "elf"}, "I8")
    refused(game, {"player": "Cho", "polymorph": "imp"}, "I8")
    play(game, {"player": "Cho", "polymorph": "orc"}, {"player": "Dan", "play": 1},
         {"player": "Ann", "play": 1}, {"player": "Ben", "play": 1},
         {"player": "Cho", "play": 1})
    play(game, {"player": "Dan", "polymorph": "faun"}, {"player": "Ann", "play": 1},
         {"player": "Ben", "play": 1})
    error = refused(game, {"player": "Cho", "polymorph": "elf"}, "I8")
    assert "already face up" in error.message
    assert "polymorph" not in game.legal_action_kinds()


def test_I8_no_polymorphs_when_the_game_is_dealt_without_them() -> None:
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS)
    refused(game, {"player": "Ben", "polymorph": "elf"}, "I2")
    game = play(impus(["Ann", "Ben", "Cho", "Dan"], {"polymorphs": False}), ANN_CLAIMS_TWO_ORCS)
    refused(game, {"player": "Ben", "polymorph": "elf"}, "I2")
    error = refused(game, {"player": "Ann", "discard": "polymorph"}, "I2")
    assert "dealt without polymorph cards" in error.message


def _ann_down_to_one_card() -> ImpusGame:
    """Three players; Ann has one card left and it is her turn on an orc pile."""
    return play(
        impus(["Ann", "Ben", "Cho"]),
        {"player": "Ann", "play": 13, "claim": "orc"},
        {"player": "Ben", "play": 1},
        {"player": "Cho", "play": 1},
    )


def test_I9_empty_hand_is_safe_once_the_next_player_believes() -> None:
    game = play(_ann_down_to_one_card(), {"player": "Ann", "play": 1})
    assert cards(game)["Ann"] == 0 and game.to_json()["safe"] == [] and game.turn == "Ben"
    play(game, {"player": "Ben", "play": 1})
    assert game.to_json()["safe"] == ["Ann"] and game.turn == "Cho"
    refused(game, {"player": "Ann", "play": 1}, "I9")
    play(game, {"player": "Cho", "play": 1})
    assert game.turn == "Ben"  # Ann, safe, is skipped


def test_I9_a_failed_doubt_of_the_last_batch_makes_the_player_safe() -> None:
    game = play(_ann_down_to_one_card(), {"player": "Ann", "play": 1})
    play(game, {"player": "Ben", "doubt": True})
    play(game, {"reveal": ["orc"]})
    assert game.to_json()["safe"] == ["Ann"] and cards(game)["Ben"] == 13 + 16
    verdict = game.history[-1].to_json()["verdict"]
    assert verdict.endswith("Ben takes the pile (16 cards); Ann is safe")
    assert game.turn == "Cho"


def test_I9_a_caught_last_batch_brings_the_player_back() -> None:
    game = play(_ann_down_to_one_card(), {"player": "Ann", "play": 1})
    play(game, {"player": "Ben", "doubt": True})
    play(game, {"reveal": ["imp"]})
    assert game.to_json()["safe"] == [] and cards(game)["Ann"] == 16
    assert game.turn == "Ben"


def test_I9_last_player_holding_cards_loses() -> None:
    game = play(impus(["Ann", "Ben"]), {"player": "Ann", "play": 21, "claim": "troll"})
    assert game.phase is Phase.BIDDING
    play(game, {"player": "Ben", "play": 1})
    state = game.to_json()
    assert state["phase"] == "over" and state["loser"] == "Ben" and state["turn"] is None
    assert [p["lost"] for p in state["players"]] == [False, True]
    assert game.legal_action_kinds() == []
    error = refused(game, {"player": "Ben", "play": 1}, "I9")
    assert "Ben lost" in error.message
    for junk in ("junk", None):  # not an action at all: the format error, as in play
        with pytest.raises(IllegalActionError) as caught:
            game.check(junk)  # type: ignore[arg-type]
        assert caught.value.rule == "format"


def test_I9_polymorph_as_last_card_is_safe_when_the_next_player_adds_cards() -> None:
    game = impus(["Ann", "Ben", "Cho", "Dan"])
    play(game, {"player": "Ann", "play": 1, "claim": "elf"}, {"player": "Ben", "play": 1})
    play(game, {"player": "Cho", "play": 1}, {"player": "Dan", "play": 10})
    assert cards(game)["Dan"] == 1
    play(game, {"player": "Ann", "play": 1}, {"player": "Ben", "play": 1})
    play(game, {"player": "Cho", "play": 1}, {"player": "Dan", "polymorph": "orc"})
    assert cards(game)["Dan"] == 0 and game.to_json()["safe"] == []
    play(game, {"player": "Ann", "play": 1})
    assert game.to_json()["safe"] == ["Dan"]


@pytest.mark.parametrize(("action", "said"), [
    ({"player": "Cho", "doubt": True}, "Cho's \"don't believe\": it is Ben's turn (I4)"),
    ({"player": "Ben", "polymorph": "elf"},
     "Ben's polymorph as elves: this game is dealt without polymorph cards (I2)"),
    ({"player": "Cho", "discard": "orc"}, "Cho's discard of the orcs: four of a kind are "
     "discarded at once — after the deal, or by whoever just took the pile, before the next "
     "play (I7)"),
    ({"reveal": ["orc", "orc"]}, "the turned-up cards: no batch has been doubted (I4)"),
])
def test_a_refusal_names_the_action_in_words(action: dict[str, object], said: str) -> None:
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS)
    error = refused(game, action, said[-3:-1])
    assert error.message == said


@pytest.mark.parametrize(("reveal", "said"), [
    ([1, 2], 'list the cards turned up, e.g. ["orc", "imp"]'),
    ("imp", 'list the cards turned up, e.g. ["orc", "imp"]'),
    ({"Ann": ["orc", "imp"]}, 'cards are listed, not given per player: {"reveal": ["orc", "imp"]}'),
])
def test_a_reveal_shaped_wrong_is_refused_in_card_words(reveal: object, said: str) -> None:
    """The reveal's format is shared with the dice games; a card reveal in the wrong shape
    was refused in dice words only ("their dice", "die faces 1–6")."""
    game = play(impus(["Ann", "Ben", "Cho"]), ANN_CLAIMS_TWO_ORCS, {"player": "Ben", "doubt": True})
    error = refused(game, {"reveal": reveal}, "format")
    assert said in error.message


def test_I7_a_kept_polymorph_pair_is_refused_in_its_own_words() -> None:
    """Ben took a pile that may have given him both polymorphs and kept them past the next
    play: the refusal speaks of the polymorphs, not of four of a kind."""
    from engine import Game

    game = Game.from_script({"game": "impus", "players": ["Ann", "Ben", "Cho", "Dan"],
                             "actions": [
        {"player": "Ann", "play": 1, "claim": "orc"}, {"player": "Ben", "play": 1},
        {"player": "Cho", "play": 1}, {"player": "Dan", "play": 1},
        {"player": "Ann", "play": 1}, {"player": "Ben", "doubt": True}, {"reveal": ["orc"]},
        {"player": "Cho", "play": 1, "claim": "elf"}]})
    assert game.may_hold_polymorphs("Ben") == 2
    error = refused(game, {"player": "Ben", "discard": "polymorph"}, "I7")
    assert error.message == (
        "Ben's discard of the polymorphs: the two polymorphs are discarded (or kept for good) "
        "when they come into a hand — after the deal, or by whoever just took the pile, before "
        "the next play (I7)")
