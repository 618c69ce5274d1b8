"""Ratings across evenings: Elo for games of more than two players, from each game's places.

A game of Bluff, Scam or Impus Bluff ends with places (the winner first, the first knocked
out last; players may share a place). Each pair of players is one Elo match: the better
placed scored 1, a shared place ½. A player's change is K times the sum of (score −
expected) over their pairs, divided by the number of opponents, so a six-player game moves a
rating about as much as a duel does. Pure: ratings and places in, ratings out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: a new player's rating
START_RATING = 1500.0
#: how far one game moves a rating at most (the usual K for casual play)
K_FACTOR = 32.0


def expected_score(rating: float, other: float) -> float:
    """The chance ``rating`` beats ``other`` (Elo's logistic curve, 400 points = 10 : 1)."""
    return 1.0 / (1.0 + float(10.0 ** ((other - rating) / 400.0)))


def check_places(places: Sequence[Sequence[str]]) -> list[str]:
    """The players of ``places`` (best first, each a group sharing a place), each once."""
    players = [name for group in places for name in group]
    if len(set(players)) != len(players):
        raise ValueError(f"a player is placed twice in {places!r}")
    if any(not group for group in places):
        raise ValueError(f"an empty place in {places!r}")
    return players


def rate_game(ratings: Mapping[str, float], places: Sequence[Sequence[str]],
              k: float = K_FACTOR) -> dict[str, float]:
    """``ratings`` after one game ended in ``places``; a player not rated yet starts at
    `START_RATING`; players not in the game keep theirs."""
    players = check_places(places)
    place = {name: index for index, group in enumerate(places) for name in group}
    before = {name: float(ratings.get(name, START_RATING)) for name in players}
    after = {**{name: float(r) for name, r in ratings.items()}}
    if len(players) < 2:
        after.update(before)
        return after
    for name in players:
        total = 0.0
        for other in players:
            if other == name:
                continue
            ahead, level = place[name] < place[other], place[name] == place[other]
            score = 1.0 if ahead else 0.5 if level else 0.0
            total += score - expected_score(before[name], before[other])
        after[name] = before[name] + k * total / (len(players) - 1)
    return after


def rate_games(games: Sequence[tuple[str, Sequence[Sequence[str]]]],
               k: float = K_FACTOR) -> dict[str, dict[str, float]]:
    """Each game kind's ratings after ``games`` (kind, places), oldest first."""
    kinds: dict[str, dict[str, float]] = {}
    for kind, places in games:
        kinds[kind] = rate_game(kinds.get(kind, {}), places, k)
    return kinds


__all__ = ["K_FACTOR", "START_RATING", "check_places", "expected_score", "rate_game",
           "rate_games"]
