"""The dashboard state JSON (docs/api.md), derived from the engine's game and the table's extras.

Pure: takes values, returns a dict. The Table calls it under its lock; nothing here changes
anything, so the same state can be rebuilt any time (GET /api/state, every SSE event).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from bluffcam.round_story import round_story
from bluffcam.table_options import odds_shown
from engine import Game

#: the Bluff board's joker face when the options do not name one (B4)
DEFAULT_JOKER_FACE = 1


def build_state(
    *,
    version: int,
    setup: Mapping[str, Any] | None,
    game: Game | None,
    actions: list[dict[str, Any]],
    reveal_ids: Mapping[int, str],
    review: dict[str, Any] | None,
    photographed: Collection[str],
    table_seats: list[str] | None,
    last_reveal: dict[str, Any] | None,
    reopen: str | None = None,
    camera: dict[str, Any],
    evening: dict[str, Any] | None = None,
    evening_undo: bool = False,
    standings: dict[str, Any] | None = None,
    messages: list[dict[str, Any]],
    game_id: int | None = None,
) -> dict[str, Any]:
    state: dict[str, Any] = {
        "version": version,
        "setup": dict(setup) if setup is not None else None,
        "game": None,
        "bidder": None,
        "set_aside": {},
        "legal": {"kinds": [], "lowest_raises": []},
        "board": None,
        "odds": None,
        "history": [],
        "review": review,
        "last_reveal": last_reveal,
        "camera": camera,
        "messages": messages,
        "pin_required": True,
        # the calibration profile's seats, in order (null without a profile): where players
        # may sit ("seats" in a setup numbers them from 1)
        "table_seats": table_seats,
        "actions_count": len(actions),
        # the journal's number of this game: a new game with the same players and starter
        # looks like the old one's start in every other field (the panel's composed bid)
        "game_id": game_id,
        "undo": None,
        # the game's chosen variants in words ("6 dice each", "first to 5 points")
        "house_rules": [],
        # the camera reveal a player may still send back to review (the last round's, until
        # the next action): POST /api/reveals/<id>/reopen
        "reopen": reopen,
        # the evening's standings (`bluffcam.evening.standings`): games ended tonight and each
        # player's wins (and Impus Bluff losses); null before the first game ends
        "evening": evening,
        # whether "New evening" can still be undone (POST /api/evening/undo)
        "evening_undo": evening_undo,
        # tonight's table and each game kind's Elo rating across evenings (bluffcam/standings.py)
        "standings": standings,
        # this round's bids, passes and doubt, in order (`bluffcam.round_story`)
        "story": None,
    }
    if game is None:
        return state
    state["story"] = round_story(actions)
    details = game.details()
    state["game"] = game.to_json()
    state["house_rules"] = game.house_rules()
    state["house_rules_said"] = [rule.to_json() for rule in game.house_rules_said()]  # web i18n
    _add_losses(state["game"], game)
    state["bidder"] = details.get("bidder")
    state["set_aside"] = {str(k): list(v) for k, v in (details.get("set_aside") or {}).items() if v}
    state["legal"] = {
        "kinds": list(details.get("legal", [])),
        "lowest_raises": list(details.get("lowest_raises", [])),
        "expected_reveal": details.get("expected_reveal", {}),
    }
    state["history"] = _history(details.get("history", []), actions, reveal_ids, photographed)
    if game.kind == "bluff":
        state["board"] = _board(game)
    # a table may keep the odds off the screens (bluffcam/table_options.py)
    state["odds_shown"] = odds_shown(setup)
    state["odds"] = _odds(game, details.get("odds")) if state["odds_shown"] else None
    _complete_last_reveal(state)
    if actions and (len(actions) - 1) not in reveal_ids:  # a camera reveal is reopened instead
        state["undo"] = actions[-1]
    for key, value in details.items():
        if key not in ("legal", "lowest_raises", "expected_reveal", "history", "odds"):
            state.setdefault("details", {})[key] = value
    return state


def _add_losses(game_json: dict[str, Any], game: Game) -> None:
    """Dice lost this game, when the engine reports starting dice (Bluff)."""
    start = getattr(game, "start_dice", None)
    if not isinstance(start, int):
        return
    for player in game_json.get("players", []):
        if "lost" not in player and "dice" in player:
            player["lost"] = start - int(player["dice"])


def _history(
    entries: list[dict[str, Any]], actions: list[dict[str, Any]], reveal_ids: Mapping[int, str],
    photographed: Collection[str],
) -> list[dict[str, Any]]:
    """Each finished round plus the id of the reveal that settled it and, where its photo
    was kept, the photo's address: every round's evidence, not only the last one's."""
    reveal_order = [reveal_ids.get(i) for i, a in enumerate(actions) if "reveal" in a]
    out = []
    for number, entry in enumerate(entries, start=1):
        item = dict(entry)
        item.setdefault("round", number)
        reveal_id = reveal_order[number - 1] if number - 1 < len(reveal_order) else None
        item.setdefault("reveal_id", reveal_id)
        if reveal_id is not None and reveal_id in photographed:
            item["image_url"] = f"/api/reveals/{reveal_id}/image"
        out.append(item)
    return out


def _complete_last_reveal(state: dict[str, Any]) -> None:
    """Add the count and the verdict of the round the last reveal settled."""
    last = state.get("last_reveal")
    if not last:
        return
    for entry in state["history"]:
        if entry.get("reveal_id") == last.get("id"):
            state["last_reveal"] = {**last, "count": entry.get("actual"),
                                    "verdict": entry.get("verdict"), "bid": entry.get("bid"),
                                    "round": entry.get("round")}
            return


def joker_face(game: Game) -> int:
    face = game.options_json.get("joker_face", DEFAULT_JOKER_FACE)
    return face if face in (1, 6) else DEFAULT_JOKER_FACE


def _dice_in_play(game: Game) -> int:
    return sum(int(p.get("dice", 0)) for p in game.to_json().get("players", []))


def _board(game: Game) -> dict[str, Any]:
    """The B6 bid ladder up to every die in play: what the board page draws."""
    joker = joker_face(game)
    faces = [f for f in range(1, 7) if f != joker]
    total = max(_dice_in_play(game), 1)
    track: list[str] = []
    for count in range(1, total + 1):
        track.extend(f"{count}x{face}" for face in faces)
        if count % 2 == 1:  # N★ sits right after the number bids of count 2N-1
            track.append(f"{(count + 1) // 2}*")
    return {"track": track, "joker_face": joker, "dice_in_play": total}


def _odds(game: Game, odds: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """How likely the current bid holds, from public information only (engine.odds, B17)."""
    if game.current_bid is None or not odds:
        return None
    return {
        "bid": str(game.current_bid),
        "probability": round(float(odds["probability"]), 4),
        "expected": round(float(odds["expected"]), 2),
    }


__all__ = ["build_state", "joker_face"]
