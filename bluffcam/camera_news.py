"""What the board may say about the camera: its words without the shell commands.

A camera's status carries the commands that fix it (`ls /dev/video*`, `rpicam-hello
--list-cameras`) for whoever runs the table; the TV is for the players, so those belong
on the calibration page only. Pure text in, text out; the board's words also come as a
message id with parameters (``engine.words.Said``) for a board in another language, made
from the words hardware gives beside a camera's status (`ResilientCamera.status_words`,
``fault``): a fault hardware has no words for stays as the camera says it (English).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.words import Param, Said, said
from hardware.camera_words import CameraFault, Words

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


def hardware_said(words: Words) -> Said:
    """hardware's words (hardware/camera_words.py: plain values) as the board's."""
    return Said(words.msgid, {key: hardware_said(value) if isinstance(value, Words) else value
                              for key, value in words.params.items()})


def camera_status_said(camera: object) -> Said | None:
    """A camera's whole status as words for a board in another language (its English
    unchanged), as hardware gives them (`ResilientCamera.status_words`); None while it is
    ok, and for a camera that gives none (its status is shown as it is)."""
    words = getattr(camera, "status_words", None)
    return hardware_said(words) if isinstance(words, Words) else None


def camera_summary_said(camera: object) -> Said | None:
    """`camera_summary` as words: "camera offline" and the fault in hardware's words for the
    players (no command, no countdown), else the fault's English less its commands."""
    fault = getattr(camera, "fault", None)
    if not isinstance(fault, CameraFault):
        return camera_status_said(camera)  # "not opened yet", "closed": no countdown
    if fault.words is None:
        return said("camera offline: {fault}", fault=without_commands(fault.text))
    return said("camera offline: {fault}", fault=hardware_said(fault.words))


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
           "hardware_said", "problem_said", "said_from_json", "without_commands",
           "without_commands_said"]
