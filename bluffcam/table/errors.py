"""The table's own refusals, apart from the rules' (`engine.IllegalActionError`).

A module of its own so that the table's helpers (reviews, card reveals) raise it without
importing the `Table` that uses them.
"""

from __future__ import annotations

from engine.words import Said


class TableError(ValueError):
    """A refusal by the table itself (not the rules): nothing was changed.

    ``status`` is the HTTP status the API answers with; ``rule`` follows the engine's
    convention ("format" for unreadable input, "table" for table-level refusals); ``said``
    is the message as words to translate, where it has them.
    """

    def __init__(self, message: str, *, rule: str = "table", status: int = 409,
                 said: Said | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.status = status
        self.said = said

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}
