"""The engine's error family: every refusal names the rule it enforces and changes nothing.

Both classes are ``ValueError`` subclasses (like python-chess's ``IllegalMoveError``) so a
caller that only wants "bad input" can catch one thing. ``rule`` is a RULES.md id ("B6",
"S3", "I4"), or ``"format"`` when the input could not even be read, or ``"options"`` for
an unknown or malformed setup option.
"""

from __future__ import annotations

from typing import Any

from engine.words import Said


class EngineError(ValueError):
    """Base of the engine's refusals: a rule id plus a message naming the input."""

    def __init__(self, rule: str, text: str | Said) -> None:
        self.rule = rule
        #: the sentence as a message id and its parameters, for a dashboard to translate;
        #: None for the few said only to API clients and scripts (English only)
        self.said = text if isinstance(text, Said) else None
        #: the full sentence, ending with the rule id: "3x4 → 2★ is not a raise: ... (B6)"
        self.message = f"{text} ({rule})"
        #: for scripts: the position of the refused action (None for the setup)
        self.index: int | None = None
        super().__init__(self.message)

    @property
    def msgid(self) -> str | None:
        return self.said.msgid if self.said else None

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.said.params) if self.said else {}

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


class IllegalActionError(EngineError):
    """An action refused by the rules (or unreadable); the game state is unchanged."""


class SetupError(EngineError):
    """A game setup refused: players, starter, game kind or options."""
