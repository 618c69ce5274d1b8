"""`bluffcam replay`: output object, exit codes 0/2/1, errors with index/rule/message."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import engine
from bluffcam.cli import main

SCRIPT = {
    "game": "bluff",
    "players": ["Ann", "Ben", "Cho"],
    "starter": "Ann",
    "options": {"joker_face": 1},
    "actions": [
        {"player": "Ann", "bid": "3x4"},
        {"player": "Ben", "bid": "2*", "set_aside": [4, 4]},
        {"player": "Cho", "challenge": True},
    ],
}


def replay(tmp_path: Path, script: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    path = tmp_path / "s.json"
    path.write_text(script if isinstance(script, str) else json.dumps(script), encoding="utf-8")
    code = main(["replay", str(path)])
    return code, json.loads(capsys.readouterr().out)


def test_replay_prints_the_state_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = replay(tmp_path, SCRIPT, capsys)
    assert code == 0
    assert out == {
        "game": "bluff",
        "phase": "reveal",
        "turn": None,
        "bid": "2*",
        "winner": None,
        "players": [
            {"name": "Ann", "dice": 5, "out": False},
            {"name": "Ben", "dice": 5, "out": False},
            {"name": "Cho", "dice": 5, "out": False},
        ],
    }


def test_replay_history_flag_adds_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = {
        **SCRIPT,
        "actions": [
            *SCRIPT["actions"],
            {"reveal": {"Ann": [1, 2, 3, 5, 6], "Ben": [4, 4, 2, 2, 2], "Cho": [1, 1, 3, 3, 3]}},
        ],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    assert main(["replay", "--history", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["history"][0]["verdict"] == "★: 3, bid was 2 — Cho loses 1 die"
    # a setup with no "actions" at all is a game not begun (a KeyError before)
    path.write_text(json.dumps({"game": "bluff", "players": ["Ann", "Ben"]}), encoding="utf-8")
    assert main(["replay", "--history", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["history"] == []


def test_refused_action_reports_index_rule_and_state_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = {**SCRIPT, "actions": [*SCRIPT["actions"], {"player": "Ann", "bid": "9x9"}]}
    code, out = replay(tmp_path, script, capsys)
    assert code == 2
    assert out["error"] == {
        "index": 3,
        "rule": "format",
        "message": "'9x9' is not a bid: faces are 1–6 (format)",
    }
    assert out["phase"] == "reveal" and out["bid"] == "2*"


@pytest.mark.parametrize(
    ("script", "rule"),
    [
        ({"game": "bluff", "players": ["Ann", "Ann"]}, "B1"),
        ({"game": "chess", "players": ["Ann", "Ben"]}, "format"),
        ({"game": "bluff", "players": ["Ann", "Ben"], "options": {"joker_face": 3}}, "B4"),
        ({"game": "bluff", "players": ["Ann", "Ben"], "actions": {}}, "format"),
        ({"game": "bluff", "players": ["Ann", "Ben"], "extra": 1}, "format"),
        ([1, 2], "format"),
        ("{not json", "format"),
    ],
)
def test_refused_setup_has_null_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: Any, rule: str
) -> None:
    code, out = replay(tmp_path, script, capsys)
    assert code == 2
    assert out["error"]["index"] is None and out["error"]["rule"] == rule
    assert "phase" not in out


def test_replay_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(SCRIPT)))
    assert main(["replay", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["bid"] == "2*"


def test_a_bug_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(script: Any) -> Any:
        raise KeyError("bug")

    monkeypatch.setattr(engine, "run_script", broken)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCRIPT), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert "KeyError" in capsys.readouterr().err


def test_export_is_the_replay_format() -> None:
    game = engine.Game.from_script(SCRIPT)
    assert game.export() == SCRIPT
    assert engine.run_script(game.export()) == (game.to_json(), 0)
