"""The camera's sentences as a message id with parameters, so that a dashboard can say them
in the table's language; ``str()`` is the English sentence the CLI, the logs and the tests
read.

The same idea and the same JSON shape as ``engine.words.Said`` (``{msgid, params[, plural,
n]}``), kept here because vision/ may import no other room (data flows hardware → vision →
engine → web). ``pybabel extract`` finds the message ids through the ``said``, ``said_n`` and
``N_`` calls (babel.cfg reads vision/ too). Nothing here knows any language but English.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

#: a placeholder's value: a number, a name, or words said inside words
Param: TypeAlias = "str | int | float | Words"


@dataclass(frozen=True, slots=True)
class Words:
    """One sentence as an id plus parameters; ``plural`` and ``n`` where it counts something."""

    msgid: str
    params: Mapping[str, Param] = field(default_factory=dict)
    plural: str | None = None
    n: int | None = None

    def __str__(self) -> str:
        text = self.msgid if self.plural is None or self.n == 1 else self.plural
        return text.format(**{k: str(v) if isinstance(v, Words) else v
                              for k, v in self.params.items()})

    def to_json(self) -> dict[str, Any]:
        params = {k: v.to_json() if isinstance(v, Words) else v for k, v in self.params.items()}
        out: dict[str, Any] = {"msgid": self.msgid, "params": params}
        if self.plural is not None:
            out.update(plural=self.plural, n=self.n)
        return out


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name for it)
    """Marks a sentence for ``pybabel extract`` where it is kept before it is said."""
    return msgid


def said(msgid: str, /, **params: Param) -> Words:
    """A sentence to translate: ``said("{seat}: no dice seen in front of the cup", seat=s)``."""
    return Words(msgid, params)


def said_n(singular: str, plural: str, n: int, /, **params: Param) -> Words:
    """A sentence counting ``n`` things (``{n}`` is among its parameters)."""
    return Words(singular, {"n": n, **params}, plural, n)


def place(x: float, y: float) -> str:
    """A spot on the photo for people: "(412, 305)" (pixels)."""
    return f"({x:.0f}, {y:.0f})"


def faces(values: list[int]) -> Words | str:
    """Faces for people: "4, 4 and 6", "6", or "none"."""
    if not values:
        return said("none")
    if len(values) == 1:
        return str(values[0])
    return said("{faces} and {last}", faces=", ".join(str(v) for v in values[:-1]),
                last=values[-1])
