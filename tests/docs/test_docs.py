"""The documentation is there, linked, and self-contained: every page exists, the README and the docs index
link every game page, every relative link resolves, the API guide lists every error reason the service can
answer, and nothing the project ships cites a file outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.core import errors
from service.games import REGISTRATIONS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The docs' own pages: a game from outside the service's tree keeps its page in its package.
PAGES = [
    "README.md",
    "api.md",
    "compatibility.md",
    *(str(game.page.relative_to(DOCS)) for game in REGISTRATIONS if game.page.is_relative_to(DOCS)),
]
# Where the project's code, contract and texts live: none of it may send a reader outside the repository.
SHIPPED = ("service", "proto", "clients", "docs")
OUTSIDE = re.compile(r"rules\.md|shared/spec")
# Generated or installed, never written here (generated code, the Node example's packages and build), and
# binary files (native kernels, the released contract images, Reversi's compressed pattern weights).
BUILT = {"gen", "node_modules", "dist", "__pycache__"}  # made by the build or by Python, never shipped
BINARY = (".so", ".binpb", ".gz")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_page_exists() -> None:
    for game in REGISTRATIONS:
        assert game.page.is_file(), game.id
    for page in PAGES:
        assert (DOCS / page).is_file(), page
    assert (ROOT / "LICENSE").is_file() and (ROOT / "CHANGELOG.md").is_file()


def links(path: Path) -> set[str]:
    return set(LINK.findall(read(path)))


def test_the_readme_and_the_index_link_every_page() -> None:
    """The README links the index and the general pages; the index links every page, each game's among them,
    so a new game's page is one row of the index (``docs/development.md``, "Adding a game")."""
    readme = links(ROOT / "README.md")
    games = {page for page in PAGES if page.startswith("games/")}
    wanted = {f"docs/{page}" for page in PAGES if page not in games} | {"LICENSE", "CHANGELOG.md"}
    assert wanted <= readme, sorted(wanted - readme)
    index = links(DOCS / "README.md")
    assert {page for page in PAGES if page != "README.md"} <= index


@pytest.mark.parametrize("page", ["README.md", "CHANGELOG.md", *(f"docs/{page}" for page in PAGES)])
def test_relative_links_resolve(page: str) -> None:
    path = ROOT / page
    for target in links(path):
        if re.match(r"[a-z]+:", target):
            continue
        assert (path.parent / target).exists(), f"{page} links {target}, which does not exist"


def citations() -> list[str]:
    """``path:line`` of every line of a shipped file that cites a file outside the repository."""
    citing = []
    for folder in SHIPPED:
        for path in sorted((ROOT / folder).rglob("*")):
            built = BUILT & set(path.relative_to(ROOT).parts) or path.suffix in BINARY
            if path.is_file() and not built:
                for number, line in enumerate(read(path).splitlines(), start=1):
                    if OUTSIDE.search(line):
                        citing.append(f"{path.relative_to(ROOT).as_posix()}:{number}")
    return citing


def test_nothing_shipped_cites_a_file_outside_the_repository() -> None:
    citing = citations()
    assert not citing, "cite docs/games/<game>.md or docs/api.md instead:\n" + "\n".join(citing)


def test_the_api_guide_lists_every_error_reason() -> None:
    guide = read(DOCS / "api.md")
    reasons = {error.reason for error in errors.RulesError.__subclasses__()} | {errors.RulesError.reason}
    for path in (ROOT / "service" / "api").rglob("*.py"):
        reasons |= set(re.findall(r'"((?:INVALID|UNKNOWN)_[A-Z_]+)"', read(path)))
    reasons |= {"OVERLOADED", "UNAUTHENTICATED", "REQUEST_TOO_LARGE", "METHOD_NOT_ALLOWED"}
    missing = sorted(reason for reason in reasons if f"`{reason}`" not in guide)
    assert not missing, f"docs/api.md does not list {missing}"


def test_the_changelog_and_the_license() -> None:
    changelog = read(ROOT / "CHANGELOG.md")
    assert "## [Unreleased]" in changelog and re.search(r"## \[0\.1\.0\] - \d{4}-\d\d-\d\d", changelog)
    license_text = read(ROOT / "LICENSE")
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 the gamerules authors" in license_text
