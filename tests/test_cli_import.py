"""`consolidate import` and `consolidate export` from the command line, including bad input."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from consolidate.cli import main

from .conftest import CORPUS, seed_path


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result


def files_under(path):
    return sorted(p.relative_to(path) for p in path.rglob("*") if p.is_file())


@pytest.mark.parametrize("make_raw, treaty, lang, message", [
    (lambda d: d / "missing.txt", "in-pt", "hi", "file not found"),
    (lambda d: (d / "bin.txt").write_bytes(b"\x7fELF\x00\x01") and d / "bin.txt", "in-pt", "hi", "binary file"),
    (lambda d: (d / "latin1.txt").write_bytes("Artículo 1".encode("latin-1")) and d / "latin1.txt",
     "in-pt", "hi", "not valid UTF-8"),
    (lambda d: seed_path(CORPUS[("in-pt", "hi")]), "in-pt", "fr", "unknown language 'fr'"),
    (lambda d: seed_path(CORPUS[("in-pt", "hi")]), "../evil", "hi", "invalid treaty id"),
    (lambda d: seed_path(CORPUS[("in-pt", "hi")]), "a/b", "hi", "invalid treaty id"),
    (lambda d: seed_path(CORPUS[("in-pt", "hi")]), "..", "hi", "invalid treaty id"),
])
def test_bad_import_input_is_one_line_error_and_writes_nothing(tmp_path, make_raw, treaty, lang, message):
    raw_dir = tmp_path / "raw"
    raw_dir.mkdir()
    raw = make_raw(raw_dir)
    root = tmp_path / "root"
    root.mkdir()
    result = run("import", raw, "--treaty", treaty, "--lang", lang, "--root", root)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert files_under(root) == []


def test_import_writes_the_source_and_metadata(tmp_path):
    result = run("import", seed_path(CORPUS[("lu-ad", "hi")]), "--treaty", "lu-ad", "--lang", "hi",
                 "--root", tmp_path)
    assert result.exit_code == 0, result.output
    assert "28 articles" in result.output
    assert (tmp_path / "sources/lu-ad/hi.txt").read_text("utf-8").startswith("@title\n")
    meta = (tmp_path / "sources/lu-ad/treaty.yaml").read_text("utf-8")
    assert "id: lu-ad" in meta and "IMPORT.STRAY_TEXT: 3" in meta


def test_strict_import_fails_on_findings_and_writes_nothing(tmp_path):
    result = run("import", seed_path(CORPUS[("lu-ad", "hi")]), "--treaty", "lu-ad", "--lang", "hi",
                 "--root", tmp_path, "--strict")
    assert result.exit_code == 1
    assert "with --strict in force" in result.output
    assert files_under(tmp_path) == []


def test_reimport_keeps_the_editors_metadata(corpus_copy):
    meta = corpus_copy / "sources/in-de/treaty.yaml"
    before = meta.read_text("utf-8")
    result = run("import", seed_path(CORPUS[("in-de", "hi")]), "--treaty", "in-de", "--lang", "hi",
                 "--root", corpus_copy)
    assert result.exit_code == 0, result.output
    assert meta.read_text("utf-8") == before


def test_export_json_shape(repo):
    result = run("export", "in-pt", "--format", "json", "--root", repo)
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["treaty"] == "in-pt" and data["lang"] == "hi"
    first = data["provisions"][0]
    assert set(first) >= {"eid", "kind", "num", "heading", "text", "children", "notes"}
    chapter = next(p for p in data["provisions"] if p["kind"] == "chapter")
    assert chapter["children"][0]["eid"] == "art_1"


def test_export_text_is_readable(repo):
    result = run("export", "in-pt", "--format", "text", "--root", repo)
    assert result.exit_code == 0
    assert "अनुच्छेद 13 पूंजीगत लाभ" in result.output
    assert "\n    3. समुद्री जहाजों" in result.output


def test_export_in_cl_lists_the_same_eids_in_both_languages(repo):
    def eids(lang):
        data = json.loads(run("export", "in-cl", "--lang", lang, "--format", "json", "--root", repo).output)
        out = []

        def walk(nodes):
            for node in nodes:
                out.append(node["eid"])
                walk(node["children"])
        walk(data["provisions"])
        return out
    assert eids("en") == eids("hi")
    assert len(eids("en")) == 275


@pytest.mark.parametrize("args, message", [
    (["export", "../etc"], "invalid treaty id"),
    (["export", "xx-yy"], "unknown treaty 'xx-yy'"),
    (["export", "in-pt", "--lang", "en"], "has no 'en' text"),
])
def test_export_errors(repo, args, message):
    result = run(*args, "--root", repo)
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
