"""Words the engine says, kept as a message id with parameters so a dashboard can say them in
the table's language; ``str()`` is the English sentence the replay CLI and the tests read.

The message ids are the English sentences themselves with ``{name}`` placeholders (gettext's
habit): ``pybabel extract`` finds them through the ``said`` and ``said_n`` calls (babel.cfg),
and the web layer looks each one up in the page's catalog. Nothing here knows any language
but English: the engine stays stdlib-only and pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

#: The dashboard's languages, code -> the language's own name (the picker's words).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "ja": "日本語",
    "uk": "Українська",
    "pl": "Polski",
    "cs": "Čeština",
}
DEFAULT_LANGUAGE = "en"

#: a parameter's value: what a placeholder is filled with (a Said: words said inside words;
#: a tuple of them: a list said one after another, "; " between)
Param: TypeAlias = "str | int | float | Said | tuple[Said, ...]"


@dataclass(frozen=True, slots=True)
class Said:
    """One sentence as an id plus parameters; ``plural`` and ``n`` where it counts something."""

    msgid: str
    params: Mapping[str, Param] = field(default_factory=dict)
    plural: str | None = None
    n: int | None = None

    def __str__(self) -> str:
        text = self.msgid if self.plural is None or self.n == 1 else self.plural
        return text.format(**{k: _text(v) for k, v in self.params.items()})

    def to_json(self) -> dict[str, Any]:
        params = {k: _json(v) for k, v in self.params.items()}
        out: dict[str, Any] = {"msgid": self.msgid, "params": params}
        if self.plural is not None:
            out.update(plural=self.plural, n=self.n)
        return out


def _text(value: Param) -> Any:
    if isinstance(value, tuple):
        return "; ".join(str(v) for v in value)
    return str(value) if isinstance(value, Said) else value


def _json(value: Param) -> Any:
    if isinstance(value, tuple):
        return [v.to_json() for v in value]
    return value.to_json() if isinstance(value, Said) else value


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name for it)
    """Marks a sentence for ``pybabel extract`` where it is kept before it is said."""
    return msgid


def said(msgid: str, /, **params: Param) -> Said:
    """A sentence to translate: ``said("{player} cannot challenge", player="Ann")``."""
    return Said(msgid, params)


def said_n(singular: str, plural: str, n: int, /, **params: Param) -> Said:
    """A sentence counting ``n`` things (``{n}`` is among its parameters)."""
    return Said(singular, {"n": n, **params}, plural, n)


def check_language(code: object, where: str) -> str:
    """The language code itself, or a ValueError naming ``where`` and the codes there are."""
    if not isinstance(code, str) or code not in LANGUAGES:
        raise ValueError(
            f"{where}: {code!r} is not a dashboard language; use one of {', '.join(LANGUAGES)}"
        )
    return code
