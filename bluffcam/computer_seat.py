"""A seat played by the computer: its secret cup, kept in the journal, and its moves.

A game's setup may name one player as the computer's: ``"computer": {"player": "Cho",
"level": "hard"}`` beside the engine's setup (like ``"seats"``). The Pi then rolls that
player's dice from the operating system's cryptographic source (``bot.Cup``) and keeps
them in the journal's ``meta`` table, one entry per game, before anything uses them, so a
restart finds the same dice instead of rolling again. The dice reach no screen: the state the
dashboard gets has no field for them; they join the reveal (the camera reads only the humans'
cups) and only then appear, in the round's history, like everybody's.

Its moves are chosen by ``bot`` from the public game and its own dice, and applied by the
table after a short, human-like pause (:class:`ComputerPlayer`).
"""

from __future__ import annotations

import json
import random
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot import Cup, Level, make_player
from bot.model import supported
from engine import Game, Journal, Phase
from engine.actions import BidAction, Reveal
from engine.bluff import BluffGame
from engine.perudo import PerudoGame
from engine.registry import GAMES
from engine.scam import DICE_EACH

COMPUTER_KEY = "computer"
#: the games the computer plays
COMPUTER_GAMES = ("bluff", "scam", "perudo")
#: the pause before a move shows, in seconds: (shortest, longest)
PAUSE = (1.2, 3.0)
#: rounds of dice kept in the journal (an undone reveal goes back to its round's dice)
ROUNDS_KEPT = 4


class ComputerSeatError(ValueError):
    """A ``"computer"`` setup entry that does not fit the game; the message says why."""


def check_computer(value: Any, kind: Any, players: Any) -> dict[str, str]:
    """The setup's ``"computer"`` entry as stored: ``{"player", "level"}``."""
    if not isinstance(value, Mapping) or set(value) - {"player", "level"}:
        raise ComputerSeatError(
            'computer: give {"player": NAME, "level": "easy" | "normal" | "hard"}, '
            f"got {value!r}")
    if kind not in COMPUTER_GAMES:
        title = GAMES[kind].title if kind in GAMES else repr(kind)
        raise ComputerSeatError(f"computer: the computer plays {', '.join(COMPUTER_GAMES)}, "
                                f"not {title}")
    player = value.get("player")
    if not isinstance(players, list) or player not in players:
        raise ComputerSeatError(f"computer: {player!r} is not one of the players {players}")
    level = value.get("level", Level.HARD.value)
    if level not in [lv.value for lv in Level]:
        raise ComputerSeatError(f"computer: level {level!r} must be easy, normal or hard")
    return {"player": str(player), "level": str(level)}


def _dice_of(game: Game, player: str) -> int:
    if isinstance(game, BluffGame | PerudoGame):
        return game.dice[player]
    return DICE_EACH


@dataclass
class ComputerSeat:
    """One game's computer seat: who, how strong, and its cup in the journal."""

    player: str
    level: str
    journal: Journal
    game_id: int | None
    cup: Cup

    @classmethod
    def from_setup(cls, setup: Mapping[str, Any] | None, journal: Journal,
                   cup: Cup | None = None) -> ComputerSeat | None:
        entry = (setup or {}).get(COMPUTER_KEY)
        if not isinstance(entry, Mapping):
            return None
        return cls(str(entry["player"]), str(entry.get("level", "hard")), journal,
                   journal.game_id, cup or Cup())

    # ---------------------------------------------------------------- the cup
    @property
    def _key(self) -> str:
        return f"{COMPUTER_KEY}_cup_{self.game_id}"

    def _stored(self) -> dict[str, Any]:
        text = self.journal.setting(self._key)
        try:
            value = json.loads(text) if text else {}
        except ValueError:
            value = {}
        return value if isinstance(value, dict) else {}

    def hand(self, game: Game) -> tuple[int, ...]:
        """The computer's dice this round: rolled and journalled the first time they are
        needed; rolled again (the set-aside dice kept) after its raise and re-roll (B8)."""
        rounds = self._stored()
        round_key = str(len(game.history))
        entry = rounds.get(round_key)
        count = _dice_of(game, self.player)
        if not isinstance(entry, dict) or len(entry.get("dice", ())) != count:
            entry = {"dice": list(self.cup.roll(count)), "at": len(game.actions)}
            self._store(rounds, round_key, entry)
        rerolled_at = self._last_reroll(game)
        if rerolled_at is not None and rerolled_at >= entry["at"]:
            assert isinstance(game, BluffGame)
            kept = game.set_aside[self.player]
            entry = {"dice": list(self.cup.reroll(entry["dice"], kept)),
                     "at": len(game.actions)}
            self._store(rounds, round_key, entry)
        return tuple(int(f) for f in entry["dice"])

    def _store(self, rounds: dict[str, Any], key: str, entry: dict[str, Any]) -> None:
        rounds[key] = entry
        for old in sorted(rounds, key=int)[:-ROUNDS_KEPT]:
            del rounds[old]
        self.journal.set_setting(self._key, json.dumps(rounds))

    def _last_reroll(self, game: Game) -> int | None:
        """The index of the computer's last raise and re-roll this round, if any."""
        for index in range(len(game.actions) - 1, -1, -1):
            action = game.actions[index]
            if isinstance(action, Reveal):
                return None
            if isinstance(action, BidAction) and action.player == self.player and \
                    action.set_aside:
                return index
        return None

    # ------------------------------------------------------------ the game
    def to_move(self, game: Game) -> bool:
        return game.phase is Phase.BIDDING and game.turn == self.player and supported(game)

    def move(self, game: Game, rng: random.Random | None = None) -> dict[str, Any]:
        """The computer's action now, as a replay object."""
        if not self.to_move(game):
            raise ValueError(f"it is not {self.player}'s turn")
        player = make_player(self.level)
        action = player.choose(game, self.player, self.hand(game), rng or random.Random(
            secrets.randbits(64)))
        return action.to_json()

    def humans_only(self, hands: Mapping[str, Any]) -> dict[str, Any]:
        """The reveal's expected hands less the computer's (the camera reads only those)."""
        return {name: hand for name, hand in hands.items() if name != self.player}

    def complete_reveal(self, game: Game, values: Mapping[str, Any]) -> dict[str, Any]:
        """A reveal's dice with the computer's added, where the reveal expects them."""
        out = dict(values)
        if game.phase is Phase.REVEAL and self.player in game.expected_reveal() and \
                self.player not in out:
            out[self.player] = list(self.hand(game))
        return out


class ComputerPlayer:
    """Plays the computer's turns on a table after a pause: ``poke`` after every change.

    ``play(seen)`` is the table's: it applies the move if the game still has ``seen``
    actions (a move chosen for one turn never lands on another).
    """

    def __init__(self, play: Callable[[int], None], pause: tuple[float, float] = PAUSE,
                 rng: random.Random | None = None) -> None:
        self._play = play
        self._pause = pause
        self._rng = rng or random.Random(secrets.randbits(64))
        self._timer: threading.Timer | None = None
        self._for: int | None = None
        self._lock = threading.Lock()

    def poke(self, seat: ComputerSeat | None, game: Game | None) -> None:
        """Schedule the computer's move if it is its turn and none is scheduled for it."""
        with self._lock:
            if seat is None or game is None or not seat.to_move(game):
                return
            seen = len(game.actions)
            if self._for == seen and self._timer is not None and self._timer.is_alive():
                return
            self._for = seen
            low, high = self._pause
            self._timer = threading.Timer(self._rng.uniform(low, high), self._play, (seen,))
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self._for = None
