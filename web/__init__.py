"""The dashboard: a Flask app factory in the style of Flask's tutorial (flaskr).

    app = create_app({"DATA_DIR": "/tmp/t", "TABLE_PIN": "1234"})   # makes its own Table
    app = create_app(table=my_table)                                 # serve/demo/tests pass one

The factory never opens hardware: `bluffcam serve` opens the camera and the panel once and
hands the app a ready `Table`, so ``flask --debug`` calling the factory twice is harmless.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from web.security import generate_pin

#: uploads (calibration test photos) and JSON bodies larger than this are refused (413)
MAX_UPLOAD_BYTES = 8 * 1024 * 1024


def allowed_hosts_from_env() -> list[str]:
    """``$BLUFFCAM_ALLOW_HOSTS``: names the dashboard is opened by (`web.security.check_host`)."""
    return os.environ.get("BLUFFCAM_ALLOW_HOSTS", "").replace(",", " ").split()


def allowed_hosts(listen_host: str, named: Iterable[str] = ()) -> list[str]:
    """The names a server listening on ``listen_host`` answers to besides its addresses:
    that host itself where it is a name (the address `serve` and `demo` print), the names
    given (``--allow-host``) and ``$BLUFFCAM_ALLOW_HOSTS``."""
    return [*allowed_hosts_from_env(), *named, listen_host]


def create_app(test_config: Mapping[str, Any] | None = None, *, table: Any | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY=secrets.token_hex(32),
        DATA_DIR=None,
        TABLE_PIN=os.environ.get("BLUFFCAM_PIN") or None,
        # names the dashboard answers to besides its addresses and this machine's name
        ALLOWED_HOSTS=allowed_hosts_from_env(),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        SSE_HEARTBEAT_S=15.0,
        SSE_RETRY_MS=2000,
        PIN_FREE_TRIES=3,
        PIN_MAX_LOCK_S=60.0,
        JSON_SORT_KEYS=False,
        # whether the server listens where phones can reach it (web.join.phones_can_reach)
        PHONES_CAN_JOIN=True,
        # `serve --keep-photos`, in MB, for the calibration page (None: no budget is kept)
        PHOTO_BUDGET_MB=None,
        # the table's language when a device has not chosen one (`serve --lang`, the profile)
        LANGUAGE="en",
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False  # type: ignore[attr-defined]

    if table is None:
        from bluffcam.table import Table

        data_dir = Path(app.config["DATA_DIR"] or app.instance_path)
        data_dir.mkdir(parents=True, exist_ok=True)
        table = Table(data_dir / "journal.sqlite", data_dir=data_dir)
    app.extensions["bluffcam.table"] = table

    pin = str(app.config["TABLE_PIN"] or generate_pin())
    app.config["TABLE_PIN"] = pin

    from web import api, cards, drafts, events, i18n, openapi, security, teaching, zones

    security.init_app(app, pin)
    i18n.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(events.bp)
    app.register_blueprint(openapi.bp)  # GET /api/openapi.json
    app.register_blueprint(cards.bp)  # the card art for Impus (web/cards.py)
    app.register_blueprint(zones.bp)  # refitting the seat zones (web/zones.py)
    app.register_blueprint(drafts.bp)  # a pending review's corrections (web/drafts.py)
    app.register_blueprint(teaching.bp)  # teaching the camera this table (web/teaching.py)
    api.register_error_handlers(app)

    from web import pages

    app.register_blueprint(pages.bp)
    return app
