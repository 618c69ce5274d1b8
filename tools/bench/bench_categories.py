"""Where the reader fails, by category: die size, dice style, table, view tilt, touching.

Dev-time only. Renders scenes the detector never trained on (``tools.render.detector_renders``
scenes from index 100,000 on; training used 0-1,499), keeps them in a git-ignored cache, reads
each with the default reader and prints, per category, how many dice were found, read right,
and reported sure but wrong (silent misreads), plus false dice per scene:

    .venv/bin/python -m tools.bench.bench_categories --count 300

Real photos do not carry these tags; the renders do, with exact truth, so this answers "is it
touching dice, or tilt, or colour?" in a way a per-source figure cannot (BENCHMARKS.md).
"""

from __future__ import annotations

from tools.bench.common import score_unseen_renders, unseen_renders_parser


def main(argv: list[str] | None = None) -> None:
    args = unseen_renders_parser(__doc__.splitlines()[0]).parse_args(argv)
    score_unseen_renders(args.count, args.start, args.cache)


if __name__ == "__main__":
    main()
