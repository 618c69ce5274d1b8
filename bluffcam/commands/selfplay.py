"""`bluffcam selfplay`: measure the computer player against its levels and two baselines.

Prints one row per match-up: wins, the win rate with its Wilson 95% interval, the share a
player as strong as the rest would win, and the CPU milliseconds per decision of the player
under test. ``--json`` prints the same as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import time
from typing import Any

GAMES = ("bluff", "scam", "perudo")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be ≥ 1")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=_positive, default=200,
                        help="games per match-up (default 200)")
    parser.add_argument("--game", choices=GAMES, action="append",
                        help="game kind (repeat for several; default: all three)")
    parser.add_argument("--players", type=int, choices=(2, 4), action="append",
                        help="players at the table (repeat for both; default: 2 and 4)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed for dice and decisions (default: a random one, printed)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _ms(seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {"mean": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(seconds)
    return {
        "mean": 1000 * sum(ordered) / len(ordered),
        "p99": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
        "max": 1000 * ordered[-1],
    }


def run(args: argparse.Namespace) -> int:
    from bot.selfplay import MATCHUPS, run_matchup

    seed = args.seed if args.seed is not None else secrets.randbits(32)
    rng = random.Random(seed)
    kinds = args.game or list(GAMES)
    tables = sorted(set(args.players or (2, 4)))
    rows: list[dict[str, Any]] = []
    if not args.json:
        print(f"bluffcam selfplay: {args.games} games per match-up, seed {seed}")
        print(f"{'game':7} {'table':5} {'player':7} {'against':10} {'wins':>9} {'rate':>5} "
              f"{'95% CI':>13} {'share':>5}  ms/decision (CPU: mean, p99, max)")
    for kind in kinds:
        for players in tables:
            for player, against in MATCHUPS[players]:
                result = run_matchup(kind, player, against, players, args.games, rng,
                                     clock=time.process_time)
                low, high = result.interval
                ms = _ms(result.seconds)
                row = {
                    "game": kind, "players": players, "player": player, "against": against,
                    "games": result.games, "wins": result.wins, "rate": result.rate,
                    "ci95": [low, high], "share": result.share, "ms": ms,
                    "decisions": len(result.seconds),
                }
                rows.append(row)
                if not args.json:
                    others = against if players == 2 else f"3×{against}"
                    print(f"{kind:7} {players:5} {player:7} {others:10} "
                          f"{result.wins:>4}/{result.games:<4} {result.rate:5.2f} "
                          f"[{low:.2f}, {high:.2f}] {result.share:5.2f}  "
                          f"{ms['mean']:.2f}, {ms['p99']:.2f}, {ms['max']:.2f}", flush=True)
    if args.json:
        print(json.dumps({"seed": seed, "games": args.games, "results": rows}))
    return 0
