"""bluffcam's rules engine: pure rules of Bluff and Scam (and Impus), bids, odds, the journal.

Standard library only. A game is its setup plus its accepted actions; state is derived by
applying them, so export, replay, undo and crash recovery are all the same operation.
"""

from engine.actions import (
    Action,
    BidAction,
    CardReveal,
    Challenge,
    Pass,
    Reveal,
    ScamCall,
    action_to_json,
    parse_action,
    register_action,
)
from engine.bids import Bid, BidOrder, BluffLadder, ScamOrder
from engine.bluff import BluffGame, BluffOptions
from engine.errors import EngineError, IllegalActionError, SetupError
from engine.game import ExpectedHand, Game, Phase
from engine.history import RoundResult
from engine.journal import Journal, JournalDamaged, JournalError
from engine.registry import GAMES, new_game
from engine.scam import ScamGame, ScamOptions
from engine.script import run_script

__all__ = [
    "GAMES",
    "Action",
    "Bid",
    "BidAction",
    "BidOrder",
    "BluffGame",
    "BluffLadder",
    "BluffOptions",
    "CardReveal",
    "Challenge",
    "EngineError",
    "ExpectedHand",
    "Game",
    "IllegalActionError",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "Pass",
    "Phase",
    "Reveal",
    "RoundResult",
    "ScamCall",
    "ScamGame",
    "ScamOptions",
    "ScamOrder",
    "SetupError",
    "action_to_json",
    "new_game",
    "parse_action",
    "register_action",
    "run_script",
]
