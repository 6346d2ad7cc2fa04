"""Fixtures for the site tests: the bundled corpus built once per session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from consolidate.site import BuildReport, build

REPO = Path(__file__).resolve().parents[2]
BASE_URL = "https://treaties.example.org/site/"


def pytest_addoption(parser):
    # pytest reads options only from conftests it loads at startup: this one is loaded when
    # tests/site is named on the command line; tests/conftest.py may add the same option for
    # runs from the root, in which case adding it here again would raise.
    try:
        parser.addoption("--update-golden", action="store_true", default=False,
                         help="Rewrite tests/site/golden/*.html from the built site.")
    except ValueError:
        pass


@dataclass(frozen=True)
class SessionBuild:
    out: Path
    cache: Path
    report: BuildReport


def checkout_env(**extra: str) -> dict[str, str]:
    """The environment for a child Python that imports this checkout's consolidate, not an installed copy."""
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


def copy_corpus(target: Path) -> Path:
    """sources/ and overlays/ of the repository, copied to `target` (a root to build from)."""
    for name in ("sources", "overlays"):
        shutil.copytree(REPO / name, target / name)
    return target


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def session_build(tmp_path_factory) -> SessionBuild:
    """The bundled corpus built once, from scratch, with a cache of its own, into a scratch folder."""
    folder = tmp_path_factory.mktemp("site")
    report = build(REPO, folder / "out", cache=folder / "cache")
    assert report.treaties >= 5 and report.pages > 0 and report.rendered
    return SessionBuild(folder / "out", folder / "cache", report)


@pytest.fixture(scope="session")
def built_site(session_build) -> Path:
    return session_build.out


@pytest.fixture(scope="session")
def built_site_base_url(tmp_path_factory) -> Path:
    """A copy of the corpus built by the command line with --base-url (adds sitemap.xml and feed.atom)."""
    root = copy_corpus(tmp_path_factory.mktemp("corpus-base-url"))
    out = root.parent / "site-base-url"
    done = subprocess.run([sys.executable, "-m", "consolidate", "build", "--root", str(root), "--out", str(out),
                           "--base-url", BASE_URL], env=checkout_env(), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def update_golden(request) -> bool:
    return bool(request.config.getoption("--update-golden", default=False))
