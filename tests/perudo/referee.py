"""A second, independent Perudo referee, written from docs/perudo.md alone.

It shares nothing with engine/perudo.py (no engine import at all): plain dicts and tuples,
raises compared pairwise by the words of P6 and P13 instead of a sort key. The random-game
test feeds both the same actions and checks they accept, refuse (with the same rule id)
and settle alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ACE = 0  # this referee's own spelling of an ace bid's face


@dataclass
class Ref:
    seats: list[str]
    start: int
    calza_on: bool = True
    palifico_on: bool = True
    dice: dict[str, int] = field(default_factory=dict)
    turn: str | None = None
    bid: tuple[int, int] | None = None  # (count, face); face ACE for aces
    bidder: str | None = None
    call: tuple[str, str] | None = None  # (kind, caller) while a reveal is due
    paly: str | None = None  # whose palifico round this is
    paly_done: set[str] = field(default_factory=set)
    winner: str | None = None

    @classmethod
    def new(cls, seats: list[str], starter: str, options: dict[str, Any]) -> Ref:
        n = options.get("dice_per_player", 5)
        ref = cls(seats, n, options.get("calza", True), options.get("palifico", True))
        ref.dice = {s: n for s in seats}
        ref.turn = starter
        return ref

    # ------------------------------------------------------------- helpers
    def after(self, seat: str) -> str:
        i = self.seats.index(seat)
        while True:
            i = (i + 1) % len(self.seats)
            if self.dice[self.seats[i]]:
                return self.seats[i]

    def raise_ok(self, new: tuple[int, int]) -> bool:
        if self.bid is None:
            return True
        (pc, pf), (nc, nf) = self.bid, new
        if self.paly is not None:
            # aces are the lowest face: rank ACE as 1
            pr, nr = (1 if pf == ACE else pf), (1 if nf == ACE else nf)
            return nc > pc or (nc == pc and nr > pr)
        if pf != ACE and nf != ACE:
            return nc > pc or (nc == pc and nf > pf)
        if pf == ACE and nf == ACE:
            return nc > pc
        if nf == ACE:  # to aces: at least half, rounded up
            return 2 * nc >= pc
        return nc >= 2 * pc + 1  # from aces: at least double plus one

    def turn_error(self, who: str) -> str | None:
        if self.call is not None:
            return "P8"
        if who != self.turn:
            return "P11" if self.dice[who] == 0 else "P1"
        return None

    # ------------------------------------------------------------- actions
    def act(self, obj: dict[str, Any]) -> str | None:
        """Apply one replay object; the rule id of a refusal, or None when accepted."""
        if self.winner is not None:
            return "P11"
        who = str(obj.get("player"))
        if "player" in obj and who not in self.seats:
            return "P1"
        if "bid" in obj:
            return self.do_bid(who, obj["bid"])
        if "dudo" in obj or "calza" in obj:
            kind = "dudo" if "dudo" in obj else "calza"
            err = self.turn_error(who)
            if err:
                return err
            if kind == "calza" and not self.calza_on:
                return "P10"
            if self.bid is None:
                return "P8" if kind == "dudo" else "P10"
            self.call, self.turn = (kind, who), None
            return None
        return self.do_reveal(obj["reveal"])

    def do_bid(self, who: str, text: str) -> str | None:
        err = self.turn_error(who)
        if err:
            return err
        count_text, face_text = text.split("x") if "x" in text else (text[:-1], "*")
        count, face = int(count_text), (ACE if face_text == "*" else int(face_text))
        if face == 1:
            return "P5"
        if self.paly is None:
            if self.bid is None and face == ACE:
                return "P9"
            if not self.raise_ok((count, face)):
                return "P6"
        else:
            if self.bid is not None and face != self.bid[1] and self.dice[who] != 1:
                return "P13"
            if not self.raise_ok((count, face)):
                return "P13"
        self.bid, self.bidder, self.turn = (count, face), who, self.after(who)
        return None

    def do_reveal(self, hands: dict[str, list[int]]) -> str | None:
        if self.call is None:
            return "P8"
        live = [s for s in self.seats if self.dice[s]]
        if sorted(hands) != sorted(live) or any(len(hands[s]) != self.dice[s] for s in live):
            return "P8"
        assert self.bid is not None and self.bidder is not None
        count, face = self.bid
        total = 0
        for faces in hands.values():
            for f in faces:
                if face == ACE:
                    total += f == 1
                else:
                    total += f == face or (f == 1 and self.paly is None)
        kind, caller = self.call
        lost: str | None = None
        if kind == "dudo":
            lost = self.bidder if total < count else caller
            first = lost
        else:
            first = caller
            if total == count:
                self.dice[caller] = min(self.start, self.dice[caller] + 1)
            else:
                lost = caller
        if lost is not None:
            self.dice[lost] -= 1
        self.bid = self.bidder = self.call = None
        self.paly = None
        alive = [s for s in self.seats if self.dice[s]]
        if len(alive) == 1:
            self.winner, self.turn = alive[0], None
            return None
        if self.dice[first] == 0:
            first = self.after(first)
        elif (self.palifico_on and first == lost and self.dice[first] == 1
              and first not in self.paly_done):
            self.paly = first
            self.paly_done.add(first)
        self.turn = first
        return None
