""""New evening" tapped by mistake: the standings come back until the next game starts,
and the undo is kept in the journal like the fresh start."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_api_helpers import post

from bluffcam.table import Table, TableError

ONE_DIE = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
           "options": {"dice_per_player": 1}}


def ann_wins(table: Table) -> None:
    table.new_game(ONE_DIE)
    table.submit({"player": "Ann", "bid": "1x2"})
    table.submit({"player": "Ben", "challenge": True})
    table.submit({"reveal": {"Ann": [2], "Ben": [3]}})


def test_a_new_evening_can_be_undone_and_a_restart_keeps_the_undo(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        ann_wins(table)
        assert table.state()["evening"]["games"] == 1 and not table.state()["evening_undo"]
        table.new_evening()
        assert table.state()["evening"] is None and table.state()["evening_undo"]
        back = table.bring_back_evening()
        assert back["evening"]["games"] == 1 and not back["evening_undo"]
    finally:
        table.close()
    again = Table(tmp_path / "journal.sqlite")
    try:
        assert again.state()["evening"]["games"] == 1
    finally:
        again.close()


def test_no_undo_once_the_next_game_started(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        ann_wins(table)
        table.new_evening()
        table.new_game(ONE_DIE)
        assert not table.state()["evening_undo"]
        with pytest.raises(TableError, match="no new evening to undo") as refused:
            table.bring_back_evening()
        assert refused.value.rule == "evening" and table.state()["evening"] is None
    finally:
        table.close()


def test_the_api_undoes_a_new_evening_with_the_pin(client: FlaskClient, table: Table) -> None:
    ann_wins(table)
    assert post(client, "/api/evening/new").status_code == 200
    assert post(client, "/api/evening/undo", pin=None).status_code == 401
    answer = post(client, "/api/evening/undo")
    assert answer.status_code == 200 and answer.json["evening"]["games"] == 1
    assert post(client, "/api/evening/undo").status_code == 409
