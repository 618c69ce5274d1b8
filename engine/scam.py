"""Blaga / Scam (RULES.md S1–S9): three hidden dice each, pass or raise or call "Scam!", points.

Rounds end when every other player has passed in a row after the last bid (S5), or at once on
"Scam!"; both then wait for a reveal of everybody's three dice. If nobody bids and everybody
passes, the round ends with no score and no reveal (S5, silent in the source).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.actions import Action, BidAction, JsonObject, Pass, Reveal, ScamCall
from engine.bids import Bid, ScamOrder
from engine.errors import IllegalActionError
from engine.game import ExpectedHand, Game, Phase
from engine.history import RoundResult, counted_words, verdict_text
from engine.options import read_bool, read_int, refuse_unknown
from engine.words import N_, Said, said, said_n

DICE_EACH = 3


@dataclass(frozen=True, slots=True)
class ScamOptions:
    target: int = 10
    allow_any_players: bool = False

    KEYS: ClassVar[tuple[str, ...]] = ("target", "allow_any_players")

    @classmethod
    def from_json(cls, given: Mapping[str, Any]) -> ScamOptions:
        refuse_unknown("Scam", given, cls.KEYS)
        return cls(
            target=read_int(given, "target", 10, 1, 1000, "S9"),
            allow_any_players=read_bool(given, "allow_any_players", False, "S1"),
        )


class ScamGame(Game):
    kind = "scam"
    title = "Scam"
    min_players = 3
    max_players = 4
    seat_rule = "S1"
    turn_rule = "S2"  # "Bidding goes clockwise"
    end_rule = "S9"
    reveal_rule = "S6"
    reveal_words = N_("the hidden dice must be revealed first")  # no cups in Scam (S1)
    starter_rule = "S2"

    def __init__(
        self,
        players: Sequence[str],
        starter: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, starter, options)
        self.order = ScamOrder()
        self.score: dict[str, int] = {name: 0 for name in self.players}
        self.round_number = 1
        self.round_starter = self.starter
        self.bidder: str | None = None
        self.caller: str | None = None
        #: passes in a row since the last bid (or since the round began)
        self.passes = 0

    def _configure(self, options: JsonObject) -> None:
        self.options = ScamOptions.from_json(options)

    def player_range(self) -> tuple[int, int]:
        return (2, 6) if self.options.allow_any_players else (self.min_players, self.max_players)

    def next_player(self, name: str) -> str:
        """S2: bidding goes clockwise."""
        return self.players[(self.players.index(name) + 1) % len(self.players)]

    # ------------------------------------------------------------- checking
    def _check(self, action: Action) -> None:
        if isinstance(action, BidAction):
            self._require_turn(action.player)
            if action.set_aside:
                raise IllegalActionError(
                    "S4", said("{player} cannot set dice aside: Scam has no re-roll",
                               player=action.player)
                )
            self.order.check_raise(self.current_bid, action.bid)
        elif isinstance(action, Pass):
            self._require_turn(action.player)
        elif isinstance(action, ScamCall):
            self._require_turn(action.player)
            if self.current_bid is None:
                raise IllegalActionError(
                    "S4", said("{player} cannot call Scam!: there is no bid yet this round",
                               player=action.player)
                )
        elif isinstance(action, Reveal):
            self._check_reveal(action)
        else:
            raise IllegalActionError(
                "S4", f"{action.to_json()!r} is not a Scam action: bid, pass, or call Scam!"
            )

    def _check_reveal(self, action: Reveal) -> None:
        if self.phase is not Phase.REVEAL:
            raise IllegalActionError(
                "S6", said("no reveal is due: the round ends on Scam! or when everyone else passes")
            )
        names = Counter(name for name, _ in action.hands)
        if names != Counter(self.players):
            raise IllegalActionError(
                "S6",
                said("the reveal must show each player's dice once: got {got}, players are "
                     "{players}", got=str(sorted(names.elements())), players=str(self.players)),
            )
        for name, faces in action.hands:
            if len(faces) != DICE_EACH:
                raise IllegalActionError(
                    "S1",
                    said_n("the reveal shows {n} die for {player}; everyone has {count}",
                           "the reveal shows {n} dice for {player}; everyone has {count}",
                           len(faces), player=name, count=DICE_EACH),
                )

    # ------------------------------------------------------------- applying
    def _play(self, action: Action) -> None:
        if isinstance(action, BidAction):
            self.current_bid, self.bidder, self.passes = action.bid, action.player, 0
            self.turn = self.next_player(action.player)
        elif isinstance(action, Pass):
            self.passes += 1
            if self.current_bid is not None and self.passes == len(self.players) - 1:
                self.phase, self.turn = Phase.REVEAL, None  # S5: everyone else passed
            elif self.current_bid is None and self.passes == len(self.players):
                self._no_bid_round()
            else:
                self.turn = self.next_player(action.player)
        elif isinstance(action, ScamCall):
            self.caller = action.player
            self.phase, self.turn = Phase.REVEAL, None
        elif isinstance(action, Reveal):
            self._settle(action)

    def _no_bid_round(self) -> None:
        words = (said("everybody passed without a bid"), said("nobody scores"))
        self._finish_round(
            RoundResult(
                number=self.round_number,
                bid=None,
                bidder=None,
                challenger=None,
                actual=None,
                changes=(),
                unit="points",
                out=(),
                verdict=verdict_text(words),
                reveal=(),
                next_starter=self.next_player(self.round_starter),
                verdict_said=words,
            )
        )

    def _settle(self, reveal: Reveal) -> None:
        bid, bidder = self.current_bid, self.bidder
        assert bid is not None and bid.face is not None and bidder is not None
        actual = sum(1 for _, hand in reveal.hands for f in hand if f == bid.face)
        holds = actual >= bid.count  # S6
        changes: dict[str, int] = {}
        if self.caller is None:  # S7
            if holds:
                changes[bidder] = 1
        elif holds:  # S8
            changes[bidder] = 3
        else:
            changes[self.caller] = 2
        for name, points in changes.items():
            self.score[name] += points
        winners = [n for n in self.players if self.score[n] >= self.options.target]
        winner = winners[0] if winners else None  # S9: only one player scores per round
        head = said(
            N_("{what}: {actual}, bid was {count}") if self.caller is None
            else N_("Scam! {what}: {actual}, bid was {count}"),
            what=counted_words(bid, None), actual=actual, count=bid.count)
        if changes:
            ((name, points),) = changes.items()
            body = said(N_("the bid holds: {player} scores {points}") if holds
                        else N_("the bid fails: {player} scores {points}"),
                        player=name, points=points)
        else:
            body = said(N_("the bid holds: nobody scores") if holds
                        else N_("the bid fails: nobody scores"))
        words: tuple[Said, ...] = (head, body)
        if winner is not None:
            words += (said("{player} reaches {target} and wins", player=winner,
                           target=self.options.target),)
        self._finish_round(
            RoundResult(
                number=self.round_number,
                bid=bid,
                bidder=bidder,
                challenger=self.caller,
                actual=actual,
                changes=tuple(changes.items()),
                unit="points",
                out=(),
                verdict=verdict_text(words),
                reveal=reveal.hands,
                next_starter=None if winner else self.next_player(self.round_starter),
                winner=winner,
                verdict_said=words,
            )
        )

    def _finish_round(self, result: RoundResult) -> None:
        self.history.append(result)
        self.current_bid = None
        self.bidder = self.caller = None
        self.passes = 0
        if result.winner is not None:
            self.phase, self.turn, self.winner = Phase.OVER, None, result.winner
            return
        self.round_number += 1
        self.round_starter = self.next_player(self.round_starter)  # S2
        self.phase, self.turn = Phase.BIDDING, self.round_starter

    # --------------------------------------------------------------- views
    def expected_reveal(self) -> dict[str, ExpectedHand]:
        if self.phase is not Phase.REVEAL:
            return {}
        return {name: ExpectedHand(DICE_EACH) for name in self.players}

    def legal_action_kinds(self) -> list[str]:
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.REVEAL:
            return ["reveal"]
        return ["bid", "pass", "scam"] if self.current_bid is not None else ["bid", "pass"]

    def lowest_raises(self) -> list[Bid]:
        if self.phase is not Phase.BIDDING:
            return []
        return self.order.lowest_raises(self.current_bid)

    def legal_bids(self, max_count: int | None = None) -> list[Bid]:
        if self.phase is not Phase.BIDDING:
            return []
        ceiling = DICE_EACH * len(self.players) if max_count is None else max_count
        return self.order.raises_up_to(self.current_bid, ceiling)

    def _player_json(self, name: str) -> JsonObject:
        return {"name": name, "score": self.score[name], "out": False}

    def house_rules_said(self) -> list[Said]:
        """S9's target as this table plays it."""
        return [said_n("first to {n} point", "first to {n} points", self.options.target)]

    def details(self) -> JsonObject:
        from engine.odds import bid_probability, expected_count

        out = super().details()
        out.update(
            round=self.round_number,
            round_starter=self.round_starter,
            bidder=self.bidder,
            caller=self.caller,
            passes=self.passes,
            target=self.options.target,
            dice_in_play=DICE_EACH * len(self.players),  # the highest count a bid may name
        )
        if self.current_bid is not None:  # nothing is public in Scam: every die is hidden
            hidden = DICE_EACH * len(self.players)
            out["odds"] = {
                "probability": bid_probability(self.current_bid, hidden, (), None, None),
                "expected": expected_count(self.current_bid, hidden, (), None, None),
            }
        return out
