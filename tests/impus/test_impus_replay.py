"""Known-answer replay: a scripted Impus game through run_script and `bluffcam replay`.

The expected file was checked by hand against RULES.md (see the comment in the script).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine import Game, run_script

DATA = Path(__file__).parent / "data"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_I1_to_I9_known_game_replays_to_the_expected_output() -> None:
    script = load("short_game.json")
    expected = load("short_game.expected.json")
    output, code = run_script(script)
    assert code == expected["exit_code"] == 0
    assert output == expected["output"]
    assert output["loser"] == "Ben"
    assert {p["name"]: p["cards"] for p in output["players"]} == {
        "Ann": 0,
        "Ben": 11,
        "Cho": 0,
        "Dan": 0,
    }
    game = Game.from_script(script)
    assert [entry.to_json()["verdict"] for entry in game.history] == expected["verdicts"]


def test_export_round_trips_the_known_game() -> None:
    script = load("short_game.json")
    game = Game.from_script(script)
    exported = game.export()
    assert exported["actions"] == script["actions"]
    assert Game.from_script(exported).to_json() == game.to_json()


def test_I4_a_refused_action_stops_the_replay_and_names_rule_and_input() -> None:
    script = load("short_game.json")
    script["actions"] = [*script["actions"][:3], {"player": "Cho", "play": 1, "claim": "dragon"}]
    output, code = run_script(script)
    assert code == 2
    assert output["error"]["index"] == 3 and output["error"]["rule"] == "I4"
    assert output["error"]["message"].startswith("Cho's play of 1 card as dragons: ")
    assert output["pile"] == 3  # the state before the refused action


def test_bluffcam_replay_prints_cards_and_loser(repo_root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bluffcam", "replay", str(DATA / "short_game.json")],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed == load("short_game.expected.json")["output"]


def test_docs_replay_example_runs(repo_root: Path) -> None:
    text = (repo_root / "docs" / "impus.md").read_text(encoding="utf-8")
    block = text.split("## Replay format", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    output, code = run_script(json.loads(block))
    assert code == 0, output.get("error")
    assert output["claim"] == "goblin" and output["discards"][0]["kind"] == "orc"
