"""The dashboard in the players' languages: the catalogs are whole and agree with the code,
the compiled catalogs match their sources, and a device's choice, the table's default and the
engine's words reach the page."""

from __future__ import annotations

import gettext
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from babel import Locale
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from engine import IllegalActionError
from engine.registry import new_game
from engine.words import LANGUAGES, Said, said, said_n
from web import create_app
from web.i18n import COOKIE

REPO = Path(__file__).resolve().parents[2]
TRANSLATIONS = REPO / "web" / "translations"
OTHER_LANGUAGES = [code for code in LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: pybabel's keywords (babel.cfg's header; docs/dashboard.md "Languages")
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "said": None, "said_n": (1, 2),
            "N_": None, "t": None, "tn": (1, 2)}


def catalog(code: str) -> Any:
    with (TRANSLATIONS / code / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=code)


def method_map() -> list[tuple[str, str]]:
    """babel.cfg's sections as extract_from_dir takes them (pattern, method)."""
    text = (REPO / "babel.cfg").read_text()
    return [(pattern, method) for method, pattern in
            re.findall(r"^\[(\w+): ([^\]]+)\]", text, flags=re.MULTILINE)]


def options_map() -> dict[str, dict[str, str]]:
    return {pattern: {"parse_template_string": "true"}
            for pattern, method in method_map() if method == "javascript"}


@pytest.fixture(scope="module")
def source_msgids() -> set[str]:
    """Every message the code says, found as `pybabel extract` finds them."""
    found: set[str] = set()
    for _, _, message, _, _ in extract_from_dir(str(REPO), method_map(), options_map(),
                                                keywords=KEYWORDS):
        found.add(message if isinstance(message, str) else message[0])
    found.discard("")
    return found


def test_the_code_says_the_messages_the_languages_need(source_msgids: set[str]) -> None:
    """A guard on the extraction itself: the engine's, the templates', the scripts' and the
    camera's words."""
    assert "{player} cannot challenge: there is no bid yet this round" in source_msgids  # engine
    assert "Open the board" in source_msgids  # a template
    assert "Doubt it!" in source_msgids  # a script
    assert "{camera}: no frame (camera disconnected or stream ended)" in source_msgids  # hardware
    assert len(source_msgids) > 300


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_catalog_has_every_message_the_code_says(code: str,
                                                       source_msgids: set[str]) -> None:
    translated = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog(code) if m.id}
    missing = sorted(source_msgids - set(translated))
    assert not missing, f"{code}: not in the catalog (pybabel update): {missing[:5]}"
    empty = [key for key, m in translated.items()
             if not m.string or (isinstance(m.string, tuple) and not all(m.string))]
    assert not empty, f"{code}: empty translations: {empty[:5]}"
    fuzzy = [key for key, m in translated.items() if m.fuzzy]
    assert not fuzzy, f"{code}: fuzzy translations: {fuzzy[:5]}"


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_translation_keeps_the_placeholders_of_its_message(code: str) -> None:
    """Each {name} of the English is in the translation and no other: a placeholder lost
    drops a player's name, an unknown one shows as "{name}". A plural's forms together use the
    placeholders of its two English forms (a form for one may leave out "{n}")."""
    wrong = []
    for m in catalog(code):
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        forms = [m.string] if isinstance(m.string, str) else list(m.string)
        wanted = {name for text in ids for name in PLACEHOLDER.findall(text)}
        used = [set(PLACEHOLDER.findall(form)) for form in forms]
        if set().union(*used) != wanted or any(not names <= wanted for names in used):
            wrong.append((ids[0], forms))
    assert not wrong, f"{code}: placeholders differ: {wrong[:3]}"


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_each_compiled_catalog_matches_its_source(code: str) -> None:
    """The .mo files are committed (no compile step at install or start): each must say what
    its .po says, or `pybabel compile -d web/translations` was forgotten."""
    source = catalog(code)
    compiled_now = io.BytesIO()
    write_mo(compiled_now, source)
    compiled_now.seek(0)
    with (TRANSLATIONS / code / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        committed = read_mo(f)
    expected = read_mo(compiled_now)

    def table(cat: Any) -> dict[Any, Any]:
        return {tuple(m.id) if isinstance(m.id, (list, tuple)) else m.id:
                tuple(m.string) if isinstance(m.string, (list, tuple)) else m.string
                for m in cat if m.id}

    assert table(committed) == table(expected)


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_the_pages_pick_plural_forms_as_gettext_does(code: str) -> None:
    """i18n.js picks a plural form by the CLDR category Intl.PluralRules gives, in CLDR's
    order of categories; Babel writes the catalogs' forms in that order. Checked here with
    Babel's CLDR rules against each catalog's own gettext expression."""
    cat = catalog(code)
    order = ["zero", "one", "two", "few", "many", "other"]
    rule = Locale.parse(code).plural_form
    categories = [c for c in order if c in rule.tags | {"other"}]
    for n in range(0, 250):
        by_cldr = min(categories.index(rule(n)), cat.num_plurals - 1)
        by_gettext = gettext_plural(cat.plural_expr, n)
        assert by_cldr == by_gettext, (code, n, rule(n))


def gettext_plural(expression: str, n: int) -> int:
    """A catalog's C plural expression for ``n``, as Python's gettext reads it."""
    return int(gettext.c2py(expression)(n))


# ------------------------------------------------------------------ the request's language


@pytest.fixture()
def app(tmp_path: Path) -> Any:
    return create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": "1234", "TESTING": True})


def page_language(html: str) -> str:
    return re.search(r'<html lang="([\w-]+)"', html).group(1)  # type: ignore[union-attr]


def embedded_catalog(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="i18n-catalog">(.*?)</script>',
                      html, re.S)
    assert found, "every page embeds its catalog"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_a_page_opened_with_lang_is_in_it_and_the_device_keeps_the_choice(app: Any) -> None:
    client = app.test_client()
    html = client.get("/control?lang=pl").get_data(as_text=True)
    assert page_language(html) == "pl"
    assert "Odblokuj" in html and ">Unlock<" not in html
    assert embedded_catalog(html)["messages"]["Doubt it!"] == "Sprawdzam!"
    # the cookie set by that answer: the next page, with no ?lang=, is Polish too
    assert page_language(client.get("/").get_data(as_text=True)) == "pl"


def test_the_pickers_cookie_chooses_and_an_unknown_code_is_passed_over(app: Any) -> None:
    client = app.test_client()
    client.set_cookie(COOKIE, "ja")
    assert page_language(client.get("/").get_data(as_text=True)) == "ja"
    answer = client.get("/?lang=xx")
    assert page_language(answer.get_data(as_text=True)) == "ja"
    assert "Set-Cookie" not in answer.headers  # a bad link changes nothing


def test_every_screen_offers_every_language(app: Any) -> None:
    client = app.test_client()
    for path in ("/", "/control", "/setup", "/review", "/calibration", "/no-such-page"):
        html = client.get(path).get_data(as_text=True)
        for code, name in LANGUAGES.items():
            assert f'<option value="{code}" lang="{code}"' in html and name in html, (path, code)


def test_the_tables_default_is_used_until_a_device_picks(tmp_path: Path) -> None:
    app = create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": "1234", "LANGUAGE": "cs"})
    client = app.test_client()
    assert page_language(client.get("/").get_data(as_text=True)) == "cs"
    client.set_cookie(COOKIE, "uk")
    assert page_language(client.get("/").get_data(as_text=True)) == "uk"


def test_an_unknown_table_language_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'klingon' is not a dashboard language.*en, ja"):
        create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": "1234", "LANGUAGE": "klingon"})


def test_an_error_page_is_in_the_devices_language(app: Any) -> None:
    client = app.test_client()
    html = client.get("/nowhere?lang=uk").get_data(as_text=True)
    assert "Сторінку не знайдено" in html and "/nowhere" in html


# ------------------------------------------------------------------ the engine's words


def test_a_refusal_of_the_rules_reaches_the_page_as_an_id_with_its_words(app: Any) -> None:
    client = app.test_client()
    headers = {"X-Table-PIN": "1234", "X-Requested-With": "bluffcam"}
    client.post("/api/game", json={"game": "bluff", "players": ["Ann", "Ben"],
                                   "starter": "Ann"}, headers=headers)
    answer = client.post("/api/action", json={"player": "Ann", "challenge": True},
                         headers=headers)
    error = answer.get_json()["error"]
    assert answer.status_code == 409 and error["rule"] == "B10"
    assert error["message"] == "Ann cannot challenge: there is no bid yet this round (B10)"
    assert error["said"] == {"msgid": "{player} cannot challenge: there is no bid yet this round",
                             "params": {"player": "Ann"}}


def test_an_engine_sentence_says_its_english_as_before() -> None:
    game = new_game("bluff", ["Ann", "Ben"], "Ann", {"dice_per_player": 2})
    game.apply_json({"player": "Ann", "bid": "3x4"})
    with pytest.raises(IllegalActionError) as refused:
        game.apply_json({"player": "Ben", "bid": "2x5"})
    said_words = refused.value.said
    assert said_words is not None and isinstance(said_words.params["why"], Said)
    assert refused.value.message == (
        "3×4 → 2×5 is not a raise: a number bid must raise the count, or keep it and raise "
        "the face (B6)")
    assert refused.value.to_json() == {"rule": "B6", "message": refused.value.message}


def test_a_verdict_carries_its_words_beside_its_english() -> None:
    game = new_game("bluff", ["Ann", "Ben"], "Ann", {"dice_per_player": 2})
    game.apply_json({"player": "Ann", "bid": "3x4"})
    game.apply_json({"player": "Ben", "challenge": True})
    game.apply_json({"reveal": {"Ann": [4, 2], "Ben": [3, 5]}})
    round_json = game.details()["history"][-1]
    assert round_json["verdict"] == (
        "4s and ★: 1, bid was 3 — Ann loses 2 dice; Ann is out; Ben wins")
    words = round_json["verdict_said"]
    assert words["head"]["msgid"] == "{what}: {actual}, bid was {count}"
    assert words["head"]["params"]["what"] == {"msgid": "{face}s and {star}",
                                               "params": {"face": 4, "star": "★"}}
    assert words["parts"] == [
        {"msgid": "{player} loses {n} die", "params": {"n": 2, "player": "Ann"},
         "plural": "{player} loses {n} dice", "n": 2},
        {"msgid": "{player} is out", "params": {"player": "Ann"}},
        {"msgid": "{player} wins", "params": {"player": "Ben"}}]


def test_words_with_a_count_say_the_english_plural() -> None:
    assert str(said_n("{n} die", "{n} dice", 1)) == "1 die"
    assert str(said_n("{n} die", "{n} dice", 3)) == "3 dice"
    nested = said("{action}: it is {player}'s turn", action=said("this action"), player="Ben")
    assert str(nested) == "this action: it is Ben's turn"
    assert nested.to_json()["params"]["action"] == {"msgid": "this action", "params": {}}


# ------------------------------------------------------------------ the table's default


PROFILE: dict[str, Any] = {
    "name": "kitchen",
    "camera": {"spec": "opencv:0", "resolution": [640, 480]},
    "table": {"area": [[0, 0], [640, 0], [640, 480], [0, 480]]},
    "seats": [{"name": "North", "zone": [[0, 0], [640, 0], [640, 240], [0, 240]]},
              {"name": "South", "zone": [[0, 240], [640, 240], [640, 480], [0, 480]]}],
}


def test_a_profiles_lang_is_kept_and_a_wrong_one_named(tmp_path: Path) -> None:
    from calibration import ProfileError, load_profile, profile_from_dict, save_profile

    profile = profile_from_dict({**PROFILE, "lang": "pl"})
    assert load_profile(save_profile(profile, tmp_path / "kitchen.toml")).lang == "pl"
    assert profile_from_dict(dict(PROFILE)).lang is None
    with pytest.raises(ProfileError, match=r"lang: .*'de' is not a dashboard language"):
        profile_from_dict({**PROFILE, "lang": "de"})


def test_serve_takes_lang_then_the_profiles_then_english() -> None:
    from argparse import Namespace

    from bluffcam.commands.serve import table_language
    from calibration import profile_from_dict

    polish_table = profile_from_dict({**PROFILE, "lang": "pl"})
    assert table_language(Namespace(lang="ja"), polish_table) == "ja"
    assert table_language(Namespace(lang=None), polish_table) == "pl"
    assert table_language(Namespace(lang=None), None) == "en"


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_lang_is_one_of_the_dashboards_languages(command: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from bluffcam.cli import main

    with pytest.raises(SystemExit) as stopped:
        main([command, "--lang", "xx"])
    assert stopped.value.code == 2
    assert "--lang: invalid choice: 'xx'" in capsys.readouterr().err


@pytest.mark.slow
def test_serve_lang_is_the_boards_language(tmp_path: Path) -> None:
    """The real command: `serve --lang uk` draws the board in Ukrainian for a new device."""
    import urllib.request

    from test_serve_cli import serving

    with serving(tmp_path, pin=("--pin", "4321", "--lang", "uk")) as url, \
            urllib.request.urlopen(url, timeout=5) as answer:
        html = answer.read().decode()
    assert page_language(html) == "uk" and "Останнє відкриття" in html


# ------------------------------------------------------------------ Impus kinds in any language


JAPANESE_KINDS = ["オーク", "ノーム", "エルフ", "フォーン", "スケルトン", "ドラゴン", "ゴブリン",
                  "インプ", "トロール", "ハーピー"]


def test_the_imp_and_the_other_kinds_can_be_named_in_any_language() -> None:
    game = new_game("impus", ["健太", "さくら", "Олена"], "健太",
                    {"kinds": JAPANESE_KINDS, "imp": "インプ"})
    assert "インプ" not in game.to_json()["kinds"]  # never claimed (I3)
    assert "インプ" in game.to_json()["card_kinds"]
    with pytest.raises(IllegalActionError, match="an imp may never be named") as refused:
        game.apply_json({"player": "健太", "play": 1, "claim": "インプ"})
    assert refused.value.rule == "I3"
    game.apply_json({"player": "健太", "play": 2, "claim": "オーク"})
    assert game.to_json()["claim"] == "オーク"
    # "imp" is an ordinary name where the table calls another kind the imp
    with pytest.raises(Exception, match=r"one kind must be the imp \('インプ'\)"):
        new_game("impus", ["A", "B"], "A",
                 {"kinds": [*JAPANESE_KINDS[:7], "imp", *JAPANESE_KINDS[8:]], "imp": "インプ"})


def test_a_kind_typed_in_another_unicode_form_is_the_same_kind() -> None:
    decomposed = "c\u030cert"  # "čert" as some keyboards type it
    kinds = ["orc", "gnome", "elf", "faun", "skeleton", "dragon", "goblin", "imp", "troll",
             decomposed]
    game = new_game("impus", ["Ann", "Ben"], "Ann", {"kinds": kinds})
    game.apply_json({"player": "Ann", "play": 1, "claim": "ČERT"})
    assert game.to_json()["claim"] == "\u010dert"


# ------------------------------------------------------------------ the words games really say


def msgids_in(words: Any) -> set[str]:
    """Every message id in a JSON tree of words (a Said's to_json, nested or in lists)."""
    found: set[str] = set()
    if isinstance(words, dict):
        if isinstance(words.get("msgid"), str):
            found.add(words["msgid"])
        for value in words.values():
            found |= msgids_in(value)
    elif isinstance(words, list):
        for value in words:
            found |= msgids_in(value)
    return found


def test_every_sentence_the_known_games_say_is_in_every_catalog() -> None:
    """Beside the extraction (which cannot see a sentence built where pybabel does not look):
    the words the engine really says over the known games, their verdicts, house rules, deals,
    refusals and moves, are all in every catalog."""
    from engine.errors import EngineError
    from engine.game import game_from_setup

    said_words: set[str] = set()
    for path in sorted((REPO / "tests" / "known_games").glob("*.json")):
        script = json.loads(path.read_text(encoding="utf-8"))["script"]
        try:
            game = game_from_setup(script)
        except EngineError as refused:
            said_words |= msgids_in(refused.said.to_json() if refused.said else None)
            continue
        said_words |= msgids_in([r.to_json() for r in game.house_rules_said()])
        deal = game.deal_said()
        said_words |= msgids_in(deal.to_json() if deal else None)
        for obj in script["actions"]:
            try:
                action = game.apply_json(obj)
            except EngineError as refused:
                said_words |= msgids_in(refused.said.to_json() if refused.said else None)
                break
            said_words |= msgids_in(action.describe_said().to_json())
        said_words |= msgids_in(game.details()["history"])
    assert len(said_words) > 20
    for code in OTHER_LANGUAGES:
        known = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog(code) if m.id}
        assert sorted(said_words - known) == [], code


def test_perudos_verdicts_and_refusals_carry_their_words() -> None:
    game = new_game("perudo", ["Ann", "Ben"], "Ann", {"dice_per_player": 2})
    with pytest.raises(IllegalActionError) as refused:
        game.apply_json({"player": "Ann", "bid": "1*"})
    assert refused.value.msgid == "{bid}: a round may not open with aces (except palifico)"
    assert refused.value.message == "1★: a round may not open with aces (except palifico) (P9)"
    game.apply_json({"player": "Ann", "bid": "2x4"})
    game.apply_json({"player": "Ben", "dudo": True})
    game.apply_json({"reveal": {"Ann": [4, 2], "Ben": [3, 5]}})
    round_json = game.details()["history"][-1]
    assert round_json["verdict"] == (
        "4s and aces: 1, bid was 2 — dudo right: Ann loses 1 die; Ann opens a palifico round")
    words = round_json["verdict_said"]
    assert words["head"] == {"msgid": "{face}s and aces: {actual}, bid was {count}",
                             "params": {"face": 4, "actual": 1, "count": 2}}
    assert [part["msgid"] for part in words["parts"]] == [
        "dudo right: {player} loses 1 die", "{player} opens a palifico round"]
    assert [str(r) for r in game.house_rules_said()][-1] == (
        "palifico round (Ann): aces not wild, the face stays")
    for code in OTHER_LANGUAGES:
        known = {m.id for m in catalog(code) if isinstance(m.id, str)}
        assert {words["head"]["msgid"], *(p["msgid"] for p in words["parts"])} <= known, code
