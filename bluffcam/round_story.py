"""The round's story: who bid what this round, as the board lists it beside the bid.

Players ask "what did she bid?" all evening; the engine keeps only the standing bid. This
module reads the accepted actions (the journal's action JSON, `engine.action_to_json`) and
returns the round's steps as data, no words: the pages say them (and may say them in
another language).

Pure: actions in, a dict out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: the step kinds a story holds; any other action (Impus's) is a step of its own key
BID, RAISE_REROLL, PASS, CHALLENGE, SCAM, REVEAL = (
    "bid", "raise_reroll", "pass", "challenge", "scam", "reveal")


def _step(action: dict[str, Any]) -> dict[str, Any]:
    """One accepted action as a story step."""
    player = action.get("player")
    if "bid" in action:
        aside = [int(face) for face in action.get("set_aside") or []]
        step: dict[str, Any] = {"kind": RAISE_REROLL if aside else BID, "player": player,
                                "bid": str(action["bid"])}
        if aside:
            step["set_aside"] = aside
        return step
    if action.get("pass") is True:
        return {"kind": PASS, "player": player}
    if action.get("challenge") is True:
        return {"kind": CHALLENGE, "player": player}
    if action.get("scam") is True:
        return {"kind": SCAM, "player": player}
    if "reveal" in action:
        return {"kind": REVEAL}
    key = next((k for k in action if k != "player"), "action")
    return {"kind": key, "player": player, "value": action.get(key)}


def round_story(actions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The steps of the round under way: every action since the last reveal.

    Where the round under way has no step yet (a reveal just settled one), the story is the
    round before it, reveal included, marked ``"settled": True``, so the board still answers
    "what was bid?" while the verdict is read. ``number`` counts rounds from 1.
    """
    reveals = [i for i, action in enumerate(actions) if "reveal" in action]
    start = reveals[-1] + 1 if reveals else 0
    settled = start == len(actions) and bool(reveals)
    if settled:
        start = reveals[-2] + 1 if len(reveals) > 1 else 0
    number = len(reveals) + (0 if settled else 1)
    return {"round": number, "settled": settled,
            "steps": [_step(dict(action)) for action in actions[start:]]}


__all__ = ["round_story", "BID", "RAISE_REROLL", "PASS", "CHALLENGE", "SCAM", "REVEAL"]
