"""Hostile inputs through the command line: one located error line and exit 1, never a traceback.

Every case runs against a scratch copy of the corpus (or a scratch treaty) in tmp_path. A
location is the path relative to --root and the line: `error: overlays/in-de/02-bad.yaml:3: …`.
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidate.cli import main
from consolidate.sourcefmt import parse, write

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO.parent / "shared" / "seeds"
SECRET = "OUTSIDE-SECRET-7f3a"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A scratch copy of the corpus in tmp_path/root; tmp_path/outside is for what lies beyond it."""
    target = tmp_path / "root"
    for name in ("sources", "overlays"):
        shutil.copytree(REPO / name, target / name)
    (tmp_path / "outside").mkdir()
    return target


def put(root: Path, relative: str, content: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def edit(root: Path, relative: str, old: str, new: str) -> None:
    path = root / relative
    text = path.read_text("utf-8")
    assert old in text, f"{old!r} not in {relative}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def cli(*args):
    """Run the command line in-process; a Python exception escaping it fails the test with its traceback."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail("crashed instead of reporting a located error:\n"
                    + "".join(traceback.format_exception(*result.exc_info)))
    return result


def errors(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error: ")]


def assert_located(result, root: Path, where: str, *words: str, single: bool = False) -> list[str]:
    """Exit 1 with an `error: WHERE:LINE: …` line holding `words`; no machine path in the output."""
    assert result.exit_code == 1, result.output
    pattern = re.compile(rf"^error: {re.escape(where)}:\d+(:\d+)?: ")
    located = [line for line in errors(result) if pattern.match(line)]
    assert located, f"expected an error located at {where}:LINE:, got:\n{result.output}"
    for word in words:
        assert any(word in line for line in located), f"{word!r} not in {located}"
    assert str(root) not in result.output, f"a message names the machine's folders:\n{result.output}"
    if single:
        assert len(result.output.strip().splitlines()) == 1, result.output
    return located


def assert_one_line_error(result, *words: str) -> str:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def commands(treaty: str) -> list[list[str]]:
    """The commands that read a treaty's sources and overlays."""
    return [["validate", treaty], ["versions", treaty], ["export", treaty, "--version", "latest"]]


def run_each(root: Path, treaty: str, where: str, *words: str) -> None:
    for command in commands(treaty):
        result = cli(*command, "--root", root)
        assert_located(result, root, where, *words, single=command[0] != "validate")


OVERLAY_HEAD = "id: {id}\nkind: protocol\ntitle: {{en: Test}}\nsigned: '2000-01-01'\n"


# ------------------------------------------------------------------ malformed YAML

def test_malformed_yaml_in_an_overlay(root):
    put(root, "overlays/in-de/02-bad.yaml", "id: bad\nkind: protocol\ntitle: {en: Bad\noperations: []\n")
    run_each(root, "in-de", "overlays/in-de/02-bad.yaml", "malformed YAML")


def test_malformed_yaml_in_treaty_yaml(root):
    edit(root, "sources/in-de/treaty.yaml", "parties: [IN, DE]", "parties: [IN, DE")
    run_each(root, "in-de", "sources/in-de/treaty.yaml", "malformed YAML")


BOMB = "".join(f"  {name}: &{name} [{', '.join([prev] * 9)}]\n"
               for name, prev in zip("abcdefghi", ["lol", *("*" + c for c in "abcdefgh")]))


@pytest.mark.parametrize("where", ["overlays/in-de/02-bomb.yaml", "sources/in-de/treaty.yaml"])
def test_alias_bomb_is_rejected_quickly(root, where):
    """Nine levels of nine aliases (387 million leaves) must be refused, not expanded or walked."""
    if where.startswith("overlays"):
        put(root, where, OVERLAY_HEAD.format(id="bomb") + "source:\n" + BOMB + "  all: *i\noperations: []\n")
    else:
        # Under dates, where validate looks for `provision:` references.
        edit(root, where, "dates:\n", "laughs:\n" + BOMB + "dates:\n  laughs: *i\n")
    start = time.monotonic()
    try:
        # A separate process, so that a bomb that does go off is stopped by the timeout.
        done = subprocess.run([sys.executable, "-m", "consolidate", "validate", "in-de", "--root", str(root)],
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where}: the alias bomb was not refused within 30 s")
    elapsed = time.monotonic() - start
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(rf"^error: {re.escape(where)}:\d+: .*(anchor|alias)", done.stderr, re.M), done.stderr
    assert elapsed < 10, f"refusing the bomb took {elapsed:.1f} s"


# ------------------------------------------------------------------ schema: keys, operations, types

def test_unknown_keys_and_operations(root):
    put(root, "overlays/in-de/02-unknown.yaml", OVERLAY_HEAD.format(id="unknown") + (
        "publisher: somebody\n"
        "operations:\n"
        "- op: amend\n"
        "  target: art_1\n"
        "- op: delete\n"
        "  target: art_5\n"
        "  colour: red\n"))
    result = cli("validate", "in-de", "--root", root)
    where = "overlays/in-de/02-unknown.yaml"
    assert_located(result, root, where, "unknown key 'publisher'", "unknown operation 'amend'", "unknown key 'colour'")
    lines = {int(line.split(":")[2]) for line in errors(result) if where in line}
    assert lines == {5, 7, 11}


def test_wrong_types_in_an_overlay(root):
    put(root, "overlays/in-de/02-types.yaml", (
        "id: types\nkind: protocol\ntitle: Protocol\nsigned: 2017\n"
        "operations:\n"
        "- op: substitute\n  target: art_5__para_1\n  find: {hi: उद्यम}\n  replace: {hi: उपक्रम}\n  occurrence: '2'\n"))
    put(root, "overlays/in-de/03-mapping.yaml", OVERLAY_HEAD.format(id="mapping") + "operations: {op: delete}\n")
    # A number where a party code belongs, as a mapping key: JSON Schema knows string keys only.
    put(root, "overlays/in-de/04-key.yaml", OVERLAY_HEAD.format(id="key") + (
        "effect:\n  1: {withholding: '2001-01-01'}\noperations: []\n"))
    result = cli("validate", "in-de", "--root", root)
    assert_located(result, root, "overlays/in-de/02-types.yaml", "title", "signed", "occurrence")
    assert_located(result, root, "overlays/in-de/03-mapping.yaml", "operations")
    assert any(":6:" in line for line in assert_located(result, root, "overlays/in-de/04-key.yaml", "1"))


@pytest.mark.parametrize("treaty, old, new, word", [
    ("in-de", "languages: [hi]", "languages: hi", "languages"),
    # in-pt's MLI overlay computes dates from the parties: a string is not two parties.
    ("in-pt", "parties: [IN, PT]", "parties: IN", "parties"),
    ("in-de", "parties: [IN, DE]", "parties: {IN: DE}", "parties"),
])
def test_wrong_types_in_treaty_yaml(root, treaty, old, new, word):
    edit(root, f"sources/{treaty}/treaty.yaml", old, new)
    assert_located(cli("validate", treaty, "--root", root), root, f"sources/{treaty}/treaty.yaml", word)


def test_an_operation_that_is_not_a_name(root):
    put(root, "overlays/in-de/02-op.yaml",
        OVERLAY_HEAD.format(id="op") + "operations:\n- op: [replace]\n  target: art_1\n")
    assert_located(cli("validate", "in-de", "--root", root), root, "overlays/in-de/02-op.yaml", "operation")


# ------------------------------------------------------------------ dates that do not exist

def test_impossible_dates_in_overlays(root):
    put(root, "overlays/in-de/02-date.yaml", "id: date\nkind: protocol\ntitle: {en: T}\nsigned: '2021-02-30'\n"
                                              "operations: []\n")
    put(root, "overlays/in-de/03-effect.yaml", OVERLAY_HEAD.format(id="effect") + (
        "operations:\n- op: delete\n  target: art_5\n  effect: {IN: {withholding: '2021-02-29'}}\n"))
    result = cli("validate", "in-de", "--root", root)
    assert_located(result, root, "overlays/in-de/02-date.yaml", "2021-02-30")
    assert_located(result, root, "overlays/in-de/03-effect.yaml", "2021-02-29")


def test_impossible_date_in_treaty_yaml(root):
    edit(root, "sources/in-de/treaty.yaml", "signed: 1995-06-19", "signed: 2021-02-30")
    run_each(root, "in-de", "sources/in-de/treaty.yaml", "2021-02-30")


def test_impossible_as_of_date(root):
    assert_one_line_error(cli("export", "in-de", "--as-of", "2021-02-30", "--root", root), "2021-02-30")


# ------------------------------------------------------------------ conflicts and deleted provisions

def test_conflicting_overlays_and_deleted_targets(root):
    put(root, "overlays/in-de/02-delete.yaml",
        OVERLAY_HEAD.format(id="del") + "operations:\n- op: delete\n  target: art_5\n")
    put(root, "overlays/in-de/03-after.yaml", OVERLAY_HEAD.format(id="after") + (
        "operations:\n- op: replace\n  target: art_5__para_1\n  text: {hi: नया}\n"))
    put(root, "overlays/in-de/04-twice.yaml", OVERLAY_HEAD.format(id="twice") + (
        "operations:\n- op: replace\n  target: art_6__para_1\n  text: {hi: एक}\n"
        "- op: delete\n  target: art_6__para_1\n"))
    put(root, "overlays/in-de/05-same-id.yaml", OVERLAY_HEAD.format(id="del") + "operations: []\n")
    put(root, "overlays/in-de/06-collide.yaml", OVERLAY_HEAD.format(id="collide") + (
        "operations:\n- op: renumber\n  target: art_7\n  num: '8'\n"))
    result = cli("validate", "in-de", "--root", root)
    assert_located(result, root, "overlays/in-de/03-after.yaml", "was deleted by del")
    assert_located(result, root, "overlays/in-de/04-twice.yaml", "already changed by operation 1")
    assert_located(result, root, "overlays/in-de/05-same-id.yaml", "also used by")
    assert_located(result, root, "overlays/in-de/06-collide.yaml", "art_8")
    # Outside validate the first problem stops the command: here the reused instrument id.
    assert_located(cli("export", "in-de", "--version", "latest", "--root", root), root,
                   "overlays/in-de/05-same-id.yaml", "also used by", single=True)


# ------------------------------------------------------------------ path traversal

def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("args, words", [
    (["export", "../../etc"], ["invalid treaty id"]),
    (["versions", "a/b"], ["invalid treaty id"]),
    (["validate", "../../etc"], ["invalid treaty id"]),
    (["export", "in-de", "--lang", "../x"], ["no '../x' text"]),
    (["import", "RAW", "--treaty", "../../etc", "--lang", "hi"], ["invalid treaty id"]),
    (["import", "RAW", "--treaty", "a/b", "--lang", "hi"], ["invalid treaty id"]),
    (["import", "RAW", "--treaty", "in-de", "--lang", "../../x"], ["unknown language"]),
])
def test_path_traversal_in_arguments(root, args, words):
    raw = put(root.parent / "outside", "raw.txt", (SEEDS / "004_290c7b7b92e4b38c.txt").read_bytes())
    before = _files(root.parent)
    result = cli(*[str(raw) if a == "RAW" else a for a in args], "--root", root)
    assert_one_line_error(result, *words)
    assert _files(root.parent) == before


def test_path_traversal_in_eids(root):
    put(root, "overlays/in-de/02-eids.yaml", OVERLAY_HEAD.format(id="eids") + (
        "operations:\n"
        "- op: delete\n  target: ../x\n"
        "- op: note\n  target: art_1\n  from: ../../etc/passwd\n"
        "- op: mli\n  mli_article: 7\n  mli_paragraph: 1\n  relation: added\n  text: {hi: x}\n"
        "  place: {after: a/b}\n"))
    # Dots alone pass the eId pattern; they name no provision.
    put(root, "overlays/in-de/03-dots.yaml", OVERLAY_HEAD.format(id="dots") + (
        "operations:\n- op: annotate\n  target: ..\n  instrument: unknown\n"))
    result = cli("validate", "in-de", "--root", root)
    assert_located(result, root, "overlays/in-de/02-eids.yaml", "'../x' is not valid",
                   "'../../etc/passwd' does not match", "'a/b' does not match")
    assert_located(result, root, "overlays/in-de/03-dots.yaml", "target .. not found")


# ------------------------------------------------------------------ symbolic links out of the root

def _assert_link_refused(result, root: Path, where: str) -> None:
    assert result.exit_code == 1, result.output
    named = [line for line in errors(result) if line.startswith(f"error: {where}")]
    assert named and any("link" in line.lower() for line in named), \
        f"expected a refusal naming {where} as a link out of the project, got:\n{result.output}"
    assert SECRET not in result.output and str(root) not in result.output


def test_symlinked_treaty_folder_is_refused(root):
    outside = root.parent / "outside" / "evil"
    shutil.copytree(root / "sources/in-de", outside)
    (outside / "treaty.yaml").write_text((outside / "treaty.yaml").read_text("utf-8").replace("id: in-de", "id: evil")
                                         + f"# {SECRET}\n", encoding="utf-8")
    (root / "sources/evil").symlink_to(outside, target_is_directory=True)
    # lu-ad out of the way: its finding is not what this test is about.
    shutil.rmtree(root / "sources/lu-ad")
    shutil.rmtree(root / "overlays/lu-ad")
    _assert_link_refused(cli("validate", "--root", root), root, "sources/evil")
    _assert_link_refused(cli("export", "evil", "--root", root), root, "sources/evil")


@pytest.mark.parametrize("relative", ["sources/in-de/hi.txt", "sources/in-de/treaty.yaml",
                                      "overlays/in-de/01-protocol.yaml"])
def test_symlinked_file_is_refused(root, relative):
    outside = root.parent / "outside" / Path(relative).name
    content = (root / relative).read_text("utf-8")
    # The outside copy is valid and marked, so that reading it would go unnoticed but for the mark.
    content = content.replace("@annexure | अनुलग्नक", f"@annexure | अनुलग्नक {SECRET}") if relative.endswith(".txt") \
        else content + f"# {SECRET}\n"
    outside.write_text(content, encoding="utf-8")
    (root / relative).unlink()
    (root / relative).symlink_to(outside)
    _assert_link_refused(cli("validate", "in-de", "--root", root), root, relative)
    _assert_link_refused(cli("export", "in-de", "--root", root, "--version", "latest"), root, relative)


def test_import_into_a_symlinked_folder_writes_nothing_outside(root):
    outside = root.parent / "outside" / "in-de"
    shutil.copytree(root / "sources/in-de", outside)
    shutil.rmtree(root / "sources/in-de")
    (root / "sources/in-de").symlink_to(outside, target_is_directory=True)
    before = _files(outside)
    result = cli("import", SEEDS / "004_290c7b7b92e4b38c.txt", "--treaty", "in-de", "--lang", "hi", "--root", root)
    # The import prints its findings first; the refusal is the one error line.
    assert result.exit_code == 1, result.output
    assert len(errors(result)) == 1 and "outside" in errors(result)[0], result.output
    assert _files(outside) == before


# ------------------------------------------------------------------ encodings and NUL bytes

HINDI_LINE = "@annexure | अनुलग्नक"


def _break_line(root: Path, relative: str, marker: str, insert: bytes) -> int:
    """Put raw bytes at the start of the line holding `marker`; return that line's number."""
    path = root / relative
    data = path.read_bytes()
    at = data.index(marker.encode("utf-8"))
    path.write_bytes(data[:at] + insert + data[at:])
    return data[:at].count(b"\n") + 1


@pytest.mark.parametrize("insert, word", [(b"Caf\xe9 ", "UTF-8"), ("Café ".encode("cp1252"), "UTF-8"),
                                          (b"a\x00b ", "NUL")])
def test_bad_bytes_in_a_source_file(root, insert, word):
    line = _break_line(root, "sources/in-de/hi.txt", "@annexure", insert)
    located = assert_located(cli("validate", "in-de", "--root", root), root, "sources/in-de/hi.txt", word)
    assert any(f"hi.txt:{line}:" in entry for entry in located)
    assert_located(cli("export", "in-de", "--root", root), root, "sources/in-de/hi.txt", word, single=True)


@pytest.mark.parametrize("insert, word", [(b"# Caf\xe9\n", "UTF-8"), (b"# \x00\n", "NUL")])
def test_bad_bytes_in_an_overlay(root, insert, word):
    line = _break_line(root, "overlays/in-de/01-protocol.yaml", "kind:", insert)
    located = assert_located(cli("validate", "in-de", "--root", root), root, "overlays/in-de/01-protocol.yaml", word)
    assert any(f"01-protocol.yaml:{line}:" in entry for entry in located)


@pytest.mark.parametrize("insert, word", [(b"# Caf\xe9\n", "UTF-8"), (b"# \x00\n", "NUL")])
def test_bad_bytes_in_treaty_yaml(root, insert, word):
    line = _break_line(root, "sources/in-de/treaty.yaml", "languages:", insert)
    for command in commands("in-de"):
        located = assert_located(cli(*command, "--root", root), root, "sources/in-de/treaty.yaml", word)
        assert any(f"treaty.yaml:{line}:" in entry for entry in located)


@pytest.mark.parametrize("content, words", [
    ("अनुच्छेद 1\n".encode() + "पाठ\n".encode() + "Caf\xe9\n".encode("latin-1"), [":3:", "UTF-8"]),
    ("Article 1\nText\n".encode("utf-16"), ["NUL"]),
    ("अनुच्छेद 1\n\nपाठ\x00\n".encode(), [":3:", "NUL"]),
])
def test_bad_bytes_in_raw_text_to_import(root, content, words):
    raw = put(root.parent / "outside", "raw.txt", content)
    before = _files(root)
    result = cli("import", raw, "--treaty", "xx-yy", "--lang", "hi", "--root", root)
    assert_one_line_error(result, "raw.txt", *words)
    assert _files(root) == before


@pytest.mark.parametrize("line, lang", [
    ("Article 1 The taxes covered are income tax. " * 600, "hi"),
    ("अनुच्छेद 1 इस समझौते के अंतर्गत आने वाले कर आयकर हैं। " * 600, "en"),
    ("अनुच्छेद 1 इस समझौते के अंतर्गत आने वाले कर आयकर हैं। " * 600, "hi"),
], ids=["english-only-as-hi", "hindi-only-as-en", "hindi-only-as-hi"])
def test_a_run_on_line_in_one_language_only(root, line, lang):
    """A gazette-like line (over 20,000 characters) holding one language: imported, or a located error."""
    raw = put(root.parent / "outside", "raw.txt", line + "\n")
    result = cli("import", raw, "--treaty", "xx-yy", "--lang", lang, "--root", root)
    if result.exit_code == 0:
        assert (root / f"sources/xx-yy/{lang}.txt").is_file()
    else:
        assert_one_line_error(result, "raw.txt:1:")


# ------------------------------------------------------------------ a 50 MB source file

def _big_source(root: Path, megabytes: int = 50) -> Path:
    paragraph = ("यह अनुच्छेद एक लंबा परीक्षण पाठ है जिसमें संविदाकारी राज्य के निवासी और उद्यम के लाभ का "
                 "उल्लेख है। ") * 4
    blocks, size, number = ["@title\nबड़ा समझौता", "@preamble\nदोनों राज्य निम्नानुसार सहमत हैं :"], 0, 0
    while size < megabytes * 1_000_000:
        number += 1
        article = "\n\n".join([f"@article {number} | अनुच्छेद {number}\n@heading शीर्षक {number}",
                               *(f"  @paragraph {p} | {p}.\n  {paragraph}" for p in range(1, 21))])
        blocks.append(article)
        size += len(article.encode("utf-8"))
    put(root, "sources/xx-big/treaty.yaml", "id: xx-big\nparties: [IN, PT]\ntitles: {hi: बड़ा समझौता}\n"
                                            "dates: {signed: 2001-01-01}\nlanguages: [hi]\n")
    return put(root, "sources/xx-big/hi.txt", "\n\n".join(blocks) + "\n")


def test_a_50_mb_source_file_is_handled_in_bounded_time_and_memory(root):
    path = _big_source(root)
    assert path.stat().st_size >= 50_000_000
    for command, limit in ((["validate", "xx-big"], 60), (["export", "xx-big"], 90)):
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "consolidate", *command, "--root", str(root)],
                              capture_output=True, timeout=limit * 2)
        elapsed = time.monotonic() - start
        # ru_maxrss of the children so far (kilobytes on Linux): the largest of them.
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
        assert elapsed < limit, f"{command[0]} took {elapsed:.1f} s on a 50 MB source"
        assert peak_mb < 2048, f"{command[0]} used {peak_mb:.0f} MB on a 50 MB source"
    data = json.loads(done.stdout)
    assert len(data["provisions"]) > 2000


# ------------------------------------------------------------------ text that must stay text

HTML = "<script>alert('x')</script> & <b onmouseover=\"evil()\">bold</b> &amp; &lt;i&gt; {{ x }} <!-- c -->"
BIDI = "abc\u200fdef \u202eevil\u202c zw\u200bzw\u200dj \u2066iso\u2069 \u200e end"
MARKS = "क\u093c\u093c ि\u094d \u0301 राज्य\u094d\u094d \u093f क\u0951 ऽ\u0903"


def _find(nodes, eid):
    for node in nodes:
        if node["eid"] == eid:
            return node
        found = _find(node["children"], eid)
        if found:
            return found
    return None


def _small_treaty(root: Path, text: str) -> None:
    escaped = text.replace("{{", "{{lb}}")
    source = (f"@title\nTest agreement\n\n@preamble\nThe states agree:\n\n@article 1 | Article 1\n@heading Scope\n\n"
              f"  @paragraph 1 | 1.\n  {escaped}\n\n  @paragraph 2 | 2.\n  Second.\n")
    put(root, "sources/xx-text/en.txt", source)
    put(root, "sources/xx-text/treaty.yaml", "id: xx-text\nparties: [IN, PT]\ntitles: {en: Test}\n"
                                             "dates: {signed: 2001-01-01}\nlanguages: [en]\n")
    assert write(parse(source, "en.txt")) == source


@pytest.mark.parametrize("text", [HTML, BIDI, MARKS], ids=["html", "bidi-zero-width", "stray-combining-marks"])
def test_text_survives_source_and_export_exactly(root, text):
    _small_treaty(root, text)
    result = cli("validate", "xx-text", "--root", root)
    assert result.exit_code == 0, result.output
    exported = cli("export", "xx-text", "--format", "json", "--root", root)
    assert exported.exit_code == 0, exported.output
    assert _find(json.loads(exported.output)["provisions"], "art_1__para_1")["text"] == text
    # In the JSON itself the text is a plain string: nothing escaped into markup or dropped.
    assert json.dumps(text, ensure_ascii=False) in exported.output
    readable = cli("export", "xx-text", "--format", "text", "--root", root)
    assert text in readable.output


@pytest.mark.parametrize("lang", ["en", "hi"])
@pytest.mark.parametrize("text", [HTML, BIDI, MARKS], ids=["html", "bidi-zero-width", "stray-combining-marks"])
def test_text_survives_import_exactly(root, text, lang):
    head = ("AGREEMENT BETWEEN A AND B\n\nThe Governments have agreed as follows:\n\nArticle 1\n\nScope\n\n"
            if lang == "en" else
            "क और ख के बीच समझौता\n\nसरकारें निम्नानुसार सहमत हुई हैं :\n\nअनुच्छेद 1\n\nक्षेत्र\n\n")
    raw = put(root.parent / "outside", "raw.txt", f"{head}1. {text}\n\n2. Second.\n")
    result = cli("import", raw, "--treaty", "xx-text", "--lang", lang, "--root", root)
    assert result.exit_code == 0, result.output
    source = (root / f"sources/xx-text/{lang}.txt").read_text("utf-8")
    assert write(parse(source, "x.txt")) == source
    exported = cli("export", "xx-text", "--lang", lang, "--format", "json", "--root", root)
    assert _find(json.loads(exported.output)["provisions"], "art_1__para_1")["text"] == text


def test_findings_are_located_relative_to_the_root(root):
    result = cli("validate", "lu-ad", "--root", root)
    assert "ID.DUPLICATE" in result.output
    assert str(root) not in result.output and "sources/lu-ad/hi.txt:430: ID.DUPLICATE" in result.output
