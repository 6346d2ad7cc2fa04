"""The site build itself: deterministic, incremental, atomic, strict, escaped, with sitemap and feed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import html5lib
import pytest

from consolidate.errors import ConsolidateError, StrictFailure
from consolidate.site import build

from .conftest import BASE_URL, REPO, checkout_env, copy_corpus
from .htmlscan import search_index

TREATIES = ["in-br", "in-cl", "in-de", "in-pt", "lu-ad"]
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "{http://www.w3.org/2005/Atom}"
INJECTED = '<script>document.title = "owned"</script><b>bold</b> & <!-- c -->'


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under a folder, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_same_files(actual: dict[str, bytes], expected: dict[str, bytes]) -> None:
    missing, extra = sorted(expected.keys() - actual.keys()), sorted(actual.keys() - expected.keys())
    changed = sorted(k for k in expected.keys() & actual.keys() if expected[k] != actual[k])
    assert not (missing or extra or changed), (f"missing {missing[:10]}, extra {extra[:10]}, "
                                               f"{len(changed)} differ: {changed[:10]}")


@pytest.fixture(scope="module")
def expected(built_site) -> dict[str, bytes]:
    files = snapshot(built_site)
    assert len(files) > 80
    return files


def test_two_builds_are_byte_identical_across_processes(expected, tmp_path):
    """A fresh build in another process, with another hash seed and working folder, gives the same bytes."""
    script = ("import sys; from pathlib import Path; from consolidate.site import build; "
              "r = build(Path(sys.argv[1]), Path(sys.argv[2]), cache=Path(sys.argv[3])); print(len(r.rendered))")
    env = checkout_env(PYTHONHASHSEED="4242")
    done = subprocess.run([sys.executable, "-c", script, str(REPO), str(tmp_path / "out"), str(tmp_path / "cache")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(TREATIES))  # rendered from scratch, not copied from a cache
    assert_same_files(snapshot(tmp_path / "out"), expected)


def test_unchanged_rebuild_renders_nothing(session_build, expected, tmp_path):
    """With the inputs unchanged every treaty comes from the cache, and the bytes are the same."""
    cache = tmp_path / "cache"
    shutil.copytree(session_build.cache, cache)
    for attempt in range(2):  # the second build replaces an existing site
        report = build(REPO, tmp_path / "out", cache=cache)
        assert report.rendered == [], attempt
        assert report.reused == TREATIES
        assert_same_files(snapshot(tmp_path / "out"), expected)


def test_the_site_does_not_depend_on_where_the_corpus_lies(expected, tmp_path):
    """The same corpus in another folder builds the same bytes: no file names the build machine's folders."""
    root = copy_corpus(tmp_path / "elsewhere")
    build(root, tmp_path / "out", cache=tmp_path / "cache")
    files = snapshot(tmp_path / "out")
    assert not [name for name, content in files.items() if str(tmp_path).encode() in content]
    assert_same_files(files, expected)


@pytest.mark.parametrize("touched, rerendered", [
    ("overlays/in-br/01-amendments.yaml", ["in-br"]),
    ("sources/in-cl/en.txt", ["in-cl"]),
    ("overlays/mli/positions.yaml", TREATIES),  # every treaty's effect dates read it
])
def test_changing_an_input_rerenders_only_the_treaties_that_read_it(tmp_path, touched, rerendered):
    """Changing the content of one input file re-renders exactly the treaties that depend on it."""
    root = copy_corpus(tmp_path / "corpus")
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert build(root, out, cache=cache).rendered == TREATIES
    before = snapshot(out)
    path = root / touched
    path.write_bytes(path.read_bytes() + b"\n# touched by the incremental-build test\n"
                     if path.suffix == ".yaml" else path.read_bytes() + b"\n")
    report = build(root, out, cache=cache)
    assert report.rendered == rerendered
    assert report.reused == [t for t in TREATIES if t not in rerendered]
    after = snapshot(out)
    untouched = [t for t in TREATIES if t not in rerendered]
    assert all(after[k] == v for k, v in before.items() if any(k.startswith(f"treaties/{t}/") for t in untouched))


def test_an_overlay_change_reaches_only_its_treaty(tmp_path):
    """A changed overlay title shows on its treaty's timeline; the other treaties' files keep their bytes."""
    root = copy_corpus(tmp_path / "corpus")
    cache, out = tmp_path / "cache", tmp_path / "out"
    build(root, out, cache=cache)
    before = snapshot(out)
    overlay = root / "overlays/in-cl/01-protocol.yaml"
    text = overlay.read_text("utf-8")
    assert "  en: Protocol (9 March 2020)\n" in text
    overlay.write_text(text.replace("  en: Protocol (9 March 2020)\n", "  en: Protocol of Santiago (9 March 2020)\n"),
                       "utf-8")
    report = build(root, out, cache=cache)
    assert report.rendered == ["in-cl"]
    after = snapshot(out)
    assert "Protocol of Santiago" in after["treaties/in-cl/timeline.html"].decode()
    changed = sorted(k for k in before if before[k] != after.get(k))
    assert changed and all(k.startswith("treaties/in-cl/") or k in ("feed.atom", "sitemap.xml") for k in changed), \
        changed


def test_two_jobs_give_the_same_bytes_as_one(expected, tmp_path):
    """Rendering treaties in parallel processes changes nothing in the output."""
    report = build(REPO, tmp_path / "out", cache=tmp_path / "cache", jobs=2)
    assert report.rendered == TREATIES
    assert_same_files(snapshot(tmp_path / "out"), expected)


def _break_missing_target(root: Path) -> str:
    path = root / "overlays/in-cl/01-protocol.yaml"
    text = path.read_text("utf-8")
    assert "  target: art_1\n" in text
    path.write_text(text.replace("  target: art_1\n", "  target: art_999\n", 1), "utf-8")
    return "overlays/in-cl/01-protocol.yaml"


def _break_yaml(root: Path) -> str:
    path = root / "overlays/in-br/01-amendments.yaml"
    path.write_text(path.read_text("utf-8") + "operations: [unclosed\n", "utf-8")
    return "overlays/in-br/01-amendments.yaml"


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("breakage", [_break_missing_target, _break_yaml], ids=["missing-target", "bad-yaml"])
def test_an_error_leaves_the_previous_site_untouched(tmp_path, breakage, jobs):
    """A broken overlay raises a located ConsolidateError; the site already there keeps every byte."""
    root = copy_corpus(tmp_path / "corpus")
    out = tmp_path / "site" / "out"
    build(root, out, cache=tmp_path / "cache")
    before = snapshot(out)
    where = breakage(root)
    with pytest.raises(ConsolidateError) as raised:
        build(root, out, cache=tmp_path / "cache", jobs=jobs)
    assert where in str(raised.value)  # the message names the file, also from a worker process
    assert_same_files(snapshot(out), before)
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]  # no half-written site beside it


def _cached_page(entry: Path) -> Path:
    return entry / "files" / "treaties" / "in-pt" / "hi" / "index.html"


def _flip_a_byte(entry: Path) -> None:
    page = _cached_page(entry)
    data = bytearray(page.read_bytes())
    data[len(data) // 2] ^= 0x01
    page.write_bytes(bytes(data))


def _flip_a_byte_keeping_the_time(entry: Path) -> None:
    # As a failing disk, or a copy that keeps timestamps (cp -p, rsync -t), leaves it: same size, same time.
    page = _cached_page(entry)
    before = page.stat()
    _flip_a_byte(entry)
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))


def _truncate_manifest(entry: Path) -> None:
    manifest = entry / "manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:100])


def _remove_a_file(entry: Path) -> None:
    _cached_page(entry).unlink()


def _wrong_types_in_the_manifest(entry: Path) -> None:
    # Valid JSON of the wrong shape (as a hand edit or another version might leave) is corrupt too.
    manifest = entry / "manifest.json"
    data = json.loads(manifest.read_text("utf-8"))
    data["files"] = "not a mapping"
    manifest.write_text(json.dumps(data), "utf-8")


@pytest.mark.parametrize("corrupt", [
    pytest.param(_flip_a_byte, id="flipped-byte"),
    pytest.param(_flip_a_byte_keeping_the_time, id="flipped-byte-same-mtime"),
    pytest.param(_truncate_manifest, id="truncated-manifest"),
    pytest.param(_remove_a_file, id="missing-file"),
    pytest.param(_wrong_types_in_the_manifest, id="bad-manifest"),
])
def test_a_corrupt_cache_entry_is_rendered_again(session_build, expected, tmp_path, corrupt):
    """A damaged cache entry is detected and that treaty is re-rendered, never copied; the cache heals."""
    cache = tmp_path / "cache"
    shutil.copytree(session_build.cache, cache)
    entries = [p for p in (cache / "in-pt").iterdir() if (p / "manifest.json").is_file()]
    assert len(entries) == 1
    corrupt(entries[0])
    report = build(REPO, tmp_path / "out", cache=cache)
    assert report.rendered == ["in-pt"]
    assert_same_files(snapshot(tmp_path / "out"), expected)
    assert build(REPO, tmp_path / "out", cache=cache).rendered == []


def test_editing_the_built_site_in_place_does_not_poison_the_cache(session_build, expected, tmp_path):
    """Cached files are linked into the site: writing into a built page must not make the next build wrong."""
    cache = tmp_path / "cache"
    shutil.copytree(session_build.cache, cache)
    out = tmp_path / "out"
    assert build(REPO, out, cache=cache).rendered == []
    with open(out / "treaties" / "in-pt" / "hi" / "index.html", "r+b") as page:
        page.seek(100)
        page.write(b"EDITED")
    build(REPO, out, cache=cache)
    assert_same_files(snapshot(out), expected)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "consolidate", *args], cwd=cwd, env=checkout_env(),
                          capture_output=True, text=True, timeout=600)


def test_strict_with_findings_writes_nothing(tmp_path):
    """`build --strict` with findings exits 1 and writes no site; a site already there keeps every byte."""
    root = copy_corpus(tmp_path / "corpus")
    fresh = tmp_path / "fresh"
    done = _cli("build", "--root", str(root), "--out", str(fresh), "--strict", cwd=tmp_path)
    assert done.returncode == 1
    assert "strict" in done.stderr and "error:" in done.stderr
    assert not fresh.exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".fresh")]  # no half-written site
    out = tmp_path / "out"
    report = build(root, out)  # the bundled corpus has findings: the precondition of this test
    assert report.findings > 0
    before = snapshot(out)
    with pytest.raises(StrictFailure):
        build(root, out, strict=True)
    assert_same_files(snapshot(out), before)


def test_base_url_gives_a_valid_sitemap_and_atom_feed(built_site_base_url, built_site):
    """sitemap.xml and feed.atom parse as XML, list absolute addresses under the base URL, and are complete."""
    site = built_site_base_url
    urlset = ET.parse(site / "sitemap.xml").getroot()
    assert urlset.tag == f"{SITEMAP}urlset"
    locs = [url.findtext(f"{SITEMAP}loc") for url in urlset]
    assert all(url.tag == f"{SITEMAP}url" for url in urlset)
    assert len(locs) == len(set(locs)) and 0 < len(locs) <= 50000
    pages = {"index.html"} | {p.relative_to(site).as_posix() for p in (site / "treaties").rglob("*.html")}
    assert set(locs) == {BASE_URL + p for p in pages}
    assert all(len(loc) <= 2048 and " " not in loc for loc in locs)

    feed = ET.parse(site / "feed.atom").getroot()
    assert feed.tag == f"{ATOM}feed"
    assert feed.findtext(f"{ATOM}title") and feed.findtext(f"{ATOM}id") == BASE_URL + "feed.atom"
    assert feed.find(f"{ATOM}author/{ATOM}name") is not None
    assert [link.get("href") for link in feed.findall(f"{ATOM}link") if link.get("rel") == "self"] == \
        [BASE_URL + "feed.atom"]
    entries = feed.findall(f"{ATOM}entry")
    # One entry per version after the base text: each treaty's versions are its JSON downloads.
    versions = sum(len(list((folder / sorted(p.name for p in folder.iterdir() if p.is_dir())[0]).glob("*.json"))) - 1
                   for folder in sorted((site / "treaties").iterdir()))
    assert len(entries) == versions > 0
    updated = []
    for entry in entries:
        assert entry.findtext(f"{ATOM}title")
        assert (entry.findtext(f"{ATOM}id") or "").startswith(BASE_URL)
        assert (entry.find(f"{ATOM}link").get("href") or "").startswith(BASE_URL)
        updated.append(datetime.fromisoformat(entry.findtext(f"{ATOM}updated").replace("Z", "+00:00")))
    assert len({e.findtext(f"{ATOM}id") for e in entries}) == len(entries)
    assert updated == sorted(updated, reverse=True)
    assert datetime.fromisoformat(feed.findtext(f"{ATOM}updated").replace("Z", "+00:00")) == max(updated)
    # Without a base URL there is neither.
    assert not (built_site / "sitemap.xml").exists() and not (built_site / "feed.atom").exists()


def _inject(root: Path) -> None:
    """Markup in a paragraph, in a heading, and in the protocol item that becomes a note on Article 1."""
    path = root / "sources/in-cl/en.txt"
    text = path.read_text("utf-8")
    paragraph = "  This Agreement shall apply to persons who are residents of one or both of the Contracting States.\n"
    note = "For purposes of paragraph 1, the term ―fiscally transparent‖ means"
    assert text.count(paragraph) == 1 and text.count("@heading PERSONS COVERED\n") == 1 and text.count(note) == 1
    text = text.replace(paragraph, paragraph.rstrip("\n") + " " + INJECTED + "\n")
    text = text.replace(note, f"{INJECTED} {note}")
    path.write_text(text.replace("@heading PERSONS COVERED\n", f"@heading PERSONS COVERED {INJECTED}\n"), "utf-8")


def test_markup_in_a_treaty_text_is_shown_as_text(tmp_path):
    """<script> (or any tag) in a source text is escaped everywhere: never an element, always visible text."""
    root = copy_corpus(tmp_path / "corpus")
    _inject(root)
    out = tmp_path / "out"
    build(root, out, cache=tmp_path / "cache", treaties=["in-cl"])
    pages = sorted((out / "treaties" / "in-cl").rglob("*.html"))
    shown = set()
    for page in pages:
        tree = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
        for script in tree.iter("script"):
            # The site's own scripts are files under assets/, or the point-in-time page's JSON data.
            assert script.get("src", "").endswith(".js") or (script.get("type") == "application/json"
                                                             and "owned" not in (script.text or "")), page
        assert not list(tree.iter("b")), page
        assert all("owned" not in (t.text or "") for t in tree.iter("title")), page
        text = " ".join("".join(tree.itertext()).split())
        if INJECTED in text:
            shown.add(page.relative_to(out / "treaties" / "in-cl").as_posix())
    en = html5lib.parse((out / "treaties/in-cl/en/index.html").read_bytes(), namespaceHTMLElements=False)
    paragraph = next(e for e in en.iter() if e.get("id") == "art_1__para_1")
    assert INJECTED in "".join(paragraph.itertext())
    # Editions, the diff (the note is an insertion) and the parallel text all show it.
    assert shown >= {"en/index.html", "en/base.html", "en/protocol.html", "en/diff/base--protocol.html",
                     "parallel.html"}, shown
    _, docs, _ = search_index(out)
    assert any(INJECTED in snippet for _, _, _, snippet in docs["in-cl"]["docs"])
