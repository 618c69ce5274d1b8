"""`bluffcam selfplay`: the output's shape, a small run, and its refusals."""

from __future__ import annotations

import json

import pytest

from bluffcam.cli import main
from bot.selfplay import MATCHUPS


def test_selfplay_json_output_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--games", "4", "--game", "perudo", "--players", "2",
                 "--seed", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seed"] == 5 and out["games"] == 4
    rows = out["results"]
    assert [(r["player"], r["against"]) for r in rows] == list(MATCHUPS[2])
    for row in rows:
        assert row["game"] == "perudo" and row["players"] == 2 and row["games"] == 4
        assert 0 <= row["wins"] <= 4 and row["rate"] == row["wins"] / 4
        low, high = row["ci95"]
        assert 0 <= low <= row["rate"] <= high <= 1
        assert row["share"] == 0.5 and row["decisions"] > 0
        assert 0 <= row["ms"]["mean"] <= row["ms"]["max"]


def test_selfplay_text_output_and_the_seed_replays(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "--games", "3", "--game", "scam", "--players", "4", "--seed", "9"]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()
    assert first[0] == "bluffcam selfplay: 3 games per match-up, seed 9"
    assert first[1].split()[:4] == ["game", "table", "player", "against"]
    rows = first[2:]
    assert len(rows) == len(MATCHUPS[4])
    assert all(row.split()[:3] == ["scam", "4", row.split()[2]] for row in rows)
    assert rows[0].split()[3] == "3×threshold"
    assert main(argv) == 0
    again = capsys.readouterr().out.splitlines()
    # the wins replay with the seed (the timings do not)
    assert [r.split()[:5] for r in again[2:]] == [r.split()[:5] for r in rows]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--games", "0"], "must be ≥ 1"),
        (["--games", "x"], "not a whole number"),
        (["--players", "3"], "invalid choice"),
        (["--game", "impus"], "invalid choice"),
    ],
)
def test_selfplay_refuses_bad_arguments(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["selfplay", *argv])
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err
