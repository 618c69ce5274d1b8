"""Impus Bluff's cards: the creature kinds, the deck a table plays with, and the deal (I1, I2).

Kept apart from the rules of play so the deck can be checked (and shown at setup) without a
game, and so the card reader's kind names come from one place.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import SetupError
from engine.options import read_bool, refuse_unknown

IMP = "imp"
POLYMORPH = "polymorph"
CARDS_PER_KIND = 4
SPARE_IMPS = 2
POLYMORPH_CARDS = 2
MIN_PLAYERS = 2
MAX_PLAYERS = 6

#: The eight kinds seed 002 names, then the two it leaves unnamed (a table may rename them).
DEFAULT_KINDS: tuple[str, ...] = (
    "orc",
    "gnome",
    "elf",
    "faun",
    "skeleton",
    "dragon",
    "goblin",
    IMP,
    "troll",
    "harpy",
)
KIND_COUNT = len(DEFAULT_KINDS)

#: Player counts whose I2 deal uses the two spare imps; the others deal the polymorphs.
_SPARE_IMP_TABLES = frozenset({2, 3, 6})
POLYMORPH_TABLES = frozenset({4, 5})

_IRREGULAR_PLURALS = {"elf": "elves", "dwarf": "dwarves", "wolf": "wolves"}


def plural(kind: str, count: int = 2) -> str:
    """English plural for verdict texts: orc -> orcs, elf -> elves, harpy -> harpies."""
    if count == 1:
        return kind
    if kind in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[kind]
    if kind.endswith(("s", "x", "ch", "sh")):
        return kind + "es"
    if kind.endswith("y") and len(kind) > 1 and kind[-2] not in "aeiou":
        return kind[:-1] + "ies"
    return kind + "s"


def normalise_kind(name: object) -> str:
    """Kinds are compared case-insensitively and without surrounding spaces, in any script:
    "Ork" and "ork", or a name typed as NFD on one phone and NFC on another, are one kind."""
    if not isinstance(name, str):
        raise TypeError(f"a card kind must be a string, got {name!r}")
    return unicodedata.normalize("NFC", name.strip()).lower()


@dataclass(frozen=True, slots=True)
class CardOptions:
    """The table's choices for Impus Bluff.

    ``kinds``: the ten creature names (imp among them; I1), in any language. ``imp``: which
    of them is the imp ("インプ", "імп"; "imp" unless the table says). ``polymorphs``: deal the
    two polymorph cards where I2 does (4 and 5 players). ``removed``: whole kinds taken out of
    the deck for a short game (I2; never the imp).
    """

    kinds: tuple[str, ...] = DEFAULT_KINDS
    polymorphs: bool = True
    removed: tuple[str, ...] = ()
    imp: str = IMP

    def __post_init__(self) -> None:
        kinds = tuple(normalise_kind(k) for k in self.kinds)
        removed = tuple(normalise_kind(k) for k in self.removed)
        imp = normalise_kind(self.imp)
        if not imp:
            raise SetupError("I1", "the imp's name cannot be empty")
        if len(kinds) != KIND_COUNT:
            raise SetupError("I1", f"the deck has {KIND_COUNT} kinds, got {len(kinds)}")
        if any(not k for k in kinds):
            raise SetupError("I1", "a kind name cannot be empty")
        if len(set(kinds)) != len(kinds):
            raise SetupError("I1", f"kind names must differ, got {list(kinds)}")
        if imp not in kinds:
            what = "the imp" if imp == IMP else f"the imp ({imp!r})"
            raise SetupError("I1", f"one kind must be {what}, got {list(kinds)}")
        if POLYMORPH in kinds:
            raise SetupError("I1", f"{POLYMORPH!r} is the joker card, not a kind")
        for name in removed:
            if name == imp:
                raise SetupError("I2", "the imps are never removed from the deck")
            if name not in kinds:
                raise SetupError("I2", f"cannot remove {name!r}: not a kind in {list(kinds)}")
        if len(set(removed)) != len(removed):
            raise SetupError("I2", f"a kind is removed twice in {list(removed)}")
        if len(removed) > KIND_COUNT - 2:
            raise SetupError("I2", "at least one kind besides the imp must stay in the deck")
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "removed", removed)
        object.__setattr__(self, "imp", imp)

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> CardOptions:
        """Read the ``options`` object of an Impus setup; unknown keys are refused."""
        options = dict(options or {})
        refuse_unknown("Impus Bluff", options, ("kinds", "polymorphs", "remove_kinds", "imp"))
        kinds = options.get("kinds", list(DEFAULT_KINDS))
        removed = options.get("remove_kinds", [])
        polymorphs = read_bool(options, "polymorphs", True, "I2")
        if not isinstance(kinds, Sequence) or isinstance(kinds, str):
            raise SetupError("I1", f"kinds must be a list of {KIND_COUNT} names, got {kinds!r}")
        if not isinstance(removed, Sequence) or isinstance(removed, str):
            raise SetupError("I2", f"remove_kinds must be a list of names, got {removed!r}")
        imp = options.get("imp", IMP)
        try:
            return cls(kinds=tuple(kinds), polymorphs=polymorphs, removed=tuple(removed), imp=imp)
        except TypeError as exc:
            raise SetupError("I1", str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kinds": list(self.kinds),
            "polymorphs": self.polymorphs,
            "remove_kinds": list(self.removed),
        }
        if self.imp != IMP:  # a table's own name for it; unsaid where it is "imp"
            out["imp"] = self.imp
        return out


@dataclass(frozen=True, slots=True)
class Deck:
    """The cards one game is dealt from: how many of each card there are (I1, I2)."""

    counts: tuple[tuple[str, int], ...]
    polymorphs: int
    #: the kind that is the imp, in the table's words
    imp: str = IMP

    @property
    def kinds_in_play(self) -> tuple[str, ...]:
        """Creature kinds present, imp included, in the table's order."""
        return tuple(kind for kind, _ in self.counts)

    @property
    def claimable(self) -> tuple[str, ...]:
        """Kinds a batch or a polymorph may name: every kind in play except the imp (I3)."""
        return tuple(kind for kind, _ in self.counts if kind != self.imp)

    def count_of(self, card: str) -> int:
        """How many cards of ``card`` (a kind, or ``polymorph``) the deck holds."""
        if card == POLYMORPH:
            return self.polymorphs
        return dict(self.counts).get(card, 0)

    @property
    def size(self) -> int:
        return sum(n for _, n in self.counts) + self.polymorphs


def build_deck(player_count: int, options: CardOptions) -> Deck:
    """The deck I2 deals for ``player_count`` players: spare imps with 2, 3 and 6 players,
    polymorphs (when on) with 4 and 5."""
    check_player_count(player_count)
    counts = []
    for kind in options.kinds:
        if kind in options.removed:
            continue
        extra = SPARE_IMPS if kind == options.imp and player_count in _SPARE_IMP_TABLES else 0
        counts.append((kind, CARDS_PER_KIND + extra))
    polymorphs = POLYMORPH_CARDS if options.polymorphs and player_count in POLYMORPH_TABLES else 0
    return Deck(counts=tuple(counts), polymorphs=polymorphs, imp=options.imp)


def check_player_count(player_count: int) -> None:
    if not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
        raise SetupError(
            "I2",
            f"Impus Bluff is dealt for {MIN_PLAYERS}-{MAX_PLAYERS} players, got {player_count}",
        )


def deal_counts(player_count: int, deck: Deck) -> list[int]:
    """Hand sizes in seat order (I2): every card dealt, as evenly as possible; the extra cards
    (with 4 or 5 players, the two polymorphs) go one each to the last seats *(silent: which)*."""
    check_player_count(player_count)
    base, remainder = divmod(deck.size, player_count)
    return [base + (1 if seat >= player_count - remainder else 0) for seat in range(player_count)]
