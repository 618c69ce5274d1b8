"""The computer player's levels and the two baselines it is measured against.

Every player is a pure function of the public game, its own seat, its own dice and a random
source: ``choose(game, seat, own_dice, rng) -> Action``. Nothing else reaches it, so it cannot
see anybody else's dice; the random source is passed in, so a seeded one replays a decision
exactly.

The levels share one idea: from the seat's belief (bot/model.py) every legal bid has a chance
to hold. Doubting the standing bid wins with 1 − P(it holds). The stronger levels then bid as
high as they can while the bid still holds with at least ``nerve`` (so the next player faces
a bid that is probably true), read the others' bids this round as hints (``tilt``), raise and
re-roll in Bluff, and call calza in Perudo when an exact count is likely.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.model import Belief, belief, matching_faces, supported
from engine.actions import Action, BidAction, Challenge, Pass, ScamCall
from engine.bids import Bid
from engine.bluff import BluffGame
from engine.game import Game, Phase
from engine.perudo import Calza, Dudo, PerudoGame
from engine.scam import ScamGame


class Level(StrEnum):
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class Player(Protocol):
    name: str

    def choose(
        self, game: Game, seat: str, own_dice: Sequence[int], rng: random.Random
    ) -> Action: ...


def _check_turn(game: Game, seat: str, own_dice: Sequence[int]) -> None:
    if not supported(game):
        raise ValueError(f"the computer player does not play {game.title}")
    if game.phase is not Phase.BIDDING or game.turn != seat:
        raise ValueError(f"it is not {seat}'s turn to bid (turn: {game.turn}, {game.phase})")
    want = _dice_count(game, seat)
    if len(own_dice) != want or not all(isinstance(f, int) and 1 <= f <= 6 for f in own_dice):
        raise ValueError(f"{seat} has {want} dice; own_dice {list(own_dice)!r} does not match")


def _dice_count(game: Game, seat: str) -> int:
    if isinstance(game, BluffGame | PerudoGame):
        return game.dice[seat]
    return 3


def doubt(game: Game, seat: str) -> Action:
    """The game's word for "I doubt it": challenge, Scam!, dudo."""
    if isinstance(game, ScamGame):
        return ScamCall(seat)
    if isinstance(game, PerudoGame):
        return Dudo(seat)
    return Challenge(seat)


def _in_cup(game: Game, seat: str, own_dice: Sequence[int]) -> list[int]:
    cup = list(own_dice)
    if isinstance(game, BluffGame):
        for face in game.set_aside[seat]:
            cup.remove(face)
    return cup


@dataclass(frozen=True, slots=True)
class Style:
    """One level's settings."""

    #: how strongly the others' bids this round are read as what they hold (0: not at all)
    tilt: float
    #: bid as high as the bid still holds with this chance
    nerve: float
    #: Bluff: consider raising and re-rolling
    reroll: bool
    #: Perudo: call calza when an exact count has at least this chance (above 1: never)
    calza: float
    #: Scam: call Scam! below this chance; bid only at or above ``nerve``
    scam_below: float
    #: chance of a careless move: the lowest raise on a random face, or a doubt on a whim
    careless: float


STYLES: dict[Level, Style] = {
    Level.EASY: Style(tilt=0.0, nerve=0.0, reroll=False, calza=2.0, scam_below=0.15,
                      careless=0.35),
    Level.NORMAL: Style(tilt=0.75, nerve=0.55, reroll=False, calza=2.0, scam_below=0.3,
                        careless=0.05),
    Level.HARD: Style(tilt=1.5, nerve=0.6, reroll=True, calza=0.45, scam_below=0.35,
                      careless=0.0),
}


class Computer:
    """The computer player at one level."""

    def __init__(self, level: Level | str = Level.HARD) -> None:
        self.level = Level(level)
        self.style = STYLES[self.level]
        self.name = self.level.value

    def choose(
        self, game: Game, seat: str, own_dice: Sequence[int], rng: random.Random
    ) -> Action:
        _check_turn(game, seat, own_dice)
        style = self.style
        seen = belief(game, seat, own_dice, style.tilt)
        bids = game.legal_bids()
        current = game.current_bid
        if style.careless and rng.random() < style.careless:
            return _careless(game, seat, rng)
        if isinstance(game, ScamGame):
            return self._scam(game, seat, seen, bids, rng)
        p_current = seen.at_least(current) if current is not None else 1.0
        if isinstance(game, PerudoGame) and current is not None and game.options.calza:
            exact = seen.exactly(current)
            if exact >= style.calza and game.dice[seat] < game.start_dice:
                return Calza(seat)
        options: list[tuple[float, Bid, tuple[int, ...]]] = [
            (seen.at_least(b), b, ()) for b in bids]
        if isinstance(game, BluffGame) and style.reroll and "set_aside" in \
                game.legal_action_kinds():
            options += _reroll_options(game, seat, own_dice, style.tilt, bids)
        if not options:
            return doubt(game, seat)
        best = max(p for p, _, _ in options)
        if current is not None and 1 - p_current > best:
            return doubt(game, seat)
        bar = min(style.nerve, best) if style.nerve else best
        # the highest bid that still clears the bar (bids are listed lowest first)
        chosen = [o for o in options if o[0] >= bar - 1e-12]
        top = max(chosen, key=lambda o: (_rank(game, o[1]), o[0]))
        if style.nerve == 0.0:  # easy: the lowest bid at the best chance, no nerve
            top = chosen[0]
        _, bid, aside = top
        return BidAction(seat, bid, tuple(aside))

    def _scam(
        self, game: ScamGame, seat: str, seen: Belief, bids: list[Bid], rng: random.Random
    ) -> Action:
        style = self.style
        current = game.current_bid
        if current is not None and game.bidder != seat and \
                seen.at_least(current) < style.scam_below:
            return ScamCall(seat)
        nerve = style.nerve or 0.5
        if current is None:  # passing an empty round scores nothing: open at the best chance
            nerve = min(nerve, max(seen.at_least(b) for b in bids))
        good = [b for b in bids if seen.at_least(b) >= nerve]
        if not good:
            return Pass(seat)
        if style.nerve == 0.0:
            return BidAction(seat, good[0])
        return BidAction(seat, max(good, key=lambda b: _rank(game, b)))


def _rank(game: Game, bid: Bid) -> tuple[int, int]:
    """Where a bid ranks in the game's order now (higher is a bigger claim)."""
    if isinstance(game, BluffGame):
        return game.ladder.key(bid)
    if isinstance(game, ScamGame):
        return game.order.key(bid)
    assert isinstance(game, PerudoGame)
    return game.bid_order().key(bid)


def _reroll_options(
    game: BluffGame, seat: str, own_dice: Sequence[int], tilt: float, bids: list[Bid]
) -> list[tuple[float, Bid, tuple[int, ...]]]:
    """B8: for each face, set aside the cup's dice that count for it and re-roll the rest."""
    cup = _in_cup(game, seat, own_dice)
    out: list[tuple[float, Bid, tuple[int, ...]]] = []
    faces = {b.face for b in bids}
    for face in faces:
        match = matching_faces(game, face)
        keep = tuple(f for f in cup if f in match)
        roll = [f for f in cup if f not in match]
        if not keep or not roll:
            continue
        seen = belief(game, seat, own_dice, tilt, reroll=roll, keys=(face,))
        out += [(seen.at_least(b), b, keep) for b in bids if b.face == face]
    return out


def _careless(game: Game, seat: str, rng: random.Random) -> Action:
    kinds = game.legal_action_kinds()
    if game.current_bid is not None and rng.random() < 0.3:
        return doubt(game, seat)
    if "pass" in kinds and rng.random() < 0.5:
        return Pass(seat)
    raises = game.lowest_raises()
    if not raises:  # every count up to the dice in play is taken
        return doubt(game, seat) if game.current_bid is not None else Pass(seat)
    return BidAction(seat, rng.choice(raises))


class Threshold:
    """Baseline: doubts any bid that holds with less than ``threshold`` (its own dice known,
    the rest fair); otherwise makes the lowest raise on the face it holds most of (Scam:
    passes where that raise is below the threshold too)."""

    def __init__(self, threshold: float = 0.5) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be between 0 and 1, not {threshold}")
        self.threshold = threshold
        self.name = f"threshold {threshold:g}"

    def choose(
        self, game: Game, seat: str, own_dice: Sequence[int], rng: random.Random
    ) -> Action:
        _check_turn(game, seat, own_dice)
        seen = belief(game, seat, own_dice)
        current = game.current_bid
        if current is not None and seen.at_least(current) < self.threshold and \
                not (isinstance(game, ScamGame) and game.bidder == seat):
            return doubt(game, seat)
        raises = game.lowest_raises()
        if not raises:
            return doubt(game, seat)
        held = Counter(own_dice)
        bid = max(raises, key=lambda b: (
            sum(held[f] for f in matching_faces(game, b.face)), -_rank(game, b)[0],
            -_rank(game, b)[1]))
        if isinstance(game, ScamGame) and current is not None and \
                seen.at_least(bid) < self.threshold:
            return Pass(seat)
        return BidAction(seat, bid)


class RandomPlayer:
    """Baseline: any legal move, uniformly by kind, then a random low raise."""

    name = "random"

    def choose(
        self, game: Game, seat: str, own_dice: Sequence[int], rng: random.Random
    ) -> Action:
        _check_turn(game, seat, own_dice)
        kinds = game.legal_action_kinds()
        raises = game.lowest_raises()
        kind = rng.choice([k for k in kinds if k != "set_aside" and (k != "bid" or raises)])
        if kind in ("challenge", "scam", "dudo"):
            return doubt(game, seat)
        if kind == "calza":
            return Calza(seat)
        if kind == "pass":
            return Pass(seat)
        bid = rng.choice(raises)
        bid = Bid(bid.count + rng.choice((0, 0, 1)), bid.face)
        aside: tuple[int, ...] = ()
        if "set_aside" in kinds and rng.random() < 0.3:
            cup = _in_cup(game, seat, own_dice)
            rng.shuffle(cup)
            aside = tuple(cup[: rng.randint(1, len(cup) - 1)])
        return BidAction(seat, bid, aside)


def make_player(name: str) -> Player:
    """A player by name: "easy", "normal", "hard", "threshold", "threshold:0.4", "random"."""
    if name in Level.__members__.values():
        return Computer(name)
    if name == "random":
        return RandomPlayer()
    if name == "threshold":
        return Threshold()
    if name.startswith("threshold:"):
        try:
            return Threshold(float(name.split(":", 1)[1]))
        except ValueError as error:
            raise ValueError(f"player {name!r}: {error}") from None
    raise ValueError(
        f"unknown player {name!r}; known: easy, normal, hard, threshold, threshold:P, random"
    )
