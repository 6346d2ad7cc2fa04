"""The site build: gather → consolidate → render → write aside → swap in.

Each treaty renders to a set of files that depends only on its inputs (its sources, overlays,
the MLI positions, the templates and the tool's version), so a treaty whose input hash is in
the cache is copied, not rendered. The new site is written next to the old one and swapped
in only when complete: an error leaves the old output untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable

from . import __version__, inline
from .corpus import load_edition, treaty_ids, check_id
from .errors import ConsolidateError, Location, StrictFailure, UsageError
from .export import version_json
from .findings import Findings
from .render import (LANGUAGE_NAMES, Footnotes, render, templates_dir, toc, view_tree)
from .search import site_index, treaty_index
from .timeline import TAXES, all_dates, as_of

CACHE_FORMAT = 1


@dataclass
class TreatyOutput:
    """Everything one treaty contributes to the site."""

    treaty: str
    files: dict[str, bytes]
    summary: dict
    search: dict[str, str]      # the treaty's index words by shard key (consolidate.search)
    feed: list[dict]
    findings: list[dict]
    versions: int
    rendered: bool = True


@dataclass
class BuildReport:
    """What a build did, for the one-line summary."""

    treaties: int = 0
    versions: int = 0
    pages: int = 0
    findings: int = 0
    rendered: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        return (f"built {self.treaties} treaties, {self.versions} versions, {self.pages} pages, "
                f"{self.findings} findings in {self.seconds:.1f} s "
                f"(rendered {len(self.rendered)}, reused {len(self.reused)} from the cache)")


# ------------------------------------------------------------------ inputs and cache

def _input_files(root: Path, treaty: str) -> list[Path]:
    files = []
    for folder in (root / "sources" / treaty, root / "overlays" / treaty):
        if folder.is_dir():
            files += [p for p in sorted(folder.rglob("*")) if p.is_file()]
    positions = root / "overlays" / "mli" / "positions.yaml"
    if positions.is_file():
        files.append(positions)
    return files


def _code_fingerprint() -> str:
    """Templates and the package's own code: a change to either invalidates every treaty."""
    digest = hashlib.sha256(f"{__version__}:{CACHE_FORMAT}".encode())
    package = Path(__file__).resolve().parent
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.yaml"), *templates_dir().rglob("*")]):
        if path.is_file():
            digest.update(str(path.relative_to(path.parents[1])).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def treaty_hash(root: Path, treaty: str, code: str, base_url: str | None) -> str:
    digest = hashlib.sha256(code.encode())
    digest.update((base_url or "").encode())
    for path in _input_files(root, treaty):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _cache_load(cache: Path, treaty: str, key: str) -> TreatyOutput | None:
    """A cached treaty, or None when absent or damaged (a damaged entry is never trusted).

    Each file must still have the size, modification time and SHA-256 recorded when it was
    stored; the site then links to the file rather than copying it."""
    folder = cache / treaty / key
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text("utf-8"))
        files: dict[str, Path] = {}
        for relative, (digest, size, mtime) in data["files"].items():
            path = folder / "files" / relative
            stat = path.stat()
            if stat.st_size != size or stat.st_mtime_ns != mtime:
                return None
            with open(path, "rb") as handle:
                if hashlib.file_digest(handle, "sha256").hexdigest() != digest:
                    return None
            files[relative] = path
        return TreatyOutput(treaty, files, data["summary"], data["search"], data["feed"], data["findings"],
                            data["versions"], rendered=False)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _cache_store(cache: Path, output: TreatyOutput, key: str) -> None:
    folder = cache / output.treaty
    staging = Path(tempfile.mkdtemp(dir=cache, prefix=f".{output.treaty}-"))
    try:
        recorded = {}
        for relative, content in sorted(output.files.items()):
            target = staging / "files" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            stat = target.stat()
            recorded[relative] = [hashlib.sha256(content).hexdigest(), stat.st_size, stat.st_mtime_ns]
        manifest = {"files": recorded, "summary": output.summary, "search": output.search, "feed": output.feed,
                    "findings": output.findings, "versions": output.versions}
        # The manifest is written last: a half-written entry has none and is ignored.
        (staging / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        os.replace(staging, folder / key)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


# ------------------------------------------------------------------ one treaty

def render_treaty(root: Path, treaty: str, base_url: str | None = None) -> TreatyOutput:
    """Every page and download of one treaty, in memory."""
    findings = Findings()
    edition = load_edition(root, treaty, findings)
    meta = edition.treaty.meta
    versions = list(edition.versions)
    dates = all_dates(versions, meta, root)
    languages = list(meta.languages)
    files: dict[str, bytes] = {}
    prefix = f"treaties/{treaty}/"
    latest = versions[-1]
    base = versions[0]
    title = {lang: _title(edition, lang) for lang in languages}
    common = {"tool_version": __version__, "treaty": treaty, "treaty_title_short": _short_title(meta, treaty)}

    def language_links(page: str) -> list[dict]:
        return [{"code": l, "name": LANGUAGE_NAMES.get(l, l), "href": f"../{l}/{page}"} for l in languages]

    for lang in languages:
        for version in versions:
            page = "index.html" if version is latest else f"{version.id}.html"
            files[f"{prefix}{lang}/{page}"] = _edition_page(
                edition, version, base, lang, dates, common, title[lang],
                language_links(page), is_latest=version is latest).encode()
            if version is latest and page == "index.html":
                files[f"{prefix}{lang}/{version.id}.html"] = files[f"{prefix}{lang}/{page}"]
            payload = version_json(version, lang, treaty, dates[version.id].to_json())
            files[f"{prefix}{lang}/{version.id}.json"] = (json.dumps(payload, ensure_ascii=False, sort_keys=True,
                                                                      separators=(",", ":")) + "\n").encode()
            files[f"{prefix}{lang}/{version.id}.akn.xml"] = _akn(version, meta, lang, edition, dates)
    files[f"{prefix}index.html"] = _redirect(f"{languages[0]}/index.html", title[languages[0]],
                                             languages[0]).encode()
    files[f"{prefix}timeline.html"] = render(
        "timeline.html", **common, root="../../", page_lang="en", title=f"Versions — {_short_title(meta, treaty)}",
        versions=[_timeline_row(v, dates[v.id], languages, versions[i - 1].id if i else None)
                  for i, v in enumerate(versions)], languages=languages,
        pairs=_pairs(versions)).encode()
    files.update(_diff_pages(edition, versions, languages, common, prefix, meta, treaty))
    files.update(_point_in_time(edition, versions, dates, languages, common, prefix, meta, treaty, base))
    if len(languages) > 1:
        files[f"{prefix}parallel.html"] = _parallel(edition, latest, base, languages, common, meta, treaty).encode()
    search_script, search = treaty_index(treaty, _search_entries(treaty, latest, languages))
    files[f"assets/search/docs-{treaty}.js"] = search_script
    feed = [{"treaty": treaty, "version": v.id, "title": v.instrument.title_in("en"),
             "date": (v.instrument.signed or dates[v.id].entry_into_force or date(1970, 1, 1)).isoformat(),
             "href": f"{prefix}{languages[0]}/{v.id}.html",
             "summary": _feed_summary(v, dates[v.id])} for v in versions[1:]]
    summary = _summary(edition, versions, dates, languages, title)
    return TreatyOutput(treaty, files, summary, search, feed,
                        [f.to_dict() | {"treaty": treaty} for f in findings], len(versions))


def _title(edition, lang: str) -> str:
    meta = edition.treaty.meta
    if meta.titles.get(lang):
        return str(meta.titles[lang])
    document = edition.treaty.document(lang)
    for node in document.nodes:
        if node.kind == "title":
            return " ".join(inline.clean(node.text).split())
    return meta.treaty


def _short_title(meta, treaty: str) -> str:
    return " – ".join(meta.parties) + f" ({treaty})" if meta.parties else treaty


def _redirect(target: str, title: str, lang: str) -> str:
    return render("redirect.html", target=target, title=title, lang=lang)


def _edition_page(edition, version, base, lang, dates, common, title, languages, is_latest) -> str:
    from . import mli

    meta = edition.treaty.meta
    footnotes = Footnotes()
    nodes = view_tree(version, lang, footnotes, base)
    version_dates = dates[version.id]
    preface = mli.preface(version_dates, lang) if version_dates.mli is not None else []
    repaired = None
    # treaty.yaml's machine-written `imports:` section records a repair and its measured quality.
    quality = (((meta.raw.get("imports") or {}).get(lang) or {}).get("machine_repaired"))
    if quality:
        held = quality.get("in_held_out_texts") or {}
        after = held.get("after") or quality.get("in_repair_word_list", {}).get("after")
        repaired = f"{after:.0%} of its words are found in clean Hindi treaty texts"
    return render(
        "edition.html", **common, root="../../../", page_lang=lang, lang=lang, title=title,
        version_label="base text" if version.instrument is None else f"{version.id} — {version.instrument.title_in(lang)}",
        is_latest=is_latest, languages=languages, nodes=nodes, footnotes=footnotes.items,
        toc=toc(version.document(lang)), preface=preface, date_rows=_date_rows(version_dates),
        json_href=f"{version.id}.json", akn_href=f"{version.id}.akn.xml",
        parallel_href="../parallel.html" if len(edition.treaty.meta.languages) > 1 else "",
        repaired=repaired, prevails={"en": "English", "hi": "Hindi"}.get(meta.prevails or "", meta.prevails or "authentic"),
        machine_translation=bool(meta.raw.get("machine_translation")))


def _date_rows(version_dates) -> list[str]:
    rows = []
    if version_dates.signed:
        rows.append(f"Signed {version_dates.signed.isoformat()}")
    if version_dates.entry_into_force:
        rows.append(f"Entered into force {version_dates.entry_into_force.isoformat()}")
    if version_dates.mli is not None:
        for party in version_dates.mli.parties:
            if party.in_force:
                rows.append(f"MLI in force for {party.code}: {party.in_force.isoformat()}")
    for code, taxes in version_dates.effect.items():
        parts = []
        for kind in TAXES:
            day = taxes.get(kind)
            rule = version_dates.rules.get(code, {}).get(kind)
            label = "taxes withheld at source" if kind == "withholding" else "other taxes"
            parts.append(f"{label} from {day.isoformat() if day else (rule or 'pending')}")
        rows.append(f"Effect in {code}: " + "; ".join(parts))
    rows += [f"Note: {note}" for note in version_dates.notes]
    return rows


def _timeline_row(version, version_dates, languages, previous: str | None) -> dict:
    instrument = version.instrument
    return {"id": version.id, "previous": previous, "kind": "base text" if instrument is None else instrument.kind,
            "title": "Base text" if instrument is None else instrument.title_in("en"),
            "status": version_dates.status, "rows": _date_rows(version_dates),
            "links": [{"lang": l, "href": f"{l}/{version.id}.html"} for l in languages]}


def _pairs(versions) -> list[tuple[str, str]]:
    ids = [v.id for v in versions]
    return [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]]


def _diff_pages(edition, versions, languages, common, prefix, meta, treaty) -> dict[str, bytes]:
    from .diff import diff_versions

    files = {}
    for lang in languages:
        for old_id, new_id in _pairs(versions):
            old = next(v for v in versions if v.id == old_id)
            new = next(v for v in versions if v.id == new_id)
            result = diff_versions(old, new, lang, treaty=treaty)
            files[f"{prefix}{lang}/diff/{old_id}--{new_id}.html"] = render(
                "diff_page.html", **common, root="../../../../", page_lang="en", lang=lang,
                title=f"Changes {old_id} → {new_id} — {_short_title(meta, treaty)}",
                old=old_id, new=new_id, fragment=_diff_fragment(result),
                summary=result.summary().to_json()).encode()
        files[f"{prefix}{lang}/compare.html"] = render(
            "compare.html", **common, root="../../../", page_lang="en", lang=lang,
            title=f"Compare versions — {_short_title(meta, treaty)}",
            versions=[v.id for v in versions], pairs=_pairs(versions)).encode()
    return files


def _diff_fragment(result):
    """The body of the standalone diff page (its inline redline and side-by-side views)."""
    import re

    from markupsafe import Markup

    from .diffrender import render_html

    # Only the provisions that changed: each version has its own page for the full text.
    page = render_html(result, changes_only=True)
    body = re.search(r"<body[^>]*>(.*)</body>", page, re.S)
    inner = body.group(1) if body else ""
    # The site page has its own <main>; a page may have only one.
    inner = re.sub(r"<main(\s|>)", r'<div class="diff-body"\1', inner).replace("</main>", "</div>")
    return Markup(inner)


def _point_in_time(edition, versions, dates, languages, common, prefix, meta, treaty, base) -> dict[str, bytes]:
    """The point-in-time chooser, and a page for each combination of instruments in effect that a
    state, tax and date can give and that is not already a version (those link to the version)."""
    instruments = list(edition.instruments)
    order = [i.id for i in instruments]
    states = sorted({code for d in dates.values() for code in d.effect})
    changes: dict[str, dict[str, list]] = {}
    extra: dict[str, list[str]] = {}
    for state in states:
        for tax in TAXES:
            points = sorted({d for i in instruments for d in [dates[i.id].effect.get(state, {}).get(tax)] if d})
            steps = []
            for day in [date(1, 1, 1), *points]:
                chosen = [i.id for i in instruments if dates[i.id].effective(state, tax, day)]
                if chosen == order[: len(chosen)]:
                    # The instruments in effect are the first n: that is a version, with its own page.
                    target = f"{chosen[-1] if chosen else 'base'}.html"
                else:
                    key = "base" + "".join(f"+{x}" for x in chosen)
                    extra[key] = chosen
                    target = f"as-of/{key}.html"
                steps.append([day.isoformat(), target])
            changes.setdefault(state, {})[tax] = steps
    files = {}
    for lang in languages:
        for key, chosen in sorted(extra.items()):
            version = as_of(edition.treaty.documents, [i for i in instruments if i.id in chosen],
                            {i.id: dates[i.id] for i in instruments}, date.max, None, None)
            footnotes = Footnotes()
            files[f"{prefix}{lang}/as-of/{key}.html"] = render(
                "as_of.html", **common, root="../../../../", page_lang="en", lang=lang,
                title=f"Text in effect ({key}) — {_short_title(meta, treaty)}", key=key, applied=chosen,
                nodes=view_tree(version, lang, footnotes, base), footnotes=footnotes.items).encode()
        files[f"{prefix}{lang}/point-in-time.html"] = render(
            "point_in_time.html", **common, root="../../../", page_lang="en", lang=lang,
            title=f"Text in effect on a date — {_short_title(meta, treaty)}", states=states, taxes=list(TAXES),
            changes=changes, default_state=states[0] if states else "").encode()
    return files


def _parallel(edition, version, base, languages, common, meta, treaty) -> str:
    columns = []
    for lang in languages[:2]:
        footnotes = Footnotes()
        flat = []

        def walk(nodes):
            for node in nodes:
                flat.append(node)
                walk(node.children)
        walk(view_tree(version, lang, footnotes, base))
        columns.append({n.eid: n for n in flat})
    order = [n.eid for n in version.document(languages[0]).walk()]
    rows = [{"eid": eid, "cells": [{"lang": lang, "node": columns[i].get(eid)} for i, lang in enumerate(languages[:2])]}
            for eid in order]
    return render("parallel.html", **common, root="../../", page_lang="en",
                  title=f"Parallel text — {_short_title(meta, treaty)}", languages=languages[:2], rows=rows,
                  names=LANGUAGE_NAMES)


def _search_entries(treaty, version, languages) -> list[dict]:
    entries = []
    for lang in languages:
        for node in version.document(lang).walk():
            text = " ".join(inline.clean(" ".join(filter(None, (node.label, node.heading, node.text)))).split())
            if not text:
                continue
            entries.append({"t": treaty, "l": lang, "e": node.eid, "x": text[:600],
                            "u": f"treaties/{treaty}/{lang}/index.html#{node.eid}"})
    return entries


def _feed_summary(version, version_dates) -> str:
    changed = len(version.provenance)
    boxes = sum(len(b) for b in version.boxes.values())
    notes = sum(len(n) for n in version.notes.values())
    parts = [f"{changed} provisions changed or annotated"]
    if boxes:
        parts.append(f"{boxes} MLI provisions")
    if notes:
        parts.append(f"{notes} protocol notes")
    return "; ".join(parts) + f". Status: {version_dates.status}."


def _summary(edition, versions, dates, languages, title) -> dict:
    meta = edition.treaty.meta
    base_dates = dates["base"]
    status = [{"kind": "in-force" if base_dates.entry_into_force else "signed",
               "text": f"in force since {base_dates.entry_into_force.isoformat()}" if base_dates.entry_into_force
               else "signed"}]
    for version in versions[1:]:
        d = dates[version.id]
        if version.instrument.kind == "mli":
            days = [day for taxes in d.effect.values() for day in taxes.values() if day]
            if d.status == "pending":
                status.append({"kind": "pending", "text": "MLI: effect pending"})
            elif days:
                status.append({"kind": "mli", "text": f"MLI in effect from {min(days).isoformat()}"})
            else:
                status.append({"kind": "pending", "text": f"MLI: {d.status}"})
    return {"treaty": meta.treaty, "title": title[languages[0]], "title_lang": languages[0],
            "parties": list(meta.parties), "signed": base_dates.signed.isoformat() if base_dates.signed else None,
            "in_force": base_dates.entry_into_force.isoformat() if base_dates.entry_into_force else None,
            "latest": versions[-1].id, "status": status,
            "languages": [{"code": l, "name": LANGUAGE_NAMES.get(l, l),
                           "href": f"treaties/{meta.treaty}/{l}/index.html"} for l in languages],
            "href": f"treaties/{meta.treaty}/{languages[0]}/index.html"}


def _akn(version, meta, lang, edition, dates) -> bytes:
    from .akn import version_to_akn

    return version_to_akn(version, meta, lang, instruments=list(edition.instruments), dates=dates)


# ------------------------------------------------------------------ the whole site

def _render_and_store(args) -> TreatyOutput:
    """Render one treaty into the cache and return it as cached (paths, not bytes): workers
    hand back a few kilobytes instead of the treaty's whole site."""
    root, treaty, base_url, cache, key = args
    output = render_treaty(Path(root), treaty, base_url)
    _cache_store(Path(cache), output, key)
    stored = _cache_load(Path(cache), treaty, key)
    if stored is None:
        raise ConsolidateError(f"the cache entry of {treaty} could not be read back after writing it",
                               Location(str(cache)))
    stored.rendered = True
    return stored


def build(root: Path, out: Path, *, jobs: int = 1, strict: bool = False, treaties: list[str] | None = None,
          base_url: str | None = None, cache: Path | None = None,
          progress: Callable[[str], None] | None = None) -> BuildReport:
    """Build the site into `out`, atomically; raises a ConsolidateError and leaves `out` as it was."""
    started = time.perf_counter()
    root = root.resolve()
    out = out.resolve()
    if out == root or out in root.parents or (root / "sources") == out or (root / "overlays") == out:
        raise UsageError(f"refusing to build into {out.name}: it would replace the project's own folders")
    ids = treaty_ids(root)
    if treaties:
        for treaty in treaties:
            check_id(treaty)
            if treaty not in ids:
                raise UsageError(f"unknown treaty {treaty!r}; known treaties: {', '.join(ids) or 'none'}")
        selected = sorted(treaties)
    else:
        selected = ids
    if not selected:
        raise UsageError(f"no treaties found under {root.name}/sources (each needs a treaty.yaml)")
    cache = cache or root / ".consolidate-cache"
    cache.mkdir(parents=True, exist_ok=True)
    code = _code_fingerprint()
    keys = {t: treaty_hash(root, t, code, base_url) for t in selected}
    outputs: dict[str, TreatyOutput] = {}
    todo = []
    for treaty in selected:
        cached = _cache_load(cache, treaty, keys[treaty])
        if cached is not None:
            outputs[treaty] = cached
            if progress:
                progress(treaty)
        else:
            todo.append(treaty)
    jobs_args = [(str(root), t, base_url, str(cache), keys[t]) for t in todo]
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for treaty, output in zip(todo, pool.map(_render_and_store, jobs_args, chunksize=4)):
                outputs[treaty] = output
                if progress:
                    progress(treaty)
    else:
        for treaty, args in zip(todo, jobs_args):
            outputs[treaty] = _render_and_store(args)
            if progress:
                progress(treaty)
    findings = [f for t in selected for f in outputs[t].findings]
    if strict and findings:
        raise StrictFailure(f"{len(findings)} finding(s) with --strict in force; the site was not written "
                            f"(first: {findings[0]['location']}: {findings[0]['code']} {findings[0]['message']})")
    files: dict[str, bytes | Path] = {}
    for treaty in selected:
        files.update(outputs[treaty].files)
    files.update(_global_pages([outputs[t] for t in selected], base_url, findings))
    _write_swap(out, files)
    report = BuildReport(len(selected), sum(outputs[t].versions for t in selected),
                         sum(1 for name in files if name.endswith(".html")), len(findings),
                         [t for t in selected if outputs[t].rendered], [t for t in selected if not outputs[t].rendered])
    report.seconds = time.perf_counter() - started
    return report


def _global_pages(outputs: list[TreatyOutput], base_url: str | None, findings: list[dict]) -> dict[str, bytes]:
    common = {"tool_version": __version__, "root": ""}
    files = {
        "index.html": render("index.html", **common, page_lang="en", title="Tax treaties",
                             treaties=[o.summary for o in outputs]).encode(),
        "search.html": render("search.html", **common, page_lang="en", title="Search").encode(),
        "findings.json": (json.dumps(findings, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode(),
    }
    files.update(site_index([(o.treaty, o.search) for o in outputs]))
    assets = templates_dir() / "assets"
    for path in sorted(assets.rglob("*")):
        if path.is_file():
            files[f"assets/{path.relative_to(assets).as_posix()}"] = path.read_bytes()
    if base_url:
        base = base_url.rstrip("/") + "/"
        pages = sorted(name for o in outputs for name in o.files if name.endswith(".html"))
        files["sitemap.xml"] = render("sitemap.xml", base=base, pages=["index.html", *pages]).encode()
        entries = sorted((e for o in outputs for e in o.feed), key=lambda e: (e["date"], e["treaty"], e["version"]),
                         reverse=True)
        updated = entries[0]["date"] if entries else "1970-01-01"
        files["feed.atom"] = render("feed.xml", base=base, entries=entries, updated=updated).encode()
    return files


def _write_swap(out: Path, files: dict[str, bytes | Path]) -> None:
    """Write the whole site beside `out`, then swap it in; the old site stays until the swap."""
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.new-"))
    try:
        made: set[Path] = set()
        for relative, content in sorted(files.items()):
            target = staging / relative
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            if isinstance(content, Path):
                # A cached file: link it rather than copy (cache files are never changed in place).
                try:
                    os.link(content, target)
                except OSError:
                    shutil.copyfile(content, target)
            else:
                target.write_bytes(content)
        (staging / ".consolidate-site").write_text("complete\n", "utf-8")
        if out.exists():
            if not (out / ".consolidate-site").is_file() and any(out.iterdir()):
                raise UsageError(f"{out.name} exists and was not written by consolidate build; "
                                 "refusing to replace it")
            if _exchange(staging, out):
                shutil.rmtree(staging, ignore_errors=True)  # now holds the old site
                return
            old = parent / f".{out.name}.old-{os.getpid()}"
            os.replace(out, old)
            os.replace(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directories in one atomic step (Linux renameat2 RENAME_EXCHANGE), if possible.

    With it, a build killed at any moment leaves either the old site or the new one in place,
    never neither; elsewhere the two-rename fallback leaves a moment without `out`."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange)
    return result == 0


__all__ = ["build", "render_treaty", "BuildReport", "ConsolidateError", "Location"]
