"""The Game base class: a setup plus a list of accepted actions, state derived by applying them.

Variants follow python-chess's ``chess/variant.py``: a subclass sets a few class attributes and
overrides a few hooks (``_check``, ``_play``, ``_player_json``, …) — no ``if variant == …``.
A card game (Impus) fits the same frame: ``phase``/``turn``/``players``, ``apply``/``check``,
``to_json``, ``export``; ``expected_reveal`` returns ``{}`` where no dice are revealed.

Undo is deliberately not a mutation: :meth:`Game.without_last` rebuilds the game from its setup
and ``actions[:-1]``. Replaying is cheap and cannot drift from what the journal holds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol

from engine.actions import Action, JsonObject, parse_action
from engine.bids import Bid
from engine.errors import EngineError, IllegalActionError, SetupError
from engine.options import refuse_unknown
from engine.words import N_, Said, said


class Phase(StrEnum):
    BIDDING = "bidding"
    REVEAL = "reveal"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class ExpectedHand:
    """What a reveal must show for one seat: ``count`` dice, the ``set_aside`` faces among them."""

    count: int
    set_aside: tuple[int, ...] = ()

    def to_json(self) -> JsonObject:
        return {"count": self.count, "set_aside": list(self.set_aside)}


class HistoryEntry(Protocol):
    """A finished round (or pile, for cards): anything that can say what happened as JSON."""

    def to_json(self) -> JsonObject: ...


SCRIPT_KEYS = frozenset({"game", "players", "starter", "options", "actions", "comment"})


class Game(ABC):
    """One game in progress. Subclasses set the class attributes and implement the hooks."""

    #: registry name, e.g. "bluff"
    kind: ClassVar[str]
    #: name for messages, e.g. "Bluff"
    title: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    #: RULES.md ids cited for seating/turn order, and for the end of the game
    seat_rule: ClassVar[str]
    end_rule: ClassVar[str]
    #: RULES.md id cited when an action is made while a reveal is due, and what must happen
    reveal_rule: ClassVar[str]
    reveal_words: ClassVar[str] = N_("the cups must be lifted and revealed first")
    #: RULES.md id cited for an action out of turn (None: ``seat_rule``, where one id says
    #: both who sits where and who plays next)
    turn_rule: ClassVar[str | None] = None
    #: RULES.md id cited when a player who is out tries to act, and why they are out (None:
    #: such a player is told only whose turn it is)
    out_rule: ClassVar[str | None] = None
    out_words: ClassVar[str] = N_("{player} is out of the game")
    #: RULES.md id cited when the starter is not a player
    starter_rule: ClassVar[str] = "B3"

    def __init__(
        self,
        players: Sequence[str],
        starter: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if options is not None and not isinstance(options, Mapping):
            raise SetupError("options", f"options must be an object, not {options!r}")
        self.options_json: JsonObject = dict(options or {})
        self._configure(self.options_json)
        self.players: list[str] = self._check_players(players)
        if starter is None:
            starter = self.players[0]
        if starter not in self.players:
            raise SetupError(
                self.starter_rule, f"starter {starter!r} is not one of the players {self.players}"
            )
        self.starter: str = starter
        self.phase: Phase = Phase.BIDDING
        self.turn: str | None = starter
        self.winner: str | None = None
        self.current_bid: Bid | None = None
        self.actions: list[Action] = []
        self.history: list[HistoryEntry] = []

    # ----------------------------------------------------------------- setup
    def _check_players(self, players: Sequence[str]) -> list[str]:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise SetupError(self.seat_rule, f"players must be a list of names, not {players!r}")
        names = list(players)
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise SetupError(self.seat_rule, f"player name {name!r} must be a non-empty string")
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise SetupError(self.seat_rule, f"player names must differ: {', '.join(duplicates)}")
        low, high = self.player_range()
        if not low <= len(names) <= high:
            raise SetupError(
                self.seat_rule, f"{self.title} needs {low}–{high} players, got {len(names)}"
            )
        return names

    def _configure(self, options: JsonObject) -> None:
        """Read this game's options (raise SetupError); runs before the players are checked.

        The default: a game without options refuses any.
        """
        refuse_unknown(self.title, options, ())

    def player_range(self) -> tuple[int, int]:
        """How many players this game (with its options) seats."""
        return (self.min_players, self.max_players)

    # ------------------------------------------------------------ the hooks
    @abstractmethod
    def _check(self, action: Action) -> None:
        """Refuse ``action`` (IllegalActionError) unless it is legal now. Must not mutate."""

    @abstractmethod
    def _play(self, action: Action) -> None:
        """Apply an action that ``_check`` accepted."""

    @abstractmethod
    def _player_json(self, name: str) -> JsonObject:
        """One entry of ``to_json()["players"]``."""

    @abstractmethod
    def legal_action_kinds(self) -> list[str]:
        """Replay keys the game accepts now ("bid", "set_aside", "challenge", "reveal", …)."""

    def is_out(self, name: str) -> bool:
        return False

    def _bid_json(self) -> str | None:
        return None if self.current_bid is None else str(self.current_bid)

    def expected_reveal(self) -> dict[str, ExpectedHand]:
        """What the pending reveal must contain, per seat; ``{}`` when none is due."""
        return {}

    def lowest_raises(self) -> list[Bid]:
        """The lowest legal bid for each face (for a panel or dashboard); [] if none is legal."""
        return []

    def legal_bids(self, max_count: int | None = None) -> list[Bid]:
        """Every legal bid now, up to ``max_count`` (default: all the dice in play)."""
        return []

    def house_rules(self) -> list[str]:
        """The table's chosen variants in words, for the board: what a player joining the
        table needs to know and cannot see on the board otherwise. [] for the plain rules."""
        return [str(rule) for rule in self.house_rules_said()]

    def house_rules_said(self) -> list[Said]:
        """`house_rules` as words to translate; subclasses say theirs here."""
        return []

    def deal_text(self) -> str | None:
        """What the table must hand out before the first turn, in words (a card game's
        deal, where who gets which cards is part of the rules); None where nothing is dealt."""
        words = self.deal_said()
        return None if words is None else str(words)

    def deal_said(self) -> Said | None:
        """`deal_text` as words to translate; a card game says its deal here."""
        return None

    def details(self) -> JsonObject:
        """Everything a dashboard may want beyond ``to_json()``; subclasses add to it."""
        return {
            "legal": self.legal_action_kinds(),
            "lowest_raises": [str(b) for b in self.lowest_raises()],
            "expected_reveal": {n: h.to_json() for n, h in self.expected_reveal().items()},
            "history": [entry.to_json() for entry in self.history],
        }

    # --------------------------------------------------------- the public API
    def check(self, action: Action) -> None:
        """The validation ``apply`` does, alone: raises IllegalActionError, never mutates."""
        if not isinstance(action, Action):
            raise IllegalActionError("format", f"{action!r} is not an action")
        if self.phase is Phase.OVER:
            raise IllegalActionError(
                self.end_rule, said("the game is over: {player} won", player=str(self.winner))
            )
        actor = action.actor
        if actor is not None and actor not in self.players:
            raise IllegalActionError(
                self.seat_rule,
                said("{player} is not at this table ({players})", player=actor,
                     players=", ".join(self.players)),
            )
        self._check(action)

    def apply(self, action: Action) -> None:
        """Validate, then apply. An IllegalActionError leaves the game exactly as it was."""
        self.check(action)
        self._play(action)
        self.actions.append(action)

    def apply_json(self, obj: Mapping[str, Any]) -> Action:
        """Parse a replay-script object and apply it; returns the parsed action."""
        action = parse_action(obj)
        self.apply(action)
        return action

    def _require_turn(self, player: str) -> None:
        if self.phase is Phase.REVEAL:
            raise IllegalActionError(
                self.reveal_rule,
                said("{player} cannot act: {why}", player=player, why=said(self.reveal_words)),
            )
        if player != self.turn and self.out_rule is not None and self.is_out(player):
            raise IllegalActionError(self.out_rule, said(self.out_words, player=player))
        if player != self.turn:
            raise IllegalActionError(
                self.turn_rule or self.seat_rule,
                said("{player} cannot act: it is {turn}'s turn", player=player,
                     turn=str(self.turn)),
            )

    def to_json(self) -> JsonObject:
        """The replay output object: game, phase, turn, bid, winner, players."""
        return {
            "game": self.kind,
            "phase": self.phase.value,
            "turn": self.turn,
            "bid": self._bid_json(),
            "winner": self.winner,
            "players": [self._player_json(name) for name in self.players],
        }

    def setup_json(self) -> JsonObject:
        """The setup alone (what ``Journal.start`` stores)."""
        return {
            "game": self.kind,
            "players": list(self.players),
            "starter": self.starter,
            "options": dict(self.options_json),
        }

    def export(self) -> JsonObject:
        """The replay script: setup plus accepted actions. ``Game.from_script`` rebuilds it."""
        script = self.setup_json()
        script["actions"] = [action.to_json() for action in self.actions]
        return script

    @classmethod
    def from_script(cls, script: Mapping[str, Any]) -> Game:
        """Rebuild a game from a replay script; a refused action's error carries ``.index``."""
        game = game_from_setup(script)
        actions = script.get("actions", [])
        if not isinstance(actions, list):
            raise SetupError("format", f'"actions" must be a list, not {actions!r}')
        for index, obj in enumerate(actions):
            try:
                game.apply_json(obj)
            except EngineError as error:
                error.index = index
                raise
        return game

    def without_last(self) -> Game:
        """Undo: the same game rebuilt from its setup and every action but the last."""
        script = self.export()
        script["actions"] = script["actions"][:-1]
        return Game.from_script(script)

    def copy(self) -> Game:
        return Game.from_script(self.export())


def game_from_setup(setup: Mapping[str, Any]) -> Game:
    """A fresh game from a script's setup keys (``game``, ``players``, ``starter``, ``options``)."""
    from engine.registry import new_game  # the registry imports the game modules

    if not isinstance(setup, Mapping):
        raise SetupError("format", f"a script must be a JSON object, not {setup!r}")
    unknown = sorted(set(setup) - SCRIPT_KEYS)
    if unknown:
        raise SetupError(
            "format",
            f"unknown script key(s) {', '.join(unknown)}; "
            f"expected {', '.join(sorted(SCRIPT_KEYS))}",
        )
    if "game" not in setup or "players" not in setup:
        raise SetupError("format", 'a script needs "game" and "players"')
    return new_game(setup["game"], setup["players"], setup.get("starter"), setup.get("options"))
