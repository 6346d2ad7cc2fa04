"""`consolidate validate`: every problem in sources and overlays, each located, none applied."""

from __future__ import annotations

from pathlib import Path

from .corpus import TREATY_ID_RE, load_treaty, treaty_ids
from .engine import build_versions
from .errors import ConsolidateError, Location
from .findings import Findings
from .overlay import Problem, load_instruments


def validate(root: Path, treaties: list[str] | None = None) -> tuple[list[Problem], Findings]:
    """Problems (things that stop the tool) and findings (things repaired or guessed)."""
    problems: list[Problem] = []
    findings = Findings()
    ids = treaties or treaty_ids(root)
    overlay_folder = root / "overlays"
    if overlay_folder.is_dir() and not treaties:
        for folder in sorted(p for p in overlay_folder.iterdir() if p.is_dir() and p.name != "mli"):
            if folder.name not in ids:
                problems.append(Problem(Location(f"overlays/{folder.name}"),
                                        f"overlays for {folder.name!r} but no sources/{folder.name}/treaty.yaml"))
    for treaty in ids:
        try:
            loaded = load_treaty(root, treaty, findings)
        except ConsolidateError as exc:
            problems.append(Problem(exc.location or Location(f"sources/{treaty}"), exc.message))
            continue
        problems.extend(_metadata_references(loaded))
        instruments = load_instruments(root, treaty, problems)
        build_versions(loaded.documents, instruments, problems)
        if any(i.effect.from_positions for i in instruments):
            problems.extend(_positions(root, loaded, instruments))
    problems.sort(key=lambda p: (p.location.path, p.location.line or 0))
    return problems, findings


def _metadata_references(loaded) -> list[Problem]:
    """Every `provision:` named in treaty.yaml must exist in every language."""
    problems = []
    shown = f"sources/{loaded.meta.treaty}/treaty.yaml"

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "provision":
                    yield item
                else:
                    yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)
    for eid in walk(loaded.meta.raw.get("dates") or {}):
        for lang, document in loaded.documents.items():
            if eid not in document.by_eid():
                problems.append(Problem(Location(shown), f"dates name provision {eid}, which the {lang} text "
                                                         "does not have", eid))
    return problems


def _positions(root: Path, loaded, instruments) -> list[Problem]:
    from .timeline import version_dates
    from .engine import build_versions as build

    problems = []
    versions = build(loaded.documents, [i for i in instruments if i.effect.from_positions])
    for version in versions[1:]:
        try:
            version_dates(version, loaded.meta, root)
        except ConsolidateError as exc:
            problems.append(Problem(exc.location or Location(version.instrument.path), exc.message))
    return problems


__all__ = ["validate", "TREATY_ID_RE"]
