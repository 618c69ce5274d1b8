"""The camera faults `hardware` names in words a player can act on, as words to translate.

A camera's status is text (`hardware.cameras.ResilientCamera.status`: hardware/ may import no
other room), so the board's words for a fault are found from it here: each known fault's
English, with the camera's spec and any figure in it as parameters, says exactly what the
status said. A fault not known here is said as the camera said it (English); a change to
hardware's wording only makes it so, and tests/web_api/test_table_words.py builds its
statuses with hardware's own code to notice.
"""

from __future__ import annotations

import re

from engine.words import N_, Said, said

#: the end of a status while the camera is retried ("(retrying in 4 s)")
RETRY = re.compile(r" \(retrying in (?P<seconds>[0-9.e+-]+) s\)$")
#: each known fault: its shape (the camera's spec first) and its words
FAULTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?P<camera>.+): no frame \(camera disconnected or stream ended\)"),
     N_("{camera}: no frame (camera disconnected or stream ended)")),
    (re.compile(r"(?P<camera>.+): frozen: the last (?P<n>\d+) frames were identical \(a stuck "
                r"driver or stream, or a lens covered in the dark\)"),
     N_("{camera}: frozen: the last {n} frames were identical (a stuck driver or stream, or "
        "a lens covered in the dark)")),
    (re.compile(r"(?P<camera>.+): could not open the camera; is the webcam plugged in, and is "
                r"the index right\?"),
     N_("{camera}: could not open the camera; is the webcam plugged in, and is the index "
        "right?")),
    (re.compile(r"(?P<camera>.+): could not open the camera; is the stream URL right and "
                r"reachable from here\?"),
     N_("{camera}: could not open the camera; is the stream URL right and reachable from "
        "here?")),
)


def fault_said(fault: str) -> Said | str:
    """A camera's fault as words where it is a known one, else the text as it is."""
    for shape, msgid in FAULTS:
        found = shape.fullmatch(fault)
        if found:
            return said(msgid, **found.groupdict())
    return fault


__all__ = ["FAULTS", "RETRY", "fault_said"]
