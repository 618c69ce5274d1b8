"""Tonight's standings as a table, and each game kind's ratings across evenings.

Every player who played tonight (those with no win too), the games each played and won per
game kind, the last game's places; and an Elo rating per game kind (`engine.ratings`) over
every game the journal holds, so the ratings carry across evenings in the journal's own
database. A game's places come from replaying it: the winner first, then the players in the
reverse order they went out (Bluff), by points (Scam), or the safe in the order they got
safe and the loser last (Impus Bluff).

The places of a finished game never change: they are worked out once per game and kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bluffcam.evening import stored_game
from engine import EngineError, Game, Journal, JournalError, Phase, parse_action
from engine.ratings import rate_games

#: one finished game: its kind, its players' places (best first, ties share a group)
Finished = tuple[str, list[list[str]]]


def places_of(game: Game, went_out: Sequence[str]) -> list[list[str]]:
    """The places of a finished ``game``; ``went_out``: its players in the order they went
    out of play (knocked out, or safe in Impus Bluff)."""
    players = list(game.players)
    winner = getattr(game, "winner", None)
    loser = getattr(game, "loser", None)
    scores = {p["name"]: p["score"] for p in game.to_json().get("players", [])
              if isinstance(p.get("score"), int | float)}
    if scores and len(scores) == len(players):  # Scam: by points, the winner first
        groups: dict[float, list[str]] = {}
        for name in players:
            groups.setdefault(-scores[name] - (1e6 if name == winner else 0), []).append(name)
        return [groups[key] for key in sorted(groups)]
    if loser is not None:  # Impus Bluff: the safe in the order they got safe, the loser last
        safe = [name for name in went_out if name != loser]
        rest = [name for name in players if name not in safe and name != loser]
        return [[name] for name in safe] + ([rest] if rest else []) + [[loser]]
    out = [name for name in went_out if name != winner]
    still = [name for name in players if name not in out and name != winner]
    first = [[winner]] if winner else []
    return first + ([still] if still else []) + [[name] for name in reversed(out)]


def replay_places(setup: Mapping[str, Any], actions: Iterable[Mapping[str, Any]]
                  ) -> Finished | None:
    """The kind and places of a journalled game, or None while it is not over (or no longer
    replays)."""
    try:
        game = stored_game(setup)
        went_out: list[str] = []
        for action in actions:
            game.apply(parse_action(action))
            for player in game.to_json().get("players", []):
                if player.get("out") and player["name"] not in went_out:
                    went_out.append(player["name"])
    except EngineError:
        return None
    if game.phase is not Phase.OVER:
        return None
    return game.kind, places_of(game, went_out)


class Standings:
    """The places of the journal's finished games, each worked out once."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._places: dict[int, Finished | None] = {}

    def finished(self, game_id: int) -> Finished | None:
        if game_id not in self._places:
            try:
                script = self._journal.script(game_id)
            except (JournalError, sqlite3.Error):
                return None  # not kept: asked again next time
            self._places[game_id] = replay_places(*script) if script is not None else None
        return self._places[game_id]

    def forget(self, game_id: int | None) -> None:
        """The current game changed (an undo after its end): its places are worked out anew."""
        if game_id is not None:
            self._places.pop(game_id, None)

    def table(self, tonight: Sequence[int], current: int | None, *, current_over: bool
              ) -> dict[str, Any] | None:
        """The state's ``standings``: tonight's games ``tonight`` (journal ids, oldest first)
        as a table, and the ratings over every finished game up to ``current`` (counted
        only once ``current_over``: a game under way is not replayed at every change)."""
        self.forget(current)  # the game on the table may still change (an undo)
        last = current if current_over or current is None else current - 1
        try:
            every = [game_id for game_id, _ in self._journal.games()
                     if last is None or game_id <= last]
        except (JournalError, sqlite3.Error):
            every = []
        ratings = rate_games([found for game_id in every
                              if (found := self.finished(game_id)) is not None])
        games = [found for game_id in tonight
                 if (last is None or game_id <= last) and (found := self.finished(game_id))]
        return standings_table(games, ratings)


def standings_table(games: Sequence[Finished], ratings: Mapping[str, Mapping[str, float]]
                    ) -> dict[str, Any] | None:
    """Tonight's table from tonight's finished ``games``: each player's games played and
    won per kind, their place in the last game and their rating per kind (None before any
    game of the evening has ended)."""
    if not games:
        return None
    rows: dict[str, dict[str, Any]] = {}
    for kind, places in games:
        for index, group in enumerate(places):
            for name in group:
                row = rows.setdefault(name, {"name": name, "kinds": {}})
                tally = row["kinds"].setdefault(kind, {"played": 0, "won": 0})
                tally["played"] += 1
                tally["won"] += 1 if index == 0 and len(group) == 1 else 0
    last_kind, last_places = games[-1]
    last = {name: index + 1 for index, group in enumerate(last_places) for name in group}
    for name, row in rows.items():
        row["last_place"] = last.get(name)
        row["ratings"] = {kind: round(found[name]) for kind, found in ratings.items()
                          if name in found and kind in row["kinds"]}
    order = sorted(rows.values(), key=lambda r: (
        -sum(tally["won"] for tally in r["kinds"].values()), r["last_place"] or 99, r["name"]))
    return {"games": len(games), "kinds": sorted({kind for kind, _ in games}),
            "last_game": {"kind": last_kind, "places": last_places}, "players": order}


__all__ = ["Standings", "places_of", "replay_places", "standings_table"]
