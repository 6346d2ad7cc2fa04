"""The `consolidate` command line: a thin layer over the library (the only module importing click)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import ConsolidateError, StrictFailure
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
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="json", show_default=True)
@ROOT_OPTION
def export_command(treaty: str, lang: str | None, fmt: str, root: Path) -> None:
    """Print a treaty's provision tree."""
    from .corpus import load_treaty
    from .export import to_json, to_text

    document = load_treaty(root, treaty).document(lang)
    click.echo(to_json(document) if fmt == "json" else to_text(document), nl=False)


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


if __name__ == "__main__":  # pragma: no cover
    main()
