"""The reveal photos of a table left running for months: the oldest go past a budget or when
the disk is nearly full, never those on show, and the board says when space runs out."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, StubReader, play_to_reveal, post

from bluffcam import photo_budget
from bluffcam.commands.serve import keep_photos
from bluffcam.photo_budget import MIN_FREE_BYTES, prune_photos
from bluffcam.table import Table

PHOTO = 1000  # bytes of each of a reveal's two photos in these tests


def _reveals(folder: Path, numbers: range) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in numbers:
        (folder / f"r{n}.jpg").write_bytes(b"m" * PHOTO)
        (folder / f"r{n}.photo.jpg").write_bytes(b"u" * PHOTO)
        (folder / f"r{n}.json").write_text("{}")


def _with_photos(folder: Path) -> list[int]:
    return sorted(int(p.name[1:-4]) for p in folder.glob("r*.jpg")
                  if not p.name.endswith(".photo.jpg")
                  and (folder / p.name.replace(".jpg", ".photo.jpg")).is_file())


def _roomy(folder: Path) -> int:
    return MIN_FREE_BYTES * 10


def _watch_until_room_again(table: Table) -> None:
    """Run serve's photo watch, a look every 5 ms, until the board says there is room again
    (5 s at most)."""
    stop = threading.Event()
    watch = threading.Thread(target=keep_photos, args=(table, 10**9, stop, 0.005))
    watch.start()
    try:
        for _ in range(1000):
            if any("room again" in m["text"] for m in table.state()["messages"]):
                break
            threading.Event().wait(0.005)
    finally:
        stop.set()
        watch.join(5)


def test_the_oldest_photos_go_first_past_the_budget_and_the_records_stay(tmp_path: Path) -> None:
    _reveals(tmp_path, range(1, 11))
    (tmp_path / "journal.sqlite").write_bytes(b"j" * 50_000)  # not a photo: never counted
    pruned = prune_photos(tmp_path, 5 * 2 * PHOTO, {"r2"}, free=_roomy)
    assert _with_photos(tmp_path) == [2, 7, 8, 9, 10]  # r2 is on show
    assert (pruned.removed, pruned.freed, pruned.kept) == (10, 10 * PHOTO, 10 * PHOTO)
    assert len(list(tmp_path.glob("r*.json"))) == 10 and (tmp_path / "journal.sqlite").exists()
    assert prune_photos(tmp_path, 5 * 2 * PHOTO, {"r2"}, free=_roomy).removed == 0


def test_the_newest_reveal_keeps_its_photos_under_any_budget(tmp_path: Path) -> None:
    """It may be a capture whose record is being written."""
    _reveals(tmp_path, range(1, 4))
    prune_photos(tmp_path, 0, set(), free=_roomy)
    assert _with_photos(tmp_path) == [3]


def test_a_nearly_full_disk_takes_old_photos_within_the_budget(tmp_path: Path) -> None:
    _reveals(tmp_path, range(1, 9))

    def free(folder: Path) -> int:  # a disk 5,000 bytes short, with the photos on it
        return MIN_FREE_BYTES - 5000 - sum(p.stat().st_size for p in folder.glob("r*.jpg")) \
            + 16 * PHOTO

    pruned = prune_photos(tmp_path, 10**9, set(), free=free)
    assert _with_photos(tmp_path) == [4, 5, 6, 7, 8]  # three reveals: 6,000 bytes
    assert pruned.free == MIN_FREE_BYTES + 1000 and not pruned.short_of_space


def test_a_disk_full_of_photos_on_show_is_short_of_space(tmp_path: Path) -> None:
    _reveals(tmp_path, range(1, 4))
    pruned = prune_photos(tmp_path, 0, {"r1", "r2"}, free=lambda folder: 120 * 1_000_000)
    assert pruned.removed == 0 and pruned.short_of_space
    assert "only 120 MB free" in photo_budget.low_space_text(pruned)


def test_the_photos_on_show_are_the_games_its_review_and_the_last_reveal(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Ann", 1)}
    review = post(client, "/api/reveal/capture").json["review"]["id"]
    assert table.reveals_in_use() == {review}
    post(client, f"/api/reveals/{review}/confirm", {"seats": HANDS})
    assert table.reveals_in_use() == {review}  # in the history and the last-reveal panel
    post(client, "/api/game", {"game": "bluff", "players": ["Ann", "Ben"]})
    assert table.reveals_in_use() == set()


def test_serve_removes_old_photos_and_says_when_the_disk_is_nearly_full(
        table: Table, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _reveals(table.reveals.folder, range(1, 6))
    stop = threading.Event()
    stop.set()  # one pass, then return
    monkeypatch.setattr(photo_budget, "free_bytes", _roomy)
    keep_photos(table, 2 * 2 * PHOTO, stop)
    assert _with_photos(table.reveals.folder) == [4, 5]
    said = capsys.readouterr().out
    assert "reveal photos: 0 MB kept of 0 MB, 6 old ones removed (0 MB)" in said
    assert f"; {MIN_FREE_BYTES * 10 // 1_000_000:,} MB free on the disk" in said
    assert table.state()["messages"] == []

    spaces = iter([200, 200, 200, 200, 900])  # MB free as measured: short, then room

    def free(folder: Path) -> int:
        return next(spaces, 900) * 1_000_000

    monkeypatch.setattr(photo_budget, "free_bytes", free)
    _watch_until_room_again(table)
    said = [(m["level"], m["text"]) for m in table.state()["messages"]]
    assert len(said) == 2, said  # said once while short, and once when there is room
    assert said[0][0] == "warning" and "only 200 MB free" in said[0][1]
    assert said[1] == ("info", "the data folder's disk has room again")


@pytest.mark.parametrize("bad", ["-1", "lots", "1.5"])
def test_a_photo_budget_that_is_not_megabytes_is_refused_by_name(bad: str) -> None:
    done = subprocess.run([sys.executable, "-m", "bluffcam", "serve", "--keep-photos", bad],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--keep-photos: must be a whole number of megabytes" in done.stderr


def test_a_disk_that_stays_full_is_said_again_and_one_at_the_line_is_not_news(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board shows a message for two minutes: a disk that stays nearly full is said
    again every ten looks, and "room again" waits for 100 MB over the line."""
    spaces = iter([200] * 12 + [550] * 3 + [650])  # MB free at each look (no photos here)
    monkeypatch.setattr(photo_budget, "free_bytes",
                        lambda folder: next(spaces, 650) * 1_000_000)
    _watch_until_room_again(table)
    said = [m["level"] for m in table.state()["messages"]]
    assert said == ["warning", "warning", "info"]  # looks 1 and 11, then at 650 MB


def test_a_pass_under_a_budget_of_nothing_keeps_every_photo_the_dashboard_shows(
        client: FlaskClient, reader: StubReader, table: Table,
        monkeypatch: pytest.MonkeyPatch) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    earlier = post(client, "/api/reveal/capture").json["last_reveal"]["id"]  # game 1
    play_to_reveal(client)  # game 2: its first reveal applied, its second to review
    state = post(client, "/api/reveal/capture").json
    shown = state["last_reveal"]["id"]
    bidder = state["game"]["turn"]
    assert post(client, "/api/action", {"player": bidder, "bid": "1x2"}).status_code == 200
    doubter = client.get("/api/state").json["game"]["turn"]
    assert post(client, "/api/action", {"player": doubter, "challenge": True}).status_code == 200
    reader.uncertain = {("Ann", 0)}
    review = post(client, "/api/reveal/capture").json["review"]["id"]
    stop = threading.Event()
    stop.set()
    monkeypatch.setattr(photo_budget, "free_bytes", _roomy)
    keep_photos(table, 0, stop)
    for reveal_id in (shown, review):
        for kind in ("image", "photo"):
            assert client.get(f"/api/reveals/{reveal_id}/{kind}").status_code == 200
    assert client.get(f"/api/reveals/{earlier}/image").status_code == 404
    assert table.reveals.load(earlier)["id"] == earlier  # its record stays
