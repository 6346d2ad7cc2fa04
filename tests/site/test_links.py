"""Link checks over the whole built site: every internal address resolves, nothing is fetched from elsewhere."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from .conftest import BASE_URL
from .htmlscan import html_pages, is_external, resolve, scan_page, search_index

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "{http://www.w3.org/2005/Atom}"
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""", re.I)


def _ids_of(site: Path):
    @lru_cache(maxsize=None)
    def ids(target: Path) -> frozenset[str]:
        return frozenset(scan_page(site, target).ids)
    return ids


def check_address(site: Path, page: str, value: str, ids) -> str | None:
    """Why an internal address in `page` does not resolve, or None when it does."""
    target, fragment = resolve(site, page, value)
    if not target.is_relative_to(site.resolve()):
        return "points outside the site"
    if not target.is_file():
        return f"no such file {target.relative_to(site.resolve()).as_posix()}"
    if "#" in value:
        if not fragment:
            return "empty fragment"
        if target.suffix != ".html":
            return "fragment into a file that is not a page"
        if fragment not in ids(target):
            return f"no element with id {fragment!r} in {target.relative_to(site.resolve()).as_posix()}"
    return None


def link_problems(site: Path) -> list[str]:
    """Every broken internal address and every external one in the site's pages and styles."""
    site = site.resolve()
    ids = _ids_of(site)
    problems = []
    for page in html_pages(site):
        for link in scan_page(site, page).links:
            if is_external(link.value):
                problems.append(f"{link}: external address")
                continue
            why = check_address(site, link.page, link.value, ids)
            if why:
                problems.append(f"{link}: {why}")
    for sheet in sorted(site.rglob("*.css")):
        name = sheet.relative_to(site).as_posix()
        for found in CSS_URL.finditer(sheet.read_text("utf-8")):
            value = found.group(1) or found.group(2)
            if is_external(value):
                problems.append(f"{name}: external address {value!r} (no web fonts or CDNs)")
            elif why := check_address(site, name, value, ids):
                problems.append(f"{name}: {value!r}: {why}")
    for script in sorted(site.rglob("*.js")):
        if script.parent == site / "assets" / "search":
            continue  # index data: treaty text that quotes an address fetches nothing
        # Scripts may build addresses but must never name another host.
        for found in re.finditer(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", script.read_text("utf-8"), re.I):
            problems.append(f"{script.relative_to(site).as_posix()}: external address {found.group(0)!r}")
    return problems


def test_link_checker_finds_broken_and_external_links(tmp_path):
    """The checker itself reports missing files and ids, foreign hosts in pages and scripts, and web fonts."""
    (tmp_path / "a.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>a</title>'
        '<link rel="stylesheet" href="s.css"><script src="https://cdn.example/x.js"></script></head>'
        '<body><p id="here.1">x</p><a href="b.html">b</a><a href="a.html#here%2E1">ok</a>'
        '<a href="#nowhere">f</a><a href="//fonts.example/f">g</a><img src="i.png" alt=""></body></html>', "utf-8")
    (tmp_path / "s.css").write_text("@font-face { src: url(https://fonts.example/x.woff2); }", "utf-8")
    (tmp_path / "x.js").write_text('// a comment, not an address\nload("https://cdn.example.org/lib.js");\n', "utf-8")
    problems = "\n".join(link_problems(tmp_path))
    assert "no such file b.html" in problems
    assert "no such file i.png" in problems
    assert "no element with id 'nowhere'" in problems
    assert "cdn.example/x.js" in problems and "//fonts.example/f" in problems and "x.woff2" in problems
    assert "x.js: external address 'https://cdn.example.org'" in problems
    assert "here%2E1" not in problems  # percent-decoded, and ids may contain dots
    assert len(problems.splitlines()) == 7


def test_every_internal_address_resolves_and_none_is_external(built_site):
    """Every href/src of every page (and every stylesheet url) names an existing file and id."""
    pages = html_pages(built_site)
    assert len(pages) > 40
    links = sum(len(scan_page(built_site, p).links) for p in pages)
    assert links > 1000  # the checker really saw the site's links
    problems = link_problems(built_site)
    assert not problems, f"{len(problems)} bad links:\n" + "\n".join(problems[:60])


def test_pages_stay_local_when_built_with_a_base_url(built_site_base_url):
    """The public address goes only into sitemap.xml and feed.atom, never into a page."""
    problems = link_problems(built_site_base_url)
    assert not problems, "\n".join(problems[:60])
    host = urlsplit(BASE_URL).netloc
    leaked = [p.relative_to(built_site_base_url).as_posix() for p in html_pages(built_site_base_url)
              if host in p.read_text("utf-8")]
    assert not leaked, f"the base URL appears in pages: {leaked[:10]}"


def test_every_page_is_reachable_from_the_index(built_site):
    """No page is an orphan: following links from index.html and search.html reaches them all."""
    site = built_site.resolve()
    seen: set[Path] = set()
    todo = [site / "index.html", site / "search.html"]
    while todo:
        page = todo.pop()
        if page in seen or page.suffix != ".html":
            continue
        seen.add(page)
        for link in scan_page(site, page).links:
            if not is_external(link.value):
                target, _ = resolve(site, link.page, link.value)
                if target.is_file():
                    todo.append(target)
    # A folder's refresh redirect (treaties/ID/index.html) answers the folder's address, not a link.
    redirects = {p.resolve() for p in html_pages(site)
                 if any(link.tag == "meta" for link in scan_page(site, p).links)}
    assert len(redirects) >= 5
    orphans = [p.relative_to(site).as_posix() for p in html_pages(site) if p.resolve() not in seen | redirects]
    assert not orphans, f"pages no link reaches: {orphans}"


def test_search_index_addresses_resolve(built_site):
    """Each indexed provision's address (relative to search.html) names an existing page and provision."""
    ids = _ids_of(built_site.resolve())
    treaties, docs, terms = search_index(built_site)
    assert sorted(treaties) == sorted(docs) and {"in-br", "in-cl", "in-de", "in-pt", "lu-ad"} <= set(treaties)
    problems, count = [], 0
    for treaty, index in docs.items():
        for lang, eid, address, snippet in index["docs"]:
            count += 1
            if is_external(address):
                problems.append(f"{treaty}: {address}: external address")
            elif why := check_address(built_site, "search.html", address, ids):
                problems.append(f"{treaty}: {address}: {why}")
            elif urlsplit(address).fragment != eid or f"/{lang}/" not in address:
                problems.append(f"{treaty}: {address}: not the page of {lang} {eid}")
    assert count > 1000
    # Every word list names a treaty whose own index has those words, and every posting a document.
    for key, table in terms.items():
        for number, joined in table:
            index = docs[treaties[number]]
            for term in joined.split(" "):
                if format(ord(term[0]), "x") != key or term not in index["words"]:
                    problems.append(f"words-{key}: {term!r} is not a word of {treaties[number]}")
    for treaty, index in docs.items():
        for term, positions in index["words"].items():
            if any(i >= len(index["docs"]) for i in positions):
                problems.append(f"docs-{treaty}: {term!r} names no document")
    assert not problems, "\n".join(problems[:60])


def test_sitemap_and_feed_addresses_resolve(built_site_base_url):
    """With a base URL, every sitemap location and feed link is that URL plus an existing page."""
    site = built_site_base_url
    ids = _ids_of(site.resolve())
    addresses = [loc.text or "" for loc in ET.parse(site / "sitemap.xml").getroot().iter(f"{SITEMAP}loc")]
    feed = ET.parse(site / "feed.atom").getroot()
    addresses += [link.get("href") or "" for link in feed.iter(f"{ATOM}link")]
    assert len(addresses) > 50
    problems = []
    for address in addresses:
        if not address.startswith(BASE_URL):
            problems.append(f"{address}: not under {BASE_URL}")
            continue
        relative = address[len(BASE_URL):]
        if address == BASE_URL + "feed.atom":
            continue  # the feed's own address (rel="self")
        if why := check_address(site, "index.html", relative, ids):
            problems.append(f"{address}: {why}")
    assert not problems, "\n".join(problems[:60])
