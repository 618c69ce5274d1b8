"""The docs say what is true now: no session numbers outside the lab notebook, and no
relative link that leads nowhere.

Experiment history lives in one dated file, docs/lab-notebook.md; everywhere else a reader
should find today's values and why, so a session named by its number there is history
leaking back in. The tests are held to it too: a test's comment says why it exists today.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
LAB_NOTEBOOK = REPO_ROOT / "docs" / "lab-notebook.md"
PRODUCT_PACKAGES = ("engine", "bot", "vision", "hardware", "web", "calibration", "bluffcam",
                    "tools")
#: the text files a reader of the code opens
SOURCE_SUFFIXES = {".py", ".md", ".toml", ".js", ".html", ".css", ".txt", ".sh"}
#: a number the pattern's examples below put after "session", so that this file's own source
#: does not name a session by its number and the tests/ scan needs no exemption
N = 18

#: a session by its number: "session N", "Session N's", "sessions N and M", "session-N"
SESSION_NUMBER = re.compile(r"\bsessions?[\s-]+\d", re.IGNORECASE)
#: [text](target) in Markdown, the target up to a space, a closing bracket or a title
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: fenced code blocks: their brackets are code, not links
CODE_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def session_numbers(text: str) -> list[str]:
    """Each line of ``text`` that names a session by its number."""
    return [line.strip() for line in text.splitlines() if SESSION_NUMBER.search(line)]


def relative_links(markdown: str) -> Iterator[str]:
    """The relative link targets of ``markdown`` (web addresses, mail and in-page anchors
    skipped), without their #anchor."""
    for match in MARKDOWN_LINK.finditer(CODE_FENCE.sub("", markdown)):
        target = match.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
            continue
        yield target.split("#", 1)[0]


def doc_files() -> list[Path]:
    """README.md, BENCHMARKS.md and every Markdown page under docs/ but the lab notebook."""
    pages = [REPO_ROOT / "README.md", REPO_ROOT / "BENCHMARKS.md"]
    pages += sorted(p for p in (REPO_ROOT / "docs").rglob("*.md") if p != LAB_NOTEBOOK)
    return pages


def text_sources(folders: tuple[str, ...]) -> list[Path]:
    """Every text file under ``folders`` (of the repository) that a reader of the code opens."""
    return sorted(
        path
        for folder in folders
        for path in (REPO_ROOT / folder).rglob("*")
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts
    )


def product_sources() -> list[Path]:
    """Every text file of the product packages that a reader of the code opens."""
    return text_sources(PRODUCT_PACKAGES)


def lines_naming_a_session(paths: list[Path]) -> list[str]:
    """``path: line`` for each line of ``paths`` that names a session by its number."""
    return [
        f"{path.relative_to(REPO_ROOT)}: {line}"
        for path in paths
        for line in session_numbers(path.read_text(encoding="utf-8", errors="replace"))
    ]


def test_the_pattern_finds_session_numbers_and_nothing_else() -> None:
    assert session_numbers(f"trained in session {N} on a GPU")
    assert session_numbers(f"Sessions {N} and {N + 1} tried it")
    assert session_numbers(f"the session-{N} run")
    assert session_numbers(f"as in session {N}'s notes")
    assert not session_numbers("an ONNX Runtime session on the CPU")
    assert not session_numbers("the browser session's CSRF token; 18 sessions")


def test_the_link_finder_skips_web_addresses_anchors_and_code() -> None:
    text = "[a](docs/api.md#seats) [b](https://x.org/y.md) [c](#top)\n```\n[d](nowhere.md)\n```\n"
    assert list(relative_links(text)) == ["docs/api.md"]


def test_the_lab_notebook_exists() -> None:
    assert LAB_NOTEBOOK.is_file()


@pytest.mark.parametrize("page", doc_files(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_docs_name_no_session_number(page: Path) -> None:
    found = session_numbers(page.read_text(encoding="utf-8"))
    where = page.relative_to(REPO_ROOT)
    assert not found, f"{where}: history belongs in docs/lab-notebook.md: {found[:5]}"


def test_product_code_names_no_session_number() -> None:
    found = lines_naming_a_session(product_sources())
    assert not found, "state today's value and why, without the history:\n" + "\n".join(found)


def test_the_tests_name_no_session_number() -> None:
    """This file included: its examples of the pattern are built from ``N``."""
    sources = text_sources(("tests",))
    assert Path(__file__).resolve() in sources
    found = lines_naming_a_session(sources)
    assert not found, (
        "say why the test exists today; cite docs/lab-notebook.md by date for the history:\n"
        + "\n".join(found)
    )


@pytest.mark.parametrize(
    "page",
    [
        REPO_ROOT / "README.md",
        REPO_ROOT / "BENCHMARKS.md",
        *sorted((REPO_ROOT / "docs").rglob("*.md")),
    ],
    ids=lambda p: str(p.relative_to(REPO_ROOT)),
)
def test_relative_links_lead_to_files(page: Path) -> None:
    missing = [
        target
        for target in relative_links(page.read_text(encoding="utf-8"))
        if target and not (page.parent / target).exists()
    ]
    assert not missing, f"{page.relative_to(REPO_ROOT)} links to files that do not exist: {missing}"


def test_readme_stays_short() -> None:
    """What it is, two commands, where next: the rest lives under docs/."""
    size = len((REPO_ROOT / "README.md").read_bytes())
    assert size <= 6 * 1024, f"README.md is {size} bytes; move detail into docs/ (at most 6 KB)"


def test_every_rule_id_the_engine_cites_is_explained() -> None:
    """An error message ends with a rule id; docs/reference/rules.md must say what it means."""
    cited = {
        rule_id
        for path in (REPO_ROOT / "engine").rglob("*.py")
        for rule_id in re.findall(r"\b([BSI][1-9]\d?)\b", path.read_text(encoding="utf-8"))
    }
    rules_page = (REPO_ROOT / "docs" / "reference" / "rules.md").read_text(encoding="utf-8")
    explained = set(re.findall(r"^\| ([BSI]\d+) \|", rules_page, re.MULTILINE))
    assert cited, "found no rule id in engine/: the pattern no longer matches how errors cite them"
    missing = sorted(cited - explained)
    assert not missing, f"rule ids without a row in docs/reference/rules.md: {missing}"


def test_every_perudo_rule_id_is_explained() -> None:
    """Perudo's ids (P1…) are explained on its own page, which the rules page links to."""
    source = (REPO_ROOT / "engine" / "perudo.py").read_text(encoding="utf-8")
    cited = set(re.findall(r"\b(P[1-9]\d?)\b", source))
    page = (REPO_ROOT / "docs" / "perudo.md").read_text(encoding="utf-8")
    explained = set(re.findall(r"^\| (P\d+) \|", page, re.MULTILINE))
    assert cited, "found no Perudo rule id in engine/perudo.py"
    assert not sorted(cited - explained), f"Perudo ids without a row: {sorted(cited - explained)}"
