"""Many phones pressing at once: one serial history, each action applied once or refused,
and a board that sees every change in order (versions strictly increasing, no gaps)."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from reliability_helpers import PIN, EventReader, Server, next_action

from bluffcam.table import Table
from bluffcam.table.news import SUBSCRIBER_BACKLOG
from engine import Game, Journal, action_to_json, parse_action

SETUP = {"game": "bluff", "players": ["Ann", "Ben", "Cho", "Dee"], "starter": "Ann",
         "options": {"dice_per_player": 10}}
#: a challenge now and then: long rounds of raises, so the game outlasts the test
CHALLENGE_P = 0.08
THREADS = 8
TRIES_PER_THREAD = 30


def canonical(action: dict[str, Any]) -> dict[str, Any]:
    return dict(action_to_json(parse_action(action)))


class Outcome:
    """What every client saw, shared by the posting threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.accepted: list[tuple[int, dict[str, Any]]] = []  # (actions_count, action)
        self.refused: list[tuple[int, dict[str, Any], Any]] = []
        self.failures: list[str] = []

    def record(self, status: int, action: dict[str, Any], answer: Any) -> None:
        with self.lock:
            if status == 200:
                self.accepted.append((answer["actions_count"], action))
            elif status in (400, 409) and answer["error"]["message"]:
                self.refused.append((status, action, answer["error"]))
            else:
                self.failures.append(f"{status}: {action} -> {answer}")


def check_serial_history(outcome: Outcome, export: dict[str, Any],
                         journal_path: Path, final_state: dict[str, Any]) -> None:
    assert not outcome.failures, outcome.failures[:3]
    actions = export["actions"]
    positions = sorted(count for count, _ in outcome.accepted)
    assert positions == list(range(1, len(actions) + 1)), "each action applied exactly once"
    for count, action in outcome.accepted:
        assert actions[count - 1] == canonical(action), "the acknowledged action is at its place"
    with Journal(journal_path) as journal:
        loaded = journal.load()
    assert loaded is not None and loaded[1] == actions, "the journal holds the same history"
    replayed = Game.from_script(export).to_json()
    for key in ("phase", "turn", "bid", "winner"):
        assert final_state["game"][key] == replayed[key]
    assert outcome.refused, "with everyone pressing at once, some presses must be refused"
    print(f"{len(outcome.accepted)} accepted, {len(outcome.refused)} refused, "
          f"final phase {final_state['game']['phase']}")


def check_events_in_order(versions: list[int], counts: list[int], accepted: int) -> None:
    """Every change arrives, in order: versions step by exactly one, as does the history."""
    assert len(versions) == accepted + 1, f"{len(versions)} events for {accepted} changes"
    assert all(b == a + 1 for a, b in zip(versions, versions[1:], strict=False)), versions
    assert all(b == a + 1 for a, b in zip(counts, counts[1:], strict=False)), counts


def test_many_clients_at_once_get_one_serial_history_and_the_board_sees_it_all(
    app: Flask, table: Table, data_dir: Path
) -> None:
    setup_client = app.test_client()
    assert setup_client.post("/api/game", json=SETUP,
                             headers={"X-Table-PIN": PIN}).status_code == 200
    stream = app.test_client().get("/api/events", buffered=False)
    seen: list[dict[str, Any]] = []
    done = threading.Event()

    def watch() -> None:
        for chunk in stream.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            for line in text.splitlines():
                if line.startswith("data: "):
                    seen.append(json.loads(line[6:]))
            if done.is_set() and seen and seen[-1]["version"] >= final_version[0]:
                return

    final_version = [1 << 62]
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    outcome = Outcome()
    start = threading.Barrier(THREADS)

    def press(seed: int) -> None:
        rng = random.Random(seed)
        client = app.test_client()
        start.wait()
        for _ in range(TRIES_PER_THREAD):
            action = next_action(client.get("/api/state").json, rng, CHALLENGE_P)
            if action is None:
                return
            response = client.post("/api/action", json=action, headers={"X-Table-PIN": PIN},
                                   environ_base={"REMOTE_ADDR": f"10.0.0.{seed + 10}"})
            outcome.record(response.status_code, action, response.json)

    threads = [threading.Thread(target=press, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    final = setup_client.get("/api/state").json
    final_version[0] = final["version"]
    done.set()
    table.note("done")  # one more event wakes the stream so the watcher can finish
    watcher.join(timeout=20)
    stream.close()
    assert not watcher.is_alive()

    check_serial_history(outcome, setup_client.get("/api/game/export").json,
                         data_dir / "journal.sqlite", final)
    events = [s for s in seen if s["version"] <= final["version"]]
    check_events_in_order([s["version"] for s in events], [s["actions_count"] for s in events],
                          len(outcome.accepted))
    assert events[-1]["game"] == final["game"]


@pytest.mark.slow
def test_real_server_under_concurrent_posts_keeps_every_board_in_step(tmp_path: Path) -> None:
    server = Server(tmp_path).start()
    try:
        assert server.call("POST", "/api/game", SETUP)[0] == 200
        boards = [EventReader(server.port) for _ in range(5)]
        for board in boards:
            board.start()
        outcome = Outcome()

        def press(seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(TRIES_PER_THREAD):
                action = next_action(server.state(), rng, CHALLENGE_P)
                if action is None:
                    return
                status, answer = server.call("POST", "/api/action", action)
                outcome.record(status, action, answer)

        threads = [threading.Thread(target=press, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        final = server.state()
        export = server.call("GET", "/api/game/export", pin=None)[1]
        for board in boards:  # let the last event reach every board
            for _ in range(200):
                if board.events and board.events[-1][0] >= final["version"]:
                    break
                threading.Event().wait(0.02)
            board.close()
    finally:
        server.kill()
    check_serial_history(outcome, export, tmp_path / "journal.sqlite", final)
    for board in boards:
        assert board.error is None, board.error
        check_events_in_order([v for v, _, _ in board.events], [c for _, c, _ in board.events],
                              len(outcome.accepted))


def test_a_stalled_board_skips_to_the_newest_state_and_never_blocks_the_table(
    table: Table,
) -> None:
    """Each event is the whole state, so a board that fell far behind needs only the newest."""
    table.new_game(SETUP)
    stalled = table.subscribe()
    rng = random.Random(3)
    for _ in range(SUBSCRIBER_BACKLOG * 2):  # the table never waits for the stalled board
        action = next_action(table.state(), rng, CHALLENGE_P)
        assert action is not None
        table.submit(action)
    queued = []
    while not stalled.empty():
        queued.append(json.loads(stalled.get_nowait()))
    versions = [state["version"] for state in queued]
    assert len(queued) <= SUBSCRIBER_BACKLOG
    assert versions == sorted(set(versions)), "what it gets is still in order"
    assert queued[-1]["version"] == table.version and queued[-1] == table.state()
    table.unsubscribe(stalled)


def test_the_camera_is_said_to_read_until_the_last_of_two_overlapping_readings_ends(
        tmp_path: Path) -> None:
    """A re-roll's set-aside read and a capture may overlap on the one reading thread: the
    first to end took "Reading the dice…" down while the second still waited or read."""
    table = Table(tmp_path / "journal.sqlite")
    first_in, first_out = threading.Event(), threading.Event()
    second_out = threading.Event()

    def first() -> None:
        first_in.set()
        assert first_out.wait(10)

    def second() -> None:
        assert second_out.wait(10)

    one = threading.Thread(target=table.on_reading_thread, args=(first,))
    one.start()
    assert first_in.wait(10)
    before = table.version
    two = threading.Thread(target=table.on_reading_thread, args=(second,))
    two.start()  # waits for the reading thread behind the first, then reads
    waited = threading.Event()
    while table.version == before and not waited.wait(0.01):  # the second is counted in
        pass
    first_out.set()
    one.join(10)
    assert table.camera_reading and table.state()["camera"]["reading"] is True
    second_out.set()
    two.join(10)
    assert not table.camera_reading and table.state()["camera"]["reading"] is False
    table.close()


def test_a_reading_under_way_takes_no_frame_once_the_table_is_closed(tmp_path: Path) -> None:
    """`serve` stops the table, then the camera: a reading under way must not pull another
    frame, which opened a closed camera again as the process ended."""

    class CountingCamera:
        pulled = 0

        def frames(self) -> Any:
            while True:
                CountingCamera.pulled += 1
                yield CountingCamera.pulled

    table = Table(tmp_path / "journal.sqlite", camera=CountingCamera())
    frames = table.camera_frames()
    assert [next(frames), next(frames)] == [1, 2]
    table.close()
    assert list(frames) == []
    assert CountingCamera.pulled == 2
