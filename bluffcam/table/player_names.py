"""Player names a table can show and tell apart.

The rules only need names to differ. A table also shows them on a TV, on phones and in
button-panel prompts, and players pick "their" name out of a list: so a new game refuses
names the control page would never send — over ``MAX_NAME_LENGTH`` characters, with spaces
at either end, with invisible or control characters — and names that differ only in case,
width or such invisible marks ("Ann" and "ann", "Ann" and "Ann\\u200b"). Games already in the
journal are not checked again: a rule added later must not lose a game.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

#: the longest name, in characters (the control page's name fields hold as many)
MAX_NAME_LENGTH = 24
#: the zero-width joiner: invisible, but it joins emoji such as a family into one sign
ZERO_WIDTH_JOINER = "\u200d"
#: Unicode categories of characters a name may not hold: controls, format marks (zero-width
#: spaces, direction marks), surrogates, private use, unassigned
HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}


class PlayerNameError(ValueError):
    """A name a table should not start a game with; the message names it and says why."""


def check_player_names(players: Any) -> None:
    """Raise `PlayerNameError` for the first name a table cannot show or tell apart.

    Anything that is not a list of strings is left to the engine's setup checks, which
    name that mistake in the rules' terms."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        return
    for name in players:
        _check_one(name)
    _check_distinct(players)


def _check_one(name: str) -> None:
    if len(name) > MAX_NAME_LENGTH:
        raise PlayerNameError(f"player name {name[:MAX_NAME_LENGTH]!r}… is {len(name)} "
                              f"characters long; at most {MAX_NAME_LENGTH}")
    if name != name.strip():
        raise PlayerNameError(f"player name {name!r} has a space at its start or end")
    for char in name:
        if unicodedata.category(char) in HIDDEN_CATEGORIES and char != ZERO_WIDTH_JOINER:
            raise PlayerNameError(f"player name {name!a} holds an invisible or control "
                                  f"character (U+{ord(char):04X})")


def name_key(name: str) -> str:
    """What two names must not share: the name as read aloud or seen on a small screen
    (compatibility forms folded, case ignored, joiners dropped)."""
    return unicodedata.normalize("NFKC", name.replace(ZERO_WIDTH_JOINER, "")).casefold()


def _check_distinct(players: Sequence[str]) -> None:
    seen: dict[str, str] = {}
    for name in players:
        key = name_key(name)
        if key in seen and seen[key] != name:
            raise PlayerNameError(f"player names {seen[key]!r} and {name!r} look the same "
                                  "on the board; choose names that differ")
        seen.setdefault(key, name)
