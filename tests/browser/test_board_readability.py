"""The board read from the sofa: the current bid's field on the track readable under its marker
die, the last rounds listed on a TV (not one round alone), and Impus's polymorphs counted as
they are still hidden (in hands or face down), not as dealt.

Measured with Playwright in the browser (boxes, the element at a point, texts), on the TV sizes
test_board_on_a_tv.py covers. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import LiveServer, open_page, scene_profile, serving
from playwright.sync_api import expect
from test_board_on_a_tv import (
    SIX,
    assert_the_latest_verdict_shows,
    assert_the_whole_board_fits,
    settled_table,
)

pytestmark = pytest.mark.browser

#: the TV sizes test_board_on_a_tv.py lays the board out on
TV_SIZES = [(1920, 1080), (1600, 900), (1366, 768), (1280, 720), (1024, 600)]
TV_IDS = ["1080p", "900p", "768p", "720p", "1024x600"]


def play_rounds(server: LiveServer, rounds: int) -> None:
    """``rounds`` rounds of Bluff, each settled from a camera reveal confirmed with dice that
    cost its loser one die: the seat to play bids on 6s, the next doubts, and whichever of the
    two has more dice is the one the count proves wrong."""
    for _ in range(rounds):
        game = server.table.game.to_json()
        dice = {p["name"]: p["dice"] for p in game["players"]}
        seated = [name for name, count in dice.items() if count]
        bidder = game["turn"]
        doubter = seated[(seated.index(bidder) + 1) % len(seated)]
        holds = dice[doubter] >= dice[bidder]  # the bid holds: the doubter loses
        server.post("/api/action", {"player": bidder, "bid": "1x6" if holds else "2x6"})
        server.post("/api/action", {"player": doubter, "challenge": True})
        review = server.post("/api/reveal/capture", {})["review"]
        sixes = 2 if holds else 1  # one off the bid either way: one die lost
        seats = {}
        for name, count in dice.items():
            shown = min(sixes, count)
            seats[name] = [6] * shown + [2] * (count - shown)
            sixes -= shown
        server.post(f"/api/reveals/{review['id']}/confirm", {"seats": seats})


@pytest.fixture(scope="module")
def evening_of_three(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Three players six rounds into a game, a ★ bid on the track: the audit's TV board."""
    data = tmp_path_factory.mktemp("three-six-rounds")
    with serving(data, scene_profile(seat_count=3)) as server:
        server.post("/api/game", {"game": "bluff", "players": SIX[:3], "starter": "Ann"})
        play_rounds(server, 6)
        server.post("/api/action", {"player": server.table.game.to_json()["turn"], "bid": "2*"})
        yield server


@pytest.fixture(scope="module")
def evening_of_six(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A full table of six three rounds in, the widest field current: two digits and a ★."""
    data = tmp_path_factory.mktemp("six-three-rounds")
    with serving(data, scene_profile(seat_count=6)) as server:
        server.post("/api/game", {"game": "bluff", "players": SIX, "starter": "Ann"})
        play_rounds(server, 3)
        server.post("/api/action", {"player": server.table.game.to_json()["turn"], "bid": "13*"})
        yield server


@pytest.fixture(scope="module")
def full_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """test_board_on_a_tv.py's full table of six: one round settled, 3 × 5s on the track."""
    yield from settled_table(tmp_path_factory.mktemp("full-table"), SIX)


def board(browser: Any, server: LiveServer, size: tuple[int, int]) -> Iterator[Any]:
    width, height = size
    for page in open_page(browser, server, {"viewport": {"width": width, "height": height}},
                          "board"):
        page.goto("/")
        expect(page.locator("#live")).to_have_attribute("data-status", "live")
        expect(page.locator("#track .field-current")).to_have_count(1)
        yield page


# ------------------------------------------------------------- the current bid's field

#: the current field's parts: boxes, the element drawn at the middle of each, font sizes
CURRENT_FIELD = """() => {
  const cell = document.querySelector('#track .field-current');
  const part = (node) => {
    if (!node) return null;
    const b = node.getBoundingClientRect();
    const top = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return {left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width,
            height: b.height, onTop: !!top && (node === top || node.contains(top)),
            fontSize: parseFloat(getComputedStyle(node).fontSize)};
  };
  const other = document.querySelector('#track .field:not(.field-current) .field-count');
  const of = (selector) => part(cell.querySelector(selector));
  return {key: cell.dataset.field, cell: part(cell), count: of('.field-count'),
          star: of('.field-star-mark'), die: of('.die'),
          otherFont: parseFloat(getComputedStyle(other).fontSize)};
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share."""
    across = min(a["right"], b["right"]) - max(a["left"], b["left"])
    down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, across) * max(0.0, down)


def assert_the_current_field_reads(page: Any, screenshot_dir: Path, name: str) -> None:
    """The current field's number (and a ★ field's ★) drawn whole, beside the marker die, not
    under it, at the size of the other fields' numbers; the die inside the field too."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    page.locator("#track").screenshot(path=str(screenshot_dir / f"{name}-{width}x{height}.png"))
    field = page.evaluate(CURRENT_FIELD)
    cell, die = field["cell"], field["die"]
    # a ★ field's die shows the ★ (its own mark may give it the room); shown, the mark reads too
    star = field["star"]
    marks = [field["count"]] + ([star] if star and star["width"] > 0 else [])
    if field["key"].endswith("*"):
        expect(page.locator("#track .field-current .die .die-star")).to_have_count(1)
    for mark in [*marks, die]:
        assert mark is not None and mark["width"] > 0, field
        assert cell["left"] - 0.5 <= mark["left"] and mark["right"] <= cell["right"] + 0.5, field
        assert cell["top"] - 0.5 <= mark["top"] and mark["bottom"] <= cell["bottom"] + 0.5, field
    for mark in marks:
        assert overlap(mark, die) == 0, f"the marker die covers the field's {field['key']}: {field}"
        assert mark["onTop"], f"something is drawn over the field's {field['key']}: {field}"
    assert field["count"]["fontSize"] >= 0.9 * field["otherFont"], field
    # the die is big enough to read its face from the sofa
    assert die["height"] >= 0.5 * cell["height"], field


@pytest.mark.parametrize("size", TV_SIZES, ids=TV_IDS)
def test_a_star_bids_field_reads_under_its_marker(browser: Any, evening_of_three: LiveServer,
                                                  size: tuple[int, int],
                                                  screenshot_dir: Path) -> None:
    for page in board(browser, evening_of_three, size):
        expect(page.locator("#track .field-current")).to_have_attribute("data-field", "2*")
        assert_the_current_field_reads(page, screenshot_dir, "track-current-star")


@pytest.mark.parametrize("size", TV_SIZES[:1] + TV_SIZES[2:], ids=TV_IDS[:1] + TV_IDS[2:])
@pytest.mark.parametrize("table", ["full_table", "evening_of_six"])
def test_a_full_tables_current_field_reads_under_its_marker(
        browser: Any, request: pytest.FixtureRequest, table: str, size: tuple[int, int],
        screenshot_dir: Path) -> None:
    """Six players, the compact track of up to 45 fields: 3 × 5s, and 13★ (the widest), each
    on a board that still fits the screen whole (a two-digit count must not push the track
    onto one more row than the screen has room for)."""
    server = request.getfixturevalue(table)
    for page in board(browser, server, size):
        assert_the_current_field_reads(page, screenshot_dir, f"track-current-{table}")
        assert_the_whole_board_fits(page, screenshot_dir, f"board-tv-six-readable-{table}")


# ------------------------------------------------------------------------- the rounds

#: the rounds drawn whole inside the list that clips them: each one's number and verdict
ROUNDS_SHOWN = """() => {
  const list = document.querySelector('#history').getBoundingClientRect();
  const inside = (node) => {
    const b = node.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && b.top >= list.top - 0.5 && b.bottom <= list.bottom + 0.5
      && b.left >= list.left - 0.5 && b.right <= list.right + 0.5;
  };
  const parts = (round) => ['.round-no', '.round-verdict'].map((s) => round.querySelector(s));
  return [...document.querySelectorAll('#history .round')]
    .filter((round) => [round, ...parts(round)]
      .every((node) => node && inside(node) && getComputedStyle(node).visibility === 'visible'))
    .map((round) => parts(round).map((node) => node.innerText));
}"""


def assert_the_last_rounds_show(page: Any, server: LiveServer, least: int) -> None:
    history = server.table.state()["history"]
    shown = page.evaluate(ROUNDS_SHOWN)
    assert len(shown) >= least, f"{len(shown)} of {len(history)} rounds shown: {shown}"
    latest = list(reversed(history))[:len(shown)]
    assert [number for number, _ in shown] == [f"Round {r['round']}" for r in latest], shown
    # each verdict's line starts with its words (a long one may end in an ellipsis)
    for (_, verdict), round_ in zip(shown, latest, strict=True):
        assert round_["verdict"].startswith(verdict.rstrip("…")[:20]), (verdict, round_)
    assert_the_latest_verdict_shows(page)


@pytest.mark.parametrize("size", TV_SIZES, ids=TV_IDS)
def test_a_tv_lists_the_last_three_rounds(browser: Any, evening_of_three: LiveServer,
                                          size: tuple[int, int], screenshot_dir: Path) -> None:
    """Six rounds in, three players: a 720-line TV (its rounds' panel under 130 lines) shows
    the last three rounds at least, newest first, and every TV size keeps the whole board."""
    for page in board(browser, evening_of_three, size):
        assert_the_whole_board_fits(page, screenshot_dir, "board-tv-three-rounds")
        assert_the_last_rounds_show(page, evening_of_three, 3)


@pytest.mark.parametrize("size", TV_SIZES, ids=TV_IDS)
def test_a_full_table_on_a_tv_lists_the_last_rounds(browser: Any, evening_of_six: LiveServer,
                                                    size: tuple[int, int],
                                                    screenshot_dir: Path) -> None:
    """Six players leave the rounds the least room: two rounds on a 720-line TV, the latest
    on a 1024 × 600 panel."""
    for page in board(browser, evening_of_six, size):
        assert_the_whole_board_fits(page, screenshot_dir, "board-tv-six-rounds")
        assert_the_last_rounds_show(page, evening_of_six, 1 if size[1] < 700 else 2)


# --------------------------------------------------------------------- Impus's polymorphs


def test_impus_counts_the_polymorphs_still_hidden(browser: Any, tmp_path: Path,
                                                  screenshot_dir: Path) -> None:
    """Four players: the last two seats are dealt a polymorph each. One played face up on the
    pile is no longer hidden; once the pile is taken into a hand it is hidden again."""
    with serving(tmp_path, scene_profile()) as server:
        server.post("/api/game", {"game": "impus", "players": SIX[:4], "starter": "Ann"})
        for page in open_page(browser, server, {"viewport": {"width": 1280, "height": 720}},
                              "board"):
            page.goto("/")
            tile = page.locator("#game-extras .extra[data-key=polymorphs]")
            expect(tile.locator(".extra-label")).to_have_text("polymorphs hidden")
            expect(tile.locator(".extra-value")).to_have_text("2 of 2")
            server.post("/api/action", {"player": "Ann", "play": 2, "claim": "orc"})
            server.post("/api/action", {"player": "Ben", "play": 1})
            server.post("/api/action", {"player": "Cho", "polymorph": "elf"})
            expect(page.get_by_test_id("claim")).to_contain_text("elf")
            expect(tile.locator(".extra-value")).to_have_text("1 of 2")
            page.screenshot(path=str(screenshot_dir / "board-impus-polymorph-up.png"))
            # Dan adds a card as elf, Ann doubts it: it was an elf, Ann takes the pile, the
            # polymorph in it included
            server.post("/api/action", {"player": "Dan", "play": 1})
            server.post("/api/action", {"player": "Ann", "doubt": True})
            server.post("/api/action", {"reveal": ["elf"]})
            expect(page.get_by_test_id("verdict")).to_contain_text("Ann takes the pile")
            expect(tile.locator(".extra-value")).to_have_text("2 of 2")


def test_on_a_phone_each_rounds_photo_link_is_finger_sized(
        browser: Any, evening_of_three: LiveServer) -> None:
    """On a TV the photo links keep the rounds' lines short; under a finger each is a 44 px
    target (WCAG 2.5.5)."""
    phone = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3,
             "is_mobile": True, "has_touch": True}
    for page in open_page(browser, evening_of_three, phone, "board on a phone"):
        page.goto("/")
        links = page.locator("#history .round-photo")
        expect(links.first).to_be_visible()
        for index in range(links.count()):
            box = links.nth(index).bounding_box()
            if box is None or box["height"] == 0:
                continue  # rounds the board leaves out on this screen
            assert box["height"] >= 44 and box["width"] >= 44, (index, box)
