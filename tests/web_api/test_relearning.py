"""`serve` learns its table again by itself (`bluffcam.relearning`): after the Nth review a
person confirmed, not before, from the reveals' real photos (the committed renders), on a
thread of its own; a learning that fails keeps the profile the table had, and two never run
at once."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from web_api_helpers import StubCamera

from bluffcam.adaptation import adapt_profile
from bluffcam.learned_count import learned_from
from bluffcam.relearning import (
    STATE_FILE,
    TOPIC,
    Relearner,
    relearning_possible,
    start_relearning,
)
from bluffcam.table import Table, TableError
from bluffcam.table.reveal_records import RevealReading
from calibration import load_profile

DATA = Path(__file__).resolve().parents[1] / "data"
RENDERS = ("board", "cloth", "dark_wood", "felt", "paper", "wood")
WHOLE = "[[0, 0], [640, 0], [640, 480], [0, 480]]"
#: each render's 8 dice: Ann's first 4, Ben's last 4
SETUP = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
         "options": {"dice_per_player": 4}}
EVERY = 3
WAIT_S = 120.0


def render(name: str) -> tuple[bytes, list[dict[str, Any]]]:
    truth = DATA / "tables" / f"{name}.json"
    if not truth.is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    dice = json.loads(truth.read_text())["dice"]
    return (DATA / "tables" / f"{name}.jpg").read_bytes(), dice


class RenderReader:
    """Reads the next render as the reveal: its true dice, the first one doubtful (so the
    reveal goes to review), and the render itself as the unmarked photo."""

    def __init__(self) -> None:
        self.name = RENDERS[0]

    def __call__(self, frames: Iterator[Any], expected: Mapping[str, Any]) -> RevealReading:
        list(frames)
        photo, dice = render(self.name)
        read = [{"value": d["value"], "x": d["x"], "y": d["y"], "size": d["size_px"] * 1.27,
                 "confidence": 0.3 if k == 0 else 0.97} for k, d in enumerate(dice)]
        seats = {"Ann": read[:4], "Ben": read[4:]}
        problem = {"kind": "uncertain", "seat": "Ann", "x": read[0]["x"], "y": read[0]["y"],
                   "message": "Ann: die 0 uncertain"}
        return RevealReading(seats, {}, [problem], True, photo, [], 3, photo_jpeg=photo)


def write_profile(path: Path, size_px: float = 40.0) -> Path:
    path.write_text(f'name = "t"\n[camera]\nspec = "photo:"\nresolution = [640, 480]\n'
                    f'[table]\narea = {WHOLE}\n[[seats]]\nname = "Ann"\nzone = {WHOLE}\n'
                    f'[[seats]]\nname = "Ben"\nzone = [[0, 0], [1, 0], [1, 1], [0, 1]]\n'
                    f'[dice]\nsize_px = {size_px}\n')
    return path


@pytest.fixture
def profile_file(tmp_path: Path) -> Path:
    return write_profile(tmp_path / "table.toml")


@pytest.fixture
def reader() -> RenderReader:
    return RenderReader()


@pytest.fixture
def table(tmp_path: Path, profile_file: Path, reader: RenderReader) -> Iterator[Table]:
    t = Table(tmp_path / "data" / "journal.sqlite", camera=StubCamera(),
              profile=load_profile(profile_file), reveal_reader=reader)
    yield t
    t.close()


def relearner_for(table: Table, profile: Path, **kwargs: Any) -> Relearner:
    relearner = Relearner(table, profile, every=EVERY, retry_s=0.01, **kwargs)
    table.after_review.append(relearner.confirmed)
    return relearner


def confirm_a_review(table: Table, reader: RenderReader, name: str) -> str:
    """A new game to its reveal, read from render ``name``, confirmed with the dice's places
    (as the review page sends them)."""
    reader.name = name
    table.new_game(SETUP)
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})
    review = table.capture_reveal()["review"]
    assert review is not None
    seats = {seat: [{"value": d["value"], "x": d["x"], "y": d["y"]} for d in dice]
             for seat, dice in review["seats"].items()}
    table.confirm_review(review["id"], seats)
    return str(review["id"])


def board_notes(table: Table) -> list[dict[str, Any]]:
    return [m for m in table.state()["messages"] if m.get("topic") == TOPIC]


def test_the_table_learns_again_after_the_nth_confirmed_review_and_not_before(
        table: Table, reader: RenderReader, profile_file: Path) -> None:
    relearner = relearner_for(table, profile_file)
    before = table.profile
    for name in RENDERS[:EVERY - 1]:
        confirm_a_review(table, reader, name)
    assert not relearner.running and relearner.finished == 0
    assert relearner.since == EVERY - 1
    assert table.profile is before and "table_head" not in profile_file.read_text()

    confirm_a_review(table, reader, RENDERS[EVERY - 1])
    assert relearner.wait_idle(WAIT_S)
    assert relearner.installed == 1, relearner.last
    assert table.profile is not None and table.profile is not before
    assert table.profile.reader_params.table_head == str(profile_file.with_name(
        "table.adapt.npz"))
    assert learned_from(table.profile) == EVERY == table.state()["camera"]["learned_from"]
    learned = load_profile(profile_file)
    assert learned.reader["table_head"] == "table.adapt.npz"
    # the die size refined from the confirmed dice: the reader measures these renders' dice
    # at about 49 px (tests/vision/test_die_size.py), calibrated at 40
    assert learned.dice is not None and 44.0 <= learned.dice.size_px <= 58.0
    assert relearner.since == 0
    assert "learned this table again" in board_notes(table)[-1]["text"]
    assert not list(profile_file.parent.glob(".relearning-*"))  # its folders are gone


def test_the_count_since_the_last_learning_survives_a_restart(
        table: Table, reader: RenderReader, profile_file: Path) -> None:
    relearner = relearner_for(table, profile_file)
    confirm_a_review(table, reader, RENDERS[0])
    assert json.loads((table.data_dir / STATE_FILE).read_text()) == {"since": 1}
    assert Relearner(table, profile_file).since == 1
    assert relearner.finished == 0


def test_a_review_typed_in_by_hand_or_a_reveal_applied_at_once_is_not_counted(
        table: Table, reader: RenderReader, profile_file: Path) -> None:
    relearner = relearner_for(table, profile_file)
    reader.name = RENDERS[0]
    table.new_game(SETUP)
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})
    review = table.capture_reveal()["review"]
    table.submit({"reveal": {"Ann": [1, 2, 2, 6], "Ben": [2, 4, 1, 3]}})  # by hand
    relearner.confirmed(review["id"])  # even told of it, it does not count it
    assert relearner.since == 0


def test_a_failing_learning_keeps_the_old_profile_and_says_so(
        table: Table, reader: RenderReader, profile_file: Path) -> None:
    relearner = relearner_for(table, profile_file)
    before = table.profile
    for name in RENDERS[:EVERY - 1]:
        confirm_a_review(table, reader, name)
    # a person breaks the profile file on disk: the learning (which keeps its settings)
    # cannot read it
    broken = profile_file.read_text().replace('name = "t"', "name = ")
    profile_file.write_text(broken)
    confirm_a_review(table, reader, RENDERS[EVERY - 1])
    assert relearner.wait_idle(WAIT_S)
    assert relearner.failed == 1 and relearner.installed == 0
    assert "table.toml: not valid TOML" in relearner.last
    assert table.profile is before  # the table reads on by the profile it had
    assert profile_file.read_text() == broken
    assert not profile_file.with_name("table.adapt.npz").exists()
    note = board_notes(table)[-1]
    assert note["level"] == "warning" and "could not learn this table again" in note["text"]
    assert table.state()["game"]["phase"] != "reveal"  # the game went on as confirmed
    assert relearner.since == 0  # the next try comes after EVERY more


def test_two_learnings_never_run_at_once(
        table: Table, reader: RenderReader, profile_file: Path) -> None:
    entered, release = threading.Event(), threading.Event()
    running, most = [0], [0]
    lock = threading.Lock()

    def held_learning(*args: Any, **kwargs: Any) -> Any:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        entered.set()
        release.wait(WAIT_S)
        try:
            return adapt_profile(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    relearner = relearner_for(table, profile_file, learn=held_learning)
    for name in RENDERS[:EVERY]:
        confirm_a_review(table, reader, name)
    assert entered.wait(WAIT_S) and relearner.running
    for name in RENDERS[EVERY:2 * EVERY]:  # enough for another learning meanwhile
        confirm_a_review(table, reader, name)
    assert relearner.since == 2 * EVERY and relearner.finished == 0
    release.set()
    assert relearner.wait_idle(WAIT_S)
    # the confirmations made during the first learning started the second after it
    assert relearner.finished == 2 and relearner.installed == 2, relearner.last
    assert most[0] == 1
    assert learned_from(table.profile) == 2 * EVERY


def test_a_profile_learned_while_a_reveal_is_due_is_installed_once_it_is_settled(
        table: Table, reader: RenderReader, profile_file: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    entered, release, refused = threading.Event(), threading.Event(), threading.Event()

    def held_learning(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        release.wait(WAIT_S)
        return adapt_profile(*args, **kwargs)

    rewrite = table.rewrite_profile

    def watched_rewrite(write: Any) -> Any:
        try:
            return rewrite(write)
        except TableError:
            refused.set()
            raise

    monkeypatch.setattr(table, "rewrite_profile", watched_rewrite)
    relearner = relearner_for(table, profile_file, learn=held_learning)
    for name in RENDERS[:EVERY]:
        confirm_a_review(table, reader, name)
    assert entered.wait(WAIT_S)
    before = table.profile
    table.new_game(SETUP)
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})  # a reveal is due now
    release.set()
    assert refused.wait(WAIT_S)  # learned, and refused while the reveal is due
    assert table.profile is before and relearner.running
    table.submit({"reveal": {"Ann": [1, 2, 2, 6], "Ben": [2, 4, 1, 3]}})
    assert relearner.wait_idle(WAIT_S)
    assert relearner.installed == 1 and table.profile is not before


def test_relearning_is_possible_only_with_a_profile_file_it_may_write(
        tmp_path: Path, profile_file: Path) -> None:
    assert relearning_possible(None) == "no profile file"
    assert relearning_possible(load_profile(profile_file)) is None
    profile_file.chmod(0o444)
    try:
        if relearning_possible(load_profile(profile_file)) is None:
            pytest.skip("running as a user who may write a read-only file (root)")
        assert "may not be written" in str(relearning_possible(load_profile(profile_file)))
    finally:
        profile_file.chmod(0o644)


def test_a_relearner_refuses_a_count_below_one(table: Table, profile_file: Path) -> None:
    with pytest.raises(ValueError, match="every"):
        Relearner(table, profile_file, every=0)


def test_serve_relearns_where_wanted_and_possible(table: Table, profile_file: Path) -> None:
    import argparse

    from bluffcam.commands.serve import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--no-relearn"]).relearn is False
    assert parser.parse_args([]).relearn is True
    assert start_relearning(table, table.profile, wanted=False) is None
    assert start_relearning(table, None) is None
    assert table.after_review == []
    relearner = start_relearning(table, table.profile)
    assert relearner is not None and relearner.profile == profile_file
    assert table.after_review == [relearner.confirmed]


def test_a_learning_waits_while_the_camera_reads_and_stops_when_the_table_closes(
        table: Table, reader: RenderReader, profile_file: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    camera_reading = threading.Event()
    monkeypatch.setattr(Table, "camera_reading", property(lambda _: camera_reading.is_set()))
    paused, resumed = threading.Event(), threading.Event()

    def watched_learning(*args: Any, before_each: Any, **kwargs: Any) -> Any:
        paused.set()
        before_each()
        resumed.set()
        return adapt_profile(*args, before_each=before_each, **kwargs)

    relearner = relearner_for(table, profile_file, learn=watched_learning)
    camera_reading.set()  # as the relearner sees it: the stand-in reader ignores it
    for name in RENDERS[:EVERY]:
        confirm_a_review(table, reader, name)
    assert paused.wait(WAIT_S)
    assert not resumed.wait(0.2) and relearner.running
    camera_reading.clear()
    assert relearner.wait_idle(WAIT_S) and resumed.is_set()
    assert relearner.installed == 1

    before = table.profile
    camera_reading.set()
    for name in RENDERS[EVERY:2 * EVERY]:
        confirm_a_review(table, reader, name)
    relearner.close()
    assert relearner.wait_idle(WAIT_S)
    assert relearner.installed == 1 and "stopped" in relearner.last
    assert table.profile is before


def test_a_profile_installed_during_a_learning_sends_it_back_to_learn_from_that_one(
        table: Table, reader: RenderReader, profile_file: Path) -> None:
    entered, release = threading.Event(), threading.Event()
    bases: list[str] = []

    def held_learning(manifests: Any, out: Path, base: Path, **kwargs: Any) -> Any:
        bases.append(base.read_text())
        entered.set()
        release.wait(WAIT_S)
        return adapt_profile(manifests, out, base, **kwargs)

    relearner = relearner_for(table, profile_file, learn=held_learning)
    for name in RENDERS[:EVERY]:
        confirm_a_review(table, reader, name)
    assert entered.wait(WAIT_S)
    # the zones refitted meanwhile (as the calibration page does): a new profile file
    refitted = load_profile(write_profile(profile_file, size_px=45.0))
    table.set_profile(refitted)
    release.set()
    assert relearner.wait_idle(WAIT_S)
    assert relearner.finished == 2 and relearner.installed == 1, relearner.last
    assert "size_px = 45.0" in bases[1]  # learned again, from the refitted profile
    assert table.profile is not refitted and learned_from(table.profile) == EVERY
