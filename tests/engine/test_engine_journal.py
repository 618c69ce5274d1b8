"""The SQLite journal: round trip, undo, garbled records, and a write cut off mid-way."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from engine_helpers import bid, challenge, reveal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, Journal, new_game
from engine.journal import JournalError

SETUP = {"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann", "options": {}}
ACTIONS = [
    bid("Ann", "2x3"),
    bid("Ben", "2x4", 4),
    bid("Cho", "2*"),
    challenge("Ann"),
    reveal(Ann=[1, 2, 3, 4, 5], Ben=[4, 1, 1, 2, 2], Cho=[6, 6, 6, 6, 6]),
    bid("Cho", "3x5"),
]


def filled(path: Path, actions: list[dict[str, object]] = ACTIONS) -> Journal:
    journal = Journal(path)
    journal.start(SETUP)
    for action in actions:
        journal.append(action)
    return journal


def test_round_trip_and_resume_to_the_same_state(tmp_path: Path) -> None:
    filled(tmp_path / "j.db").close()
    with Journal(tmp_path / "j.db") as journal:
        loaded = journal.load()
        assert loaded == (SETUP, ACTIONS) and journal.warnings == []
    setup, actions = loaded
    resumed = Game.from_script({**setup, "actions": actions})
    direct = new_game("bluff", ["Ann", "Ben", "Cho"])
    for obj in ACTIONS:
        direct.apply_json(obj)
    assert resumed.to_json() == direct.to_json()


def test_journal_uses_wal_and_full_sync(tmp_path: Path) -> None:
    with filled(tmp_path / "j.db") as journal:
        assert journal._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert journal._db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL


def test_empty_journal_loads_none_and_append_needs_a_game(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as journal:
        assert journal.load() is None
        with pytest.raises(JournalError, match="no game started"):
            journal.append(bid("Ann", "2x3"))


def test_a_new_game_keeps_the_old_one_in_the_file(tmp_path: Path) -> None:
    with filled(tmp_path / "j.db") as journal:
        journal.start({**SETUP, "game": "scam", "players": ["A", "B", "C"]})
        journal.append({"player": "A", "pass": True})
        assert len(journal.games()) == 2
        loaded = journal.load()
        assert loaded is not None and loaded[1] == [{"player": "A", "pass": True}]


def test_an_earlier_game_reads_back_up_to_its_first_garbled_action_and_nothing_moves(
        tmp_path: Path) -> None:
    with filled(tmp_path / "j.db") as journal:
        journal.start({**SETUP, "game": "scam"})
        assert journal.script(1) == (SETUP, ACTIONS)
        assert journal.script(2) == ({**SETUP, "game": "scam"}, [])
        assert journal.script(3) is None
        assert journal.started(2) == journal.games()[1][1] and journal.started(3) is None
        journal._db.execute("UPDATE actions SET body = replace(body, 'Ben', 'Bxn') "
                            "WHERE game_id = 1 AND seq = 2")
        assert journal.script(1) == (SETUP, ACTIONS[:1])
        journal._db.execute("UPDATE games SET setup = replace(setup, 'Ann', 'Axn') WHERE id = 1")
        assert journal.script(1) is None
        count = journal._db.execute("SELECT COUNT(*) FROM actions WHERE game_id = 1")
        assert count.fetchone() == (len(ACTIONS),)  # read only: nothing was set aside
        assert journal.game_id == 2


def test_drop_last_is_undo(tmp_path: Path) -> None:
    with filled(tmp_path / "j.db") as journal:
        assert journal.drop_last() == ACTIONS[-1]
        loaded = journal.load()
        assert loaded is not None and loaded[1] == ACTIONS[:-1]
        journal.append(ACTIONS[-1])
        loaded = journal.load()
        assert loaded is not None and loaded[1] == ACTIONS


def test_garbled_last_record_is_skipped_and_reported(tmp_path: Path) -> None:
    filled(tmp_path / "j.db").close()
    db = sqlite3.connect(tmp_path / "j.db")
    db.execute("UPDATE actions SET body = substr(body, 1, 9) WHERE seq = 6")
    db.commit()
    db.close()
    with Journal(tmp_path / "j.db") as journal:
        loaded = journal.load()
        assert loaded is not None and loaded[1] == ACTIONS[:5]
        assert journal.warnings == [
            "game 1: action 6 is garbled or missing; resuming after action 5 (1 record skipped)"
        ]


def test_garbled_middle_record_resumes_before_it(tmp_path: Path) -> None:
    filled(tmp_path / "j.db").close()
    db = sqlite3.connect(tmp_path / "j.db")
    db.execute("UPDATE actions SET crc = crc + 1 WHERE seq = 3")
    db.commit()
    db.close()
    with Journal(tmp_path / "j.db") as journal:
        loaded = journal.load()
        assert loaded is not None and loaded[1] == ACTIONS[:2]
        assert "4 records skipped" in journal.warnings[0]


def test_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match="not a usable journal"):
        Journal(path)


@pytest.fixture(scope="module")
def live_copy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A journal's database and WAL files copied while it is still open (as after a crash)."""
    folder = tmp_path_factory.mktemp("crash")
    journal = filled(folder / "live.db")
    wal = folder / "live.db-wal"
    shutil.copy(folder / "live.db", folder / "base.db")
    shutil.copy(wal, folder / "base.db-wal")
    journal.close()
    return folder, (folder / "base.db-wal").stat().st_size


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fraction=st.floats(0, 1))
def test_a_write_cut_off_mid_way_resumes_to_the_last_complete_action(
    live_copy: tuple[Path, int], tmp_path_factory: pytest.TempPathFactory, fraction: float
) -> None:
    folder, wal_size = live_copy
    cut = tmp_path_factory.mktemp("cut")
    shutil.copy(folder / "base.db", cut / "j.db")
    data = (folder / "base.db-wal").read_bytes()
    (cut / "j.db-wal").write_bytes(data[: int(wal_size * fraction)])  # the power went here
    with Journal(cut / "j.db") as journal:
        loaded = journal.load()
    if loaded is None:  # cut before the setup was committed
        return
    setup, actions = loaded
    assert setup == SETUP
    assert actions == ACTIONS[: len(actions)]
    Game.from_script({**setup, "actions": actions})  # and the prefix replays
    if fraction == 1:
        assert actions == ACTIONS
