"""The overlay engine on real provisions of the seeds: every operation, its failures, order."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consolidate import inline
from consolidate.corpus import load_treaty
from consolidate.engine import build_versions
from consolidate.errors import OverlayError
from consolidate.overlay import Problem, load_instrument


@pytest.fixture(scope="module")
def in_cl(repo):
    return load_treaty(repo, "in-cl")


@pytest.fixture(scope="module")
def in_de(repo):
    return load_treaty(repo, "in-de")


def instrument(tmp_path, name, body, problems=None):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    collected = [] if problems is None else problems
    loaded = load_instrument(path, name, collected)
    assert loaded is not None, collected
    return loaded


def head(id_="p1", kind="protocol", signed="2024-01-01"):
    return f"id: {id_}\nkind: {kind}\ntitle: {{en: Test}}\nsigned: {signed}\noperations:\n"


def texts(document):
    return {n.eid: (n.label, n.heading, n.text) for n in document.walk()}


def apply(treaty, *instruments):
    problems: list[Problem] = []
    versions = build_versions(treaty.documents, instruments, problems)
    return versions, problems


def test_replace_in_both_languages_keeps_the_old_text(tmp_path, in_cl):
    op = instrument(tmp_path, "01-p.yaml", head() + """\
      - op: replace
        target: art_16
        text:
          en: Directors' fees shall be taxable only in the State of residence.
          hi: निदेशकों की फीस केवल निवास के राज्य में कर योग्य होगी।
        wording: {en: Article 16 shall be replaced by the following}
    """)
    versions, problems = apply(in_cl, op)
    assert problems == []
    latest = versions[-1]
    assert latest.document("en").by_eid()["art_16"].text.startswith("Directors' fees shall be taxable only")
    assert latest.document("hi").by_eid()["art_16"].text.startswith("निदेशकों की फीस केवल")
    assert latest.provenance["art_16"].instrument == "p1"
    old = latest.retained["art_16"][0]
    assert old.how == "replaced" and "DIRECTORS" not in old.old["en"].text
    assert old.old["en"].text == in_cl.document("en").by_eid()["art_16"].text
    assert versions[0].document("en").by_eid()["art_16"].text == old.old["en"].text  # base untouched


def test_replace_needs_every_language(tmp_path, in_cl):
    op = instrument(tmp_path, "01-p.yaml", head() + """\
      - op: replace
        target: art_16
        text: {en: Only English.}
    """)
    _, problems = apply(in_cl, op)
    assert len(problems) == 1 and "(no hi text given)" in problems[0].message


def test_insert_delete_renumber_and_revive(tmp_path, in_cl):
    first = instrument(tmp_path, "01-p.yaml", head() + """\
      - op: insert
        target: art_12A
        position: after
        node:
          kind: article
          num: 12B
          label: {en: Article 12B, hi: अनुच्छेद 12ख}
          heading: {en: DIGITAL SERVICES, hi: डिजिटल सेवाएं}
          children:
            - kind: paragraph
              num: "1"
              label: {en: "1.", hi: "1."}
              text: {en: Digital services shall be taxed., hi: डिजिटल सेवाओं पर कर लगाया जाएगा।}
      - op: delete
        target: art_20
      - op: renumber
        target: art_21
        num: 21A
        label: {en: Article 21A, hi: अनुच्छेद 21क}
    """)
    second = instrument(tmp_path, "02-q.yaml", head("p2") + """\
      - op: substitute
        target: art_21__para_1
        find: {en: Items of income, hi: आय की}
        replace: {en: Items of revenue, hi: राजस्व की}
        occurrence: 1
      - op: insert
        target: art_19
        position: after
        node:
          kind: article
          num: "20"
          label: {en: Article 20, hi: अनुच्छेद 20}
          text: {en: Students are welcome., hi: छात्रों का स्वागत है।}
    """)
    versions, problems = apply(in_cl, first, second)
    assert problems == []
    after_first, latest = versions[1], versions[2]
    eids = after_first.document("en").eids()
    assert eids[eids.index("art_12B") - 1].startswith("art_12A__") and eids[eids.index("art_12B") + 2] == "art_13"
    assert "art_12B__para_1" in eids and after_first.provenance["art_12B__para_1"].instrument == "p1"
    assert after_first.document("hi").eids() == eids
    assert "art_20" in after_first.deleted and "art_20" in eids  # kept for display
    assert after_first.aliases["art_21"] == "art_21A" and "art_21A__para_1" in eids
    assert "art_21" not in eids
    # The later instrument addresses the renumbered article by its old id (a stable alias).
    assert latest.document("en").by_eid()["art_21A__para_1"].text.startswith("Items of revenue")
    # Re-inserting the deleted Article 20 revives it in place.
    assert "art_20" not in latest.deleted
    assert latest.document("en").by_eid()["art_20"].text == "Students are welcome."
    assert latest.document("en").eids().count("art_20") == 1


@pytest.mark.parametrize("ops, message", [
    ("""      - op: insert
        target: art_2
        position: after
        node: {kind: article, label: {hi: x}, text: {hi: y}}
""", "the inserted article needs a 'num'"),
    ("""      - op: renumber
        target: art_2
        num: "3"
""", "two provisions with the eId art_3"),
    ("""      - op: substitute
        target: art_1
        find: {hi: समझौता}
        replace: {hi: करार}
        occurrence: 5
""", "occurrence 5 asked"),
    ("""      - op: mli
        mli_article: 7
        mli_paragraph: 1
        relation: added
        target: art_1
        text: {hi: x}
""", "relation added takes no target"),
    ("""      - op: mli
        mli_article: 7
        mli_paragraph: 1
        relation: supersedes-incompatible
        text: {hi: x}
""", "needs 'place'"),
    ("""      - op: mli
        mli_article: 9
        mli_paragraph: 4
        relation: replaces
        target: protocol__item_1
        text: {hi: x}
""", "cannot replace a protocol_item"),
    ("""      - op: note
        target: art_99
        text: {hi: x}
""", "target art_99 not found in the hi text"),
])
def test_operation_failures_on_a_real_treaty(tmp_path, in_de, ops, message):
    op = instrument(tmp_path, "01-p.yaml", head() + ops)
    _, problems = apply(in_de, op)
    assert len(problems) == 1
    assert message in problems[0].message
    assert str(problems[0].location).startswith("01-p.yaml:")


def test_failure_raises_when_not_collecting(tmp_path, in_de):
    op = instrument(tmp_path, "01-p.yaml", head() + """\
      - op: delete
        target: art_2__para_9
    """)
    with pytest.raises(OverlayError) as caught:
        build_versions(in_de.documents, [op])
    assert str(caught.value).startswith("01-p.yaml:6: operation 1 (delete): target art_2__para_9 not found")


def test_substitute_on_real_hindi_text(tmp_path, in_de):
    article = in_de.document().by_eid()["art_1"]
    word = "व्यक्तियों"
    assert article.text.count(word) == 1
    op = instrument(tmp_path, "01-p.yaml", head() + f"""\
      - op: substitute
        target: art_1
        find: {{hi: {word}}}
        replace: {{hi: लोगों}}
    """)
    versions, problems = apply(in_de, op)
    assert problems == []
    assert versions[-1].document("hi").by_eid()["art_1"].text == article.text.replace(word, "लोगों")
    assert versions[-1].retained["art_1"][0].old["hi"].text == article.text


def test_order_matters_between_two_protocols(tmp_path, in_de):
    first = instrument(tmp_path, "01-a.yaml", head("a") + """\
      - op: substitute
        target: art_1
        find: {hi: व्यक्तियों}
        replace: {hi: निवासियों}
    """)
    second = instrument(tmp_path, "02-b.yaml", head("b") + """\
      - op: substitute
        target: art_1
        find: {hi: निवासियों}
        replace: {hi: नागरिकों}
    """)
    versions, problems = apply(in_de, first, second)
    assert problems == []
    assert "नागरिकों" in versions[-1].document("hi").by_eid()["art_1"].text
    assert versions[-1].provenance["art_1"].instrument == "b"
    assert [r.by.instrument for r in versions[-1].retained["art_1"]] == ["a", "b"]
    _, reversed_problems = apply(in_de, second, first)
    # The later protocol's words are not there yet when it is applied first.
    assert len(reversed_problems) == 1 and "does not contain 'निवासियों'" in reversed_problems[0].message


def test_protocol_notes_attach_to_their_articles(repo):
    from consolidate.corpus import load_edition

    edition = load_edition(repo, "in-de")
    latest = edition.versions[-1]
    assert [n.source for n in latest.notes["art_10"]] == ["protocol__item_3", "protocol__item_4"]
    assert latest.notes["art_11"][0].source == "protocol__item_4"
    note = latest.notes["art_7"][0]
    assert note.heading["hi"] == "अनुच्छेद 7 के संदर्भ में"
    assert note.text["hi"].startswith("(क) किसी भवन स्थल")
    in_cl = load_edition(repo, "in-cl").versions[-1]
    assert in_cl.notes["art_5"][0].text["en"].startswith("For the purposes of preventing misuse")
    assert in_cl.notes["art_5"][0].text["hi"]  # the Hindi note comes from the Hindi protocol
    assert sorted(in_cl.notes) == ["art_1", "art_2", "art_3", "art_5", "art_7", "art_8", "art_9"]


def test_in_pt_mli_version(repo):
    from consolidate.corpus import load_edition

    latest = load_edition(repo, "in-pt").versions[-1]
    placed = {anchor: [(b.mli_article, b.mli_paragraph, b.relation) for b in boxes]
              for anchor, boxes in latest.boxes.items()}
    assert placed == {"preamble": [(6, 1, "included-in-preamble")], "art_1": [(11, 1, "supersedes-incompatible")],
                      "art_5__para_4": [(13, 4, "applies-to")], "art_5": [(15, 1, "applies-to")],
                      "art_13__para_4": [(9, 4, "replaces")], "art_28": [(7, 1, "supersedes-incompatible")]}
    assert latest.boxes["preamble"][0].after_line == 1
    replaced = latest.document("hi").by_eid()["art_13__para_4"]
    assert replaced.text == ""
    assert latest.retained["art_13__para_4"][0].old["hi"].text.startswith("एक कंपनी जिसकी")


def test_in_pt_reviewed_overlay_matches_the_importers_draft(repo):
    import yaml

    draft = yaml.safe_load((repo / "overlays/in-pt/mli.yaml").read_text("utf-8"))
    reviewed = yaml.safe_load((repo / "overlays/in-pt/01-mli.yaml").read_text("utf-8"))
    assert reviewed["operations"] == draft["operations"]
    assert reviewed["source"] == draft["source"]


def test_in_br_annotations_follow_the_markers(repo):
    from consolidate.corpus import load_edition
    from consolidate.provenance import marker_spans

    edition = load_edition(repo, "in-br")
    spans = marker_spans(edition.treaty.document())
    expected = sorted(eid for span in spans for eid in (span.wrapped or (span.within,)))
    latest = edition.versions[-1]
    assert sorted(eid for eid, notes in latest.annotations.items() for _ in notes) == expected
    assert {a.instrument for notes in latest.annotations.values() for a in notes} == {"unknown"}
    assert latest.document("hi").eids() == edition.versions[0].document("hi").eids()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_replace_changes_only_its_target(tmp_path, in_de, data):
    candidates = [n.eid for n in in_de.document().walk() if n.kind == "paragraph" and not n.children]
    target = data.draw(st.sampled_from(candidates))
    new_text = data.draw(st.text(alphabet="कखगघचछजझटठडढतथदधनपफबभमयरलवशसह ािीुूेैोौं।", min_size=1,
                                 max_size=60).filter(lambda t: t.strip() and not t.startswith(("@", "\\"))))
    op = instrument(tmp_path, "01-p.yaml", head() + f"""\
      - op: replace
        target: {target}
        text: {{hi: "{new_text}"}}
    """)
    versions, problems = apply(in_de, op)
    assert problems == []
    before, after = texts(versions[0].document("hi")), texts(versions[-1].document("hi"))
    assert before.keys() == after.keys()
    changed = [eid for eid in before if before[eid] != after[eid]]
    assert changed == [target]
    assert inline.clean(after[target][2]) == new_text


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_delete_then_insert_round_trips(tmp_path, in_de, data):
    document = in_de.document()
    articles = [n for n in document.articles() if not n.children and n.label]
    article = data.draw(st.sampled_from(articles))
    previous = document.articles()[document.articles().index(article) - 1]
    deleting = instrument(tmp_path, "01-d.yaml", head("d") + f"""\
      - op: delete
        target: {article.eid}
    """)
    spec = {"kind": "article", "num": article.num, "label": {"hi": article.label}, "text": {"hi": article.text}}
    if article.heading:
        spec["heading"] = {"hi": article.heading}
    import yaml
    inserting = instrument(tmp_path, "02-i.yaml", head("i") + textwrap.indent(yaml.safe_dump(
        [{"op": "insert", "target": previous.eid, "position": "after", "node": spec}], allow_unicode=True), "  "))
    versions, problems = apply(in_de, deleting, inserting)
    assert problems == []
    assert article.eid in versions[1].deleted and article.eid not in versions[2].deleted
    assert texts(versions[2].document("hi")) == texts(versions[0].document("hi"))


def test_deleting_a_chapter_protects_its_articles(tmp_path, repo):
    in_pt = load_treaty(repo, "in-pt")
    op = instrument(tmp_path, "01-p.yaml", head() + """\
      - op: delete
        target: chp_1
      - op: replace
        target: art_2__para_1
        text: {hi: नया पाठ}
    """)
    _, problems = apply(in_pt, op)
    assert len(problems) == 1
    assert "target art_2__para_1 was deleted by p1 (operation 1) with chp_1" in problems[0].message


def test_a_renumbered_target_is_recorded_under_its_new_eid(tmp_path, in_de):
    first = instrument(tmp_path, "01-a.yaml", head("a") + """\
      - op: renumber
        target: art_29
        num: "30"
    """)
    second = instrument(tmp_path, "02-b.yaml", head("b") + """\
      - op: delete
        target: art_29
    """)
    versions, problems = apply(in_de, first, second)
    assert problems == []
    latest = versions[-1]
    assert "art_30" in latest.deleted and "art_29" not in latest.deleted
    assert latest.provenance["art_30"].instrument == "b"
