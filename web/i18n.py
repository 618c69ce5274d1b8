"""The dashboard in the players' languages: Flask-Babel picks each request's language, and the
pages get that language's catalog as JSON for their scripts (web/static/js/i18n.js).

The choice, first found wins: ``?lang=`` (then kept in a cookie, so the device remembers it),
the ``bluffcam_lang`` cookie the picker sets, the table's default (``serve --lang`` or the
profile's ``lang``), English. An unknown code is passed over, never an error page: a bad link
still opens the dashboard.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from babel.support import Translations
from flask import Flask, Response, current_app, request
from flask_babel import Babel
from flask_babel import gettext as babel_gettext

from engine.words import DEFAULT_LANGUAGE, LANGUAGES, check_language

COOKIE = "bluffcam_lang"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # the most a browser keeps (RFC 6265bis)
TRANSLATIONS = Path(__file__).parent / "translations"


def gettext(msgid: str) -> str:
    """``msgid`` in this request's language (server-drawn words: the error pages)."""
    return str(babel_gettext(msgid))


def chosen_language() -> str:
    """This request's language code (see the module's docstring for the order)."""
    for code in (request.args.get("lang"), request.cookies.get(COOKIE)):
        if code in LANGUAGES:
            return str(code)
    return str(current_app.config.get("LANGUAGE") or DEFAULT_LANGUAGE)


@cache
def js_catalog(code: str) -> dict[str, Any]:
    """What a page's scripts look words up in: msgid -> text, or -> [forms] for a plural.
    English needs none: its msgids are its words."""
    if code == DEFAULT_LANGUAGE:
        return {}
    translations = Translations.load(str(TRANSLATIONS), [code], domain="messages")
    out: dict[str, Any] = {}
    # the .mo's own table (gettext's); a language without a catalog has none: English words
    for key, text in getattr(translations, "_catalog", {}).items():
        if isinstance(key, tuple):
            msgid, index = key
            forms = out.setdefault(msgid, [])
            if not isinstance(forms, list):
                continue
            forms.extend([""] * (index + 1 - len(forms)))
            forms[index] = text
        elif key and text:
            out[key] = text
    return out


def init_app(app: Flask) -> None:
    """Language choice for every request, and what the templates need to offer it."""
    check_language(app.config.get("LANGUAGE") or DEFAULT_LANGUAGE, "the table's language")
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(TRANSLATIONS)
    Babel(app, locale_selector=chosen_language)

    @app.context_processor
    def _languages() -> dict[str, Any]:
        code = chosen_language()
        return {"lang": code, "languages": LANGUAGES,
                "js_catalog": {"lang": code, "messages": js_catalog(code)}}

    @app.after_request
    def _remember(response: Response) -> Response:
        # a link with ?lang= (the picker without a script, a QR code) sets the device's choice
        code = request.args.get("lang")
        if code in LANGUAGES and request.cookies.get(COOKIE) != code:
            response.set_cookie(COOKIE, str(code), max_age=COOKIE_MAX_AGE_S, samesite="Lax")
        return response
