"""Mutation testing over the code whose bugs would cost a game or let a guest in: run mutmut
on the scopes below, then sum up what it found per module (docs/reliability.md).

    python -m tools.mutation run [SCOPE ...]     # mutmut run on those scopes (default: all)
    python -m tools.mutation run --sample 40     # 40 mutants of each scope, drawn at random
    python -m tools.mutation summary [SCOPE ...] # mutants, killed, survived per module
    python -m tools.mutation survivors [SCOPE ...]  # the survivors' names, for `mutmut show`

mutmut's own settings (which files it mutates, which tests it runs) are in pyproject.toml,
``[tool.mutmut]``; a scope here picks functions of those files by mutmut's mutant names
(``engine.bids.xǁBidǁparse__mutmut_3``), so that a module's guards can be tried without
the rest of it (web/api.py's request checks, not its image encoding).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: scope name -> mutant name patterns (fnmatch), each one module or part of one
SCOPES: dict[str, tuple[str, ...]] = {
    "engine.bids": ("engine.bids.*",),
    # with the reveal check and the seats Bluff shares with Perudo
    "engine.bluff": ("engine.bluff.*", "engine.reveal_check.*", "engine.dice_seats.*"),
    "engine.scam": ("engine.scam.*",),
    "web.security": ("web.security.*",),
    # the request guards of the API (what a body must be), not its image and page helpers
    "web.api guards": tuple(f"web.api.x_{name}__mutmut_*" for name in (
        "json_body", "json_object", "_seen", "_no_broken_body", "_kept_headers")),
    # the two looks' verdict, not the reading around it (the vision tests read photos)
    "vision.dice.detected verdict": tuple(
        f"vision.dice.detected.x_{name}__mutmut_*" for name in (
            "value_verdict", "classifiers_overrule", "_die", "presence")),
}
MUTANTS_DIR = Path("mutants")
#: mutmut's exit codes (mutmut.stats.status_by_exit_code), as this summary counts them
KILLED = {1, 3, 37}
SURVIVED = {0}
TIMEOUT = {24, -24, 36, 152, 255}
NO_TESTS = {5, 33}


@dataclass
class Tally:
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    timeout: int = 0
    no_tests: int = 0
    unchecked: int = 0

    @property
    def surviving_share(self) -> float:
        """Survivors among the mutants some test ran on (a timeout counts as caught)."""
        tried = self.killed + self.survived + self.timeout
        return self.survived / tried if tried else 0.0

    def add(self, code: int | None) -> None:
        self.mutants += 1
        if code is None:
            self.unchecked += 1
        elif code in KILLED:
            self.killed += 1
        elif code in SURVIVED:
            self.survived += 1
        elif code in TIMEOUT:
            self.timeout += 1
        elif code in NO_TESTS:
            self.no_tests += 1
        else:  # suspicious, segfault: the mutant broke the run, a kill of sorts
            self.killed += 1


def patterns_of(scopes: Iterable[str]) -> dict[str, tuple[str, ...]]:
    chosen = list(scopes) or list(SCOPES)
    unknown = [s for s in chosen if s not in SCOPES]
    if unknown:
        raise SystemExit(f"unknown scope {unknown[0]!r}: choose from {', '.join(SCOPES)}")
    return {s: SCOPES[s] for s in chosen}


def exit_codes(root: Path = MUTANTS_DIR) -> dict[str, int | None]:
    """Every mutant's last result, from mutmut's ``.meta`` files."""
    codes: dict[str, int | None] = {}
    for meta in sorted(root.rglob("*.meta")):
        codes.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return codes


def tally(scopes: dict[str, tuple[str, ...]],
          codes: dict[str, int | None]) -> dict[str, tuple[Tally, list[str]]]:
    found: dict[str, tuple[Tally, list[str]]] = {}
    for scope, patterns in scopes.items():
        counts, survivors = Tally(), []
        for name, code in codes.items():
            if any(fnmatch.fnmatchcase(name, p) for p in patterns):
                counts.add(code)
                if code in SURVIVED:
                    survivors.append(name)
        found[scope] = (counts, survivors)
    return found


def sample(scopes: dict[str, tuple[str, ...]], codes: dict[str, int | None], size: int,
           seed: int) -> list[str]:
    """``size`` mutants of each scope that no run has tried yet, drawn with ``seed``."""
    if not codes:
        raise SystemExit("no mutants yet: run `python -m tools.mutation run SCOPE` once "
                         "(interrupt it once it tests), then sample")
    rng = random.Random(seed)
    chosen: list[str] = []
    for patterns in scopes.values():
        untried = sorted(n for n, code in codes.items() if code is None
                         and any(fnmatch.fnmatchcase(n, p) for p in patterns))
        chosen += rng.sample(untried, min(size, len(untried)))
    return chosen


def summary_table(found: dict[str, tuple[Tally, list[str]]]) -> str:
    lines = ["| scope | mutants | killed | survived | timeout | no test reaches it "
             "| not run | surviving |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for scope, (t, _) in found.items():
        lines.append(f"| {scope} | {t.mutants} | {t.killed} | {t.survived} | {t.timeout} "
                     f"| {t.no_tests} | {t.unchecked} | {t.surviving_share:.1%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run", "summary", "survivors"])
    parser.add_argument("scopes", nargs="*", help=f"of: {', '.join(SCOPES)}")
    parser.add_argument("--max-children", type=int, default=None,
                        help="mutmut's parallel workers (default: one per CPU)")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="run: only N mutants of each scope not tried yet, drawn at random "
                        "(needs mutants/ made by a run before); a sample's surviving share "
                        "estimates the scope's")
    parser.add_argument("--seed", type=int, default=53, help="the sample's seed")
    args = parser.parse_args(argv)
    scopes = patterns_of(args.scopes)
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample must be 1 or more, got {args.sample}")
    if args.command == "run":
        if args.sample is None:
            names = [p for patterns in scopes.values() for p in patterns]
        else:
            names = sample(scopes, exit_codes(), args.sample, args.seed)
        command = [sys.executable, "-m", "mutmut", "run", *names]
        if args.max_children:
            command[4:4] = ["--max-children", str(args.max_children)]
        return subprocess.call(command)
    if not MUTANTS_DIR.is_dir():
        raise SystemExit("no mutants/ folder here: run `python -m tools.mutation run` first "
                         "(from the project's root)")
    found = tally(scopes, exit_codes())
    if args.command == "summary":
        print(summary_table(found))
    else:
        for scope, (_, survivors) in found.items():
            for name in survivors:
                print(f"{scope}\t{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
