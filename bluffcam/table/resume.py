"""What a table resumes at start: the journal's game replayed by the rules, and the reveal
records that belong to it (each round's photo, the last reveal, a review still waiting).

A Pi is switched off mid-game as often as not. Everything the players saw is rebuilt from
the journal and the reveal records, and anything that cannot be (a garbled setup, an action
the rules refuse now, a record that does not read) is said on the board, never a reason not
to start. Kept apart from `bluffcam.table`, which holds the game as it is played.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bluffcam.table.evening import stored_game
from bluffcam.table.reveal_records import (
    PendingReview,
    last_reveal_json,
    needs_a_look,
    review_from_record,
    unreadable_text,
)
from bluffcam.table.reveal_store import RevealStore
from engine import EngineError, Game, Journal, Phase, parse_action


@dataclass(frozen=True)
class Notice:
    """A message for the board: ``lasting`` ones stay until the next game."""

    text: str
    level: str
    lasting: bool = True
    review: str | None = None


@dataclass
class Resumed:
    """The table's game as it was left; all empty where there was none to resume."""

    setup: dict[str, Any] | None = None
    game: Game | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    #: the reveal record of each action that a reveal settled, by the action's index
    reveal_ids: dict[int, str] = field(default_factory=dict)
    last_reveal: dict[str, Any] | None = None
    review: PendingReview | None = None
    notices: list[Notice] = field(default_factory=list)


def resume(journal: Journal, reveals: RevealStore) -> Resumed:
    """The journal's current game, replayed up to the first action the rules refuse now
    (set aside in the journal), with its reveal records linked again."""
    found = Resumed()
    loaded = journal.load()
    if loaded is None:
        for warning in journal.warnings:  # a garbled setup: the game is lost to play
            found.notices.append(Notice(
                f"journal: {warning}; the game cannot be resumed (its records stay in the "
                "journal file): start a new game", "error"))
        return found
    setup, actions = loaded
    for warning in journal.warnings:
        found.notices.append(Notice(f"journal: {warning}", "warning"))
    try:
        game = stored_game(setup)
    except EngineError as exc:  # e.g. the rules changed in an update: start a new game
        found.notices.append(Notice(
            f"journal: the saved game no longer loads ({exc}); start a new game", "error"))
        return found
    kept = 0
    for action in actions:
        try:
            game.apply(parse_action(action))
        except EngineError as exc:  # readable, but the rules refuse it now
            found.notices.append(Notice(
                f"journal: action {kept + 1} no longer applies ({exc}); resuming after action "
                f"{kept}", "warning"))
            journal.set_aside(kept)
            break
        kept += 1
    found.setup, found.game, found.actions = setup, game, list(actions[:kept])
    _restore_reveals(found, journal, reveals)
    return found


def _restore_reveals(found: Resumed, journal: Journal, reveals: RevealStore) -> None:
    """Re-link reveal records (ids, last photo, a pending review) to the resumed game."""
    game_id = journal.game_id
    records: list[dict[str, Any]] = []
    unreadable: list[str] = []
    for reveal_id, record in reveals.newest_first():
        if record is None:
            unreadable.append(reveal_id)
        elif _older_than_the_game(record, game_id, journal.identity):
            break  # ids grow with time: every record from here on is older still
        else:
            records.append(record)
    if unreadable:
        found.notices.append(Notice(unreadable_text(unreadable[::-1]), "warning"))
    in_reveal = found.game is not None and found.game.phase == Phase.REVEAL
    for record in reversed(records):  # oldest first: the newest word on a round wins
        if record.get("setup") != found.setup or _of_another_journal(record, journal.identity):
            continue
        if record.get("game", game_id) != game_id:  # an earlier game with the same setup
            continue
        index = int(record.get("action_index", -1))
        status = record.get("status")
        # "applied" but not in the journal: the record was written, then the power went
        # before the journal took the reveal, so it never happened; a person looks again
        lost = status == "applied" and record.get("game") == game_id
        if status == "applied" and 0 <= index < len(found.actions):
            if found.actions[index] == record.get("action"):
                found.reveal_ids[index] = record["id"]
                found.last_reveal = last_reveal_json(record)
        elif (status == "needs_review" or lost) and index == len(found.actions) and in_reveal:
            found.review = review_from_record(record, index)
    if found.review is not None:  # said again, as when it was first held
        found.notices.append(Notice(needs_a_look(found.review.id), "warning", lasting=False,
                                    review=found.review.id))


def _older_than_the_game(record: Mapping[str, Any], game_id: int | None,
                         identity: str | None) -> bool:
    """Whether a reveal record was written before the current game began: for an earlier
    game of this journal, or beside a journal moved aside since (a damaged one: every
    record of this journal is newer). A record that names neither may be this game's."""
    game = record.get("game")
    earlier = isinstance(game, int) and game_id is not None and game < game_id
    return earlier or _of_another_journal(record, identity)


def _of_another_journal(record: Mapping[str, Any], identity: str | None) -> bool:
    """Whether a reveal record was written beside another journal (one moved aside since:
    a new journal numbers its games from 1 again). A record from before records named
    their journal, or a journal that could not be given an identity, matches any."""
    theirs = record.get("journal")
    return theirs is not None and identity is not None and theirs != identity
