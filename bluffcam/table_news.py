"""What the dashboard is told: the table's messages and the live boards' event queues.

The `Table` decides what to say and when; this module keeps the words (each knows for how
long it is news) and hands every new state to each live board without ever waiting for a
slow one. Neither takes a lock: the table calls them under its own.
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from engine.words import Said

#: events a slow subscriber may fall behind before its oldest are dropped
SUBSCRIBER_BACKLOG = 32


@dataclass
class Message:
    """One line on the dashboard, with what decides how long it is news."""

    level: str
    #: the words, in English; a Said (engine.words) is kept besides, for a page to translate
    text: str | Said
    at: float = field(default_factory=time.time)
    #: the reveal whose review this message announces: shown only while that review waits,
    #: so a settled reveal's warning does not linger beside its verdict
    review: str | None = None
    #: the game this message is about (the table's count of games started): shown only while
    #: that game is on, so an undo of the last game is not news in the next one
    game: int | None = None
    #: news only until that game's first action (how to deal the cards)
    before_play: bool = False
    #: shown for as long as it is news, not for a glance's while: what went wrong at a start
    #: no one watched (a journal set aside), said until the next game starts
    lasting: bool = False
    #: what the message is news about ("camera"): a newer message on the same topic takes
    #: its place, so a camera retrying every few seconds is one banner that updates
    topic: str | None = None
    said: Said | None = None

    def __post_init__(self) -> None:
        if isinstance(self.text, Said):
            self.said, self.text = self.text, str(self.text)

    def is_news(self, *, game: int, under_way: bool, review: str | None) -> bool:
        """Whether it is still worth showing, in ``game`` (the count of games started),
        ``under_way`` or not, while ``review`` waits: not one about an earlier game, nor the
        deal once the game is under way, nor the announcement of a review that no longer
        waits."""
        if self.game is not None and self.game != game:
            return False
        if self.before_play and under_way:
            return False
        return self.review is None or self.review == review

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"level": self.level, "text": str(self.text),
                                "at": round(self.at, 3)}
        if self.said is not None:
            body["said"] = self.said.to_json()  # the page says it in its language
        if self.review is not None:
            body["review"] = self.review  # a screen showing that review's own notice skips it
        if self.before_play:
            body["before_play"] = True  # the deal: the control page shows it to the dealer
        if self.lasting:
            body["lasting"] = True  # the board keeps it up
        if self.topic is not None:
            body["topic"] = self.topic  # one banner per topic
        return body


def replace_topic(messages: deque[Message], message: Message) -> None:
    """Add ``message`` to ``messages``, dropping any earlier one on its topic."""
    if message.topic is not None:
        for old in [m for m in messages if m.topic == message.topic]:
            messages.remove(old)
    messages.append(message)


class Subscribers:
    """The live boards' queues of state events (SSE-ready JSON strings)."""

    def __init__(self, backlog: int = SUBSCRIBER_BACKLOG) -> None:
        self.backlog = backlog
        self._queues: list[queue.Queue[str]] = []

    def add(self, first: str) -> queue.Queue[str]:
        """A new board's queue, holding ``first`` (the state now) to start from."""
        q: queue.Queue[str] = queue.Queue(maxsize=self.backlog)
        q.put(first)
        self._queues.append(q)
        return q

    def remove(self, q: queue.Queue[str]) -> None:
        if q in self._queues:
            self._queues.remove(q)

    def __len__(self) -> int:
        return len(self._queues)

    def publish(self, event: str) -> None:
        """Hand ``event`` to every board; never blocks."""
        for q in list(self._queues):
            while True:
                try:
                    q.put_nowait(event)
                    break
                except queue.Full:  # a stalled client: drop its oldest, it only needs the latest
                    with contextlib.suppress(queue.Empty):
                        q.get_nowait()
