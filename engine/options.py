"""Small helpers for reading a game's ``options`` object strictly (unknown keys are refused)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from engine.errors import SetupError


def refuse_unknown(title: str, given: Mapping[str, Any], known: Collection[str]) -> None:
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise SetupError(
            "options",
            f"unknown {title} option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
        )


def read_bool(given: Mapping[str, Any], key: str, default: bool, rule: str) -> bool:
    value = given.get(key, default)
    if not isinstance(value, bool):
        raise SetupError(rule, f"option {key}={value!r} must be true or false")
    return value


def read_choice(given: Mapping[str, Any], key: str, choices: tuple[Any, ...], rule: str) -> Any:
    """The value of ``key`` (default: the first choice), which must be one of ``choices``."""
    value = given.get(key, choices[0])
    # 6.0 == 6 in Python, but a face stored as 6.0 would be shown and journalled as one
    if isinstance(value, bool) or value not in choices or \
            not any(type(value) is type(c) for c in choices):
        listed = " | ".join(repr(c) for c in choices)
        raise SetupError(rule, f"option {key}={value!r} must be one of {listed}")
    return value


def read_int(
    given: Mapping[str, Any], key: str, default: int, low: int, high: int, rule: str
) -> int:
    value = given.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SetupError(rule, f"option {key}={value!r} must be a whole number {low}–{high}")
    return value
