"""The engine answers what the app asks of a game by what it can do, not by its name."""

from __future__ import annotations

import pytest

from engine import GAMES, Game


@pytest.mark.parametrize(
    ("kind", "reveal", "board", "set_aside", "doubt", "pass_", "composes"), [
        ("bluff", "dice", True, True, "challenge", None, "bid"),
        ("scam", "dice", False, False, "scam", "pass", "bid"),
        ("perudo", "dice", False, False, "dudo", "calza", "bid"),
        ("impus", "cards", False, False, "doubt", None, "batch"),
    ])
def test_each_game_says_what_it_can_do(kind: str, reveal: str, board: bool, set_aside: bool,
                                       doubt: str, pass_: str | None, composes: str) -> None:
    game = GAMES[kind]
    assert (game.reveal_kind, game.has_bid_board, game.takes_set_aside, game.doubt_action,
            game.pass_action, game.composes) == (reveal, board, set_aside, doubt, pass_,
                                                 composes)


def test_a_new_game_starts_from_the_defaults_of_a_dice_game_with_bids() -> None:
    # a game added later (Perudo, say) fills in only what differs
    assert (Game.reveal_kind, Game.has_bid_board, Game.takes_set_aside, Game.doubt_action,
            Game.pass_action, Game.composes) == ("dice", False, False, None, None, "bid")
