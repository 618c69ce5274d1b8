"""What the board may say about the camera: its words without the shell commands.

A camera's status carries the commands that fix it (`ls /dev/video*`, `rpicam-hello
--list-cameras`) for whoever runs the table; the TV is for the players, so those belong
on the calibration page only. Pure text in, text out.
"""

from __future__ import annotations

import re

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


__all__ = ["CAMERA_TOPIC", "camera_summary", "without_commands"]
