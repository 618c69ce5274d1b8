"""The data folder under stress: two servers on it, a damaged journal, torn reveal records.

Each test breaks the folder the way a real table does (a second `serve` started by mistake,
bit rot, a power cut mid-write, a journal moved aside) and checks the promise: no
acknowledged action is lost, a refusal changes nothing and answers JSON, and the damage is
said on the board.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from reliability_helpers import PIN, REPO_ROOT, Server, free_port
from test_faults import HANDS, PLAYERS, ScriptedSource, messages, noisy, post, to_reveal

from bluffcam.commands.serve import DataFolderInUse, lock_data_folder
from bluffcam.table import Table
from bluffcam.table.opening import JournalUnavailable, open_table
from bluffcam.table.vision_bridge import RevealReading
from engine import Journal, JournalError
from hardware.cameras import ResilientCamera
from web import create_app

#: the problem that sends a reading to review (one die the reader is unsure of)
UNSURE = {"kind": "uncertain", "seat": "Ann", "x": 1.0, "y": 1.0, "message": "Ann: die 0 unsure"}


def reading(*, sure: bool) -> RevealReading:
    """HANDS as the camera reads them: for sure (applied at once) or not (held for review)."""
    seats = {name: [{"value": v, "x": 10.0 * i, "y": 5.0, "confidence": 0.97}
                    for i, v in enumerate(values)] for name, values in HANDS.items()}
    problems = [] if sure else [dict(UNSURE)]
    return RevealReading(seats, {}, problems, not sure, b"\xff\xd8fake-jpeg\xff\xd9",
                         photo_jpeg=b"\xff\xd8fake-photo\xff\xd9")


class Reader:
    """A reveal reader giving the readings a test lines up, one per capture."""

    def __init__(self, *readings: RevealReading) -> None:
        self.readings = list(readings)

    def __call__(self, frames: Iterator[Any], expected: Any) -> RevealReading:
        return self.readings.pop(0)


def open_client(data_dir: Path, reader: Reader | None = None) -> tuple[Table, FlaskClient]:
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: noisy(60, n)))
    table = Table(data_dir / "journal.sqlite", camera=camera, data_dir=data_dir,
                  reveal_reader=reader or Reader())
    return table, create_app({"TESTING": True, "TABLE_PIN": PIN}, table=table).test_client()


def hold_a_review(data_dir: Path) -> str:
    """A game at its reveal with a camera reading waiting for review; the table is closed."""
    table, client = open_client(data_dir, Reader(reading(sure=False)))
    try:
        to_reveal(client)
        review = post(client, "/api/reveal/capture").json["review"]
        assert review is not None
        return str(review["id"])
    finally:
        table.close()


# ---------------------------------------------------------------- 1: one writer per folder


def test_a_second_serve_on_a_folder_in_use_exits_2_naming_it_and_the_first_plays_on(
    tmp_path: Path,
) -> None:
    first = Server(tmp_path).start()
    try:
        assert first.call("POST", "/api/game", PLAYERS)[0] == 200
        second = subprocess.run(
            [sys.executable, "-m", "bluffcam", "serve", "--data", str(tmp_path), "--host",
             "127.0.0.1", "--port", str(free_port()), "--pin", PIN, "--gpio", "none"],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2, second.stdout + second.stderr
        said = second.stderr.strip().splitlines()
        assert len(said) == 1 and str(tmp_path) in said[0], said
        assert first.process is not None and f"pid {first.process.pid}" in said[0]
        assert first.call("POST", "/api/action", {"player": "Ann", "bid": "2x3"})[0] == 200
    finally:
        first.kill()
    first.start()  # the lock went with the killed process: no stale lock after a crash
    try:
        assert first.state()["actions_count"] == 1
    finally:
        first.kill()


def test_the_data_folder_lock_is_exclusive_and_names_its_holder(tmp_path: Path) -> None:
    held = lock_data_folder(tmp_path)
    try:
        with pytest.raises(DataFolderInUse, match=rf"{tmp_path}.*pid {os.getpid()}"):
            lock_data_folder(tmp_path)
    finally:
        os.close(held)
    os.close(lock_data_folder(tmp_path))  # let go: the next server takes it


def test_a_table_refuses_to_write_a_game_another_writer_moved_on(data_dir: Path) -> None:
    """Without serve's lock (another tool, a test): the stale writer gets a 503 that changed
    nothing, never an acknowledged action the next resume would not replay."""
    ours, client = open_client(data_dir)
    try:
        assert post(client, "/api/game", PLAYERS).status_code == 200
        assert post(client, "/api/action", {"player": "Ann", "bid": "2x3"}).status_code == 200
        other = Table(data_dir / "journal.sqlite", data_dir=data_dir)  # resumes that game
        other.submit({"player": "Ben", "bid": "2x4"})
        before = client.get("/api/game/export").json
        for path, body in (("/api/action", {"player": "Ben", "bid": "2x5"}), ("/api/undo", None)):
            response = post(client, path, body)
            assert response.status_code == 503, response.json
            assert "another program changed game 1" in response.json["error"]["message"]
            assert client.get("/api/game/export").json == before
        with Journal(data_dir / "journal.sqlite") as journal:
            loaded = journal.load()
        assert loaded is not None and [a["bid"] for a in loaded[1]] == ["2x3", "2x4"]
        other.new_game(PLAYERS)
        other.close()
        response = post(client, "/api/action", {"player": "Ben", "bid": "2x5"})
        assert response.status_code == 503
        assert "another program started game 2" in response.json["error"]["message"]
    finally:
        ours.close()


def test_a_journal_refuses_appends_after_another_writer_changed_its_game(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as stale:
        stale.start({"game": "bluff", "players": ["Ann", "Ben"]})
        with Journal(path) as other:
            other.append({"player": "Ann", "bid": "2x3"})
            with pytest.raises(JournalError, match="another program changed game 1"):
                stale.append({"player": "Ann", "bid": "2x4"})
            with pytest.raises(JournalError, match="another program changed game 1"):
                stale.drop_last()
            other.start({"game": "bluff", "players": ["Cho", "Dee"]})
            with pytest.raises(JournalError, match="another program started game 2"):
                stale.append({"player": "Ben", "bid": "2x4"})
            assert other.load() == ({"game": "bluff", "players": ["Cho", "Dee"]}, [])


# ---------------------------------------------------------------- 2: a damaged journal file


def _played_journal(data_dir: Path) -> Path:
    """A journal with a game of three actions, checkpointed into its main file."""
    table = Table(data_dir / "journal.sqlite", data_dir=data_dir)
    table.new_game(PLAYERS)
    for bid in ("2x3", "2x4", "2x5"):
        table.submit({"player": table.state()["game"]["turn"], "bid": bid})
    table.close()
    path = data_dir / "journal.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path


def _scribble_on_the_actions_page(path: Path) -> None:
    db = sqlite3.connect(path)
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'actions'").fetchone()
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size + 8)
        file.write(b"\xff" * 64)


def _cut_in_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


@pytest.mark.parametrize("damage", [_scribble_on_the_actions_page, _cut_in_half],
                         ids=["scribbled-page", "truncated"])
def test_a_journal_damaged_where_it_is_read_is_set_aside_and_the_table_starts(
    data_dir: Path, damage: Any
) -> None:
    path = _played_journal(data_dir)
    damage(path)
    with pytest.raises(JournalError, match="not a usable journal"), Journal(path) as journal:
        journal.load()
    table = open_table(data_dir, None, None)  # what serve does at every start
    try:
        state = table.state()
        assert state["game"] is None
        assert "not a usable journal" in messages(state) and "moved to" in messages(state)
        table.new_game(PLAYERS)
    finally:
        table.close()
    assert list(data_dir.glob("journal.sqlite.unusable-*"))  # kept for a look


def _full_disk_error() -> sqlite3.OperationalError:
    """SQLITE_FULL as SQLite itself raises it (a database past its page limit)."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute("PRAGMA max_page_count = 2")
        db.execute("CREATE TABLE t (x)")
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")
        raise AssertionError("no error")
    except sqlite3.OperationalError as exc:
        assert exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_FULL, exc
        return exc
    finally:
        db.close()


class _OnAFullDisk:
    """A connection to the journal whose first write-ahead log set-up finds the disk full
    (a tmpfs filled up, in the crash audit): everything else is SQLite's own."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("PRAGMA journal_mode"):
            raise _full_disk_error()
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


@pytest.mark.parametrize("fault", ["full", "locked"])
def test_a_journal_that_cannot_be_reached_now_is_left_in_place_and_the_start_refused(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """A full disk or another program's lock said "not a usable journal": the journal,
    whole, was moved aside and the table began on an empty one."""
    path = _played_journal(data_dir)
    before = path.read_bytes()
    connect = sqlite3.connect
    holder = None
    if fault == "full":
        monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: _OnAFullDisk(connect(*a, **k)))
    else:  # another program holds the journal; the table waits 0.2 s for it, not 10
        holder = connect(path, isolation_level=None)
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")  # as the crash audit's other program
        holder.execute("BEGIN EXCLUSIVE")

        def impatient(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            return connect(*args, **{**kwargs, "timeout": 0.2})

        monkeypatch.setattr(sqlite3, "connect", impatient)
    advice = "the disk is full" if fault == "full" else "another program holds it locked"
    try:
        with pytest.raises(JournalUnavailable, match=rf"cannot open the journal {path}.*{advice}"):
            open_table(data_dir, None, None)
    finally:
        if holder is not None:
            holder.close()
    assert path.read_bytes() == before
    assert not list(data_dir.glob("journal.sqlite.unusable-*"))


def test_a_journal_this_user_cannot_open_is_left_in_place_and_the_start_refused(
    data_dir: Path,
) -> None:
    """SQLite cannot open a folder as a database, as it cannot a file root left behind:
    nothing is moved aside and the start is refused saying whose the files must be."""
    (data_dir / "journal.sqlite").mkdir()
    with pytest.raises(JournalUnavailable, match="must belong to the user running bluffcam"):
        open_table(data_dir, None, None)
    assert (data_dir / "journal.sqlite").is_dir()
    assert not list(data_dir.glob("journal.sqlite.unusable-*"))


def test_serve_refuses_to_start_on_a_journal_it_cannot_open_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite").mkdir()
    started = subprocess.run(
        [sys.executable, "-m", "bluffcam", "serve", "--data", str(tmp_path), "--host",
         "127.0.0.1", "--port", str(free_port()), "--pin", PIN, "--gpio", "none",
         "--camera", "none"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert started.returncode == 2, started.stdout + started.stderr
    said = started.stderr.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("bluffcam serve: cannot open the journal"), said


def test_a_damaged_journal_that_cannot_be_set_aside_is_put_back_and_the_start_refused(
    data_dir: Path,
) -> None:
    path = _played_journal(data_dir)
    _cut_in_half(path)
    before = path.read_bytes()
    (data_dir / "reveals").rename(data_dir / "moved")
    (data_dir / "reveals").write_text("a file where the new table keeps its reveal records")
    with pytest.raises(JournalUnavailable, match="could not be set aside for a new journal"):
        open_table(data_dir, None, None)
    assert path.read_bytes() == before  # back where it was, as it was
    assert sorted(p.name for p in data_dir.glob("journal.sqlite*")) == ["journal.sqlite"]


def test_an_emptied_journal_is_said_on_the_board_until_the_next_game(data_dir: Path) -> None:
    path = _played_journal(data_dir)
    os.truncate(path, 0)
    table = open_table(data_dir, None, None)
    try:
        for n in range(8):  # the evening's other news does not push it out
            table.note(f"camera news {n}")
        state = table.state()
        said = [m for m in state["messages"] if "was empty (0 bytes)" in m["text"]]
        assert len(said) == 1 and said[0]["lasting"] is True, state["messages"]
        table.new_game(PLAYERS)
        assert "was empty" not in messages(table.state())
    finally:
        table.close()
    table = open_table(data_dir, None, None)  # the new journal, not empty: nothing said
    try:
        assert "was empty" not in messages(table.state())
    finally:
        table.close()


# ---------------------------------------------------------------- 3: a re-capture refused


def test_a_recapture_the_journal_refuses_keeps_the_review_it_was_to_replace(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, client = open_client(data_dir, Reader(reading(sure=False), reading(sure=True)))
    try:
        to_reveal(client)
        review = post(client, "/api/reveal/capture").json["review"]

        def locked(action: Any) -> int:
            raise sqlite3.OperationalError("database is locked")

        monkeypatch.setattr(table._journal, "append", locked)
        response = post(client, f"/api/reveals/{review['id']}/recapture")
        assert response.status_code == 503
        assert "nothing changed" in response.json["error"]["message"]
        state = client.get("/api/state").json
        assert state["review"] is not None and state["review"]["id"] == review["id"]
        assert state["actions_count"] == 2 and state["game"]["phase"] == "reveal"
        record = json.loads((data_dir / "reveals" / f"{review['id']}.json").read_text())
        assert record["status"] == "needs_review"
    finally:
        table.close()
    table, client = open_client(data_dir)  # and a restart finds it waiting
    try:
        assert client.get("/api/state").json["review"]["id"] == review["id"]
    finally:
        table.close()


# ---------------------------------------------------------------- 4: a journal started anew


def test_a_new_journal_never_adopts_the_review_of_the_journal_moved_aside(
    data_dir: Path,
) -> None:
    old_review = hold_a_review(data_dir)
    (data_dir / "journal.sqlite").write_bytes(b"scribbled over " * 400)
    for suffix in ("-wal", "-shm"):
        (data_dir / f"journal.sqlite{suffix}").unlink(missing_ok=True)
    table = open_table(data_dir, None, None)  # moved aside; game 1 of the new journal
    client = create_app({"TESTING": True, "TABLE_PIN": PIN}, table=table).test_client()
    try:
        to_reveal(client)  # the same players, challenged at the same point
        assert client.get("/api/state").json["review"] is None
    finally:
        table.close()
    table, client = open_client(data_dir)
    try:
        assert client.get("/api/state").json["review"] is None, "the old game's review is back"
    finally:
        table.close()
    record = json.loads((data_dir / "reveals" / f"{old_review}.json").read_text())
    assert record["journal"] and record["status"] == "needs_review"  # kept, as it was


def test_a_review_recorded_before_records_named_their_journal_still_resumes(
    data_dir: Path,
) -> None:
    review = hold_a_review(data_dir)
    path = data_dir / "reveals" / f"{review}.json"
    record = json.loads(path.read_text())
    record.pop("journal", None)
    path.write_text(json.dumps(record))
    table, client = open_client(data_dir)
    try:
        assert client.get("/api/state").json["review"]["id"] == review
    finally:
        table.close()


# ---------------------------------------------------------------- 5: a garbled setup


def test_a_garbled_setup_record_is_said_on_the_board(data_dir: Path) -> None:
    table, client = open_client(data_dir)
    to_reveal(client)
    table.close()
    db = sqlite3.connect(data_dir / "journal.sqlite")
    db.execute("UPDATE games SET setup = replace(setup, 'Ann', 'Anx')")  # the CRC no longer fits
    db.commit()
    db.close()
    table, client = open_client(data_dir)
    try:
        state = client.get("/api/state").json
        assert state["game"] is None
        assert "setup record is garbled" in messages(state) and "new game" in messages(state)
    finally:
        table.close()


# ---------------------------------------------------------------- 6: a torn reveal record


def _torn(path: Path) -> None:
    path.write_text(path.read_text()[:40])  # as by a power cut mid-write


def _first_die_set_to(value: Any) -> Any:
    """A record edited by hand (or by another program) into a die that is no value 1–6."""
    def edit(path: Path) -> None:
        record = json.loads(path.read_text())
        record["read"]["Ann"][0]["value"] = value
        path.write_text(json.dumps(record))
    return edit


DAMAGES = {"torn": _torn, "value a word": _first_die_set_to("x"),
           "value null": _first_die_set_to(None), "value 7": _first_die_set_to(7)}


def review_with_a_torn_record(data_dir: Path, damage: Any = _torn
                              ) -> tuple[Table, FlaskClient, str]:
    """A table holding a review whose record on disk was damaged."""
    table, client = open_client(data_dir, Reader(reading(sure=False)))
    to_reveal(client)
    review = post(client, "/api/reveal/capture").json["review"]["id"]
    damage(data_dir / "reveals" / f"{review}.json")
    return table, client, review


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_review_record_is_refused_as_json_and_named_on_the_board_after_a_restart(
    data_dir: Path, damage: Any
) -> None:
    table, client, review = review_with_a_torn_record(data_dir, damage)
    try:
        before = client.get("/api/game/export").json
        response = post(client, f"/api/reveals/{review}/confirm", {"seats": HANDS})
        assert response.status_code == 409, response.get_data(as_text=True)[:300]
        assert f"reveal {review}" in response.json["error"]["message"]
        assert client.get("/api/state").json["review"]["id"] == review
        assert client.get("/api/game/export").json == before
    finally:
        table.close()
    table, client = open_client(data_dir)
    try:
        said = messages(client.get("/api/state").json)
        assert f"reveal {review}: its record cannot be read" in said and "photo is kept" in said
        assert (data_dir / "reveals" / f"{review}.jpg").is_file()
        response = post(client, "/api/action", {"reveal": HANDS})  # by hand, the game goes on
        assert response.status_code == 200 and response.json["game"]["phase"] == "bidding"
    finally:
        table.close()


@pytest.mark.parametrize("damage", list(DAMAGES.values())[1:], ids=list(DAMAGES)[1:])
def test_an_applied_reveals_record_edited_into_nonsense_is_named_and_the_table_starts(
    data_dir: Path, damage: Any
) -> None:
    """The current game's last reveal is shown on the board at start: a die in its record
    that is no value made serve crash at every start (a loop under systemd)."""
    table, client = open_client(data_dir, Reader(reading(sure=True)))
    try:
        to_reveal(client)
        reveal = post(client, "/api/reveal/capture").json["last_reveal"]["id"]
    finally:
        table.close()
    damage(data_dir / "reveals" / f"{reveal}.json")
    table, client = open_client(data_dir)
    try:
        state = client.get("/api/state").json
        assert f"reveal {reveal}: its record cannot be read" in messages(state)
        assert state["game"]["phase"] == "bidding" and state["last_reveal"] is None
    finally:
        table.close()


def test_a_reveal_typed_in_by_hand_stands_when_its_review_record_is_torn(
    data_dir: Path,
) -> None:
    table, client, review = review_with_a_torn_record(data_dir)
    try:
        response = post(client, "/api/action", {"reveal": HANDS})  # journalled first
        assert response.status_code == 200, response.get_data(as_text=True)[:300]
        assert response.json["game"]["phase"] == "bidding" and response.json["review"] is None
        assert f"reveal {review}: its record cannot be read" in messages(response.json)
    finally:
        table.close()


def test_the_reveal_records_half_files_a_killed_writer_left_are_swept_at_start(
    data_dir: Path,
) -> None:
    from calibration.files import LEFTOVER_AGE_S

    folder = data_dir / "reveals"
    folder.mkdir()
    stale, fresh = folder / ".tmp-killed", folder / ".tmp-writing"
    for leftover in (stale, fresh):
        leftover.write_bytes(b"{\"id\": \"r")
    old = time.time() - LEFTOVER_AGE_S - 5
    os.utime(stale, (old, old))
    table = Table(data_dir / "journal.sqlite", data_dir=data_dir)
    try:
        assert not stale.exists() and fresh.exists()
        assert "cannot be read" not in messages(table.state())  # never taken for records
    finally:
        table.close()
