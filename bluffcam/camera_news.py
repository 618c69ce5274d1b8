"""What the board may say about the camera: its words without the shell commands.

A camera's status carries the commands that fix it (`ls /dev/video*`, `rpicam-hello
--list-cameras`) for whoever runs the table; the TV is for the players, so those belong
on the calibration page only. Pure text in, text out; the board's words also come as a
message id with parameters (``engine.words.Said``) for a board in another language (a
fault's own description, from the camera's driver, stays as the camera says it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bluffcam.camera_faults import RETRY, fault_said
from engine.words import Param, Said, said

#: a command given as an aside: "(`ls /dev/video*`)"
_ASIDE = re.compile(r"\s*\(`[^`]*`\)")
#: where a sentence or a clause ends
_CLAUSE_END = re.compile(r"(?<=[.;?!])\s+")
#: said in place of the steps left out
SEE_CALIBRATION = "(the calibration page says how to fix it)"

#: the countdown of the next try ("(retrying in 4 s)"): it changes at every try
_RETRY = re.compile(r"\s*\(retrying in [^)]*\)")

#: the one message topic the camera's news is kept under: a newer one replaces it
CAMERA_TOPIC = "camera"


def without_commands(text: str) -> str:
    """``text`` without its shell commands: an aside in brackets goes, a clause that gives
    one goes whole, and the board is told where the steps are instead."""
    shorter = _ASIDE.sub("", text)
    clauses = _CLAUSE_END.split(shorter)
    kept = [clause for clause in clauses if "`" not in clause]
    if len(kept) == len(clauses):
        return shorter.strip()
    said = " ".join(kept).strip().rstrip(";,:")
    return f"{said} {SEE_CALIBRATION}".strip()


def camera_summary(status: str) -> str:
    """The camera's status as the board shows it: no commands, no retry countdown (the
    calibration page shows the whole status)."""
    return without_commands(_RETRY.sub("", status))


#: how `hardware.cameras.ResilientCamera` says it is offline, and the faults it names itself
_OFFLINE = "camera offline: "
_OFFLINE_WORDS = {
    "camera offline: not opened yet": said("camera offline: not opened yet"),
    "camera offline: closed": said("camera offline: closed"),
}


def camera_status_said(status: str) -> Said | None:
    """A camera's status as words for a board in another language (its English unchanged):
    "camera offline" in its words, the fault as the camera said it; None for a status that
    is not a fault."""
    if status in _OFFLINE_WORDS:
        return _OFFLINE_WORDS[status]
    if not status.startswith(_OFFLINE):
        return None
    fault = status.removeprefix(_OFFLINE)
    retry = RETRY.search(fault)
    if retry is None:
        return said("camera offline: {fault}", fault=fault_said(fault))
    return said("camera offline: {fault} (retrying in {seconds} s)",
                fault=fault_said(fault[:retry.start()]), seconds=retry["seconds"])


def camera_summary_said(status: str) -> Said | None:
    """`camera_summary` as words (`camera_status_said`)."""
    return camera_status_said(camera_summary(status))


def without_commands_said(words: Said) -> Said:
    """``words`` with the shell commands taken out of its text parameters (`without_commands`)."""
    return Said(words.msgid, {k: _clean(v) for k, v in words.params.items()}, words.plural,
                words.n)


def _clean(value: Param) -> Param:
    if isinstance(value, str):
        return without_commands(value)
    if isinstance(value, Said):
        return without_commands_said(value)
    if isinstance(value, tuple):
        return tuple(without_commands_said(v) for v in value)
    return value


def said_from_json(words: Mapping[str, Any]) -> Said:
    """The words a ``{msgid, params[, plural, n]}`` object says (``Said.to_json``'s
    reverse; a review problem or advice keeps them so)."""
    params: dict[str, Param] = {}
    for key, value in dict(words.get("params") or {}).items():
        if isinstance(value, Mapping):
            params[key] = said_from_json(value)
        elif isinstance(value, list):
            params[key] = tuple(said_from_json(v) for v in value)
        else:
            params[key] = value
    return Said(str(words["msgid"]), params, words.get("plural"), words.get("n"))


def problem_said(problem: Mapping[str, Any]) -> Said:
    """A review problem's words: those it carries, else its English as they are."""
    words = problem.get("said")
    if isinstance(words, Mapping) and isinstance(words.get("msgid"), str):
        return said_from_json(words)
    return Said(str(problem.get("message") or problem.get("kind") or ""))


__all__ = ["CAMERA_TOPIC", "camera_status_said", "camera_summary", "camera_summary_said",
           "problem_said",
           "said_from_json", "without_commands", "without_commands_said"]
