"""`bluffcam.table.resume.resume` on its own: what a table takes back from its data folder at
start (the table-level tests cover it through `Table`; these name its parts directly)."""

from __future__ import annotations

from pathlib import Path

from bluffcam.table import Table
from bluffcam.table.resume import resume
from bluffcam.table.reveal_store import RevealStore
from engine import Journal, Phase

SETUP = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"}


def _open(folder: Path) -> tuple[Journal, RevealStore]:
    journal = Journal(str(folder / "journal.sqlite"))
    return journal, RevealStore(folder / "reveals", journal=journal.identity)


def test_an_empty_data_folder_resumes_nothing_and_says_nothing(tmp_path: Path) -> None:
    journal, reveals = _open(tmp_path)
    found = resume(journal, reveals)
    journal.close()
    assert found.game is None and found.setup is None and found.actions == []
    assert found.review is None and found.reveal_ids == {} and found.notices == []


def test_a_game_left_at_its_reveal_comes_back_there(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite", data_dir=tmp_path)
    table.new_game(SETUP)
    table.submit({"player": "Ann", "bid": "2x5"})
    table.submit({"player": "Ben", "challenge": True})
    table.close()
    journal, reveals = _open(tmp_path)
    found = resume(journal, reveals)
    journal.close()
    assert found.game is not None and found.game.phase == Phase.REVEAL
    assert found.actions == [{"player": "Ann", "bid": "2x5"},
                             {"player": "Ben", "challenge": True}]
    assert found.notices == []


def test_an_unreadable_reveal_record_is_a_lasting_notice_not_a_failed_start(
        tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite", data_dir=tmp_path)
    table.new_game(SETUP)
    table.close()
    (tmp_path / "reveals").mkdir(exist_ok=True)
    (tmp_path / "reveals" / "r1.json").write_text("{ not json")
    journal, reveals = _open(tmp_path)
    found = resume(journal, reveals)
    journal.close()
    assert found.game is not None
    assert len(found.notices) == 1
    notice = found.notices[0]
    assert notice.lasting and notice.level == "warning" and "r1" in notice.text
