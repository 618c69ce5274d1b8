"""The camera's own words reach a page in its language: every review problem, card problem
and piece of picture advice carries its sentence as {msgid, params} (vision/words.py) beside
its English, the JSON says the same English when filled in as the page fills it, and every
sentence the camera says has a translation in each language's catalog. No pixels read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from babel.messages.pofile import read_po

import vision.cover_check
import vision.frame_check
from engine.game import ExpectedHand
from engine.words import LANGUAGES
from vision.card_reveal import check_card_reveal
from vision.card_types import CardReading, SeenCard
from vision.frame_check import Advice, frame_advice, small_dice_advice
from vision.params import ReaderParams
from vision.reveal import Problem, SceneNotStillError, capture_reveal, read_set_aside
from vision.stillness import StillnessParams
from vision.types import Die, Reading
from vision.words import Words, faces, said
from vision.zones import PolygonZones

TRANSLATIONS = Path(__file__).resolve().parents[2] / "web" / "translations"
OTHER_LANGUAGES = [code for code in LANGUAGES if code != "en"]
SQUARE = np.array([[-10, -10], [10, -10], [10, 10], [-10, 10]], dtype=np.float64)
#: two seats side by side, each with a front-of-cup strip; a third nobody sits at
ZONES = PolygonZones(
    ("Seat 1", "Seat 2", "Seat 3"),
    (((0, 0), (140, 0), (140, 200), (0, 200)),
     ((160, 0), (300, 0), (300, 200), (160, 200)),
     ((0, 300), (10, 300), (10, 310))),
    (((100, 0), (140, 0), (140, 60), (100, 60)),
     ((160, 0), (200, 0), (200, 60), (160, 60)),
     None),
)


def die(value: int, x: float, y: float, confidence: float = 0.95) -> Die:
    return Die(value, x, y, confidence, SQUARE + [x, y])


def frames(*dice: Die, n: int = 3) -> tuple[list[np.ndarray], Any]:
    """``n`` frames and a reader that reads ``dice`` in each."""
    reading = Reading(dice=tuple(dice), width=300, height=200)
    return [np.zeros((200, 300, 3), np.uint8)] * n, lambda frame, params: reading


def reveal(dice: list[Die], expected: dict[str, Any], **kwargs: Any) -> list[Problem]:
    shots, reader = frames(*dice)
    return capture_reveal(shots, ZONES, expected, None, stillness=None, reader=reader,
                          **kwargs).problems


def english(words: dict[str, Any]) -> str:
    """The JSON words filled in as the page fills them in English (web/static/js/i18n.js's
    ``said`` with no catalog): the plural form by ``n``, words inside words said first."""
    text = words["msgid"] if "plural" not in words or words["n"] == 1 else words["plural"]
    params = {k: english(v) if isinstance(v, dict) else v for k, v in words["params"].items()}
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), text)


def msgids(words: dict[str, Any]) -> Iterator[str]:
    """Each message id the JSON words use, their own and those of words inside them."""
    yield words["msgid"]
    for value in words["params"].values():
        if isinstance(value, dict):
            yield from msgids(value)


# ------------------------------------------------------------------ what the camera says


@pytest.fixture()
def cover_doubts_every_die(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cover check (a network) says something lies over every sure die."""
    monkeypatch.setattr(vision.cover_check, "doubted",
                        lambda frame, dice, bar: [True] * len(dice))


def dice_problems() -> dict[str, list[Problem]]:
    """Each kind of dice problem, and each wording of it, from a reveal that has it."""
    still = StillnessParams(max_frames=3)
    moving = [np.full((50, 50, 3), 60 * (i % 2), np.uint8) for i in range(6)]
    never_still = capture_reveal(moving, ZONES, {"Ann": 1}, None, stillness=still,
                                 reader=frames()[1]).problems
    ended = capture_reveal(moving[:2], ZONES, {"Ann": 1}, None, reader=frames()[1]).problems
    no_frames = capture_reveal([], ZONES, {"Ann": 1}, None, stillness=None,
                               reader=frames()[1]).problems
    shots, reader = frames(die(6, 120, 30, 0.4))
    unsure_aside = read_set_aside(shots, 0, ZONES, stillness=None, reader=reader).problems
    shots, reader = frames()
    nothing_aside = read_set_aside(shots, 1, ZONES, stillness=None, reader=reader).problems
    return {
        "uncertain": reveal([die(4, 30, 150), die(2, 250, 150, 0.4)], {"Ann": 1, "Ben": 1}),
        "uncertain, set aside": unsure_aside,
        "too few": reveal([die(4, 30, 150)], {"Ann": 1, "Ben": 2}),
        "too many": reveal([die(4, 30, 150), die(2, 250, 150), die(5, 220, 120, 0.45)],
                           {"Ann": 1, "Ben": 1}),
        "set aside": reveal([die(4, 30, 150), die(5, 120, 30), die(3, 130, 40)],
                            {"Ann": ExpectedHand(3, (4, 6)), "Ben": 0}),
        "set aside, none seen": reveal([die(4, 30, 150), die(3, 50, 150)],
                                       {"Ann": ExpectedHand(2, (6,)), "Ben": 0}),
        "outside every zone": reveal([die(4, 30, 150), die(5, 150, 180)], {"Ann": 1}),
        "nobody's zone": reveal([die(4, 30, 150), die(2, 250, 150)], {"Ann": 1}),
        "a player out": reveal([die(4, 30, 150), die(2, 250, 150)], {"Ben": 1},
                               seating=["Ann", "Ben"]),
        "never still": never_still,
        "frames ended": ended,
        "no frames": no_frames,
        "nothing in front of the cup": nothing_aside,
    }


def first(problems: list[Problem], kind: str) -> str:
    """The message of the first problem of ``kind``."""
    return next(p.message for p in problems if p.kind == kind)


def card_problems() -> list[Problem]:
    outline = np.array([[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]])
    unnamed = tuple(SeenCard(None, 30.0 + 70 * k, 40.0, 0.3, outline, 5, candidate, problem)
                    for k, (problem, candidate) in enumerate(
                        [("weak_match", None), ("ambiguous", "orc"), ("unknown_face", None)]))
    orc = CardReading((SeenCard("orc", 30.0, 40.0, 0.9, outline, 40),), 100, 100)
    elf = CardReading((SeenCard("elf", 30.0, 40.0, 0.9, outline, 40),), 100, 100)
    return [*check_card_reveal([CardReading(unnamed, 400, 100)], expected=2).problems,
            *check_card_reveal([elf, orc], expected=1).problems]


def advice(monkeypatch: pytest.MonkeyPatch) -> list[Advice]:
    grey = np.full((200, 300, 3), 128, np.uint8)
    dark = np.full((200, 300, 3), 20, np.uint8)
    blown = grey.copy()
    blown[:50] = 255
    grainy = np.clip(grey + np.random.default_rng(0).normal(0, 15, grey.shape), 0,
                     255).astype(np.uint8)
    monkeypatch.setattr(vision.frame_check, "is_smeared", lambda frame, d, balance: True)
    one = Reading(dice=(die(3, 150, 100),), width=300, height=200)
    two = Reading(dice=(die(3, 100, 100), die(5, 200, 100)), width=300, height=200)
    tiny = Reading(dice=(Die(3, 40.0, 240.0, 0.9, SQUARE / 2 + [40, 240]),),
                   width=640, height=480)
    params = ReaderParams(detector_side=640, detector_max_side=640)
    small = [small_dice_advice(480, 640, tiny, params),
             small_dice_advice(480, 640, tiny, ReaderParams(detector_side=640,
                                                            detector_max_side=4000))]
    said_now = [*frame_advice(dark), *frame_advice(blown), *frame_advice(grainy),
                *frame_advice(grey, one), *frame_advice(grey, two)]
    return said_now + [a for a in small if a is not None]


def test_each_kind_of_dice_problem_carries_words_that_say_its_message(
        cover_doubts_every_die: None) -> None:
    found = dice_problems()
    for case, problems in found.items():
        assert problems, f"{case}: no problem"
        for problem in problems:
            assert problem.words is not None, f"{case}: {problem.kind} has no words"
            assert str(problem.words) == problem.message, case
            said_json = problem.to_json()["said"]
            assert said_json == json.loads(json.dumps(problem.words.to_json()))
            assert english(said_json) == problem.message, case
    kinds = {p.kind for problems in found.values() for p in problems}
    assert kinds == {"uncertain", "count_mismatch", "set_aside_mismatch", "outside_zones",
                     "covered", "not_still"}
    # the English is the sentence the CLI and the logs have always read
    assert first(found["set aside"], "set_aside_mismatch") == (
        "Ann: the dice set aside were 4 and 6; in front of the cup the camera sees 3 and 5")
    assert first(found["set aside, none seen"], "set_aside_mismatch") == (
        "Ann: the dice set aside were 6; in front of the cup the camera sees none")
    assert first(found["too many"], "count_mismatch") == (
        "Ben: expected 1 dice, the camera sees 2; the least sure is a 5 at (220, 120), "
        "45% sure")


def test_card_problems_and_picture_advice_carry_their_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    problems = card_problems()
    assert len(problems) == 5  # three cards not named, the count, the frames that disagree
    assert problems[1].message == ("card at (100, 40): matches two registered faces almost "
                                   "equally (best guess orc)")
    given = advice(monkeypatch)
    assert [a.kind for a in given] == ["dark", "blown_out", "grainy", "smeared", "smeared",
                                       "small_dice", "small_dice"]
    assert given[3].message.startswith("1 die looks smeared")
    assert given[4].message.startswith("2 dice look smeared")
    items: list[Problem | Advice] = [*problems, *given]
    for item in items:
        assert item.words is not None and str(item.words) == item.message
        assert english(item.to_json()["said"]) == item.message


def test_words_without_a_sentence_of_their_own_stay_plain_text() -> None:
    """An error raised with plain text (a caller's own) keeps no words: the page shows its
    message as it is, never an id."""
    assert SceneNotStillError("the table closed").words is None
    words = said("{seat}: no dice seen in front of the cup", seat="Ann")
    assert SceneNotStillError(words).words == words and str(SceneNotStillError(words)) == (
        "Ann: no dice seen in front of the cup")
    assert Problem("not_still", None, None, None, "moved").to_json().get("said") is None
    assert [str(faces(v)) for v in ([], [6], [4, 6], [1, 2, 3])] == [
        "none", "6", "4 and 6", "1, 2 and 3"]
    assert isinstance(faces([4, 6]), Words)


# ------------------------------------------------------------------ and in each language


def catalog(code: str) -> dict[str, Any]:
    with (TRANSLATIONS / code / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {m.id if isinstance(m.id, str) else m.id[0]: m.string
                for m in read_po(f, locale=code) if m.id}


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_sentence_the_camera_says_is_translated(
        code: str, cover_doubts_every_die: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the extraction's check (tests/web_api/test_languages.py): each id a problem or
    advice really carries is in the catalog, in words of its own (not the English copied)."""
    items: list[Problem | Advice] = [p for found in dice_problems().values() for p in found]
    items += [*card_problems(), *advice(monkeypatch)]
    used = {msgid for item in items if item.words is not None
            for msgid in msgids(item.words.to_json())}
    assert len(used) > 25
    translated = catalog(code)
    missing = sorted(used - set(translated))
    assert not missing, f"{code}: not in the catalog: {missing[:5]}"
    untranslated = []
    for msgid in sorted(used):
        text = translated[msgid]
        forms = [text] if isinstance(text, str) else list(text)
        if not all(forms) or msgid in forms:
            untranslated.append(msgid)
    assert not untranslated, f"{code}: not translated: {untranslated[:5]}"
