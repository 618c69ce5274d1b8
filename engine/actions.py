"""Actions: what a player (or the camera, for a reveal) does, as small immutable values.

Parsing is separate from applying (python-chess's ``parse_san`` vs ``push``): this module only
reads and writes the replay-script objects; whether an action is legal is the game's business.

Each replay object names its kind by one key (``"bid"``, ``"challenge"``, ``"pass"``,
``"scam"``, ``"reveal"``; Impus adds its own through :func:`register_action`). Every other
key must belong to that kind, so a typo is refused rather than ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from engine.bids import FACES, Bid
from engine.errors import IllegalActionError
from engine.words import Said, said

JsonObject = dict[str, Any]


class Action:
    """Base of every action value; subclasses are frozen slotted dataclasses."""

    __slots__ = ()
    #: the replay-script key that names this kind of action
    key: ClassVar[str]

    @property
    def actor(self) -> str | None:
        """The player who acts, or None for table events such as a reveal."""
        return None

    def to_json(self) -> JsonObject:
        raise NotImplementedError

    def describe(self) -> str:
        """The action in words for the dashboard's messages ("Ann bid 3×4"); the replay
        object where a kind has no words of its own."""
        return str(self.describe_said())

    def describe_said(self) -> Said:
        """`describe` as words to translate; each kind says its own."""
        return said("{action}", action=json.dumps(self.to_json(), ensure_ascii=False))


@dataclass(frozen=True, slots=True)
class BidAction(Action):
    """B7/S4 raise; with ``set_aside`` faces it is B8's raise and re-roll."""

    player: str
    bid: Bid
    set_aside: tuple[int, ...] = ()
    key: ClassVar[str] = "bid"

    @property
    def actor(self) -> str | None:
        return self.player

    def to_json(self) -> JsonObject:
        out: JsonObject = {"player": self.player, "bid": str(self.bid)}
        if self.set_aside:
            out["set_aside"] = list(self.set_aside)
        return out

    def describe_said(self) -> Said:
        if self.set_aside:
            return said("{player} bid {bid}, setting aside {faces}", player=self.player,
                        bid=self.bid.pretty(), faces=", ".join(map(str, self.set_aside)))
        return said("{player} bid {bid}", player=self.player, bid=self.bid.pretty())


class PlayerFlag(Action):
    """Base of the calls a player makes by name alone (``{"player": ..., key: true}``):
    challenge, pass, Scam!, and the games' own (dudo, calza, doubt)."""

    __slots__ = ()
    player: str

    @property
    def actor(self) -> str | None:
        return self.player

    def to_json(self) -> JsonObject:
        return {"player": self.player, self.key: True}


@dataclass(frozen=True, slots=True)
class Challenge(PlayerFlag):
    """B10: "I doubt it" — only the previous bid, by the player whose turn it is."""

    player: str
    key: ClassVar[str] = "challenge"

    def describe_said(self) -> Said:
        return said("{player} doubted the bid", player=self.player)


@dataclass(frozen=True, slots=True)
class Pass(PlayerFlag):
    """S4: skip this turn (Scam only)."""

    player: str
    key: ClassVar[str] = "pass"

    def describe_said(self) -> Said:
        return said("{player} passed", player=self.player)


@dataclass(frozen=True, slots=True)
class ScamCall(PlayerFlag):
    """S4/S8: call "Scam!" on the standing bid (Scam only)."""

    player: str
    key: ClassVar[str] = "scam"

    def describe_said(self) -> Said:
        return said("{player} called Scam!", player=self.player)


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """The dice under every remaining cup, set-aside dice included, as seat → faces."""

    hands: tuple[tuple[str, tuple[int, ...]], ...]
    key: ClassVar[str] = "reveal"

    @classmethod
    def of(cls, hands: Mapping[str, list[int] | tuple[int, ...]]) -> Reveal:
        return cls(tuple((name, tuple(faces)) for name, faces in hands.items()))

    def as_dict(self) -> dict[str, tuple[int, ...]]:
        return dict(self.hands)

    def to_json(self) -> JsonObject:
        return {"reveal": {name: list(faces) for name, faces in self.hands}}

    def describe_said(self) -> Said:
        hands = []
        for name, faces in self.hands:
            if faces:
                hands.append(said("{player} {faces}", player=name, faces=" ".join(map(str, faces))))
            else:
                hands.append(said("{player} no dice", player=name))
        return said("the reveal: {hands}", hands=tuple(hands))


@dataclass(frozen=True, slots=True)
class CardReveal(Action):
    """Impus (I4): the doubted batch turned up, as card kinds, e.g. ``["orc", "imp"]``."""

    cards: tuple[str, ...]
    key: ClassVar[str] = "reveal"

    def to_json(self) -> JsonObject:
        return {"reveal": list(self.cards)}

    def describe_said(self) -> Said:
        return said("cards turned up: {cards}", cards=", ".join(self.cards))


ActionParser = Callable[[Mapping[str, Any]], Action]


def only_keys(obj: Mapping[str, Any], allowed: set[str]) -> None:
    """Refuse a key that does not belong to the action's kind, so a typo is not ignored."""
    extra = sorted(set(obj) - allowed)
    if extra:
        raise IllegalActionError("format", f"{dict(obj)!r}: unexpected key(s) {', '.join(extra)}")


def read_player(obj: Mapping[str, Any]) -> str:
    """The acting player's name, refused unless a non-empty string."""
    name = obj.get("player")
    if not isinstance(name, str) or not name:
        raise IllegalActionError("format", f'{dict(obj)!r}: "player" must be a player\'s name')
    return name


def _true_flag(obj: Mapping[str, Any], key: str) -> None:
    if obj.get(key) is not True:
        raise IllegalActionError("format", f'{dict(obj)!r}: "{key}" must be true')


def _faces(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not all(
        isinstance(f, int) and not isinstance(f, bool) and f in FACES for f in value
    ):
        raise IllegalActionError("format", f"{where}: {value!r} must be a list of die faces 1–6")
    return tuple(value)


def _parse_bid(obj: Mapping[str, Any]) -> Action:
    only_keys(obj, {"player", "bid", "set_aside"})
    player = read_player(obj)
    bid = Bid.parse(obj["bid"])
    set_aside: tuple[int, ...] = ()
    if "set_aside" in obj:
        set_aside = _faces(obj["set_aside"], f"{player}'s set_aside")
        if not set_aside:
            raise IllegalActionError(
                "B8", f"{player}'s set_aside is empty: set at least one die aside, or omit it"
            )
    return BidAction(player, bid, set_aside)


class FlagMaker(Protocol):
    """An action class made from the player alone, named by a key whose value is ``true``."""

    @property
    def key(self) -> str: ...

    def __call__(self, player: str) -> Action: ...


def flag_parser(cls: FlagMaker) -> ActionParser:
    """The parser of ``{"player": ..., cls.key: true}``, shared by every game's flag actions."""

    def parse(obj: Mapping[str, Any]) -> Action:
        only_keys(obj, {"player", cls.key})
        _true_flag(obj, cls.key)
        return cls(read_player(obj))

    return parse


def _parse_reveal(obj: Mapping[str, Any]) -> Action:
    only_keys(obj, {"reveal"})
    value = obj["reveal"]
    if isinstance(value, list) and all(isinstance(card, str) and card for card in value):
        return CardReveal(tuple(value))
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise IllegalActionError(
            "format", '"reveal" must map each player\'s name to their dice, e.g. {"Ann": [1, 4]}, '
            'or, in Impus Bluff, list the cards turned up, e.g. ["orc", "imp"]'
        )
    if any(isinstance(faces, list) and any(isinstance(f, str) for f in faces)
           for faces in value.values()):
        raise IllegalActionError(
            "format", '"reveal": cards are listed, not given per player: '
            '{"reveal": ["orc", "imp"]}, the batch turned up'
        )
    return Reveal(tuple((name, _faces(faces, f"{name}'s dice")) for name, faces in value.items()))


#: replay key -> parser; Impus registers "play", "doubt", "polymorph", "discard" here
ACTION_PARSERS: dict[str, ActionParser] = {
    "bid": _parse_bid,
    "challenge": flag_parser(Challenge),
    "pass": flag_parser(Pass),
    "scam": flag_parser(ScamCall),
    "reveal": _parse_reveal,
}


def register_action(key: str, parser: ActionParser) -> None:
    """Teach :func:`parse_action` a new kind of action (used by variants such as Impus)."""
    ACTION_PARSERS[key] = parser


def parse_action(obj: Mapping[str, Any]) -> Action:
    """Read one replay-script action object; refuse anything ambiguous or malformed."""
    if not isinstance(obj, Mapping):
        raise IllegalActionError("format", f"an action must be a JSON object, not {obj!r}")
    kinds = [key for key in obj if key in ACTION_PARSERS]
    if len(kinds) != 1:
        known = ", ".join(sorted(ACTION_PARSERS))
        what = "no action key" if not kinds else f"several action keys ({', '.join(kinds)})"
        raise IllegalActionError("format", f"{dict(obj)!r} has {what}: use exactly one of {known}")
    return ACTION_PARSERS[kinds[0]](obj)


def action_to_json(action: Action) -> JsonObject:
    """The replay-script object for an action; ``parse_action`` reads it back equal."""
    return action.to_json()
