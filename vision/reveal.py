"""Reveal capture: wait for a still scene, read several frames, vote per die, assign to seats.

Pure — frames in, result out; no camera, no engine. A result that is not certain says so
(`needs_review`, with every problem and where it is) instead of guessing: a seat whose count
differs from what the engine expects, a die outside every seat zone, an uncertain die.
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.draw import drawable, label_anchor
from vision.frame_check import Advice, frame_advice
from vision.params import ReaderParams
from vision.stillness import StillnessParams, moving_fraction, prepare
from vision.words import N_, Words, faces, place, said
from vision.zones import ZoneMap

if TYPE_CHECKING:
    from vision.types import Reading

Frame = NDArray[np.uint8]
Reader = Callable[[Frame, Any], "Reading"]

#: Default confidence below which a voted die is "uncertain" when params give none.
DEFAULT_MIN_CONFIDENCE = 0.6
#: A die must be seen in at least this fraction of the voting frames to exist at all.
DEFAULT_MIN_PRESENCE = 0.34
#: Match radius when the reader gives no die outlines (pixels).
FALLBACK_MATCH_RADIUS_PX = 20.0
#: Wait for about half a second of stillness at 10 fps.
DEFAULT_STILLNESS = StillnessParams()


#: why a reveal read nothing from a camera that gave no frames at all
NO_FRAMES = said("no frames: the camera gave none")


class SceneNotStillError(RuntimeError):
    """The frames ended, or the frame budget ran out, before the scene was still; ``words``
    are its message for a page to say in its language (None for plain text)."""

    def __init__(self, words: Words | str) -> None:
        super().__init__(str(words))
        self.words = words if isinstance(words, Words) else None


@dataclass(frozen=True, slots=True)
class SeatDie:
    """One die after voting: its majority value, position (pixels) and voted confidence;
    ``size`` is its mean side in pixels over the readings (``Die.side_px``), where known."""

    value: int
    x: float
    y: float
    confidence: float
    size: float | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, float | int]:
        """Value, centre, confidence and, where known, ``size``: a reveal's record keeps it,
        so that its photo can become a labelled one (``bluffcam export-reveals``)."""
        out: dict[str, float | int] = {
            "value": self.value,
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "confidence": round(self.confidence, 3),
        }
        if self.size is not None:
            out["size"] = round(self.size, 1)
        return out


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a reveal needs a human look. ``kind``: count_mismatch, set_aside_mismatch,
    outside_zones, uncertain, covered, not_still. ``seat`` and ``x``/``y`` say where, when known."""

    kind: str
    seat: str | None
    x: float | None
    y: float | None
    message: str
    #: the message as an id with parameters (``vision.words``), for a page in another language
    words: Words | None = field(default=None, compare=False)

    @classmethod
    def saying(cls, kind: str, seat: str | None, x: float | None, y: float | None,
               words: Words) -> Problem:
        """A problem whose message is ``words`` in English, the words kept beside it."""
        return cls(kind, seat, x, y, str(words), words)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "seat": self.seat,
            "x": None if self.x is None else round(self.x, 1),
            "y": None if self.y is None else round(self.y, 1),
            "message": self.message,
        }
        if self.words is not None:
            out["said"] = self.words.to_json()  # the page says it in its language
        return out


@dataclass(frozen=True)
class RevealResult:
    """Per seat the voted dice, the set-aside dice, and whether a human must check."""

    seats: dict[str, list[SeatDie]]
    set_aside: dict[str, list[SeatDie]]
    problems: list[Problem]
    annotated: Frame
    frame: Frame
    frames_voted: int
    outside: list[SeatDie] = field(default_factory=list)
    #: what to fix about the picture (dark, blown out, grainy, smeared: ``vision.frame_check``);
    #: it never sends a reveal to review by itself, it tells the players why one went there
    advice: list[Advice] = field(default_factory=list)

    @property
    def needs_review(self) -> bool:
        return bool(self.problems)

    def values(self) -> dict[str, list[int]]:
        """Each seat's zone dice values, sorted (what a reveal action carries)."""
        return {seat: sorted(d.value for d in dice) for seat, dice in self.seats.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "needs_review": self.needs_review,
            "seats": {s: [d.to_json() for d in dice] for s, dice in self.seats.items()},
            "set_aside": {s: [d.to_json() for d in dice] for s, dice in self.set_aside.items()},
            "outside": [d.to_json() for d in self.outside],
            "problems": [p.to_json() for p in self.problems],
            "advice": [a.to_json() for a in self.advice],
            "frames_voted": self.frames_voted,
        }


@dataclass(frozen=True)
class SetAsideResult:
    """The dice a player set aside in front of their cup (for a raise-and-re-roll)."""

    seat: str
    dice: list[SeatDie]
    problems: list[Problem]
    annotated: Frame
    frame: Frame

    @property
    def needs_review(self) -> bool:
        return bool(self.problems)

    @property
    def values(self) -> list[int]:
        return sorted(d.value for d in self.dice)


# --------------------------------------------------------------------------- stillness


class StillRun:
    """The run of still frames the latest camera frame belongs to.

    Each frame is compared with the run's first, not only with the frame before: a hand
    moving a few pixels a frame changes little between two frames, but its path adds up
    over the run. :meth:`add` gives each frame's place in its run (0: it starts a new one)."""

    def __init__(self, params: StillnessParams) -> None:
        self.params = params
        self._window: deque[Frame] = deque(maxlen=params.still_frames + 1)
        self._anchor: NDArray[np.uint8] | None = None
        self._still = 0
        self._last_motion = 0.0
        self.seen = 0

    def add(self, frame: Frame) -> int:
        """Take the camera's next frame; its place in the current run (0: a new run)."""
        self.seen += 1
        small = prepare(frame, self.params)
        if self._anchor is not None:
            self._last_motion = moving_fraction(self._anchor, small, self.params)
            still = self._last_motion <= self.params.max_moving_fraction
            self._still = self._still + 1 if still else 0
        if self._still == 0:
            self._anchor = small
            self._window.clear()
        self._window.append(frame)
        return self._still

    @property
    def window(self) -> list[Frame]:
        """The run's frames, oldest first (its last ``still_frames + 1`` at most)."""
        return list(self._window)

    def check_budget(self) -> None:
        """Raise `SceneNotStillError` once ``max_frames`` frames have passed."""
        if self.params.max_frames is not None and self.seen >= self.params.max_frames:
            raise SceneNotStillError(said(
                "scene not still after {n} frames (last change: {moved}% of the picture "
                "moved); keep hands out of the picture",
                n=self.seen, moved=round(100 * self._last_motion, 1)))

    def ended(self) -> SceneNotStillError:
        """The error for frames that ended before the scene was still."""
        if self.seen == 0:
            return SceneNotStillError(NO_FRAMES)
        return SceneNotStillError(said(  # a live camera's frames end where the table stops
            "frames ended after {n} before the scene was still for {still} frames; keep "
            "hands out of the picture", n=self.seen, still=self.params.still_frames))


def wait_for_still(frames: Iterable[Frame], params: StillnessParams | None = None, *,
                   on_run_frame: Callable[[int, Frame], None] | None = None) -> list[Frame]:
    """Consume frames until ``still_frames`` frames in a row barely differ from the first
    frame of their run (:class:`StillRun`).

    Returns the still window (``still_frames + 1`` frames, oldest first).
    ``on_run_frame(position, frame)`` is told of each frame as it joins the current run (0:
    it starts a new one), so a caller can begin reading while the wait goes on.
    Raises `SceneNotStillError` when the frames end or ``max_frames`` pass first.
    """
    run = StillRun(params or StillnessParams())
    for frame in frames:
        position = run.add(frame)
        if on_run_frame is not None:
            on_run_frame(position, frame)
        if position >= run.params.still_frames:
            return run.window
        run.check_budget()
    raise run.ended()


# --------------------------------------------------------------------------- voting


@dataclass
class _Track:
    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)
    values: list[int] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)
    sizes: list[float] = field(default_factory=list)

    @property
    def position(self) -> tuple[float, float]:
        return float(np.mean(self.xs)), float(np.mean(self.ys))


def _match_radius(readings: Sequence[Reading]) -> float:
    """Half a die's side: two dice never sit closer than a side apart."""
    sides = [die.side_px for reading in readings for die in reading.dice]
    return 0.5 * float(np.median(sides)) if sides else FALLBACK_MATCH_RADIUS_PX


def vote(
    readings: Sequence[Reading],
    *,
    match_radius: float | None = None,
    min_presence: float = DEFAULT_MIN_PRESENCE,
) -> list[SeatDie]:
    """Match dice across readings by position and vote on each die's value.

    A die's confidence is agreement (votes for its majority value / number of readings)
    times the reader's mean confidence in those votes, so flicker and disagreement lower it.
    Dice seen in fewer than ``min_presence`` of the readings are dropped as noise.
    """
    if not readings:
        return []
    return _finish_vote(_tracks(readings, match_radius), len(readings), min_presence)


def _tracks(readings: Sequence[Reading], match_radius: float | None) -> list[_Track]:
    """Dice matched across readings by position: one track per physical die."""
    radius = match_radius if match_radius is not None else _match_radius(readings)
    tracks: list[_Track] = []
    for reading in readings:
        taken: set[int] = set()
        for die in sorted(reading.dice, key=lambda d: -d.confidence):
            best, best_distance = None, radius
            for index, track in enumerate(tracks):
                if index in taken:
                    continue
                tx, ty = track.position
                distance = float(np.hypot(die.x - tx, die.y - ty))
                if distance <= best_distance:
                    best, best_distance = index, distance
            if best is None:
                tracks.append(_Track())
                best = len(tracks) - 1
            taken.add(best)
            track = tracks[best]
            track.xs.append(die.x)
            track.ys.append(die.y)
            track.values.append(die.value)
            track.confidences.append(die.confidence)
            track.sizes.append(die.side_px)
    return tracks


def unanimous(readings: Sequence[Reading], *, match_radius: float | None = None) -> bool:
    """Whether every die was seen in every reading with the same value (no need to read more)."""
    return all(
        len(t.values) == len(readings) and len(set(t.values)) == 1
        for t in _tracks(readings, match_radius)
    )


def _finish_vote(tracks: list[_Track], total: int, min_presence: float) -> list[SeatDie]:
    voted = []
    for track in tracks:
        if len(track.values) / total < min_presence:
            continue
        counts = Counter(track.values)
        value, votes = max(counts.items(), key=lambda item: (item[1], _conf_sum(track, item[0])))
        agreeing = [c for v, c in zip(track.values, track.confidences, strict=True) if v == value]
        confidence = (votes / total) * float(np.mean(agreeing))
        x, y = track.position
        voted.append(SeatDie(value, x, y, round(confidence, 4), float(np.mean(track.sizes))))
    return sorted(voted, key=lambda d: (d.y, d.x))


def _conf_sum(track: _Track, value: int) -> float:
    return sum(c for v, c in zip(track.values, track.confidences, strict=True) if v == value)


# --------------------------------------------------------------------------- capture


def _expected_split(expected: Any) -> tuple[int, tuple[int, ...] | None]:
    """``(total dice, set-aside values)`` from an int or an engine ``ExpectedHand``.

    ``ExpectedHand.count`` is the player's whole hand, set-aside dice included. A bare int
    is the whole hand too, with the set-aside values unknown (``None``: not checked).
    """
    if isinstance(expected, int) and not isinstance(expected, bool):
        return expected, None
    count = getattr(expected, "count", None)
    if not isinstance(count, int):
        raise TypeError(f"expected count must be an int or have .count, got {expected!r}")
    return count, tuple(int(v) for v in getattr(expected, "set_aside", ()) or ())


def _default_reader() -> Reader:
    from vision import read_dice  # lazily: the reader is heavy and tests may pass their own

    return read_dice


def _read_frames(
    frames: Iterable[Frame],
    vote_frames: int,
    stillness: StillnessParams | None,
) -> Iterator[Frame]:
    """The frames to read, at most ``vote_frames``: the still run's last ones, then the
    camera's next ones, each taken only when the reading asks for it (a camera's frame is a
    frame period's wait: none is taken to be thrown away). Raises `SceneNotStillError`
    before the first."""
    iterator: Iterator[Frame] = iter(frames)
    if stillness is None:
        first = next(iterator, None)
        if first is None:
            raise SceneNotStillError(NO_FRAMES)
        return itertools.islice(itertools.chain([first], iterator), vote_frames)
    window = wait_for_still(iterator, stillness)[-vote_frames:]
    return itertools.islice(itertools.chain(window, iterator), vote_frames)


class _EarlyReads:
    """Readings of frames made while the wait for a still scene goes on (the frames come a
    frame period apart, and a read takes less), so that the wait's last frames cost nothing
    more than their wait: the run's first ``first_reads`` frames, for a verdict before the
    wait is over (:func:`capture_reveal`), and the frames the whole wait's vote takes first.
    A run's first frame is read only once a second frame has joined it (while things move,
    every frame starts a run). A run that motion breaks is forgotten with its readings."""

    def __init__(self, read: Reader, params: ReaderParams | None, stillness: StillnessParams,
                 vote_frames: int, first_reads: int) -> None:
        self._read, self._params = read, params
        # the whole wait's vote reads the still window's last `vote_frames` frames, from the
        # oldest, never a run's first
        first = max(1, stillness.still_frames + 1 - vote_frames)
        self._wanted = set(range(first_reads)) | set(range(first, first + first_reads))
        self._made: dict[int, tuple[Frame, Reading]] = {}
        self._run_start: Frame | None = None

    def offer(self, position: int, frame: Frame) -> None:
        if position == 0:
            self._made.clear()
            self._run_start = frame
            return
        if self._run_start is not None:  # the run's first frame holds: read it now
            start, self._run_start = self._run_start, None
            if 0 in self._wanted:
                self._keep(start)
        if position in self._wanted:
            self._keep(frame)

    def _keep(self, frame: Frame) -> None:
        self._made[id(frame)] = (frame, self._read(frame, self._params))

    def __call__(self, frame: Frame, params: ReaderParams | None) -> Reading:
        made = self._made.get(id(frame))
        if made is not None and made[0] is frame:
            return made[1]
        return self._read(frame, params)


@dataclass(frozen=True)
class _Table:
    """What a reveal's frames are checked against: the zones, who sits where, what the
    engine expects of each player, and the bars."""

    zones: ZoneMap
    seating: list[str | None]
    expected: Mapping[str, Any]
    params: ReaderParams | None
    threshold: float
    match_radius: float | None

    @property
    def players(self) -> list[str]:
        return list(self.expected)


def capture_reveal(
    frames: Iterable[Frame] | Frame,
    zones: ZoneMap,
    expected_counts: Mapping[str, Any],
    params: ReaderParams | None = None,
    *,
    stillness: StillnessParams | None = DEFAULT_STILLNESS,
    vote_frames: int = 5,
    min_vote_frames: int = 3,
    reader: Reader | None = None,
    min_confidence: float | None = None,
    match_radius: float | None = None,
    seating: Sequence[str | None] | None = None,
) -> RevealResult:
    """Wait for a still scene, vote over several frames, and check dice against expectations.

    ``expected_counts`` maps the players still in the game to their dice (an int, or the
    engine's ``ExpectedHand`` with ``.count`` and ``.set_aside``). ``seating`` names who
    sits at zone 0, 1, …: every player of the game, those already out included, and None
    for a seat nobody took. So a player's zone stays theirs when a neighbour drops out, and
    a die in the zone of a player who is out is a problem. Without ``seating``, the players of
    ``expected_counts``, in its order, sit at zones 0, 1, ….
    ``stillness=None`` skips the wait (frames known to be still, e.g. one photo).
    Reading stops after ``min_vote_frames`` when they agree on every die, else goes on to
    ``vote_frames`` (reading is the slow part); they are read while the wait for stillness
    goes on. Where the first ``min_vote_frames`` frames of a still run agree and leave
    nothing to check (every die sure, each player's count as expected, nothing outside the
    zones or covered), that is the verdict, without waiting for the rest of the still
    frames: the wait is for the hands to be gone, and a reading that shows every expected
    die, sure, in three frames that agree says they are. Any other reveal waits for the
    whole still window and is voted on as before. ``reader`` defaults to
    `vision.read_dice`; tests pass a stand-in.
    """
    players = list(expected_counts)
    seats_in_order: list[str | None] = list(seating) if seating is not None else list(players)
    if len(seats_in_order) > len(zones.names):
        raise ValueError(
            f"{len(players)} players but only {len(zones.names)} seat zones" if seating is None
            else f"someone sits at seat {len(seats_in_order)} but there are only "
                 f"{len(zones.names)} seat zones")
    strangers = [p for p in players if p not in seats_in_order]
    if strangers:
        raise ValueError(f"{', '.join(strangers)} not in the seating {seats_in_order}")
    table = _Table(zones, seats_in_order, expected_counts, params,
                   _threshold(params, min_confidence), match_radius)
    read = reader or _default_reader()
    try:
        if stillness is None:
            to_read = _read_frames(_as_frames(frames), vote_frames, None)
        else:
            early = _EarlyReads(read, params, stillness, vote_frames, min_vote_frames)
            read = early
            waited = _wait_or_settle(iter(_as_frames(frames)), stillness, early, table,
                                     vote_frames, min_vote_frames)
            if isinstance(waited, RevealResult):
                return waited
            to_read = waited
    except SceneNotStillError as exc:
        return _not_still_result(players, exc)
    chosen: list[Frame] = []
    readings: list[Reading] = []
    for frame in to_read:
        chosen.append(frame)
        readings.append(read(frame, params))
        if len(readings) >= min_vote_frames and unanimous(readings, match_radius=match_radius):
            break
    return _verdict(table, chosen, readings)


def _wait_or_settle(frames: Iterator[Frame], stillness: StillnessParams, early: _EarlyReads,
                    table: _Table, vote_frames: int, first_reads: int,
                    ) -> RevealResult | Iterator[Frame]:
    """Wait for the scene to be still, reading as the frames come: a clean verdict where the
    run's first ``first_reads`` frames settle it (:func:`capture_reveal`), else the frames
    to vote on (the still window's last ``vote_frames``, then the camera's next ones, each
    taken only when the reading asks for it). Raises `SceneNotStillError`."""
    run = StillRun(stillness)
    settle_at = first_reads - 1 if first_reads - 1 < stillness.still_frames else None
    for frame in frames:
        position = run.add(frame)
        early.offer(position, frame)
        if position == settle_at:
            window = run.window
            readings = [early(f, table.params) for f in window]
            if unanimous(readings, match_radius=table.match_radius):
                placed = _placed(table, window[-1], readings)
                # the cover check (a network) only where nothing else needs a look
                if placed.is_clean and not _covered(table, window[-1], placed):
                    return _result(table, window, readings, placed, [])
        if position >= stillness.still_frames:
            window = run.window[-vote_frames:]
            return itertools.islice(itertools.chain(window, frames), vote_frames)
        run.check_budget()
    raise run.ended()


@dataclass(frozen=True)
class _Placed:
    """The voted dice in their seats' zones and fronts, with what the zones and the
    engine's counts say is wrong (not yet the cover check)."""

    zones: ZoneMap
    seats: dict[str, list[SeatDie]]
    set_aside: dict[str, list[SeatDie]]
    outside: list[SeatDie]
    placing: list[Problem]
    counts: list[Problem]

    @property
    def is_clean(self) -> bool:
        return not self.placing and not self.counts


def _placed(table: _Table, frame: Frame, readings: list[Reading]) -> _Placed:
    """The dice voted from ``readings`` placed by the zones as they lie in ``frame``, and
    checked against the counts the engine expects."""
    zones = _zones_in(table.zones, frame)
    dice = [d for d in vote(readings, match_radius=table.match_radius)
            if not _masked(zones, d)]
    seats, set_aside, outside, placing = _place_dice(dice, zones, table.seating,
                                                     table.players, table.threshold)
    counts = [problem for player in table.players for problem in _count_problems(
        player, table.expected[player], seats[player], set_aside[player])]
    return _Placed(zones, seats, set_aside, outside, placing, counts)


def _covered(table: _Table, frame: Frame, placed: _Placed) -> list[Problem]:
    return _covered_problems(frame, placed.seats, placed.set_aside, table.threshold,
                             table.params)


def _verdict(table: _Table, chosen: list[Frame], readings: list[Reading]) -> RevealResult:
    """The reveal voted from ``readings`` of the ``chosen`` frames, checked against
    ``table``."""
    placed = _placed(table, chosen[-1], readings)
    return _result(table, chosen, readings, placed, _covered(table, chosen[-1], placed))


def _result(table: _Table, chosen: list[Frame], readings: list[Reading], placed: _Placed,
            covered: list[Problem]) -> RevealResult:
    """The reveal's result, its problems in the order a person reads them (where the dice
    lie, what lies over them, the counts) and the photo drawn."""
    problems = [*placed.placing, *covered, *placed.counts]
    frame = chosen[-1]
    advice = frame_advice(frame, readings[-1], table.params)
    result = RevealResult(placed.seats, placed.set_aside, problems, frame.copy(), frame,
                          len(chosen), placed.outside)
    out = [p for p in table.seating if p is not None and p not in table.expected]
    labels = seat_labels(placed.zones, table.seating, out=out)
    annotated = draw_reveal(frame, placed.zones, result, labels)
    return RevealResult(placed.seats, placed.set_aside, problems, annotated, frame,
                        len(chosen), placed.outside, advice)


def _place_dice(
    dice: list[SeatDie], zones: ZoneMap, seating: list[str | None], players: list[str],
    threshold: float,
) -> tuple[dict[str, list[SeatDie]], dict[str, list[SeatDie]], list[SeatDie], list[Problem]]:
    """Each die to its owner's cup zone or set-aside front (zone *i* is ``seating[i]``'s),
    or outside the zones of the ``players`` still in the game; with a problem for each die
    outside and each read under ``threshold``."""
    seats: dict[str, list[SeatDie]] = {p: [] for p in players}
    set_aside: dict[str, list[SeatDie]] = {p: [] for p in players}
    outside: list[SeatDie] = []
    problems: list[Problem] = []
    for die in dice:
        front = zones.front_seat_of(die.x, die.y)
        seat = zones.seat_of(die.x, die.y) if front is None else front
        sitter = seating[seat] if seat is not None and seat < len(seating) else None
        owner = sitter if sitter in seats else None
        if owner is None:
            outside.append(die)
            # in words: the review page marks the die at x, y on the photo
            words = (
                said("a die showing {value} lies outside every seat zone", value=die.value)
                if seat is None
                else said("a die showing {value} lies in the zone of {zone}, where nobody plays",
                          value=die.value, zone=zones.names[seat]) if sitter is None
                else said("a die showing {value} lies in the zone of {player}, who is out of "
                          "the game", value=die.value, player=sitter)
            )
            problems.append(Problem.saying("outside_zones", None, die.x, die.y, words))
            continue
        (set_aside if front is not None else seats)[owner].append(die)
        if die.confidence < threshold:
            problems.append(_unsure(owner, die))
    return seats, set_aside, outside, problems


def _covered_problems(
    frame: Frame, seats: dict[str, list[SeatDie]], set_aside: dict[str, list[SeatDie]],
    threshold: float, params: ReaderParams | None,
) -> list[Problem]:
    """A problem for each die read as sure that the cover check says something lies over
    (``vision.cover_check``): the pips in sight of a half-hidden die are read surely and
    wrongly, and no count check notices a die whose value is wrong."""
    bar = (params or ReaderParams()).cover_doubt_odds
    sure = [(owner, die) for group in (seats, set_aside) for owner, dice in group.items()
            for die in dice if die.confidence >= threshold and die.size]
    from vision.cover_check import doubted  # lazily: loads a network on first use

    flags = doubted(frame, [(d.x, d.y, float(d.size or 0)) for _, d in sure], bar)
    return [
        Problem.saying("covered", owner, die.x, die.y,
                       said("{seat}: something lies over part of a die read as {value} (a "
                            "finger? a sleeve?); clear it and read again, or check the die",
                            seat=owner, value=die.value))
        for (owner, die), flag in zip(sure, flags, strict=True) if flag
    ]


def _unsure(seat: str, die: SeatDie, *, set_aside: bool = False) -> Problem:
    """The problem of a die read under the review threshold, in words a player reads on the
    review page (the photo marks the die at ``x``/``y``)."""
    msgid = (N_("{seat}: a die set aside looks like a {value}, but the camera is only "
                "{percent}% sure") if set_aside
             else N_("{seat}: a die looks like a {value}, but the camera is only {percent}% sure"))
    return Problem.saying("uncertain", seat, die.x, die.y,
                          said(msgid, seat=seat, value=die.value,
                               percent=round(100 * die.confidence)))


def _zones_in(zones: ZoneMap, frame: Frame) -> ZoneMap:
    """The zones as they lie in ``frame``, for zone maps that follow mat markers."""
    locate = getattr(zones, "for_frame", None)
    return locate(frame) if callable(locate) else zones


def _masked(zones: ZoneMap, die: SeatDie) -> bool:
    """Whether the zone map says no die can lie where this one was read (a mat marker)."""
    masks = getattr(zones, "masks", None)
    return bool(masks(die.x, die.y)) if callable(masks) else False


def _as_frames(frames: Iterable[Frame] | Frame) -> Iterable[Frame]:
    """Accept one frame where frames are expected (a single photo, colour or grey): iterating
    a grey frame itself would hand out its rows as frames."""
    if isinstance(frames, np.ndarray) and frames.ndim in (2, 3):
        return [frames]
    return frames


def _threshold(params: Any, min_confidence: float | None) -> float:
    if min_confidence is not None:
        return min_confidence
    return float(getattr(params, "min_confidence", DEFAULT_MIN_CONFIDENCE))


def _count_problems(
    player: str, expected: Any, in_zone: list[SeatDie], in_front: list[SeatDie]
) -> list[Problem]:
    total, expected_aside = _expected_split(expected)
    problems = []
    seen = len(in_zone) + len(in_front)
    if seen > total:
        # one die too many is most often a side face or a pip taken for a die: point at the
        # least sure, so that the review page circles the likeliest one to remove
        doubtful = min(in_zone + in_front, key=lambda d: d.confidence)
        problems.append(
            Problem.saying(
                "count_mismatch", player, doubtful.x, doubtful.y,
                said("{seat}: expected {total} dice, the camera sees {seen}; the least sure is "
                     "a {value} at {place}, {percent}% sure", seat=player, total=total,
                     seen=seen, value=doubtful.value,
                     place=place(doubtful.x, doubtful.y),
                     percent=round(100 * doubtful.confidence)),
            )
        )
    elif seen < total:
        problems.append(
            Problem.saying(
                "count_mismatch", player, None, None,
                said("{seat}: expected {total} dice, the camera sees {seen}", seat=player,
                     total=total, seen=seen),
            )
        )
    front_values = sorted(d.value for d in in_front)
    if expected_aside is None:
        return problems  # a bare count says nothing about set-aside dice
    if front_values != sorted(expected_aside):
        problems.append(
            Problem.saying(
                "set_aside_mismatch", player, None, None,
                said("{seat}: the dice set aside were {expected}; in front of the cup the "
                     "camera sees {seen}", seat=player, expected=faces(sorted(expected_aside)),
                     seen=faces(front_values)),
            )
        )
    return problems


def _not_still(seat: str | None, exc: SceneNotStillError) -> Problem:
    """The review problem of a wait that never saw a still scene, in its words where it has
    them (a caller's frames may end with plain text)."""
    if exc.words is None:
        return Problem("not_still", seat, None, None, str(exc))
    return Problem.saying("not_still", seat, None, None, exc.words)


def _not_still_result(players: list[str], exc: SceneNotStillError) -> RevealResult:
    blank = np.zeros((1, 1, 3), dtype=np.uint8)
    return RevealResult(
        {p: [] for p in players},
        {p: [] for p in players},
        [_not_still(None, exc)],
        blank,
        blank,
        0,
    )


def read_set_aside(
    frames: Iterable[Frame] | Frame,
    seat: int,
    zones: ZoneMap,
    params: ReaderParams | None = None,
    *,
    stillness: StillnessParams | None = DEFAULT_STILLNESS,
    vote_frames: int = 3,
    reader: Reader | None = None,
    min_confidence: float | None = None,
    match_radius: float | None = None,
) -> SetAsideResult:
    """Read the dice in front of one seat's cup (REROLL), voting over a few still frames."""
    name = zones.names[seat]
    if zones.front_of_cup(seat) is None:
        raise ValueError(f"{name} has no front-of-cup area in the calibration profile")
    read = reader or _default_reader()
    blank = np.zeros((1, 1, 3), dtype=np.uint8)
    try:
        chosen = list(_read_frames(_as_frames(frames), vote_frames, stillness))
    except SceneNotStillError as exc:
        return SetAsideResult(
            name, [], [_not_still(name, exc)], blank, blank
        )
    dice = vote([read(f, params) for f in chosen], match_radius=match_radius)
    threshold = _threshold(params, min_confidence)
    zones = _zones_in(zones, chosen[-1])
    mine = [d for d in dice if zones.front_seat_of(d.x, d.y) == seat]
    problems = [_unsure(name, d, set_aside=True) for d in mine if d.confidence < threshold]
    covered = _covered_problems(chosen[-1], {name: mine}, {}, threshold, params)
    problems.extend(covered)
    if not mine:
        problems.append(
            Problem.saying("count_mismatch", name, None, None,
                           said("{seat}: no dice seen in front of the cup", seat=name))
        )
    annotated = chosen[-1].copy()
    _draw_polygon(annotated, zones.front_of_cup(seat), seat_colour(seat), 2)
    doubted = {(p.x, p.y) for p in covered}
    for die in mine:
        _draw_die(annotated, die, die.confidence < threshold or (die.x, die.y) in doubted)
    return SetAsideResult(name, mine, problems, annotated, chosen[-1])


# --------------------------------------------------------------------------- drawing

_SEAT_COLOURS = [
    (60, 180, 75),
    (255, 130, 0),
    (200, 50, 200),
    (0, 200, 255),
    (255, 255, 0),
    (130, 0, 255),
]
_RED = (0, 0, 255)


def seat_colour(seat: int) -> tuple[int, int, int]:
    """The BGR colour of a seat's zone, the same in every annotated picture."""
    return _SEAT_COLOURS[seat % len(_SEAT_COLOURS)]


def _draw_polygon(
    image: Frame,
    polygon: Sequence[tuple[float, float]] | None,
    colour: tuple[int, int, int],
    thickness: int,
) -> None:
    if not polygon:
        return
    pts = np.round(np.asarray(polygon, dtype=np.float64)).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(image, [pts], True, colour, thickness, cv2.LINE_AA)


def _draw_die(image: Frame, die: SeatDie, uncertain: bool) -> None:
    scale = max(image.shape[:2]) / 1000
    centre = (round(die.x), round(die.y))
    colour = _RED if uncertain else (255, 255, 255)
    cv2.circle(
        image, centre, max(6, round(18 * scale)), colour, max(1, round(2 * scale)), cv2.LINE_AA
    )
    label = f"{die.value}" + ("?" if uncertain else "")
    cv2.putText(
        image,
        label,
        (centre[0] + round(20 * scale), centre[1]),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.8 * max(scale, 0.5),
        colour,
        max(1, round(2 * scale)),
        cv2.LINE_AA,
    )


def seat_labels(
    zones: ZoneMap, seating: Sequence[str | None], out: Sequence[str] = ()
) -> list[str]:
    """Each zone's label in a picture: the player who sits there (marked if ``out`` of the
    game), or the seat's own name marked empty where nobody sits (``seating`` shorter than
    the zones, or None there)."""
    labels = []
    for index, name in enumerate(zones.names):
        sitter = seating[index] if index < len(seating) else None
        seat = drawable(name) or f"Seat {index + 1}"
        who = None if sitter is None else drawable(sitter) or seat
        labels.append(f"{seat} (empty)" if who is None
                      else f"{who} (out)" if sitter in out else who)
    return labels


def draw_zones(image: Frame, zones: ZoneMap, labels: Sequence[str]) -> None:
    """Draw each seat's zone, its front-of-cup area and its label on ``image`` (in place),
    in the seat's colour: the same look on the calibration page, in the calibration picture
    and on every reveal photo, so a player finds their zone by its colour on each."""
    scale = max(image.shape[:2]) / 1000
    thick = max(1, round(2 * scale))
    for index, label in enumerate(labels):
        label = drawable(label) or f"Seat {index + 1}"
        colour = seat_colour(index)
        polygon = zones.zone(index)
        _draw_polygon(image, polygon, colour, thick)
        _draw_polygon(image, zones.front_of_cup(index), colour, max(1, thick // 2))
        size = 0.7 * max(scale, 0.5)
        (text_w, text_h), below = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, size, thick)
        pad = max(2, round(5 * scale))
        spot = label_anchor(polygon, image.shape, (text_w + 2 * pad, text_h + below + 2 * pad))
        if spot is None:  # no room inside the zone: by its bounding box, as before
            left, top = np.asarray(polygon, dtype=np.float64).min(axis=0)
            spot = (round(left), round(top))
        x, y = spot
        cv2.putText(image, label, (x + pad, y + pad + text_h), cv2.FONT_HERSHEY_SIMPLEX, size,
                    colour, thick, cv2.LINE_AA)


def draw_reveal(
    frame: Frame, zones: ZoneMap, result: RevealResult, labels: Sequence[str]
) -> Frame:
    """A copy of the frame with zones (labelled as :func:`seat_labels` says), voted dice and
    problems drawn on it."""
    image = frame.copy()
    threshold_hits = {(p.x, p.y) for p in result.problems if p.kind in ("uncertain", "covered")}
    draw_zones(image, zones, labels)
    for dice in [*result.seats.values(), *result.set_aside.values()]:
        for die in dice:
            _draw_die(image, die, (die.x, die.y) in threshold_hits)
    for die in result.outside:
        _draw_die(image, die, True)
    count = len(result.problems)
    header = f"NEEDS REVIEW: {count} problem{'s' * (count != 1)}" if count else "reading OK"
    draw_header_line(image, header, 0, _RED if result.problems else (0, 200, 0))
    return image


def draw_header_line(image: Frame, text: str, line: int, colour: tuple[int, int, int] = _RED
                     ) -> None:
    """Write ``text`` (ASCII) in place as the ``line``-th line (0 first) of the photo's
    header at its top left: `draw_reveal` writes line 0, a later check (a recorded game's
    ground truth) may add its own below, sized like it."""
    scale = max(image.shape[:2]) / 1000
    thick = max(1, round(2 * scale))
    font = 0.7 * max(scale, 0.5)
    step = round(30 * scale) + 10
    cv2.putText(image, text, (10, step * (line + 1)), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2,
                colour, thick + 1, cv2.LINE_AA)
