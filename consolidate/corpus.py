"""The bundled corpus on disk: treaty folders under sources/, their metadata and texts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import Location, MetadataError, UsageError
from .findings import Findings
from .model import Document, TreatyMeta
from .sourcefmt import read_document
from .yamlload import loads_yaml, parse_date

TREATY_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LANG_RE = re.compile(r"^[a-z]{2,3}$")


@dataclass(frozen=True)
class Treaty:
    """One treaty: its metadata and one parsed document per language."""

    meta: TreatyMeta
    documents: dict

    def document(self, lang: str | None = None) -> Document:
        if lang is None:
            lang = self.meta.languages[0]
        if lang not in self.documents:
            raise UsageError(f"treaty {self.meta.treaty!r} has no {lang!r} text; it has: "
                             + ", ".join(sorted(self.documents)))
        return self.documents[lang]


def check_id(treaty: str) -> str:
    if not TREATY_ID_RE.match(treaty or ""):
        raise UsageError(f"invalid treaty id {treaty!r}; expected lower-case letters, digits and single "
                         "hyphens (e.g. 'in-pt')")
    return treaty


def treaty_ids(root: Path) -> list[str]:
    folder = root / "sources"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and TREATY_ID_RE.match(p.name)
                  and (p / "treaty.yaml").is_file())


def load_meta(root: Path, treaty: str) -> TreatyMeta:
    check_id(treaty)
    path = root / "sources" / treaty / "treaty.yaml"
    shown = f"sources/{treaty}/treaty.yaml"
    if not path.is_file():
        known = ", ".join(treaty_ids(root)) or "none"
        raise UsageError(f"unknown treaty {treaty!r} (no {shown}); known treaties: {known}")
    inside(root, path, shown)
    data = loads_yaml(_read_text(path, shown), shown, MetadataError)
    if not isinstance(data, dict):
        raise MetadataError("expected a mapping with id, parties, languages …", Location(shown, 1))
    if data.get("id") != treaty:
        raise MetadataError(f"id {data.get('id')!r} does not match the folder name {treaty!r}", Location(shown, 1))
    languages = data.get("languages") or []
    if not isinstance(languages, list) or not languages or not all(isinstance(x, str) and LANG_RE.match(x)
                                                                   for x in languages):
        raise MetadataError("languages: expected a list of language codes such as [hi, en]",
                            Location(shown, data.key_line("languages")))
    parties = data.get("parties") or []
    if not isinstance(parties, list) or not all(isinstance(p, str) and re.fullmatch(r"[A-Z]{2}", p) for p in parties):
        raise MetadataError("parties: expected a list of ISO 3166 alpha-2 codes such as [IN, PT]",
                            Location(shown, data.key_line("parties")))
    dates = data.get("dates") or {}
    if not isinstance(dates, dict):
        raise MetadataError("dates: expected a mapping", Location(shown, data.key_line("dates")))
    for key in ("signed", "entry_into_force"):
        if dates.get(key) is not None:
            dates[key] = parse_date(dates[key], shown, dates.key_line(key), MetadataError)
    for code, rules in (dates.get("effect") or {}).items():
        for kind, rule in (rules or {}).items():
            if isinstance(rule, dict) and rule.get("from") is not None:
                rule["from"] = parse_date(rule["from"], shown, rule.key_line("from"), MetadataError)
    return TreatyMeta(treaty, tuple(parties), tuple(languages), data.get("prevails"),
                      data.get("titles") or {}, data)


def _read_text(path: Path, shown: str) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetadataError(f"not valid UTF-8 (byte {exc.start}); expected UTF-8 text",
                            Location(shown, data[: exc.start].count(b"\n") + 1)) from None


def inside(root: Path, path: Path, shown: str) -> Path:
    """The real path of `path`, which must lie inside `root` (a symlink out of it is refused)."""
    real = path.resolve()
    if not real.is_relative_to(root.resolve()):
        raise MetadataError("refusing to read a file outside the project (a symbolic link points out of it)",
                            Location(shown))
    return real


def load_treaty(root: Path, treaty: str, findings: Findings | None = None) -> Treaty:
    """Read a treaty's metadata and every language file it lists."""
    meta = load_meta(root, treaty)
    documents = {}
    for lang in meta.languages:
        path = root / "sources" / treaty / f"{lang}.txt"
        if not path.is_file():
            raise MetadataError(f"languages lists {lang!r} but sources/{treaty}/{lang}.txt does not exist",
                                Location(f"sources/{treaty}/treaty.yaml"))
        inside(root, path, f"sources/{treaty}/{lang}.txt")
        documents[lang] = read_document_relative(root, path, treaty, lang, findings)
    return Treaty(meta, documents)


def read_document_relative(root: Path, path: Path, treaty: str, lang: str, findings: Findings | None):
    # Locations are relative to the root, so messages and findings never name a machine's folders.
    from dataclasses import replace
    shown = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
    return replace(read_document(path, treaty, lang, findings, shown=shown), path=shown)


@dataclass(frozen=True)
class Edition:
    """A treaty with its instruments and every version they produce."""

    treaty: Treaty
    instruments: tuple
    versions: tuple

    def version(self, version_id: str):
        from .engine import find_version
        return find_version(list(self.versions), version_id)


def load_edition(root: Path, treaty: str, findings: Findings | None = None) -> Edition:
    """Load a treaty, its overlays, and apply them; any problem raises a located error."""
    from .engine import build_versions
    from .overlay import load_instruments

    loaded = load_treaty(root, treaty, findings)
    instruments = load_instruments(root, treaty)
    versions = build_versions(loaded.documents, instruments)
    return Edition(loaded, tuple(instruments), tuple(versions))
