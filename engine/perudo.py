"""Perudo / Dudo (docs/perudo.md, rules P1–P14): wild aces, halving to aces, dudo, calza, palifico.

Like Bluff, the engine never rolls: after a dudo or a calza it waits for a reveal of every
remaining player's dice, settles the round and names the next starter. Ace bids are written
as ★ bids ("2*"), the notation Bluff uses for its joker, so the board, the panel and the
odds read them the same way; "2x1" is refused with the right spelling (P5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, ClassVar

from engine.actions import (
    Action,
    BidAction,
    JsonObject,
    PlayerFlag,
    Reveal,
    flag_parser,
    register_action,
)
from engine.bids import JOKER_MARK, Bid, BidOrder
from engine.dice_seats import DiceSeats
from engine.errors import IllegalActionError
from engine.game import ExpectedHand, Phase
from engine.odds import check_hidden, tail_probability
from engine.options import read_bool, read_int, refuse_unknown
from engine.reveal_check import check_hand_size, check_reveal_names
from engine.words import N_, Said, said, said_n

ACE = 1
NUMBER_FACES = (2, 3, 4, 5, 6)
MAX_DICE_EACH = 10


# ------------------------------------------------------------------ actions
@dataclass(frozen=True, slots=True)
class Dudo(PlayerFlag):
    """P8: "dudo" — the player whose turn it is doubts the standing bid."""

    player: str
    key: ClassVar[str] = "dudo"

    def describe_said(self) -> Said:
        return said("{player} called dudo", player=self.player)


@dataclass(frozen=True, slots=True)
class Calza(PlayerFlag):
    """P10: "calza" — the player whose turn it is claims the standing bid is exact."""

    player: str
    key: ClassVar[str] = "calza"

    def describe_said(self) -> Said:
        return said("{player} called calza", player=self.player)


register_action("dudo", flag_parser(Dudo))
register_action("calza", flag_parser(Calza))


# --------------------------------------------------------------- bid order
class PerudoOrder(BidOrder):
    """P6: number bids by count then face; N aces sit above 2N×6 and below (2N+1)×2.

    Keys: N×F → (2N, F); N★ → (4N+1, 0). So from N×F the lowest ace bid is ⌈N/2⌉★ and from
    N★ the lowest number bid is (2N+1)×2 — the halving and doubling rules as one total order.
    """

    rule = "P6"

    def validate(self, bid: Bid) -> None:
        if bid.face == ACE:
            raise IllegalActionError(
                "P5", said("{bid}: aces are bid as {count}{star} (\"{count}*\")", bid=bid.pretty(),
                           count=bid.count, star=JOKER_MARK)
            )

    def key(self, bid: Bid) -> tuple[int, int]:
        self.validate(bid)
        if bid.face is None:
            return (4 * bid.count + 1, 0)
        return (2 * bid.count, bid.face)

    def lowest_raises(self, current: Bid | None) -> list[Bid]:
        if current is None:
            return [Bid(1, f) for f in NUMBER_FACES] + [Bid(1)]
        if current.face is None:
            numbers = [Bid(2 * current.count + 1, f) for f in NUMBER_FACES]
            return sorted([*numbers, Bid(current.count + 1)], key=self.key)
        numbers = [
            Bid(current.count if f > current.face else current.count + 1, f) for f in NUMBER_FACES
        ]
        return sorted([*numbers, Bid((current.count + 1) // 2)], key=self.key)

    def _why_not(self, current: Bid, new: Bid) -> Said:
        if current.face is not None and new.face is not None:
            if new.count == current.count:
                return said("same count needs a higher face than {face}", face=current.face)
            return said("raise the count, or keep it and raise the face")
        if current.face is None and new.face is None:
            return said("an ace bid must raise the count")
        if new.face is None:
            return said("switching to aces needs at least half the count, {count}",
                        count=(current.count + 1) // 2)
        return said("switching from aces needs at least double plus one, {count}",
                    count=2 * current.count + 1)


class PalificoOrder(BidOrder):
    """P13: aces are a plain face, the lowest; a raise is a higher count, or the same count and
    a higher face. (Who may change the face at all is the game's business.)"""

    rule = "P13"

    def validate(self, bid: Bid) -> None:
        PerudoOrder().validate(bid)

    def key(self, bid: Bid) -> tuple[int, int]:
        self.validate(bid)
        return (bid.count, ACE if bid.face is None else bid.face)

    def lowest_raises(self, current: Bid | None) -> list[Bid]:
        faces: tuple[int | None, ...] = (None, *NUMBER_FACES)
        if current is None:
            return [Bid(1, f) for f in faces]
        rank = self.key(current)[1]
        return sorted(
            (Bid(current.count if (ACE if f is None else f) > rank else current.count + 1, f)
             for f in faces),
            key=self.key,
        )

    def _why_not(self, current: Bid, new: Bid) -> Said:
        return said("raise the count, or keep it and raise the face (aces are the lowest face)")


# ------------------------------------------------------------------ options
@dataclass(frozen=True, slots=True)
class PerudoOptions:
    dice_per_player: int = 5
    calza: bool = True
    palifico: bool = True

    KEYS: ClassVar[tuple[str, ...]] = ("dice_per_player", "calza", "palifico")

    @classmethod
    def from_json(cls, given: Mapping[str, Any]) -> PerudoOptions:
        refuse_unknown("Perudo", given, cls.KEYS)
        return cls(
            dice_per_player=read_int(given, "dice_per_player", 5, 1, MAX_DICE_EACH, "P2"),
            calza=read_bool(given, "calza", True, "P10"),
            palifico=read_bool(given, "palifico", True, "P12"),
        )


def count_matching(bid: Bid, faces: Sequence[int], palifico: bool) -> int:
    """P4/P13: a number bid counts its face and the aces (not in palifico); aces count aces."""
    if bid.face is None:
        return sum(1 for f in faces if f == ACE)
    return sum(1 for f in faces if f == bid.face or (f == ACE and not palifico))


def _match_chance(bid: Bid, palifico: bool) -> Fraction:
    """Chance one unseen die counts: 2/6 (face or ace) for a number bid, 1/6 in palifico or
    for an ace bid."""
    return Fraction(1, 6) if (palifico or bid.face is None) else Fraction(2, 6)


def probability_at_least(
    bid: Bid, hidden_dice: int, own_faces: Sequence[int] = (), palifico: bool = False
) -> float:
    """P(at least ``bid.count`` matching dice) given the viewer's own dice, the rest unseen.

    Perudo's odds with the palifico rule: an unseen die matches a number bid with 2/6 (face
    or ace), 1/6 in palifico or for an ace bid.
    """
    check_hidden(hidden_dice)
    needed = bid.count - count_matching(bid, own_faces, palifico)
    return tail_probability(needed, hidden_dice, _match_chance(bid, palifico))


def probability_exact(
    bid: Bid, hidden_dice: int, own_faces: Sequence[int] = (), palifico: bool = False
) -> float:
    """P(exactly ``bid.count`` matching dice): what a calza (P10) bets on."""
    check_hidden(hidden_dice)
    p = _match_chance(bid, palifico)
    needed = bid.count - count_matching(bid, own_faces, palifico)
    if not 0 <= needed <= hidden_dice:
        return 0.0
    return float(comb(hidden_dice, needed) * p**needed * (1 - p) ** (hidden_dice - needed))


# --------------------------------------------------------------------- game
class PerudoGame(DiceSeats):
    kind = "perudo"
    title = "Perudo"
    min_players = 2
    max_players = 6
    seat_rule = "P1"
    out_rule = "P11"
    out_words = N_("{player} has no dice left and is out of the game")
    end_rule = "P11"
    reveal_rule = "P8"
    starter_rule = "P3"
    doubt_action = "dudo"
    pass_action = "calza"  # Perudo has no pass: the PASS key calls calza (P10)

    def __init__(
        self,
        players: Sequence[str],
        starter: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, starter, options)
        self.start_dice = self.options.dice_per_player
        self.dice: dict[str, int] = {name: self.start_dice for name in self.players}
        self.bidder: str | None = None
        #: who called dudo or calza this round, and which (None while bidding)
        self.caller: str | None = None
        self.call: str | None = None
        self.round_number = 1
        self.round_starter = self.starter
        #: the player whose palifico round this is (None: an ordinary round)
        self.palifico_for: str | None = None
        #: players who have had their palifico round (P12: once each)
        self.palifico_used: set[str] = set()
        self._order = PerudoOrder()
        self._palifico_order = PalificoOrder()

    def _configure(self, options: JsonObject) -> None:
        self.options = PerudoOptions.from_json(options)

    # ------------------------------------------------------------------ seats
    @property
    def palifico(self) -> bool:
        """Whether this round is a palifico round (P13)."""
        return self.palifico_for is not None

    def bid_order(self) -> BidOrder:
        """The order bids rank in this round: P6, or P13's in a palifico round."""
        return self._palifico_order if self.palifico else self._order

    def may_change_face(self, name: str) -> bool:
        """P13: in palifico only players down to one die may change the face."""
        return not self.palifico or self.dice[name] == 1

    # --------------------------------------------------------------- checking
    def _check(self, action: Action) -> None:
        if isinstance(action, BidAction):
            self._check_bid(action)
        elif isinstance(action, Dudo | Calza):
            self._require_turn(action.player)
            if isinstance(action, Calza) and not self.options.calza:
                raise IllegalActionError(
                    "P10", said("{player} cannot call calza: it is off", player=action.player)
                )
            if self.current_bid is None:
                dudo = isinstance(action, Dudo)
                raise IllegalActionError("P8" if dudo else "P10", said(
                    N_("{player} cannot call dudo: there is no bid yet this round") if dudo
                    else N_("{player} cannot call calza: there is no bid yet this round"),
                    player=action.player))
        elif isinstance(action, Reveal):
            self._check_reveal(action)
        else:
            raise IllegalActionError(
                "P7",
                said("{action} is not a Perudo action: bid, dudo, calza, or (after dudo or "
                     "calza) reveal", action=repr(action.to_json())),
            )

    def _check_bid(self, action: BidAction) -> None:
        self._require_turn(action.player)
        if action.set_aside:
            raise IllegalActionError(
                "P7", said("{player} cannot set dice aside: Perudo has no re-roll",
                           player=action.player)
            )
        bid, current = action.bid, self.current_bid
        if not self.palifico:
            self._order.validate(bid)
            if current is None and bid.face is None:
                raise IllegalActionError(
                    "P9", said("{bid}: a round may not open with aces (except palifico)",
                               bid=bid.pretty())
                )
            self._order.check_raise(current, bid)
            return
        self._palifico_order.validate(bid)
        if current is not None and bid.face != current.face and not self.may_change_face(
            action.player
        ):
            raise IllegalActionError(
                "P13",
                said("{current} → {new}: in {player}'s palifico round the face stays; only a "
                     "player with one die may change it", current=current.pretty(),
                     new=bid.pretty(), player=str(self.palifico_for)),
            )
        self._palifico_order.check_raise(current, bid)

    def _check_reveal(self, action: Reveal) -> None:
        if self.phase is not Phase.REVEAL:
            raise IllegalActionError(
                "P8", said("no reveal is due: nobody has called dudo or calza")
            )
        expected = self.expected_reveal()
        check_reveal_names([name for name, _ in action.hands], expected, "P8")
        for name, faces in action.hands:
            check_hand_size(name, faces, expected[name].count, "P8")

    # --------------------------------------------------------------- applying
    def _play(self, action: Action) -> None:
        if isinstance(action, BidAction):
            self.current_bid, self.bidder = action.bid, action.player
            self.turn = self.next_player(action.player)
        elif isinstance(action, Dudo | Calza):
            self.caller = action.player
            self.call = action.key
            self.phase, self.turn = Phase.REVEAL, None
        elif isinstance(action, Reveal):
            self._settle(action)

    def _settle(self, reveal: Reveal) -> None:
        bid, bidder, caller, call = self.current_bid, self.bidder, self.caller, self.call
        assert bid is not None and bidder is not None and caller is not None
        faces = [f for _, hand in reveal.hands for f in hand]
        actual = count_matching(bid, faces, self.palifico)
        notes: list[Said] = []
        if call == "dudo":  # P8
            loser = bidder if actual < bid.count else caller
            changes = {loser: -1}
            starter = loser
            body = said(N_("dudo right: {player} loses 1 die") if loser == bidder
                        else N_("dudo wrong: {player} loses 1 die"), player=loser)
        elif actual == bid.count:  # P10, right
            starter = caller
            if self.dice[caller] < self.start_dice:
                changes = {caller: 1}
                body = said("calza right: {player} gets 1 die back", player=caller)
            else:
                changes = {}
                body = said("calza right: {player} already has {count}, the most",
                            player=caller, count=self.start_dice)
        else:  # P10, wrong
            changes = {caller: -1}
            starter = caller
            body = said("calza wrong: {player} loses 1 die", player=caller)
        out, winner = self._take_dice(changes)  # P11: the last with dice wins
        if self.dice[starter] == 0:  # P14: the next seat with dice
            starter = self.next_player(starter)
        palifico_next: str | None = None
        if (  # P12: reduced to one die, first time
            winner is None
            and self.options.palifico
            and changes.get(starter, 0) < 0
            and self.dice[starter] == 1
            and starter not in self.palifico_used
        ):
            palifico_next = starter
            notes.append(said("{player} opens a palifico round", player=starter))
        parts = [body, *notes, *(said("{player} is out", player=name) for name in out)]
        if winner is not None:
            parts.append(said("{player} wins", player=winner))
        if bid.face is None:
            head = said("aces: {actual}, bid was {count}", actual=actual, count=bid.count)
        elif self.palifico:
            head = said("{face}s: {actual}, bid was {count}", face=bid.face, actual=actual,
                        count=bid.count)
        else:
            head = said("{face}s and aces: {actual}, bid was {count}", face=bid.face,
                        actual=actual, count=bid.count)
        words = (head, *parts)
        self._record_round(reveal, bid, bidder, caller, actual, changes, out, words, starter,
                           winner)
        self.current_bid = None
        self.bidder = self.caller = self.call = None
        if winner is not None:
            self.phase, self.turn, self.winner = Phase.OVER, None, winner
            self.palifico_for = None
            return
        self.phase, self.turn = Phase.BIDDING, starter
        self.round_number += 1
        self.round_starter = starter
        self.palifico_for = palifico_next
        if palifico_next is not None:
            self.palifico_used.add(palifico_next)

    # ------------------------------------------------------------------ views
    def expected_reveal(self) -> dict[str, ExpectedHand]:
        if self.phase is not Phase.REVEAL:
            return {}
        return {name: ExpectedHand(self.dice[name]) for name in self.remaining()}

    def legal_action_kinds(self) -> list[str]:
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.REVEAL:
            return ["reveal"]
        if self.current_bid is None:
            return ["bid"]
        return ["bid", "dudo", "calza"] if self.options.calza else ["bid", "dudo"]

    def lowest_raises(self) -> list[Bid]:
        if self.phase is not Phase.BIDDING:
            return []
        assert self.turn is not None
        current, ceiling = self.current_bid, self.dice_in_play()
        if not self.palifico:
            raises = self._order.lowest_raises(current)
            if current is None:
                raises = [b for b in raises if b.face is not None]  # P9
        elif current is not None and not self.may_change_face(self.turn):
            raises = [Bid(current.count + 1, current.face)]
        else:
            raises = self._palifico_order.lowest_raises(current)
        return [b for b in raises if b.count <= ceiling]

    def legal_bids(self, max_count: int | None = None) -> list[Bid]:
        if self.phase is not Phase.BIDDING:
            return []
        ceiling = self.dice_in_play() if max_count is None else min(max_count, self.dice_in_play())
        order = self.bid_order()
        bids = [
            Bid(count, low.face)
            for low in self.lowest_raises()
            for count in range(low.count, ceiling + 1)
        ]
        return sorted(bids, key=order.key)

    def _player_json(self, name: str) -> JsonObject:
        return {"name": name, "dice": self.dice[name], "out": self.is_out(name)}

    def house_rules_said(self) -> list[Said]:
        """P2's dice, P4's wild aces, P10's calza and P12's palifico as this table plays them."""
        rules = [said_n("{n} die each", "{n} dice each", self.start_dice),
                 said("{star} = the aces (1s), wild", star=JOKER_MARK)]
        rules.append(said("calza on") if self.options.calza else said("no calza"))
        rules.append(said("palifico on") if self.options.palifico else said("no palifico"))
        if self.palifico:
            rules.append(said("palifico round ({player}): aces not wild, the face stays",
                              player=str(self.palifico_for)))
        return rules

    def details(self) -> JsonObject:
        out = super().details()
        out.update(
            round=self.round_number,
            round_starter=self.round_starter,
            bidder=self.bidder,
            challenger=self.caller,
            call=self.call,
            dice_in_play=self.dice_in_play(),
            joker_face=None if self.palifico else ACE,
            palifico=self.palifico_for,
        )
        if self.current_bid is not None:
            hidden = self.dice_in_play()
            p_wild = _match_chance(self.current_bid, self.palifico)
            out["odds"] = {
                "probability": probability_at_least(
                    self.current_bid, hidden, (), self.palifico),
                "expected": float(hidden * p_wild),
            }
        return out


__all__ = [
    "Calza",
    "Dudo",
    "PalificoOrder",
    "PerudoGame",
    "PerudoOptions",
    "PerudoOrder",
    "count_matching",
    "probability_at_least",
    "probability_exact",
]
