"""Power cuts: `bluffcam serve` is SIGKILLed at random points (mid-request, mid-review) and
restarted; it must resume exactly at the journal's last acknowledged action.

An action the server acknowledged (HTTP 200) must be there after the restart; the one
request in flight when the plug was pulled may or may not be — never half of it. A record
torn on disk resumes to the last complete action and says so on the board.
"""

from __future__ import annotations

import http.client
import os
import random
import sqlite3
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from reliability_helpers import SETUP, Server, next_action, write_review_table

from engine import Game, Journal, action_to_json, parse_action

#: kill/restart rounds (bounded by ROUNDS_BUDGET_S as well, so a slow box still finishes)
ROUNDS = 14
ROUNDS_BUDGET_S = 40.0
CONNECTION_LOST = (OSError, http.client.HTTPException)


def canonical(action: dict[str, Any]) -> dict[str, Any]:
    """The form the journal stores (what an export lists)."""
    return dict(action_to_json(parse_action(action)))


class Player:
    """Plays legal actions through the API and remembers what the server acknowledged."""

    def __init__(self, server: Server, rng: random.Random) -> None:
        self.server = server
        self.rng = rng
        self.setup: dict[str, Any] | None = None
        self.acked: list[dict[str, Any]] = []  # canonical actions acknowledged in this game
        self.review: str | None = None  # pending review id, as last acknowledged
        self.version = 0
        self.in_flight: tuple[str, Any] | None = None
        self.acks = 0

    def step(self, state: dict[str, Any]) -> dict[str, Any]:
        """One request chosen from the state; raises a connection error when the server died."""
        game = state["game"]
        if game is None or game["phase"] == "over":
            return self._send("game", "/api/game", SETUP)
        if game["phase"] == "reveal" and state["review"] is None and self.rng.random() < 0.6:
            return self._send("capture", "/api/reveal/capture", None)
        if state["review"] is not None and self.rng.random() < 0.7:
            action = next_action(state, self.rng)
            assert action is not None
            review_id = state["review"]["id"]
            return self._send("confirm", f"/api/reveals/{review_id}/confirm",
                              {"seats": action["reveal"]})
        action = next_action(state, self.rng)
        assert action is not None
        return self._send("action", "/api/action", action)

    def _send(self, kind: str, path: str, body: Any) -> dict[str, Any]:
        self.in_flight = (kind, body)
        status, answer = self.server.call("POST", path, body)
        if kind == "capture" and status == 409 and answer["error"]["rule"] == "camera":
            # the recorded frames ran out: refused, the reveal still waits, no action taken
            self.in_flight = None
            answer = self.server.state()
            self.version = answer["version"]
            return answer
        assert status == 200, (kind, body, answer)
        self.in_flight = None
        self.acks += 1
        if kind == "game":
            self.setup, self.acked = dict(body), []
        elif kind == "action":
            self.acked.append(canonical(body))
        elif kind == "confirm":
            self.acked.append(canonical({"reveal": body["seats"]}))
        self.review = answer["review"]["id"] if answer["review"] else None
        self.version = answer["version"]
        result: dict[str, Any] = answer
        return result

    def check_resumed(self, state: dict[str, Any], export: dict[str, Any] | None,
                      journal: tuple[dict[str, Any], list[dict[str, Any]]] | None) -> None:
        """The restarted server shows the last acknowledged action (or that plus the one in
        flight, whole), exactly what the journal on disk holds, and a newer version."""
        assert state["version"] > self.version, "versions must grow across restarts"
        flight = self.in_flight
        if self.setup is None:
            if state["game"] is None:
                return
            # the first game was set up before the plug was pulled, unacknowledged
            assert flight is not None and flight[0] == "game", "a game nobody asked for"
            self.setup, self.acked = dict(flight[1]), []
        assert export is not None and journal is not None
        if flight is not None and flight[0] == "game" and export["players"] == SETUP["players"] \
                and export["actions"] == [] and self.acked:
            self.acked = []  # the new game landed before the plug was pulled
        actions = export["actions"]
        allowed = [self.acked]
        if flight is not None and flight[0] == "action":
            allowed.append(self.acked + [canonical(flight[1])])
        if flight is not None and flight[0] == "confirm":
            allowed.append(self.acked + [canonical({"reveal": flight[1]["seats"]})])
        assert actions in allowed, f"resumed {actions}, acknowledged {self.acked}, {flight=}"
        assert journal[1] == actions, "the server must resume exactly what the journal holds"
        replayed = Game.from_script(export).to_json()
        for key in ("phase", "turn", "bid", "winner"):
            assert state["game"][key] == replayed[key]
        assert [p["dice"] for p in state["game"]["players"]] == \
            [p["dice"] for p in replayed["players"]]
        assert state["actions_count"] == len(actions)
        if actions == self.acked and (flight is None or flight[0] != "capture"):
            resumed_review = state["review"]["id"] if state["review"] else None
            assert resumed_review == self.review, "a pending review must survive the cut"
        self.acked = list(actions)
        self.review = state["review"]["id"] if state["review"] else None
        self.in_flight = None


def journal_on_disk(data_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """What the dead server left in its journal, read by the engine alone."""
    with Journal(data_dir / "journal.sqlite") as journal:
        return journal.load()


@pytest.mark.slow
def test_sigkill_at_random_points_resumes_at_the_last_acknowledged_action(
    tmp_path: Path,
) -> None:
    seed = int(os.environ.get("BLUFFCAM_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    print(f"BLUFFCAM_SEED={seed} replays this run")
    profile, _ = write_review_table(tmp_path / "table")
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    server = Server(data_dir, "--profile", str(profile))
    player = Player(server, rng)
    kills_mid_request = kills_mid_review = rounds = 0
    started = time.monotonic()
    while rounds < ROUNDS and time.monotonic() - started < ROUNDS_BUDGET_S:
        rounds += 1
        server.start()
        state = server.state()
        export = server.call("GET", "/api/game/export", pin=None)[1] if state["game"] else None
        player.check_resumed(state, export, journal_on_disk(data_dir) if export else None)
        if rounds % 3 == 0:
            # pull the plug while a reveal waits for a person
            while state["review"] is None:
                state = player.step(state)
            server.kill()
            kills_mid_review += 1
            continue
        timer = threading.Timer(rng.uniform(0.01, 0.5), server.kill)
        timer.start()
        try:
            while True:
                state = player.step(state)
        except CONNECTION_LOST:
            kills_mid_request += player.in_flight is not None
        finally:
            timer.cancel()
            timer.join()
            server.kill()
    # one last restart: the game goes on from where the journal says
    server.start()
    try:
        state = server.state()
        export = server.call("GET", "/api/game/export", pin=None)[1] if state["game"] else None
        player.check_resumed(state, export, journal_on_disk(data_dir) if export else None)
        player.step(state)
    finally:
        server.kill()
    print(f"seed {seed}: {rounds} cuts, {kills_mid_request} mid-request, {kills_mid_review} "
          f"mid-review, {player.acks} acknowledged changes")
    assert kills_mid_review >= 1 and player.acks >= rounds


def _play(server: Server, count: int) -> list[dict[str, Any]]:
    rng = random.Random(count)
    assert server.call("POST", "/api/game", SETUP)[0] == 200
    state = server.state()
    sent = []
    for _ in range(count):
        action = next_action(state, rng)
        assert action is not None
        status, state = server.call("POST", "/api/action", action)
        assert status == 200, state
        sent.append(canonical(action))
    return sent


def test_a_torn_last_record_resumes_before_it_says_so_and_play_goes_on(tmp_path: Path) -> None:
    server = Server(tmp_path).start()
    try:
        sent = _play(server, 5)
    finally:
        server.kill()
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute("UPDATE actions SET body = substr(body, 1, 7) "
                "WHERE seq = (SELECT MAX(seq) FROM actions)")  # half a record made it to disk
    db.commit()
    db.close()
    server.start()
    try:
        state = server.state()
        assert state["actions_count"] == 4
        assert server.call("GET", "/api/game/export", pin=None)[1]["actions"] == sent[:4]
        warnings = [m["text"] for m in state["messages"] if m["level"] == "warning"]
        assert any("action 5 is garbled" in w and "resuming after action 4" in w
                   for w in warnings), state["messages"]
        again = next_action(state, random.Random(9))
        assert again is not None
        status, after = server.call("POST", "/api/action", again)
        assert status == 200, after
    finally:
        server.kill()
    server.start()  # the action taken after the torn one survives the next cut too
    try:
        assert server.call("GET", "/api/game/export", pin=None)[1]["actions"] == \
            sent[:4] + [canonical(again)]
    finally:
        server.kill()


def test_a_wal_cut_mid_frame_resumes_at_the_last_whole_commit(tmp_path: Path) -> None:
    """A commit whose WAL frame was cut never returned, so it was never acknowledged."""
    server = Server(tmp_path).start()
    try:
        sent = _play(server, 6)
    finally:
        server.kill()
    wal = tmp_path / "journal.sqlite-wal"
    size = wal.stat().st_size
    assert size > 0, "the journal's recent commits live in the WAL until a checkpoint"
    with wal.open("r+b") as handle:
        handle.truncate(size - 1000)  # the last frame (a 4 KiB page) is cut short
    server.start()
    try:
        actions = server.call("GET", "/api/game/export", pin=None)[1]["actions"]
        assert actions == sent[: len(actions)] and len(actions) == len(sent) - 1
    finally:
        server.kill()


def test_a_journal_that_is_not_a_database_is_set_aside_and_the_table_starts(
    tmp_path: Path,
) -> None:
    (tmp_path / "journal.sqlite").write_bytes(b"scribbled over " * 400)
    server = Server(tmp_path).start()
    try:
        state = server.state()
        assert state["game"] is None
        assert any("not a usable journal" in m["text"] and "moved to" in m["text"]
                   for m in state["messages"]), state["messages"]
        assert server.call("POST", "/api/game", SETUP)[0] == 200
    finally:
        server.kill()
    kept = list(tmp_path.glob("journal.sqlite.unusable-*"))
    assert kept and kept[0].read_bytes().startswith(b"scribbled over")
    server.start()  # and the new journal resumes as usual
    try:
        assert server.state()["game"] is not None
    finally:
        server.kill()


def test_an_action_the_rules_no_longer_accept_resumes_before_it_and_says_so(
    tmp_path: Path,
) -> None:
    """E.g. after an update changed a rule: the table starts, it does not crash-loop."""
    server = Server(tmp_path).start()
    try:
        sent = _play(server, 3)
    finally:
        server.kill()
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    body = '{"bid":"1x2","player":"Nobody"}'
    db.execute("INSERT INTO actions (game_id, seq, body, crc) VALUES "
               "((SELECT MAX(id) FROM games), 4, ?, ?)", (body, zlib.crc32(body.encode())))
    db.commit()
    db.close()
    server.start()
    try:
        state = server.state()
        assert state["actions_count"] == 3
        assert any("action 4 no longer applies" in m["text"] for m in state["messages"])
        again = next_action(state, random.Random(4))
        assert again is not None and server.call("POST", "/api/action", again)[0] == 200
    finally:
        server.kill()
    server.start()
    try:
        assert server.call("GET", "/api/game/export", pin=None)[1]["actions"] == \
            sent + [canonical(again)]
    finally:
        server.kill()


class PowerCut(BaseException):
    """The process dies here: nothing after this line runs."""


def test_a_cut_between_the_reveal_record_and_its_journal_entry_keeps_the_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reveal record is written (fsynced) just before the journal commit; dying between
    the two must leave the review waiting, not lost."""
    from bluffcam.table import Table
    from calibration import load_profile
    from hardware.cameras import open_camera

    profile_path, frames = write_review_table(tmp_path / "table")
    profile = load_profile(profile_path)
    data_dir = tmp_path / "data"
    table = Table(data_dir / "journal.sqlite", open_camera(f"files:{frames}"), profile,
                  data_dir=data_dir)
    table.new_game({"game": "bluff", "players": ["West", "East"], "starter": "West"})
    table.submit({"player": "West", "bid": "2x3"})
    table.submit({"player": "East", "challenge": True})
    review = table.capture_reveal()["review"]
    assert review is not None

    def die(self: Any, action: Any) -> int:
        raise PowerCut

    monkeypatch.setattr(Journal, "append", die)
    with pytest.raises(PowerCut):
        table.confirm_review(review["id"], {"West": [1, 2, 3, 4, 5], "East": [6, 6, 5, 4, 3]})
    monkeypatch.undo()
    table.close()
    resumed = Table(data_dir / "journal.sqlite", None, profile, data_dir=data_dir)
    try:
        state = resumed.state()
        assert state["actions_count"] == 2 and state["game"]["phase"] == "reveal"
        assert state["review"] is not None and state["review"]["id"] == review["id"]
        after = resumed.confirm_review(review["id"], {"West": [1, 2, 3, 4, 5],
                                                      "East": [6, 6, 5, 4, 3]})
        assert after["game"]["phase"] == "bidding"
    finally:
        resumed.close()
