"""The `consolidate` command line: a thin layer over the library (the only module importing click)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import ConsolidateError, StrictFailure, UsageError
from .findings import Findings

ROOT_OPTION = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
                           show_default=True, help="Folder holding sources/ and overlays/.")


def _report(findings: Findings, strict: bool) -> None:
    for finding in findings:
        click.echo(finding.format(), err=True)
    if strict and len(findings):
        raise StrictFailure(f"{len(findings)} finding(s) with --strict in force")


class _Group(click.Group):
    """Prints the tool's located errors as one line and exits 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ConsolidateError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)


@click.group(cls=_Group)
@click.version_option(package_name="consolidate")
def main() -> None:
    """Consolidated editions of tax treaties and the instruments that amend them."""


@main.command("import")
@click.argument("raw", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--treaty", required=True, help="Treaty id, e.g. in-pt.")
@click.option("--lang", required=True, help="Language to import from RAW: hi or en.")
@ROOT_OPTION
@click.option("--strict", is_flag=True, help="Fail (and write nothing) if the import records findings.")
@click.option("--findings", "findings_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the findings as JSON to this file.")
def import_command(raw: Path, treaty: str, lang: str, root: Path, strict: bool, findings_path: Path | None) -> None:
    """Convert RAW published text into the source format under sources/TREATY/."""
    from .importer import import_raw, write_files

    result = import_raw(raw, treaty, lang, root)
    _report(result.findings, strict)
    written = write_files(result, root)
    if findings_path:
        findings_path.write_text(result.findings.to_json() + "\n", encoding="utf-8")
    articles = sum(1 for n in result.document.walk() if n.kind == "article")
    click.echo(f"imported {raw.name} → sources/{treaty}/{lang}.txt: {articles} articles, "
               f"{sum(1 for _ in result.document.walk())} provisions, {len(result.findings)} findings, "
               f"{len(written)} files written")


@main.command("export")
@click.argument("treaty")
@click.option("--lang", default=None, help="Language (default: the treaty's first).")
@click.option("--format", "fmt", type=click.Choice(["json", "text", "akn"]), default="json", show_default=True,
              help="json (the export format), text (readable), akn (Akoma Ntoso 3.0 XML; needs --version or --as-of).")
@click.option("--version", "version_id", default=None,
              help="A version id (base, an overlay id, latest); default: the source text alone.")
@click.option("--as-of", "as_of", default=None, help="The text in effect on this date (YYYY-MM-DD).")
@click.option("--state", default=None, help="With --as-of: the state (ISO code) whose dates count.")
@click.option("--tax", type=click.Choice(["withholding", "other"]), default=None,
              help="With --as-of: the kind of tax whose dates count.")
@ROOT_OPTION
def export_command(treaty: str, lang: str | None, fmt: str, version_id: str | None, as_of: str | None,
                   state: str | None, tax: str | None, root: Path) -> None:
    """Print a treaty's provision tree, of a version or as in effect on a date."""
    from .corpus import load_edition, load_treaty
    from .export import to_json, to_text, version_json
    from .timeline import all_dates
    from .timeline import as_of as text_as_of

    if version_id is None and as_of is None:
        if state or tax:
            raise UsageError("--state and --tax need --as-of")
        if fmt == "akn":
            version_id = "latest"
    if version_id is None and as_of is None:
        document = load_treaty(root, treaty).document(lang)
        click.echo(to_json(document) if fmt == "json" else to_text(document), nl=False)
        return
    if version_id is not None and as_of is not None:
        raise UsageError("give --version or --as-of, not both")
    edition = load_edition(root, treaty)
    lang = lang or edition.treaty.meta.languages[0]
    edition.treaty.document(lang)
    dates = all_dates(list(edition.versions), edition.treaty.meta, root)
    if as_of is not None:
        version = text_as_of(edition.treaty.documents, list(edition.instruments), dates, _date(as_of), state, tax)
    else:
        version = edition.version(version_id)
    if fmt == "akn":
        from .akn import version_to_akn

        applied = list(edition.instruments) if as_of is None else [
            i for i in edition.instruments if i.id in {p.instrument for p in version.provenance.values()}]
        sys.stdout.buffer.write(version_to_akn(version, edition.treaty.meta, lang, instruments=applied, dates=dates))
        return
    if fmt == "json":
        payload = version_json(version, lang, treaty, dates[version.id].to_json() if version.id in dates else None)
        if as_of is not None:
            payload["as_of"] = {"date": as_of, "state": state, "tax": tax}
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
    else:
        click.echo(to_text(version.document(lang), version, dates.get(version.id)), nl=False)


def _date(value: str):
    from datetime import date

    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"invalid date {value!r}; expected YYYY-MM-DD") from None


@main.command("versions")
@click.argument("treaty")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@ROOT_OPTION
def versions_command(treaty: str, fmt: str, root: Path) -> None:
    """List a treaty's versions in order (base first) with their dates per state."""
    from .corpus import load_edition
    from .timeline import all_dates

    edition = load_edition(root, treaty)
    dates = all_dates(list(edition.versions), edition.treaty.meta, root)
    rows = []
    for version in edition.versions:
        instrument = version.instrument
        rows.append({"id": version.id,
                     "instrument": None if instrument is None else {
                         "id": instrument.id, "kind": instrument.kind, "title": instrument.title_in("en"),
                         "file": instrument.path},
                     "dates": dates[version.id].to_json()})
    if fmt == "json":
        click.echo(json.dumps({"treaty": treaty, "versions": rows}, ensure_ascii=False, indent=1))
        return
    for row in rows:
        what = "base text" if row["instrument"] is None else f"{row['instrument']['kind']}: {row['instrument']['title']}"
        click.echo(f"{row['id']:<16} {what}")
        info = row["dates"]
        click.echo(f"{'':<16} signed {info['signed'] or '—'}, in force {info['entry_into_force'] or '—'}, "
                   f"{info['status']}")
        for note in info.get("notes", []):
            click.echo(f"{'':<16} note: {note}")
        rules = info.get("rules", {})
        mli = (info.get("mli") or {}).get("parties", {})
        for code, taxes in info["effect"].items():
            def when(kind):
                return taxes.get(kind) or rules.get(code, {}).get(kind) or "pending"
            in_force = f"MLI in force {mli[code]['in_force']}; " if code in mli and mli[code].get("in_force") else ""
            click.echo(f"{'':<16} {code}: {in_force}withholding taxes from {when('withholding')}; "
                       f"other taxes from {when('other')}")


@main.command("validate")
@click.argument("treaties", nargs=-1)
@ROOT_OPTION
@click.option("--strict", is_flag=True, help="Also fail on findings (repairs and guesses).")
def validate_command(treaties: tuple[str, ...], root: Path, strict: bool) -> None:
    """Check all sources and overlays; report every problem with file:line:."""
    from .validate import validate

    for treaty in treaties:
        from .corpus import check_id
        check_id(treaty)
    problems, findings = validate(root, list(treaties) or None)
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    for finding in findings:
        click.echo(finding.format(), err=True)
    checked = len(treaties) or len(__import__("consolidate.corpus", fromlist=["treaty_ids"]).treaty_ids(root))
    click.echo(f"validated {checked} treaties: {len(problems)} problems, {len(findings)} findings")
    if problems or (strict and len(findings)):
        sys.exit(1)


@main.command("effect-dates")
@click.argument("case", type=click.Path(dir_okay=False, path_type=Path))
@ROOT_OPTION
@click.option("--positions", "positions_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="MLI positions file (default: overlays/mli/positions.yaml under --root).")
def effect_dates_command(case: Path, root: Path, positions_path: Path | None) -> None:
    """Compute the MLI's entry into force and effect for a treaty pair described in CASE (YAML)."""
    from .effect_case import effect_dates_from_case

    findings = Findings()
    result = effect_dates_from_case(case, root, positions_path, findings)
    for finding in findings:
        click.echo(finding.format(), err=True)
    click.echo(json.dumps(result, ensure_ascii=False, indent=2))


@main.command("diff")
@click.argument("treaty")
@click.argument("from_spec", metavar="FROM")
@click.argument("to_spec", metavar="TO")
@click.option("--lang", default=None, help="Language (default: the treaty's first).")
@click.option("--format", "fmt", type=click.Choice(["text", "html", "json"]), default="text", show_default=True)
@click.option("--changes-only", is_flag=True, help="Show only the provisions that changed.")
@click.option("--preview", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="A draft overlay not yet in overlays/: diff the latest version against it applied.")
@click.option("--state", default=None, help="With dates as FROM/TO: the state whose dates count.")
@click.option("--tax", type=click.Choice(["withholding", "other"]), default=None,
              help="With dates as FROM/TO: the kind of tax whose dates count.")
@ROOT_OPTION
def diff_command(treaty: str, from_spec: str, to_spec: str, lang: str | None, fmt: str, changes_only: bool,
                 preview: Path | None, state: str | None, tax: str | None, root: Path) -> None:
    """Show what changed between two versions (ids such as base, mli, latest, or dates YYYY-MM-DD)."""
    from .diff import run_diff

    output = run_diff(root, treaty, from_spec, to_spec, lang=lang, fmt=fmt, changes_only=changes_only,
                      preview=preview, state=state, tax=tax, color=fmt == "text" and sys.stdout.isatty())
    click.echo(output, nl=not output.endswith("\n"))


@main.command("build")
@ROOT_OPTION
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the site (default: output/ under --root).")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Render treaties in parallel; the output is the same as with one job.")
@click.option("--strict", is_flag=True, help="Fail, writing nothing, if any finding is recorded.")
@click.option("--treaty", "treaties", multiple=True, help="Build only this treaty (repeatable).")
@click.option("--base-url", default=None, help="Public address of the site: adds sitemap.xml and feed.atom.")
def build_command(root: Path, out: Path | None, jobs: int, strict: bool, treaties: tuple[str, ...],
                  base_url: str | None) -> None:
    """Publish every treaty as a static site (atomic, deterministic, incremental)."""
    from .corpus import treaty_ids
    from .site import build

    total = len(treaties) or len(treaty_ids(root))
    if sys.stderr.isatty():
        with click.progressbar(length=total, label="building", file=sys.stderr) as bar:
            report = build(root, out or root / "output", jobs=jobs, strict=strict, treaties=list(treaties) or None,
                           base_url=base_url, progress=lambda _treaty: bar.update(1))
    else:
        report = build(root, out or root / "output", jobs=jobs, strict=strict, treaties=list(treaties) or None,
                       base_url=base_url)
    click.echo(report.line())


@main.command("serve")
@click.option("--out", type=click.Path(file_okay=False, exists=True, path_type=Path), default=Path("output"),
              show_default=True, help="The built site to serve.")
@click.option("--port", type=int, default=8000, show_default=True)
def serve_command(out: Path, port: int) -> None:
    """Preview the built site on localhost (only; never on another address)."""
    import functools
    import http.server

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        click.echo(f"serving {out} on http://127.0.0.1:{port}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    main()
