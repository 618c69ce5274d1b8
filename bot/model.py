"""What a seat can know about the dice on the table: its own, the public ones, and a belief about
everybody else's hidden dice, from which the chance of any bid follows.

Every hidden die of a player is modelled as an independent draw from that player's belief
(uniform, or tilted towards the faces they bid this round), so the number of dice matching a
bid's face is a sum of binomials: one exact distribution per face, computed once, gives the
chance of every count at once. Which die faces count for a bid is each game's rule
(:func:`matching_faces`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import BidAction, Reveal
from engine.bids import FACES, Bid
from engine.bluff import BluffGame
from engine.game import Game
from engine.perudo import PerudoGame
from engine.scam import DICE_EACH, ScamGame

#: a bid's face key: 1–6, or None for a ★ / ace bid
FaceKey = int | None


def supported(game: Game) -> bool:
    return isinstance(game, BluffGame | ScamGame | PerudoGame)


def matching_faces(game: Game, face: FaceKey) -> frozenset[int]:
    """Die faces that count for a bid on ``face`` in this game, right now (B4/B5, S6, P4/P13)."""
    if isinstance(game, BluffGame):
        joker = game.options.joker_face
        return frozenset({joker} if face is None else {face, joker})
    if isinstance(game, ScamGame):
        assert face is not None
        return frozenset({face})
    if isinstance(game, PerudoGame):
        if face is None:
            return frozenset({1})
        return frozenset({face} if game.palifico else {face, 1})
    raise TypeError(f"the computer player does not play {game.title}")


def face_keys(game: Game) -> tuple[FaceKey, ...]:
    if isinstance(game, ScamGame):
        return FACES
    if isinstance(game, BluffGame):
        return (*(f for f in FACES if f != game.options.joker_face), None)
    return (2, 3, 4, 5, 6, None)


def hidden_and_public(game: Game, seat: str) -> list[tuple[str, int, tuple[int, ...]]]:
    """(player, hidden dice, public faces) for every other player still in the game."""
    out = []
    for name in game.players:
        if name == seat:
            continue
        if isinstance(game, BluffGame):
            if game.dice[name]:
                out.append((name, game.in_cup(name), tuple(game.set_aside[name])))
        elif isinstance(game, ScamGame):
            out.append((name, DICE_EACH, ()))
        elif isinstance(game, PerudoGame) and game.dice[name]:
            out.append((name, game.dice[name], ()))
    return out


def round_bids(game: Game) -> list[BidAction]:
    """This round's bids, oldest first; in Bluff a raise and re-roll forgets its player's
    earlier bids (their hidden dice were rolled again)."""
    bids: list[BidAction] = []
    for action in reversed(game.actions):
        if isinstance(action, Reveal):
            break
        if isinstance(action, BidAction):
            bids.append(action)
    bids.reverse()
    kept: list[BidAction] = []
    for action in bids:
        if action.set_aside:
            kept = [b for b in kept if b.player != action.player]
        else:
            kept.append(action)
    return kept


def _binomial(n: int, p: float) -> list[float]:
    pmf = [0.0] * (n + 1)
    q = 1.0 - p
    coefficient = 1.0
    for k in range(n + 1):
        pmf[k] = coefficient * p**k * q ** (n - k)
        coefficient = coefficient * (n - k) / (k + 1)
    return pmf


def _convolve(a: list[float], b: list[float]) -> list[float]:
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


@dataclass(frozen=True, slots=True)
class Belief:
    """The chance of every count of matching dice, per face key, as one seat sees the table."""

    #: face key -> pmf over the total matching dice on the table (index = count)
    pmfs: dict[FaceKey, list[float]]

    def at_least(self, bid: Bid) -> float:
        pmf = self.pmfs[bid.face]
        return min(1.0, sum(pmf[bid.count:])) if bid.count < len(pmf) else 0.0

    def exactly(self, bid: Bid) -> float:
        pmf = self.pmfs[bid.face]
        return pmf[bid.count] if bid.count < len(pmf) else 0.0


def belief(
    game: Game,
    seat: str,
    own_dice: Sequence[int],
    tilt: float = 0.0,
    reroll: Sequence[int] = (),
    keys: Sequence[FaceKey] | None = None,
) -> Belief:
    """The seat's belief. ``tilt`` > 0 reads the others' bids this round as a hint of what they
    hold (each bid on a face weighs that face ``1 + tilt`` against 1 for each other face).
    ``reroll``: own dice about to be rolled again, counted as unknown fair dice. ``keys``: only
    these bid faces (default: every face the game has)."""
    weights: dict[str, list[float]] = {}
    if tilt:
        for action in round_bids(game):
            if action.player == seat:
                continue
            w = weights.setdefault(action.player, [1.0] * 7)
            face = action.bid.face
            if face is None:
                face = game.options.joker_face if isinstance(game, BluffGame) else 1
            w[face] += tilt
    kept = list(own_dice)
    for face in reroll:
        kept.remove(face)
    others = hidden_and_public(game, seat)
    pmfs: dict[FaceKey, list[float]] = {}
    for key in face_keys(game) if keys is None else keys:
        match = matching_faces(game, key)
        known = sum(1 for f in kept if f in match)
        known += sum(1 for _, _, public in others for f in public if f in match)
        pmf = [0.0] * known + [1.0]
        if reroll:
            pmf = _convolve(pmf, _binomial(len(reroll), len(match) / 6))
        for name, hidden, _ in others:
            tilted = weights.get(name)
            p = len(match) / 6 if tilted is None else \
                sum(tilted[f] for f in match) / sum(tilted[1:])
            pmf = _convolve(pmf, _binomial(hidden, p))
        pmfs[key] = pmf
    return Belief(pmfs)
