"""A camera's status and faults as data beside their English: words (a message id with
parameters) and the retry's seconds, so that a board in another language can say them
without reading hardware's English back.

Plain values, because hardware/ may import no other room (data flows hardware → vision →
engine → web); the service layer turns them into ``engine.words.Said``. The message ids are
the English sentences with ``{name}`` placeholders, as the translation catalogues hold them:
``pybabel extract`` finds them through the ``said`` calls (babel.cfg reads hardware/ too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

#: a placeholder's value: a number, a name, or words said inside words
Param: TypeAlias = "str | int | float | Words"


@dataclass(frozen=True, slots=True)
class Words:
    """One sentence as an id plus parameters; ``str()`` is its English."""

    msgid: str
    params: Mapping[str, Param] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.msgid.format(**{k: str(v) if isinstance(v, Words) else v
                                    for k, v in self.params.items()})


def said(msgid: str, /, **params: Param) -> Words:
    """A sentence to translate: ``said("{camera}: no frame (…)", camera=spec)``."""
    return Words(msgid, params)


#: what `ResilientCamera` says before its first try, and once closed
NOT_OPENED = said("camera offline: not opened yet")
CLOSED = said("camera offline: closed")


@dataclass(frozen=True, slots=True)
class CameraFault:
    """Why a `ResilientCamera` is offline, as data beside its ``status`` text: the fault as
    its source said it (``text``), its words where hardware has them (`CameraError.words`),
    and the seconds until the next try."""

    text: str
    words: Words | None
    retry_s: float

    def status_words(self) -> Words:
        """The camera's status while this fault holds ("camera offline: … (retrying in 4 s)"):
        the fault in its words where they say all of its English, else in its English (a
        shell command for whoever runs the table, or a fault hardware has no words for)."""
        fault: Words | str = self.text
        if self.words is not None and str(self.words) == self.text:
            fault = self.words
        seconds = f"{self.retry_s:g}"  # as the English has always said it: "4", "0.5"
        return said("camera offline: {fault} (retrying in {seconds} s)", fault=fault,
                    seconds=seconds)


__all__ = ["CLOSED", "NOT_OPENED", "CameraFault", "Param", "Words", "said"]
