"""`consolidate validate`: clean on the bundled corpus; one located message per broken overlay."""

from __future__ import annotations

from click.testing import CliRunner

from consolidate.cli import main

BROKEN = {
    "01-unknown-operation.yaml:6:": "unknown operation 'amend'",
    "02-unknown-key.yaml:8:": "unknown key 'colour'",
    "03-missing-target.yaml:6:": "target art_2__para_9 not found in the en text; nearest: art_2__para_2",
    "04-substitute-absent.yaml:6:": "does not contain 'capital gains'",
    "05-substitute-ambiguous.yaml:6:": "'income tax' occurs 2 times",
    "07-after-delete.yaml:6:": "target art_3__para_2 was deleted by p06",
    "08-same-provision-twice.yaml:10:": "art_1 is already changed by operation 1 of the same instrument",
    "09-renumber-collision.yaml:6:": "two provisions with the eId art_3",
    "10-dates-out-of-order.yaml:6:": "IN withholding date 2004-04-01 is before signature 2005-01-01",
    "11-mli-relation-invalid.yaml:6:": "relation included-in-preamble needs target 'preamble'",
}


def test_bundled_corpus_validates(repo):
    result = CliRunner().invoke(main, ["validate", "--root", str(repo)])
    assert result.exit_code == 0, result.output
    assert "validated 5 treaties: 0 problems" in result.output


def test_each_broken_overlay_gives_its_located_message(repo):
    result = CliRunner().invoke(main, ["validate", "--root", str(repo / "tests/data/broken")])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == len(BROKEN)
    for where, message in BROKEN.items():
        matching = [line for line in errors if f"overlays/zz/{where}" in line]
        assert len(matching) == 1, where
        assert message in matching[0]
    # 06-delete.yaml is a valid deletion: it is what makes 07 fail.
    assert not any("06-delete" in line for line in errors)


def test_strict_fails_on_findings_and_names_them(repo):
    result = CliRunner().invoke(main, ["validate", "--root", str(repo), "--strict", "lu-ad"])
    assert result.exit_code == 1
    assert "ID.DUPLICATE" in result.output


def test_overlays_without_a_treaty_are_a_problem(corpus_copy):
    (corpus_copy / "overlays" / "xx-yy").mkdir()
    result = CliRunner().invoke(main, ["validate", "--root", str(corpus_copy)])
    assert result.exit_code == 1
    assert "overlays for 'xx-yy' but no sources/xx-yy/treaty.yaml" in result.output
