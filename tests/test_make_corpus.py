"""The synthetic corpus generator (benchmarks/make_corpus.py): reproducible, valid, complete."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from click.testing import CliRunner

from consolidate.cli import main
from consolidate.corpus import load_edition, treaty_ids
from consolidate.overlay import OPERATION_SCHEMAS, RELATIONS, load_instruments
from consolidate.validate import validate

REPO = Path(__file__).resolve().parents[1]
SEED = 20260
COUNT = 12


def _load_generator():
    # benchmarks/ is not a package and is not installed; load the script by path. Registering
    # it in sys.modules lets worker processes find its functions by name.
    name = "make_corpus_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "make_corpus.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("synthetic")
    _load_generator().generate(COUNT, SEED, root)
    return root


def test_same_arguments_give_byte_identical_output_whatever_the_processes(generated, tmp_path):
    again = tmp_path / "again"
    # Two worker processes on chunks of five: a different split of the work, the same bytes.
    _load_generator().generate(COUNT, SEED, again, jobs=2, chunk=5)
    first, second = _tree(generated), _tree(again)
    assert list(first) == list(second)
    assert [name for name in first if first[name] != second[name]] == []


def test_another_seed_gives_another_corpus(generated, tmp_path):
    other = tmp_path / "other"
    _load_generator().generate(COUNT, SEED + 1000, other)
    first, second = _tree(generated), _tree(other)
    changed = [name for name in first if name.endswith(".txt") and first[name] != second.get(name)]
    assert len(changed) >= COUNT


def test_the_layout_ids_and_positions_copy(generated):
    ids = treaty_ids(generated)
    assert ids == [f"syn-{i:05d}" for i in range(1, COUNT + 1)]
    positions = "overlays/mli/positions.yaml"
    assert (generated / positions).read_bytes() == (REPO / positions).read_bytes()
    for treaty in ids:
        overlays = sorted(p.name for p in (generated / "overlays" / treaty).iterdir())
        assert 1 <= len(overlays) <= 4
        assert [name[:3] for name in overlays] == [f"{i:02d}-" for i in range(1, len(overlays) + 1)]


def test_the_corpus_validates_with_no_problem(generated):
    problems, _findings = validate(generated)
    assert [str(p) for p in problems] == []


def test_every_operation_type_and_relation_occurs(generated):
    kinds, relations, extras = set(), set(), set()
    for treaty in treaty_ids(generated):
        for instrument in load_instruments(generated, treaty):
            if instrument.kind == "mli":
                extras.add("mli from_positions" if instrument.effect.from_positions else "mli dated")
            for operation in instrument.operations:
                kinds.add(operation.kind)
                if operation.kind == "mli":
                    relations.add(operation.data["relation"])
                if operation.kind == "note" and "from" in operation.data:
                    extras.add("note from")
                if operation.kind == "substitute" and "occurrence" in operation.data:
                    extras.add("substitute occurrence")
    assert kinds == set(OPERATION_SCHEMAS)
    assert relations == set(RELATIONS)
    assert {"note from", "substitute occurrence", "mli from_positions"} <= extras


def test_bilingual_treaties_keep_identical_eids(generated):
    bilingual = 0
    for treaty in treaty_ids(generated):
        edition = load_edition(generated, treaty)
        documents = list(edition.treaty.documents.values())
        if len(documents) > 1:
            bilingual += 1
            assert all(d.eids() == documents[0].eids() for d in documents)
    assert bilingual >= 1


def test_the_corpus_builds(generated, tmp_path):
    """`consolidate build` publishes every synthetic treaty, each version in each language."""
    # A copy: the build keeps a cache beside the corpus, and the other tests read the corpus as made.
    corpus, site = tmp_path / "corpus", tmp_path / "site"
    shutil.copytree(generated, corpus)
    result = CliRunner().invoke(main, ["build", "--root", str(corpus), "--out", str(site)])
    assert result.exit_code == 0, result.output
    assert f"built {COUNT} treaties" in result.output
    assert sorted(p.name for p in (site / "treaties").iterdir()) == treaty_ids(generated)


def test_no_machine_path_is_written(generated):
    for name, data in _tree(generated).items():
        text = data.decode("utf-8")
        assert str(generated) not in text and str(REPO) not in text, name


def test_command_line_prints_its_time_and_refuses_to_overwrite(tmp_path, capsys):
    module = _load_generator()
    out = tmp_path / "cli"
    assert module.main(["--treaties", "2", "--seed", "3", "--out", str(out), "--jobs", "1"]) == 0
    assert "generated 2 treaties" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="not empty; use --force"):
        module.main(["--treaties", "2", "--seed", "3", "--out", str(out), "--jobs", "1"])
    assert module.main(["--treaties", "1", "--seed", "3", "--out", str(out), "--jobs", "1", "--force"]) == 0
    assert treaty_ids(out) == ["syn-00001"]


@pytest.mark.parametrize("text", ["plain", "NO", "yes", "2017-06-07", "08", "1_000", "a: b # c", "- x", "'\"\\",
                                  " lead and trail ", "tab\there", "line\nbreak", "\u2028\u0085\x7f\ufeff",
                                  "ज़्\u200d\u200b\u202e", "{{amend 1 ¹[}}", "", "@article 1", "true", "null"])
def test_generated_yaml_reads_back_exactly(text):
    from consolidate.yamlload import loads_yaml

    value = {"k": text, "list": [text, {"nested": text}], "n": 3, "none": None, "flag": True}
    assert loads_yaml(_load_generator().to_yaml(value)) == value
