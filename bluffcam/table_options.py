"""The table's own choices kept in a game's setup beside the rules: not the engine's.

``"seats"`` (`bluffcam.seating`) says where each player sits; ``"odds": false`` keeps the
chance a bid holds off the board and the phones (some groups think it spoils the bluff). The
engine never sees these keys; the journal keeps them with the setup, so a restart keeps them.
"""

from __future__ import annotations

from typing import Any

from bluffcam.seating import SEATS_KEY
from bluffcam.table_error import TableError

#: the setup key that switches the odds off
ODDS_KEY = "odds"
#: every key of a setup that is the table's, not the rules'
TABLE_KEYS = frozenset({SEATS_KEY, ODDS_KEY})


def check_odds(value: Any) -> bool:
    """``"odds"`` of a setup: true (the default) or false."""
    if not isinstance(value, bool):
        raise TableError(f'"odds" must be true or false (show the chance a bid holds), '
                         f"got {value!r}", rule="format", status=400)
    return value


def odds_shown(setup: Any) -> bool:
    """Whether the game set up by ``setup`` shows the odds."""
    return not (isinstance(setup, dict) and setup.get(ODDS_KEY) is False)


__all__ = ["ODDS_KEY", "TABLE_KEYS", "check_odds", "odds_shown"]
