"""The files that start bluffcam on a Pi (deploy/): their form, and that they agree with each
other and with ``bluffcam serve``. Starting them needs a Pi; what can be checked here is."""

from __future__ import annotations

import configparser
import re
import subprocess
from pathlib import Path

from bluffcam.commands.serve import DEFAULT_PORT

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DEPLOY / "bluffcam-board.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


#: characters an Exec argument may hold only inside double quotes (Desktop Entry spec)
RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def exec_arguments(value: str) -> list[str]:
    """An Exec key's arguments as the Desktop Entry spec reads them: the string's own escapes
    first (``\\s``, ``\\\\`` …), then double-quoted arguments, where ``\\"``, ``\\` ``,
    ``\\$`` and ``\\\\`` stand for the character; single quotes quote nothing there."""
    plain = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    text, i = "", 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in plain:
            text, i = text + plain[value[i + 1]], i + 2
        else:
            text, i = text + value[i], i + 1
    args: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == " ":
            i += 1
        elif text[i] == '"':
            arg, i = "", i + 1
            while text[i] != '"':
                if text[i] == "\\":
                    assert text[i + 1] in '"`$\\', f"{text[i:i + 2]!r} is no escape in quotes"
                    i += 1
                arg, i = arg + text[i], i + 1
            args.append(arg)
            i += 1
        else:
            end = text.find(" ", i) if " " in text[i:] else len(text)
            word = text[i:end]
            assert not RESERVED & set(word), f"{word!r} needs double quotes in Exec"
            args.append(word)
            i = end
    return args


def test_the_board_entry_opens_the_board_full_screen_where_serve_listens() -> None:
    entry = desktop_entry()
    assert entry["Type"] == "Application" and entry["Name"]
    program, flag, script = exec_arguments(entry["Exec"])
    assert (program, flag) == ("sh", "-c")
    # valid sh, which waits for the server and then opens the board in kiosk mode
    assert subprocess.run(["sh", "-n", "-c", script], check=False).returncode == 0
    urls = set(re.findall(r"http://localhost:(\d+)/", script))
    assert urls == {str(DEFAULT_PORT)}, urls
    assert "--kiosk" in script and script.index("until curl") < script.index("exec ")


def test_the_service_runs_serve_with_the_arguments_of_its_environment_file() -> None:
    unit = (DEPLOY / "bluffcam.service").read_text(encoding="utf-8")
    env = (DEPLOY / "bluffcam.env").read_text(encoding="utf-8")
    assert re.search(r"^ExecStart=\S+/bluffcam serve \$BLUFFCAM_ARGS$", unit, re.M)
    assert "EnvironmentFile=-/etc/default/bluffcam" in unit
    assert re.search(r"^BLUFFCAM_ARGS=", env, re.M)
    # the service does not move the port away from the one the board entry opens
    assert "--port" not in re.search(r"^BLUFFCAM_ARGS=(.*)$", env, re.M).group(1)  # type: ignore[union-attr]
