"""Shared fixtures: the repository, the real seed texts beside it, and the bundled corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds"

# Which seed each bundled treaty language was imported from (docs/corpus.md).
CORPUS = {
    ("in-pt", "hi"): "000_7797f75decd70b7c.txt",
    ("in-br", "hi"): "001_7110b876b7fae8d0.txt",
    ("in-cl", "en"): "002_7379e17257e03180.txt",
    ("in-cl", "hi"): "002_7379e17257e03180.txt",
    ("lu-ad", "hi"): "003_a5343d76aaf1216e.txt",
    ("in-de", "hi"): "004_290c7b7b92e4b38c.txt",
}


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="Rewrite tests/site/golden/*.html from the built site.")


def seed_path(name: str) -> Path:
    path = SEEDS / name
    if not path.is_file():
        pytest.fail(f"seed text {name} not found in the shared seeds folder beside the repository; "
                    "the tests need the real seeds")
    return path


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def seeds() -> Path:
    if not SEEDS.is_dir():
        pytest.fail("the shared seeds folder beside the repository is missing; the tests need the real seeds")
    return SEEDS


@pytest.fixture(scope="session")
def import_results():
    """Every bundled treaty language imported afresh from its seed (cached for the session)."""
    from consolidate.importer import import_raw

    cache = {}

    def get(treaty: str, lang: str):
        if (treaty, lang) not in cache:
            cache[(treaty, lang)] = import_raw(seed_path(CORPUS[(treaty, lang)]), treaty, lang, REPO)
        return cache[(treaty, lang)]

    return get


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A scratch copy of sources/ and overlays/ to run commands against."""
    for name in ("sources", "overlays"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, tmp_path / name)
    return tmp_path
