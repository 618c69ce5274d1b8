"""Impus Bluff (RULES.md I1–I9): the card game, adjudicated from what a referee can know.

The engine never sees a hand. It knows each player's card count, the pile (batches face down,
polymorphs face up), the pile's claim, who played the last batch, the discards, who is safe
and who lost. A doubted batch is turned up (``{"reveal": ["orc", "imp"]}``, typed or read by
the camera) and that decides who takes the pile.

Choices where the seed is silent (each also in docs/impus.md):
- A polymorph is a whole turn; it cannot be doubted, so the next player must add cards (I8).
- Four of a kind are discarded "at once" (I7): after the deal, or by the player who just took
  the pile, before the next play. A later discard is refused.
- A player whose hand empties becomes safe when the next player acts on their batch without a
  successful doubt (I9); the game ends when one player is not safe, and that player loses.
- A polymorph turned up inside a doubted batch is not the named kind (it is a lie).
- The two polymorphs are dealt one each to the last two seats (I2). The engine follows them as
  far as a referee can: a player casts one, or discards the pair, only where the deal and the
  piles they took could have given them that many (a polymorph played face down may ride in a
  pile to whoever takes it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.actions import (
    Action,
    CardReveal,
    JsonObject,
    PlayerFlag,
    flag_parser,
    only_keys,
    read_player,
    register_action,
)
from engine.cards import (
    POLYMORPH,
    POLYMORPH_TABLES,
    CardOptions,
    Deck,
    build_deck,
    deal_counts,
    normalise_kind,
    plural,
)
from engine.errors import IllegalActionError
from engine.game import Game, Phase
from engine.history import verdict_json, verdict_text
from engine.words import N_, Said, said, said_n

# ----------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class PlayCards(Action):
    """I3/I4: put ``count`` cards face down; ``claim`` names the kind on a new pile only."""

    player: str
    count: int
    claim: str | None = None
    key: ClassVar[str] = "play"

    @property
    def actor(self) -> str | None:
        return self.player

    def to_json(self) -> JsonObject:
        out: JsonObject = {"player": self.player, "play": self.count}
        if self.claim is not None:
            out["claim"] = self.claim
        return out

    def describe_said(self) -> Said:
        if self.claim is not None:
            return said_n("{player} put down {n} card, claiming {claim}s",
                          "{player} put down {n} cards, claiming {claim}s", self.count,
                          player=self.player, claim=self.claim)
        return said_n("{player} put down {n} card", "{player} put down {n} cards", self.count,
                      player=self.player)


@dataclass(frozen=True, slots=True)
class Doubt(PlayerFlag):
    """I4: "don't believe" — the previous player's batch is turned up."""

    player: str
    key: ClassVar[str] = "doubt"

    def describe_said(self) -> Said:
        return said("{player} did not believe", player=self.player)


@dataclass(frozen=True, slots=True)
class Polymorph(Action):
    """I8: a polymorph put face up; from now on the pile's claims are of ``kind``."""

    player: str
    kind: str
    key: ClassVar[str] = "polymorph"

    @property
    def actor(self) -> str | None:
        return self.player

    def to_json(self) -> JsonObject:
        return {"player": self.player, "polymorph": self.kind}

    def describe_said(self) -> Said:
        return said("{player} played a polymorph as {kind}", player=self.player, kind=self.kind)


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """I7: four of a kind (or the two polymorphs) laid aside face up."""

    player: str
    kind: str
    key: ClassVar[str] = "discard"

    @property
    def actor(self) -> str | None:
        return self.player

    def to_json(self) -> JsonObject:
        return {"player": self.player, "discard": self.kind}

    def describe_said(self) -> Said:
        return said("{player} discarded the {kind}s", player=self.player, kind=self.kind)


def _format_error(obj: Mapping[str, Any], text: str) -> IllegalActionError:
    return IllegalActionError("format", f"{dict(obj)!r}: {text}")


def _kind(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _format_error(obj, f'"{key}" must name a card kind, e.g. "orc"')
    return normalise_kind(value)


def _parse_play(obj: Mapping[str, Any]) -> Action:
    only_keys(obj, {"player", "play", "claim"})
    count = obj["play"]
    if isinstance(count, bool) or not isinstance(count, int):
        raise _format_error(obj, '"play" must be a whole number of cards')
    claim = _kind(obj, "claim") if "claim" in obj else None
    return PlayCards(read_player(obj), count, claim)


def _parse_polymorph(obj: Mapping[str, Any]) -> Action:
    only_keys(obj, {"player", "polymorph"})
    return Polymorph(read_player(obj), _kind(obj, "polymorph"))


def _parse_discard(obj: Mapping[str, Any]) -> Action:
    only_keys(obj, {"player", "discard"})
    return Discard(read_player(obj), _kind(obj, "discard"))


register_action("play", _parse_play)
register_action("doubt", flag_parser(Doubt))
register_action("polymorph", _parse_polymorph)
register_action("discard", _parse_discard)


# ------------------------------------------------------------------------ table state


@dataclass(frozen=True, slots=True)
class Batch:
    """Cards put face down on the pile by one player under the pile's claim."""

    player: str
    count: int
    claim: str

    def to_json(self) -> JsonObject:
        return {"player": self.player, "count": self.count, "claim": self.claim}


@dataclass(frozen=True, slots=True)
class PolymorphPlay:
    """A polymorph lying face up on the pile (I8)."""

    player: str
    kind: str

    @property
    def count(self) -> int:
        return 1

    def to_json(self) -> JsonObject:
        return {"player": self.player, "polymorph": self.kind}


@dataclass(frozen=True, slots=True)
class DiscardEntry:
    player: str
    kind: str
    count: int

    def to_json(self) -> JsonObject:
        return {"player": self.player, "kind": self.kind, "count": self.count}


@dataclass(frozen=True, slots=True)
class PileResult:
    """One pile ended by a doubt (I4, I5): the history entry a dashboard lists."""

    number: int
    claim: str
    count: int
    player: str
    doubter: str
    revealed: tuple[str, ...]
    truthful: bool
    taker: str
    pile_size: int
    became_safe: str | None = None

    @property
    def verdict(self) -> str:
        return verdict_text(self.verdict_said)

    @property
    def verdict_said(self) -> tuple[Said, ...]:
        """The verdict as words: ``claims`` is English's plural (see `_describe`)."""
        words: tuple[Said, ...] = (
            said("{count} {claims} claimed, turned up {revealed}", count=self.count,
                 claims=plural(self.claim, self.count), claim=self.claim,
                 revealed=", ".join(self.revealed)),
            said_n("{player} takes the pile ({n} card)", "{player} takes the pile ({n} cards)",
                   self.pile_size, player=self.taker),
        )
        if self.became_safe:
            words += (said("{player} is safe", player=self.became_safe),)
        return words

    def to_json(self) -> JsonObject:
        return {
            "pile": self.number,
            "claim": self.claim,
            "count": self.count,
            "player": self.player,
            "doubter": self.doubter,
            "revealed": list(self.revealed),
            "truthful": self.truthful,
            "taker": self.taker,
            "pile_size": self.pile_size,
            "verdict": self.verdict,
            "verdict_said": verdict_json(self.verdict_said),
        }


@dataclass(slots=True)
class _Table:
    """Everything the referee knows, apart from the phase and the turn."""

    cards: dict[str, int]
    pile: list[Batch | PolymorphPlay] = field(default_factory=list)
    claim: str | None = None
    discards: list[DiscardEntry] = field(default_factory=list)
    safe: list[str] = field(default_factory=list)
    pending: str | None = None
    doubter: str | None = None
    discard_window: set[str] = field(default_factory=set)
    #: the most polymorphs each player may hold: one each for the last two seats at the
    #: deal (I2), more only by taking a pile that may hold them
    polymorphs_held: dict[str, int] = field(default_factory=dict)
    #: the most polymorphs that may lie face down in the pile (played as a lie) under the
    #: top batch, and in the top batch: a doubt turns that one up, and then it is known
    polymorphs_hidden: int = 0
    polymorphs_in_top_batch: int = 0
    #: the most polymorphs the top batch's player could hold before playing it: turned up,
    #: the polymorphs it shows came out of that hand, which holds that many fewer
    held_before_top_batch: int = 0


# ------------------------------------------------------------------------------- game


class ImpusGame(Game):
    """Impus Bluff for 2–6 players. Options: ``kinds``, ``polymorphs``, ``remove_kinds``."""

    kind: ClassVar[str] = "impus"
    title: ClassVar[str] = "Impus Bluff"
    seat_rule: ClassVar[str] = "I2"
    end_rule: ClassVar[str] = "I9"
    reveal_rule: ClassVar[str] = "I4"
    starter_rule: ClassVar[str] = "I3"
    reveal_kind: ClassVar[str] = "cards"
    doubt_action: ClassVar[str | None] = "doubt"
    composes: ClassVar[str] = "batch"

    def __init__(
        self,
        players: Sequence[str],
        starter: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, starter, options)
        self.deck: Deck = build_deck(len(self.players), self.card_options)
        hands = deal_counts(len(self.players), self.deck)
        self.loser: str | None = None
        self.table = _Table(cards=dict(zip(self.players, hands, strict=True)))
        self.table.discard_window = set(self.players)
        dealt_one = self.dealt_a_polymorph()
        self.table.polymorphs_held = {n: int(n in dealt_one) for n in self.players}

    def _configure(self, options: JsonObject) -> None:
        self.card_options = CardOptions.from_dict(options)

    # ------------------------------------------------------------ what is known
    @property
    def pile_size(self) -> int:
        return sum(entry.count for entry in self.table.pile)

    @property
    def claim(self) -> str | None:
        return self.table.claim

    @property
    def last_batch(self) -> Batch | None:
        """The batch a doubt would turn up: the top of the pile, when it is a batch."""
        top = self.table.pile[-1] if self.table.pile else None
        return top if isinstance(top, Batch) else None

    def cards_of(self, name: str) -> int:
        return self.table.cards[name]

    def discarded_cards(self) -> int:
        return sum(entry.count for entry in self.table.discards)

    def is_out(self, name: str) -> bool:
        return name in self.table.safe

    def _polymorphs_visible(self) -> int:
        on_pile = sum(isinstance(entry, PolymorphPlay) for entry in self.table.pile)
        discarded = sum(e.count for e in self.table.discards if e.kind == POLYMORPH)
        return on_pile + discarded

    def _not_safe(self) -> list[str]:
        return [name for name in self.players if name not in self.table.safe]

    def _next_active(self, after: str) -> str | None:
        """The next player clockwise who holds cards and is not safe (I6)."""
        start = self.players.index(after)
        for step in range(1, len(self.players) + 1):
            name = self.players[(start + step) % len(self.players)]
            if name not in self.table.safe and self.table.cards[name] > 0:
                return name
        return None

    # ------------------------------------------------------------------ checks
    def check(self, action: Action) -> None:
        if self.phase is Phase.OVER and isinstance(action, Action):
            raise IllegalActionError(
                "I9", said("{action}: the game is over, {player} lost", action=_describe(action),
                           player=str(self.loser))
            )
        super().check(action)

    def dealt_a_polymorph(self) -> list[str]:
        """The seats I2's deal gives a polymorph as an extra card *(silent: the last two)*."""
        return self.players[-self.deck.polymorphs:] if self.deck.polymorphs else []

    def may_hold_polymorphs(self, name: str) -> int:
        """The most polymorph cards ``name`` can be holding, from what the table has seen:
        the deal gives one each to the last two seats (I2), and a hand gains more only by
        taking a pile a polymorph may be in."""
        return min(self.table.polymorphs_held.get(name, 0), self.table.cards[name])

    def _check(self, action: Action) -> None:
        if isinstance(action, PlayCards):
            self._check_play(action)
        elif isinstance(action, Doubt):
            self._check_doubt(action)
        elif isinstance(action, CardReveal):
            self._check_reveal(action)
        elif isinstance(action, Polymorph):
            self._check_polymorph(action)
        elif isinstance(action, Discard):
            self._check_discard(action)
        else:
            raise IllegalActionError(
                "I4",
                f"{_describe(action)} is not an Impus Bluff action (play, doubt, reveal, "
                "polymorph, discard)",
            )

    def _check_turn(self, action: Action, player: str) -> None:
        if self.phase is Phase.REVEAL:
            raise IllegalActionError(
                "I4", said("{action}: the doubted batch must be turned up (reveal) first",
                           action=_describe(action))
            )
        if player in self.table.safe:
            raise IllegalActionError("I9", said("{action}: {player} is safe, out of play",
                                                action=_describe(action), player=player))
        if player != self.turn:  # I4 passes play on; I6 after a pile was taken; I3 at first
            rule = "I4" if self.table.claim is not None else "I6" if self.history else "I3"
            raise IllegalActionError(rule, said("{action}: it is {player}'s turn",
                                                action=_describe(action), player=str(self.turn)))

    def _check_claimable(self, action: Action, kind: str, rule: str) -> None:
        if kind == self.deck.imp:
            raise IllegalActionError(rule, said("{action}: an imp may never be named",
                                                action=_describe(action)))
        if kind not in self.deck.claimable:
            raise IllegalActionError(
                rule,
                said("{action}: {kind} is not a kind in this deck ({kinds})",
                     action=_describe(action), kind=repr(kind),
                     kinds=", ".join(self.deck.claimable)),
            )

    def _check_play(self, action: PlayCards) -> None:
        self._check_turn(action, action.player)
        held = self.table.cards[action.player]
        # I3 starts a pile, I4 adds to it: each says "one or more cards"
        batch_rule = "I3" if self.table.claim is None else "I4"
        if action.count < 1:
            raise IllegalActionError(batch_rule, said("{action}: a batch is one or more cards",
                                                      action=_describe(action)))
        if action.count > held:
            raise IllegalActionError(
                batch_rule,
                _holds_only(action, action.player, held),
            )
        current = self.table.claim
        if current is None:
            if action.claim is None:
                raise IllegalActionError(
                    "I3", said("{action}: a new pile's first batch must name a kind",
                               action=_describe(action))
                )
            self._check_claimable(action, action.claim, "I3")
        elif action.claim is not None and action.claim != current:
            raise IllegalActionError(
                "I4",
                said("{action}: the pile's claim is {claim}; a believer adds cards of the "
                     "same kind", action=_describe(action), claim=repr(current)),
            )

    def _check_doubt(self, action: Doubt) -> None:
        self._check_turn(action, action.player)
        if not self.table.pile:
            raise IllegalActionError("I4", said("{action}: there is no batch to doubt",
                                                action=_describe(action)))
        if self.last_batch is None:
            raise IllegalActionError(
                "I8",
                said("{action}: a polymorph lies face up on top; the next player must add cards",
                     action=_describe(action)),
            )

    def _check_reveal(self, action: CardReveal) -> None:
        batch = self.last_batch
        if self.phase is not Phase.REVEAL or batch is None:
            raise IllegalActionError("I4", said("{action}: no batch has been doubted",
                                                action=_describe(action)))
        if len(action.cards) != batch.count:
            raise IllegalActionError(
                "I4",
                said_n("{action}: the doubted batch is {n} card, the reveal shows {shown}",
                       "{action}: the doubted batch is {n} cards, the reveal shows {shown}",
                       batch.count, action=_describe(action), shown=len(action.cards)),
            )
        shown: dict[str, int] = {}
        for raw in action.cards:
            card = normalise_kind(raw)
            if self.deck.count_of(card) == 0:
                raise IllegalActionError(
                    "I1",
                    said("{action}: {card} is not a card in this deck ({cards})",
                         action=_describe(action), card=repr(card),
                         cards=", ".join(self.card_kinds())),
                )
            shown[card] = shown.get(card, 0) + 1
        for card, count in shown.items():
            available = self.hidden_count(card)
            if count > available:
                raise IllegalActionError(
                    "I1",
                    f"{_describe(action)}: shows {count} {plural(card, count)} but only "
                    f"{available} can be in a hand or the pile",
                )
        could_hold = self.most_in_doubted_batch(POLYMORPH)
        if shown.get(POLYMORPH, 0) > could_hold:
            raise IllegalActionError(
                "I2",
                f"{_describe(action)}: shows {shown[POLYMORPH]} "
                f"{plural(POLYMORPH, shown[POLYMORPH])} {batch.player} could not have played: "
                + (f"{batch.player} holds none (the deal gives them to the last two seats, "
                   "and a hand gets one only by taking a pile)" if could_hold == 0
                   else f"{batch.player} could hold only {could_hold}"),
            )

    def most_in_doubted_batch(self, card: str) -> int:
        """How many ``card`` cards the doubted batch can hold: as many as may be hidden, and
        of the polymorphs no more than its player could have put in it."""
        most = self.hidden_count(card)
        return min(most, self.table.polymorphs_in_top_batch) if card == POLYMORPH else most

    def hidden_count(self, card: str) -> int:
        """How many ``card`` cards (a kind, or polymorph) may be in hands or face down."""
        return self.deck.count_of(card) - self._visible_elsewhere(card)

    def _visible_elsewhere(self, card: str) -> int:
        """Cards of ``card`` known to be face up (discarded, or a polymorph on the pile)."""
        if card == POLYMORPH:
            return self._polymorphs_visible()
        return sum(e.count for e in self.table.discards if e.kind == card)

    def _check_polymorph(self, action: Polymorph) -> None:
        self._check_turn(action, action.player)
        if self.deck.polymorphs == 0:
            raise IllegalActionError(
                "I2", f"{_describe(action)}: this game is dealt without polymorph cards"
            )
        if self.table.claim is None:
            raise IllegalActionError(
                "I8",
                f"{_describe(action)}: a polymorph changes the pile's claim, and no pile "
                "has been started",
            )
        self._check_claimable(action, action.kind, "I8")
        if action.kind == self.table.claim:
            raise IllegalActionError(
                "I8",
                f"{_describe(action)}: the pile is already {plural(action.kind)}; "
                "a polymorph names another kind",
            )
        if self._polymorphs_visible() >= self.deck.polymorphs:
            raise IllegalActionError(
                "I8", f"{_describe(action)}: every polymorph card is already face up"
            )
        if self._polymorph_on_top():
            raise IllegalActionError(
                "I8", f"{_describe(action)}: a polymorph lies face up on top; the next "
                "player must add cards"
            )
        if self.may_hold_polymorphs(action.player) == 0:
            raise IllegalActionError(
                "I8", f"{_describe(action)}: {action.player} cannot hold a polymorph "
                f"({self._polymorph_holders_text()})"
            )

    def _polymorph_on_top(self) -> bool:
        return bool(self.table.pile) and isinstance(self.table.pile[-1], PolymorphPlay)

    def _polymorph_holders_text(self) -> str:
        holders = [n for n in self.players if self.may_hold_polymorphs(n) > 0]
        if not holders:
            return "none can be in a hand now"
        return f"only {', '.join(holders)} can hold one now"

    def _check_discard(self, action: Discard) -> None:
        if self.phase is Phase.REVEAL:
            raise IllegalActionError(
                "I7", f"{_describe(action)}: the doubted batch must be turned up first"
            )
        player = action.player
        if action.kind == self.deck.imp:
            raise IllegalActionError(
                "I7", said("{action}: imps are never discarded, even four of them",
                           action=_describe(action))
            )
        if action.kind == POLYMORPH:
            need = self.deck.polymorphs
            if need == 0:
                raise IllegalActionError(
                    "I2", f"{_describe(action)}: this game is dealt without polymorph cards"
                )
            if self._polymorphs_visible() > 0:
                raise IllegalActionError(
                    "I7", f"{_describe(action)}: both polymorph cards must be in hand to discard"
                )
            if self.may_hold_polymorphs(player) < need:
                raise IllegalActionError(
                    "I7", f"{_describe(action)}: {player} cannot hold both polymorphs: the "
                    "deal gives one each to the last two seats, and a hand gets more only "
                    f"by taking a pile ({self._polymorph_holders_text()})"
                )
        else:
            need = self.deck.count_of(action.kind)
            if need == 0:
                raise IllegalActionError(
                    "I7", f"{_describe(action)}: {action.kind!r} is not a kind in this deck"
                )
            if any(e.kind == action.kind for e in self.table.discards):
                raise IllegalActionError(
                    "I7", said("{action}: the {claims} are already discarded",
                               action=_describe(action), claims=plural(action.kind),
                               claim=action.kind)
                )
        held = self.table.cards[player]
        if held < need:
            raise IllegalActionError("I7", _holds_only(action, player, held))
        if player not in self.table.discard_window:
            what = ("the two polymorphs are discarded (or kept for good) when they come "
                    "into a hand" if action.kind == POLYMORPH
                    else "four of a kind are discarded at once")
            raise IllegalActionError(
                "I7",
                f"{_describe(action)}: {what} — after the deal, or by whoever just took the "
                "pile, before the next play",
            )

    # ------------------------------------------------------------------- apply
    def _play(self, action: Action) -> None:
        if isinstance(action, PlayCards):
            self._play_cards(action)
        elif isinstance(action, Doubt):
            self.table.discard_window.clear()
            self.table.doubter = action.player
            self.phase = Phase.REVEAL
            self.turn = None
        elif isinstance(action, CardReveal):
            self._resolve_doubt(action)
        elif isinstance(action, Polymorph):
            self._play_polymorph(action)
        elif isinstance(action, Discard):
            self._discard(action)

    def _believed(self, actor: str) -> None:
        """``actor`` acted on the pile without doubting: a pending empty hand is now safe (I9)."""
        self.table.discard_window.clear()
        pending = self.table.pending
        if pending is not None:
            self.table.safe.append(pending)
            self.table.pending = None
        if self.table.cards[actor] == 0:
            self.table.pending = actor

    def _play_cards(self, action: PlayCards) -> None:
        claim = self.table.claim or action.claim
        assert claim is not None  # _check_play guarantees it
        self.table.claim = claim
        held_before = self.may_hold_polymorphs(action.player)
        may_lie_with = min(held_before, action.count)
        self.table.cards[action.player] -= action.count
        self.table.pile.append(Batch(action.player, action.count, claim))
        self._cover_top_batch(may_lie_with)
        self.table.held_before_top_batch = held_before
        self._cap_polymorphs_held(action.player)
        self._believed(action.player)
        self._next_turn(action.player)

    def _play_polymorph(self, action: Polymorph) -> None:
        self.table.cards[action.player] -= 1
        self.table.polymorphs_held[action.player] -= 1
        self._cap_polymorphs_held(action.player)
        self._cover_top_batch(0)
        self.table.pile.append(PolymorphPlay(action.player, action.kind))
        self.table.claim = action.kind
        self._believed(action.player)
        self._next_turn(action.player)

    def _resolve_doubt(self, action: CardReveal) -> None:
        batch = self.last_batch
        doubter = self.table.doubter
        assert batch is not None and doubter is not None  # _check_reveal guarantees them
        revealed = tuple(normalise_kind(card) for card in action.cards)
        truthful = all(card == batch.claim for card in revealed)
        taker = doubter if truthful else batch.player
        size = self.pile_size
        became_safe = None
        if self.table.pending is not None and self.table.pending != taker:
            became_safe = self.table.pending
            self.table.safe.append(became_safe)
        self.table.pending = None
        shown = sum(card == POLYMORPH for card in revealed)
        # the polymorphs shown came out of the batch player's hand: it holds that many fewer
        # than it could before (counted once, in the pile, not again in that hand)
        self.table.polymorphs_held[batch.player] = max(0, min(
            self.table.held_before_top_batch - shown, self.table.cards[batch.player]))
        self.table.cards[taker] += size
        in_pile = (self.table.polymorphs_hidden + shown
                   + sum(isinstance(entry, PolymorphPlay) for entry in self.table.pile))
        self.table.polymorphs_held[taker] = min(self.table.polymorphs_held[taker] + in_pile,
                                                self.deck.polymorphs)
        self.table.polymorphs_hidden = self.table.polymorphs_in_top_batch = 0
        self.history.append(
            PileResult(
                number=len(self.history) + 1,
                claim=batch.claim,
                count=batch.count,
                player=batch.player,
                doubter=doubter,
                revealed=revealed,
                truthful=truthful,
                taker=taker,
                pile_size=size,
                became_safe=became_safe,
            )
        )
        self.table.pile.clear()
        self.table.claim = None
        self.table.doubter = None
        self.table.discard_window = {taker}
        self.phase = Phase.BIDDING
        self._next_turn(taker)

    def _discard(self, action: Discard) -> None:
        count = self.deck.count_of(action.kind)
        self.table.cards[action.player] -= count
        self.table.discards.append(DiscardEntry(action.player, action.kind, count))
        if action.kind == POLYMORPH:
            self.table.polymorphs_held = dict.fromkeys(self.players, 0)
            self.table.polymorphs_hidden = self.table.polymorphs_in_top_batch = 0
        self._cap_polymorphs_held(action.player)
        if self.table.cards[action.player] == 0:
            self.table.safe.append(action.player)
            self.table.discard_window.discard(action.player)
            if self.turn == action.player:
                self._next_turn(action.player)
                return
        self._end_if_decided()

    def _cover_top_batch(self, may_hide: int) -> None:
        """A new entry on the pile: the batch it covers can no longer be turned up."""
        self.table.polymorphs_hidden = min(
            self.table.polymorphs_hidden + self.table.polymorphs_in_top_batch,
            self.deck.polymorphs)
        self.table.polymorphs_in_top_batch = may_hide

    def _cap_polymorphs_held(self, name: str) -> None:
        """A hand holds no more polymorphs than cards."""
        self.table.polymorphs_held[name] = self.may_hold_polymorphs(name)

    def _next_turn(self, after: str) -> None:
        if self._end_if_decided():
            return
        self.turn = self._next_active(after)

    def _end_if_decided(self) -> bool:
        """I9: when one player is not safe, that player loses and the game is over."""
        remaining = self._not_safe()
        if len(remaining) > 1:
            return False
        self.loser = remaining[0]
        self.phase = Phase.OVER
        self.turn = None
        self.table.discard_window.clear()
        return True

    # ------------------------------------------------------------------ output
    def legal_action_kinds(self) -> list[str]:
        """What the player whose turn it is may do now (a reveal while one is due)."""
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.REVEAL:
            return ["reveal"]
        kinds = ["play"]
        if self.last_batch is not None:
            kinds.append("doubt")
        if (
            self.table.claim is not None
            and self.deck.polymorphs > self._polymorphs_visible()
            and len(self.deck.claimable) > 1
            and not self._polymorph_on_top()
            and self.turn is not None
            and self.may_hold_polymorphs(self.turn) > 0
        ):
            kinds.append("polymorph")
        return kinds

    def discard_candidates(self) -> list[str]:
        """Players who may still discard four of a kind at once (I7), in seat order."""
        if self.phase is not Phase.BIDDING:
            return []
        window = self.table.discard_window
        pair = self.deck.polymorphs and not self._polymorphs_visible()
        return [n for n in self.players if n in window and (
            self.cards_of(n) >= 4 or (pair and self.may_hold_polymorphs(n) >= 2))]

    def card_kinds(self) -> list[str]:
        """Every card a reveal may name: the kinds in play (imp included), then polymorph."""
        return [*self.deck.kinds_in_play, *([POLYMORPH] if self.deck.polymorphs else [])]

    def reveal_due(self) -> int | None:
        """How many cards the pending reveal must name, or None when none is due."""
        batch = self.last_batch
        return batch.count if self.phase is Phase.REVEAL and batch is not None else None

    def _player_json(self, name: str) -> JsonObject:
        safe = name in self.table.safe
        return {
            "name": name,
            "cards": self.table.cards[name],
            "out": safe,
            "safe": safe,
            "lost": name == self.loser,
        }

    def to_json(self) -> JsonObject:
        out = super().to_json()
        batch = self.last_batch
        out.update(
            {
                "loser": self.loser,
                "claim": self.table.claim,
                "pile": self.pile_size,
                "last_batch": None if batch is None else batch.to_json(),
                "doubter": self.table.doubter,
                "reveal_due": self.reveal_due(),
                "discards": [entry.to_json() for entry in self.table.discards],
                "safe": list(self.table.safe),
                "deck": self.deck.size,
                "kinds": list(self.deck.claimable),
                "card_kinds": self.card_kinds(),
                "polymorphs": self.deck.polymorphs,
            }
        )
        return out

    def house_rules_said(self) -> list[Said]:
        """I2's options as this table plays them: no polymorphs where the deal would have
        them (4 and 5 players), and the kinds taken out of the deck (the board lists those in
        play)."""
        rules = []
        if not self.card_options.polymorphs and len(self.players) in POLYMORPH_TABLES:
            rules.append(said("no polymorphs"))
        removed = self.card_options.removed
        if removed:
            rules.append(said("short game: no {kinds}", kinds=", ".join(removed)))
        return rules

    def deal_said(self) -> Said:
        """I2's deal seat by seat: every hand's creature cards, and the polymorph the last two
        seats get as an extra card (the engine follows the polymorphs from there)."""
        sizes = deal_counts(len(self.players), self.deck)
        extra = set(self.dealt_a_polymorph())
        groups: dict[tuple[int, bool], list[str]] = {}
        for name, size in zip(self.players, sizes, strict=True):
            groups.setdefault((size - (name in extra), name in extra), []).append(name)
        if len(groups) == 1:
            return said_n("Deal {n} card each", "Deal {n} cards each", sizes[0])
        parts = []
        for (count, polymorph), names in groups.items():
            if len(names) == 1:
                parts.append(said(N_("{player} {count} and a polymorph") if polymorph
                                  else N_("{player} {count}"), player=names[0], count=count))
            else:
                listed = said("{players} and {last}", players=", ".join(names[:-1]),
                              last=names[-1])
                parts.append(said(N_("{players} {count} and a polymorph each") if polymorph
                                  else N_("{players} {count} each"), players=listed, count=count))
        return said("Deal the cards: {parts}", parts=tuple(parts))

    def details(self) -> JsonObject:
        out = super().details()
        out["pile_entries"] = [entry.to_json() for entry in self.table.pile]
        out["discard_candidates"] = self.discard_candidates()
        # in hands or face down: a polymorph on a pile someone takes is hidden again
        out["polymorphs_hidden"] = self.deck.polymorphs - self._polymorphs_visible()
        return out


def _describe(action: Action) -> Said:
    """The refused action in a few words ("Cho's play of 20 cards") to lead its refusal; a
    player reads it on the phone, so not its replay object. ``claims`` is a kind in English's
    plural; a dashboard in another language names the kind (``claim``) as the table typed it."""
    if isinstance(action, PlayCards):
        if action.claim is not None:
            return said_n("{player}'s play of {n} card as {claims}",
                          "{player}'s play of {n} cards as {claims}", action.count,
                          player=action.player, claims=plural(action.claim), claim=action.claim)
        return said_n("{player}'s play of {n} card", "{player}'s play of {n} cards",
                      action.count, player=action.player)
    if isinstance(action, Doubt):
        return said("{player}'s \"don't believe\"", player=action.player)
    if isinstance(action, Polymorph):
        return said("{player}'s polymorph as {claims}", player=action.player,
                    claims=plural(action.kind), claim=action.kind)
    if isinstance(action, Discard):
        return said("{player}'s discard of the {claims}", player=action.player,
                    claims=plural(action.kind), claim=action.kind)
    if isinstance(action, CardReveal):
        return said("the turned-up cards")
    key = getattr(action, "key", "")
    return said("a {action}", action=key) if key else said("this action")


def _holds_only(action: Action, player: str, held: int) -> Said:
    return said_n("{action}: {player} holds only {n} card",
                  "{action}: {player} holds only {n} cards",
                  held, action=_describe(action), player=player)
