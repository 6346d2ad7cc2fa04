"""Small helpers shared by the site tests: list the built pages and read their links and ids."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Attributes that make the browser fetch or navigate to another address.
LINK_ATTRIBUTES = {"href", "src", "action", "poster", "data", "formaction", "cite"}
REFRESH_URL = re.compile(r"^\s*\d+\s*;\s*url\s*=\s*(.+?)\s*$", re.I)


@dataclass
class Link:
    """One address in a page: where it stands and what it says."""

    page: str
    tag: str
    attr: str
    value: str
    line: int

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: <{self.tag} {self.attr}={self.value!r}>"


@dataclass
class PageScan:
    """What the link and id checks need from one page."""

    path: str
    ids: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    html_lang: str | None = None


class _Scanner(HTMLParser):
    def __init__(self, scan: PageScan):
        super().__init__(convert_charrefs=True)
        self.scan = scan

    def handle_starttag(self, tag, attrs):
        line = self.getpos()[0]
        values = dict(attrs)
        if tag == "html":
            self.scan.html_lang = values.get("lang")
        if values.get("id") is not None:
            self.scan.ids.append(values["id"])
        for name, value in attrs:
            if name in LINK_ATTRIBUTES and value is not None:
                self.scan.links.append(Link(self.scan.path, tag, name, value, line))
            elif name == "srcset" and value:
                for candidate in value.split(","):
                    self.scan.links.append(Link(self.scan.path, tag, name, candidate.split()[0], line))
        # A refresh redirect is a link too (the treaty folder's index.html is one).
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            found = REFRESH_URL.match(values.get("content") or "")
            if found:
                self.scan.links.append(Link(self.scan.path, tag, "content", found.group(1), line))

    handle_startendtag = handle_starttag


def html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if p.is_file())


def scan_page(site: Path, page: Path) -> PageScan:
    scan = PageScan(page.resolve().relative_to(site.resolve()).as_posix())
    scanner = _Scanner(scan)
    scanner.feed(page.read_text("utf-8"))
    scanner.close()
    return scan


def is_external(value: str) -> bool:
    """An address with a scheme or a host of its own (http:, //cdn…, data:, mailto:…)."""
    parts = urlsplit(value.strip())
    return bool(parts.scheme or parts.netloc)


def resolve(site: Path, page: str, value: str) -> tuple[Path, str]:
    """The file an internal address in `page` points at, and its percent-decoded fragment."""
    parts = urlsplit(value.strip())
    base = (site / page).parent
    target = (base / unquote(parts.path)).resolve() if parts.path else (site / page).resolve()
    return target, unquote(parts.fragment)


SCRIPT_TABLE = re.compile(r"^window\.(\w+)\[(\"(?:[^\"\\]|\\.)*\")\] = (.*);$", re.M)


def script_table(path: Path) -> tuple[str, str, object]:
    """A search index script `window.TABLE["key"] = JSON;` as (table, key, value)."""
    found = SCRIPT_TABLE.search(path.read_text("utf-8"))
    assert found, f"{path.name} is not a search index script"
    return found.group(1), json.loads(found.group(2)), json.loads(found.group(3))


def search_index(site: Path) -> tuple[list[str], dict[str, dict], dict[str, list]]:
    """The site's search index: treaty ids, each treaty's documents and words, the word lists by key."""
    folder = site / "assets" / "search"
    text = (folder / "treaties.js").read_text("utf-8")
    found = re.fullmatch(r"window\.SEARCH_TREATIES = (.*);\n", text)
    assert found, "treaties.js is not the treaty list"
    docs, terms = {}, {}
    for path in sorted(folder.glob("docs-*.js")):
        table, key, value = script_table(path)
        assert table == "SEARCH_DOCS"
        docs[key] = value
    for path in sorted(folder.glob("words-*.js")):
        table, key, value = script_table(path)
        assert table == "SEARCH_WORDS" and path.stem == f"words-{key}"
        terms[key] = value
    return json.loads(found.group(1)), docs, terms
