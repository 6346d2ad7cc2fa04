"""Killing a build at any moment never leaves a partial site, and the next build heals."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def build_command(root: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "consolidate", "build", "--root", str(root), "--out", str(out), "--jobs", "2"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("crash")
    for name in ("sources", "overlays"):
        shutil.copytree(REPO / name, root / name)
    return root


def test_a_killed_build_leaves_the_old_site_or_the_new_one(corpus, tmp_path):
    out = corpus / "site"
    subprocess.run(build_command(corpus, out), check=True, capture_output=True, cwd=REPO)
    old = snapshot(out)
    # A change that makes the next build render one treaty again (a new site, different bytes).
    overlay = corpus / "overlays" / "lu-ad" / "01-mli.yaml"
    original = overlay.read_text("utf-8")
    try:
        for attempt, delay in enumerate((0.05, 0.2, 0.4, 0.7, 1.0, 1.5, 2.5)):
            overlay.write_text(original + f"# change {attempt}\n", "utf-8")
            shutil.rmtree(corpus / ".consolidate-cache" / "lu-ad", ignore_errors=True)
            process = subprocess.Popen(build_command(corpus, out), cwd=REPO, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
            time.sleep(delay)
            os.killpg(process.pid, signal.SIGKILL)  # the build and its workers, mid-flight
            process.wait()
            assert out.is_dir(), f"after a kill at {delay} s there is no site at all"
            now = snapshot(out)
            assert ".consolidate-site" in now, f"after a kill at {delay} s the site is incomplete"
            if now != old:
                # The swap happened: it must be a complete new site, which a fresh build reproduces.
                check = tmp_path / f"check-{attempt}"
                subprocess.run(build_command(corpus, check), check=True, capture_output=True, cwd=REPO)
                assert now == snapshot(check)
                old = now
        # The next build after all the kills completes and matches a build from scratch.
        subprocess.run(build_command(corpus, out), check=True, capture_output=True, cwd=REPO)
        fresh = tmp_path / "fresh"
        shutil.rmtree(corpus / ".consolidate-cache")
        subprocess.run(build_command(corpus, fresh), check=True, capture_output=True, cwd=REPO)
        assert snapshot(out) == snapshot(fresh)
        leftovers = [p.name for p in corpus.iterdir() if p.name.startswith(".site.")]
        # Staging folders of killed builds may remain beside the site, never inside it.
        assert all(".new-" in name or ".old-" in name for name in leftovers)
    finally:
        overlay.write_text(original, "utf-8")


def test_a_cache_entry_cut_short_is_not_used(corpus, tmp_path):
    out = tmp_path / "site"
    subprocess.run(build_command(corpus, out), check=True, capture_output=True, cwd=REPO)
    expected = snapshot(out)
    cache = corpus / ".consolidate-cache"
    entry = next((cache / "in-pt").iterdir())
    # A worker killed while writing leaves files without a manifest: such an entry is ignored.
    (entry / "manifest.json").unlink()
    result = subprocess.run(build_command(corpus, out), check=True, capture_output=True, text=True, cwd=REPO)
    assert "rendered 1," in result.stdout
    assert snapshot(out) == expected
