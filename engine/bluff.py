"""Bluff (RULES.md B1–B17): cups, a joker face, the bid board, raise and re-roll, challenges.

The engine never rolls: after a challenge it waits for a reveal of every remaining player's
dice (cup and set aside), checks it against :meth:`BluffGame.expected_reveal`, then settles
the penalties and starts the next round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.actions import Action, BidAction, Challenge, JsonObject, Reveal
from engine.bids import Bid, BluffLadder
from engine.dice_seats import DiceSeats
from engine.errors import IllegalActionError, SetupError
from engine.game import ExpectedHand, Phase
from engine.history import counted_words
from engine.options import read_bool, read_choice, refuse_unknown
from engine.reveal_check import check_hand_size, check_reveal_names
from engine.words import N_, Said, said, said_n

ALL_OTHERS_LOSE_ONE = "all_others_lose_one"
CHALLENGER_PAYS_BIDDER = "challenger_pays_bidder"
TOTAL_DICE = 30


@dataclass(frozen=True, slots=True)
class BluffOptions:
    """The sources' variants as named options; defaults are 001's rules."""

    #: an int, "czech" (6 each, 5 with 6 players; 004) or "split" (30 shared evenly; 001)
    dice_per_player: int | str = 5
    joker_face: int = 1
    exact: str = ALL_OTHERS_LOSE_ONE
    protect_last_die: bool = False
    reroll: bool = True

    KEYS: ClassVar[tuple[str, ...]] = (
        "dice_per_player",
        "joker_face",
        "exact",
        "protect_last_die",
        "reroll",
    )

    @classmethod
    def from_json(cls, given: Mapping[str, Any]) -> BluffOptions:
        refuse_unknown("Bluff", given, cls.KEYS)
        dice = given.get("dice_per_player", 5)
        if not (
            dice in ("czech", "split")
            or (isinstance(dice, int) and not isinstance(dice, bool) and 1 <= dice <= TOTAL_DICE)
        ):
            raise SetupError(
                "B2", f'option dice_per_player={dice!r} must be 1–30, "czech" or "split"'
            )
        options = cls(
            dice_per_player=dice,
            joker_face=read_choice(given, "joker_face", (1, 6), "B4"),
            exact=read_choice(given, "exact", (ALL_OTHERS_LOSE_ONE, CHALLENGER_PAYS_BIDDER), "B13"),
            protect_last_die=read_bool(given, "protect_last_die", False, "B13"),
            reroll=read_bool(given, "reroll", True, "B8"),
        )
        if options.protect_last_die and options.exact != ALL_OTHERS_LOSE_ONE:
            raise SetupError(
                "B13", 'protect_last_die applies only with exact="all_others_lose_one"'
            )
        return options

    def dice_for(self, players: int) -> int:
        """B2: dice each player starts with."""
        if self.dice_per_player == "czech":
            return 5 if players >= 6 else 6
        if self.dice_per_player == "split":
            return TOTAL_DICE // players
        assert isinstance(self.dice_per_player, int)
        return self.dice_per_player


class BluffGame(DiceSeats):
    kind = "bluff"
    title = "Bluff"
    min_players = 2
    max_players = 6
    seat_rule = "B1"
    out_rule = "B14"
    out_words = N_("{player} has no dice left and is out of the game")
    end_rule = "B16"
    reveal_rule = "B10"
    starter_rule = "B3"
    has_bid_board = True
    takes_set_aside = True
    doubt_action = "challenge"

    def __init__(
        self,
        players: Sequence[str],
        starter: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, starter, options)
        self.ladder = BluffLadder(self.options.joker_face)
        self.start_dice = self.options.dice_for(len(self.players))
        self.dice: dict[str, int] = {name: self.start_dice for name in self.players}
        self.set_aside: dict[str, list[int]] = {name: [] for name in self.players}
        self.bidder: str | None = None
        self.challenger: str | None = None
        self.round_number = 1

    def _configure(self, options: JsonObject) -> None:
        self.options = BluffOptions.from_json(options)

    # ----------------------------------------------------------------- seats
    def in_cup(self, name: str) -> int:
        return self.dice[name] - len(self.set_aside[name])

    def public_faces(self) -> list[int]:
        """B9: every set-aside face on the table."""
        return [face for name in self.players for face in self.set_aside[name]]

    # ------------------------------------------------------------- checking
    def _check(self, action: Action) -> None:
        if isinstance(action, BidAction):
            self._check_bid(action)
        elif isinstance(action, Challenge):
            self._require_turn(action.player)
            if self.current_bid is None:
                raise IllegalActionError(
                    "B10", said("{player} cannot challenge: there is no bid yet this round",
                                player=action.player)
                )
        elif isinstance(action, Reveal):
            self._check_reveal(action)
        else:
            raise IllegalActionError(
                "B7",
                f"{action.to_json()!r} is not a Bluff action: raise, raise and re-roll,"
                " challenge, or (after a challenge) reveal",
            )

    def _check_bid(self, action: BidAction) -> None:
        self._require_turn(action.player)
        self.ladder.check_raise(self.current_bid, action.bid)
        if not action.set_aside:
            return
        if not self.options.reroll:
            raise IllegalActionError(
                "B8", said("{player} cannot set dice aside: re-rolling is switched off",
                           player=action.player)
            )
        cup = self.in_cup(action.player)
        if len(action.set_aside) > cup - 1:
            raise IllegalActionError(
                "B8",
                said_n("{player} sets aside {n} die with {cup} in the cup: at least one must stay "
                       "in the cup to re-roll",
                       "{player} sets aside {n} dice with {cup} in the cup: at least one must stay "
                       "in the cup to re-roll",
                       len(action.set_aside), player=action.player, cup=cup),
            )

    def _check_reveal(self, action: Reveal) -> None:
        if self.phase is not Phase.REVEAL:
            raise IllegalActionError("B10", said("no reveal is due: nobody has challenged"))
        expected = self.expected_reveal()
        check_reveal_names([name for name, _ in action.hands], expected, "B10")
        for name, faces in action.hands:
            want = expected[name]
            check_hand_size(name, faces, want.count, "B10")
            lacking = Counter(want.set_aside) - Counter(faces)
            if lacking:
                raise IllegalActionError(
                    "B9",
                    said("the reveal for {player} {faces} lacks the set-aside {lacking} "
                         "(set aside: {aside})", player=name, faces=str(list(faces)),
                         lacking=str(sorted(lacking.elements())), aside=str(list(want.set_aside))),
                )

    # ------------------------------------------------------------- applying
    def _play(self, action: Action) -> None:
        if isinstance(action, BidAction):
            self.current_bid = action.bid
            self.bidder = action.player
            self.set_aside[action.player].extend(action.set_aside)
            self.turn = self.next_player(action.player)
        elif isinstance(action, Challenge):
            self.challenger = action.player
            self.phase = Phase.REVEAL
            self.turn = None
        elif isinstance(action, Reveal):
            self._settle(action)

    def count_matching(self, bid: Bid, faces: Sequence[int]) -> int:
        """B4/B5: number bids count the face and the joker; ★ bids count only the joker."""
        joker = self.options.joker_face
        if bid.face is None:
            return sum(1 for f in faces if f == joker)
        return sum(1 for f in faces if f in (bid.face, joker))

    def _penalties(self, bid: Bid, actual: int) -> tuple[dict[str, int], list[Said]]:
        """B11–B14: dice changes per seat and extra verdict notes."""
        assert self.bidder is not None and self.challenger is not None
        wanted = bid.count
        changes: dict[str, int] = {}
        notes: list[Said] = []
        if actual < wanted:  # B11
            changes[self.bidder] = -min(wanted - actual, self.dice[self.bidder])
        elif actual > wanted:  # B12
            changes[self.challenger] = -min(actual - wanted, self.dice[self.challenger])
        elif self.options.exact == CHALLENGER_PAYS_BIDDER:  # B13 option
            changes[self.challenger] = -1
            if self.dice[self.bidder] + 1 <= self.start_dice:
                changes[self.bidder] = 1
            else:
                notes.append(
                    said("{player} already has {count}, the start count, so the die leaves the "
                         "game", player=self.bidder, count=self.dice[self.bidder])
                )
        else:  # B13 default
            for name in self.remaining():
                if name == self.bidder:
                    continue
                protected = (
                    self.options.protect_last_die
                    and name != self.challenger
                    and self.dice[name] == 1
                )
                if protected:
                    notes.append(said("{player} keeps their last die", player=name))
                else:
                    changes[name] = -1
        return changes, notes

    def _settle(self, reveal: Reveal) -> None:
        bid, bidder, challenger = self.current_bid, self.bidder, self.challenger
        assert bid is not None and bidder is not None and challenger is not None
        faces = [f for _, hand in reveal.hands for f in hand]
        actual = self.count_matching(bid, faces)
        changes, notes = self._penalties(bid, actual)
        out, winner = self._take_dice(changes)  # B16: the last with dice wins
        starter = bidder if actual >= bid.count else challenger  # B15
        words = self._verdict(bid, actual, changes, notes, out, winner)
        self._record_round(reveal, bid, bidder, challenger, actual, changes, out, words,
                           starter, winner)
        self.current_bid = None
        self.bidder = self.challenger = None
        self.set_aside = {name: [] for name in self.players}
        if winner is not None:
            self.phase, self.turn, self.winner = Phase.OVER, None, winner
        else:
            self.phase, self.turn = Phase.BIDDING, starter
            self.round_number += 1

    def _verdict(
        self,
        bid: Bid,
        actual: int,
        changes: dict[str, int],
        notes: list[Said],
        out: tuple[str, ...],
        winner: str | None,
    ) -> tuple[Said, ...]:
        head = said("{what}: {actual}, bid was {count}",
                    what=counted_words(bid, self.options.joker_face), actual=actual,
                    count=bid.count)
        losses = {name: -d for name, d in changes.items() if d < 0}
        gains = {name: d for name, d in changes.items() if d > 0}
        if actual == bid.count:
            if self.options.exact == CHALLENGER_PAYS_BIDDER:
                (payer,) = losses
                body = (
                    said("exact: {player} gives {taker} 1 die", player=payer,
                         taker=next(iter(gains)))
                    if gains
                    else said("exact: {player} loses 1 die", player=payer)
                )
            elif losses:
                body = said_n("exact: {players} loses 1 die", "exact: {players} lose 1 die each",
                              len(losses), players=", ".join(losses))
            else:
                body = said("exact: nobody can lose a die")
        else:
            ((name, lost),) = losses.items()
            wanted = abs(actual - bid.count)
            if lost < wanted:
                body = said_n("{player} loses {n} die (all they had; the penalty was {wanted})",
                              "{player} loses {n} dice (all they had; the penalty was {wanted})",
                              lost, player=name, wanted=wanted)
            else:
                body = said_n("{player} loses {n} die", "{player} loses {n} dice", lost,
                              player=name)
        parts = [body, *notes]
        parts += [said("{player} is out", player=name) for name in out]
        if winner is not None:
            parts.append(said("{player} wins", player=winner))
        return (head, *parts)

    # --------------------------------------------------------------- views
    def expected_reveal(self) -> dict[str, ExpectedHand]:
        if self.phase is not Phase.REVEAL:
            return {}
        return {
            name: ExpectedHand(self.dice[name], tuple(self.set_aside[name]))
            for name in self.remaining()
        }

    def legal_action_kinds(self) -> list[str]:
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.REVEAL:
            return ["reveal"]
        assert self.turn is not None
        kinds = ["bid"]
        if self.options.reroll and self.in_cup(self.turn) >= 2:
            kinds.append("set_aside")
        if self.current_bid is not None:
            kinds.append("challenge")
        return kinds

    def lowest_raises(self) -> list[Bid]:
        if self.phase is not Phase.BIDDING:
            return []
        return self.ladder.lowest_raises(self.current_bid)

    def legal_bids(self, max_count: int | None = None) -> list[Bid]:
        if self.phase is not Phase.BIDDING:
            return []
        ceiling = self.dice_in_play() if max_count is None else max_count
        return self.ladder.raises_up_to(self.current_bid, ceiling)

    def _player_json(self, name: str) -> JsonObject:
        return {"name": name, "dice": self.dice[name], "out": self.is_out(name)}

    def house_rules_said(self) -> list[Said]:
        """B2's dice, B4's joker, B13's exact hit and B8's re-roll as this table plays them."""
        n = self.start_dice
        if self.options.dice_per_player == "split":
            spare = TOTAL_DICE - self.start_dice * len(self.players)
            each = (said_n("{n} die each (30 shared out, {spare} left over)",
                           "{n} dice each (30 shared out, {spare} left over)", n, spare=spare)
                    if spare else said_n("{n} die each (30 shared out)",
                                         "{n} dice each (30 shared out)", n))
        else:
            each = said_n("{n} die each", "{n} dice each", n)
        rules = [each, said("★ = the {face}s", face=self.options.joker_face)]
        if self.options.exact == CHALLENGER_PAYS_BIDDER:
            rules.append(said("exact bid: the challenger gives the bidder a die"))
        else:
            rules.append(said("exact bid: all but the bidder lose a die"))
        if self.options.protect_last_die:
            rules.append(
                said("exact bid: a last die is safe, but not the bidder's or challenger's")
            )
        if not self.options.reroll:
            rules.append(said("no raise and re-roll"))
        return rules

    def details(self) -> JsonObject:
        from engine.odds import bid_probability, expected_count

        out = super().details()
        out.update(
            round=self.round_number,
            bidder=self.bidder,
            challenger=self.challenger,
            set_aside={name: list(faces) for name, faces in self.set_aside.items()},
            dice_in_play=self.dice_in_play(),
            joker_face=self.options.joker_face,
        )
        if self.current_bid is not None:
            public = self.public_faces()
            hidden = self.dice_in_play() - len(public)
            joker = self.options.joker_face
            out["odds"] = {
                "probability": bid_probability(self.current_bid, hidden, public, None, joker),
                "expected": expected_count(self.current_bid, hidden, public, None, joker),
            }
        return out
