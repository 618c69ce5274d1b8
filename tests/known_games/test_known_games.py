"""Known-answer games (like python-chess's perft files): scripts with hand-checked outcomes.

Each ``*.json`` here holds a ``script`` (the replay format), the ``exit`` code and the
``expected`` replay output, and the ``verdicts`` of its finished rounds, all worked out by hand
from RULES.md. The description in each file says what it exercises.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bluffcam.cli import main
from engine import run_script
from engine.game import game_from_setup

HERE = Path(__file__).parent
GAMES = sorted(HERE.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_there_are_known_games() -> None:
    assert len(GAMES) >= 8


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_known_game(path: Path) -> None:
    case = load(path)
    output, code = run_script(case["script"])
    assert (output, code) == (case["expected"], case["exit"])
    if case["verdicts"] is not None:
        game = game_from_setup(case["script"])
        stop = output.get("error", {}).get("index")
        for obj in case["script"]["actions"][:stop]:
            game.apply_json(obj)
        assert [entry.to_json()["verdict"] for entry in game.history] == case["verdicts"]


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_known_game_through_the_cli(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = load(path)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(case["script"]), encoding="utf-8")
    assert main(["replay", str(script)]) == case["exit"]
    assert json.loads(capsys.readouterr().out) == case["expected"]
