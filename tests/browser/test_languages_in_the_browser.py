"""The dashboard in the players' languages, in the real chromium: every screen in Polish and
Japanese shows none of the English words it has a translation for, a Bluff game is played
from the control page to its verdict in each language, and the picker's choice is kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from browser_support import LiveServer, open_page, remember_pin, start_game
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TRANSLATIONS = Path(__file__).resolve().parents[2] / "web" / "translations"
TV = {"viewport": {"width": 1920, "height": 1080}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}
# names in the players' own scripts
PLAYERS = {"ja": ["健太", "さくら"], "uk": ["Олена", "Тарас"], "pl": ["Łucja", "Bartek"],
           "cs": ["Jiří", "Šárka"]}


def catalog(code: str) -> dict[str, Any]:
    """msgid -> its translation (the singular's forms for a plural)."""
    with (TRANSLATIONS / code / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {m.id if isinstance(m.id, str) else m.id[0]: m.string for m in read_po(f) if m.id}


def english_words(code: str) -> list[str]:
    """The English a page in ``code`` must not show: each message of two words or more, with
    no placeholder, whose translation differs from it (a word both languages share, a game's
    name, "PIN", is no sign of a missed translation)."""
    words = []
    for msgid, text in catalog(code).items():
        if "{" in msgid or " " not in msgid.strip() or len(msgid) < 8:
            continue
        translated = text if isinstance(text, str) else text[0]
        if translated != msgid:
            words.append(msgid)
    return words


@pytest.fixture()
def tv(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from open_page(browser, live_server, TV, "board")


@pytest.fixture()
def phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from open_page(browser, live_server, PHONE, "phone")


def a_round_played(live_server: LiveServer) -> None:
    """A Bluff game one round in, with a bid standing: the board's every part has words."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x3"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    live_server.post("/api/action", {"reveal": {"Ann": [3, 2, 5], "Ben": [6, 6, 4]}})
    live_server.post("/api/action", {"player": "Ben", "bid": "2x5"})  # Ann doubted wrongly


def english_shown(page: Any, code: str) -> list[str]:
    shown = page.evaluate("document.body.innerText")
    return [words for words in english_words(code) if words in shown]


@pytest.mark.parametrize("code", ["pl", "ja"])
def test_no_screen_shows_english_it_has_words_for(code: str, tv: Any, phone: Any,
                                                  live_server: LiveServer) -> None:
    a_round_played(live_server)
    remember_pin(phone, live_server.pin)
    tv.goto(f"/?lang={code}")
    expect(tv.locator("html")).to_have_attribute("lang", code)
    expect(tv.locator("[data-testid=turn]")).to_have_text("Ann")
    expect(tv.locator("#history .round")).to_have_count(1)
    assert english_shown(tv, code) == []
    for path, ready in (("/control", "#bid-submit"), ("/review", "#review-empty"),
                        ("/calibration", "#calibration-root"), ("/setup", "#setup-card")):
        phone.goto(f"{path}?lang={code}")
        expect(phone.locator(ready)).to_be_visible()
        assert english_shown(phone, code) == [], path
    # the refusal of a rule, in the page's language with its rule id
    phone.goto(f"/control?lang={code}")
    phone.evaluate("""async () => {
      const api = await import('/assets/js/api.js');
      try { await api.api('POST', '/api/action', {player: 'Ann', bid: '1x2'}); }
      catch (e) { document.body.dataset.refusal = api.describeError(e); }
    }""")
    refusal = phone.evaluate("document.body.dataset.refusal")
    expected = catalog(code)["{current} → {new} is not a raise: {why}"]
    between = expected.split("{new}")[1].split("{why}")[0]
    assert refusal.startswith("2×5 → 1×2") and between in refusal and refusal.endswith("(B6)")
    assert "is not a raise" not in refusal and "raise the count" not in refusal


@pytest.mark.parametrize("code", ["ja", "uk", "pl", "cs"])
def test_a_game_is_played_to_its_verdict_in_each_language(code: str, phone: Any,
                                                          live_server: LiveServer,
                                                          screenshot_dir: Path) -> None:
    words = catalog(code)
    first, second = PLAYERS[code]
    remember_pin(phone, live_server.pin)
    phone.goto(f"/setup?lang={code}")
    expect(phone.locator("#setup-card h1")).to_have_text(words["New game"])
    phone.click("[data-game=bluff]")
    rows = phone.locator(".player-row input")
    while rows.count() > 2:
        phone.locator(".player-row button").last.click()
    rows.nth(0).fill(first)
    rows.nth(1).fill(second)
    phone.select_option("#starter", first)
    phone.select_option("#opt-dice_per_player", "1")
    start_game(phone)
    turn = words["{player}'s turn"].format(player=first)
    expect(phone.locator("#status-turn")).to_have_text(turn)
    # the first player bids one 5; the second doubts it; the dice are entered by hand
    phone.click("button[data-face='5']")
    phone.click("#bid-submit")
    expect(phone.locator("#challenge")).to_contain_text(words["Doubt it!"])
    phone.click("#challenge")
    expect(phone.locator("#reveal-card h2")).to_have_text(words["Reveal"])
    if not phone.locator("#hand-reveal").evaluate("d => d.open"):
        phone.click("#hand-reveal summary")
    phone.locator(f"[data-seat='{first}'] .face-pad button").nth(1).click()  # a 2
    phone.locator(f"[data-seat='{second}'] .face-pad button").nth(3).click()  # a 4
    expect(phone.locator("#reveal-submit")).to_have_text(words["Apply this reveal"])
    phone.click("#reveal-submit")
    # no 5 and no joker: the bidder loses the one die, and the game
    wins = words["{player} wins!"].format(player=second)
    expect(phone.locator("#status-turn")).to_have_text(wins)
    loses = words["{player} loses {n} die"]
    verdict = phone.locator("#status-verdict")
    expect(verdict).to_contain_text(loses[0].format(player=first, n=1))
    expect(verdict).to_contain_text(words["{player} wins"].format(player=second))
    assert "loses" not in verdict.inner_text()
    phone.screenshot(path=str(screenshot_dir / f"control-verdict-{code}.png"), full_page=True)


@pytest.mark.parametrize("code", ["pl", "ja"])
def test_perudo_and_the_evenings_standings_are_in_the_pages_language(
        code: str, tv: Any, phone: Any, live_server: LiveServer) -> None:
    """Perudo's buttons, the round's story, a dudo's verdict, the palifico house rule, then
    tonight's standings and "New evening" at the game's end: none of it in English."""
    words = catalog(code)
    live_server.post("/api/game", {"game": "perudo", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 2}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x3"})
    remember_pin(phone, live_server.pin)
    phone.goto(f"/control?lang={code}")
    expect(phone.locator("#dudo")).to_contain_text(words["Dudo!"])
    expect(phone.locator("#calza")).to_have_text(words["Calza: exactly"])
    assert english_shown(phone, code) == []
    tv.goto(f"/?lang={code}")
    expect(tv.locator("[data-testid=story]")).to_contain_text(words["bids"])
    assert english_shown(tv, code) == []
    # a 3 and an ace make the bid: Ben's dudo is wrong, and his one die opens a palifico round
    live_server.post("/api/action", {"player": "Ben", "dudo": True})
    live_server.post("/api/action", {"reveal": {"Ann": [3, 1], "Ben": [2, 5]}})
    wrong = words["dudo wrong: {player} loses 1 die"].format(player="Ben")
    expect(tv.locator("[data-testid=verdict]")).to_contain_text(wrong)
    palifico = words["palifico round ({player}): aces not wild, the face stays"]
    expect(tv.locator("body")).to_contain_text(palifico.format(player="Ben"))
    assert english_shown(tv, code) == []
    # in palifico the ace is no 5: Ben's last die goes, and Ann wins
    live_server.post("/api/action", {"player": "Ben", "bid": "1x5"})
    live_server.post("/api/action", {"player": "Ann", "dudo": True})
    live_server.post("/api/action", {"reveal": {"Ann": [3, 1], "Ben": [2]}})
    expect(tv.locator("[data-testid=standings]")).to_contain_text(words["Last game"])
    assert english_shown(tv, code) == []
    phone.goto(f"/control?lang={code}")
    expect(phone.locator("#control-standings")).to_contain_text(words["Player"])
    phone.click("#new-evening")
    again = words["Tap again to clear tonight's standings"]
    expect(phone.locator("#new-evening")).to_have_text(again)
    assert english_shown(phone, code) == []


def test_the_picker_changes_the_page_and_the_device_keeps_it(phone: Any,
                                                             live_server: LiveServer) -> None:
    phone.goto("/")
    expect(phone.locator("html")).to_have_attribute("lang", "en")
    with phone.expect_navigation():
        phone.select_option("#lang-picker", "cs")
    expect(phone.locator("html")).to_have_attribute("lang", "cs")
    expect(phone.locator(".nav a").first).to_have_text("Tabule")
    phone.goto("/control")  # no ?lang=: the device's choice
    expect(phone.locator("html")).to_have_attribute("lang", "cs")
    assert phone.evaluate("localStorage.getItem('bluffcam_lang')") == "cs"
    # a cleared cookie: localStorage gives the choice back
    phone.context.clear_cookies()
    phone.goto("/")
    expect(phone.locator("html")).to_have_attribute("lang", "cs")


def test_numbers_and_percentages_follow_the_language(tv: Any, live_server: LiveServer) -> None:
    a_round_played(live_server)
    tv.goto("/?lang=cs")
    odds = tv.locator("[data-testid=odds]")
    expect(odds).to_have_text(re.compile(r"^[<>]?\d+\u00a0%$"))  # Czech: "42 %"
    expect(tv.locator(".odds-sub")).to_contain_text(",")  # a decimal comma
