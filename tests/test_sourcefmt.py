"""The source format: exact round trip, strict located errors, grouping and escapes."""

from __future__ import annotations

import pytest

from consolidate.errors import SourceFormatError
from consolidate.findings import Findings
from consolidate.sourcefmt import parse, read_document, write

SAMPLE = """@title
आय पर करों
और

@preamble
text {{fn 1 ¹}}

@chapter 1 | अध्याय I
@heading समझौते का कार्यक्षेत्र

@article 1 | अनुच्छेद 1
@heading निजी कार्यक्षेत्र
यह समझौता

@article 2 | {{amend 1 ¹[}}अनुच्छेद 2
@heading अंतर्निहित कर

  @paragraph 1 | 1.
  \\@ a line that starts with an at sign

  @paragraph 3 | 3.
  मौजूदा :

    @subparagraph a | क)
    पुर्तगाली :

      @item i | i)
      निजी{{end 1 ]}} and {{lb}} braces

    @wrapup
    (तत्पश्चात्)

@protocol | प्रोटोकाल
intro

@protocol_item 1
@heading अनुच्छेद 3 जोड़ें
text

  @paragraph 1 | 1.
  x

@final
done
"""


def test_round_trip_of_a_sample_covering_every_construct():
    assert write(parse(SAMPLE, "x.txt")) == SAMPLE


def test_sample_ids_and_grouping():
    document = parse(SAMPLE, "x.txt")
    assert document.eids() == [
        "title", "preamble", "chp_1", "art_1", "art_2", "art_2__para_1", "art_2__para_3",
        "art_2__para_3__subpara_a", "art_2__para_3__subpara_a__item_i", "art_2__para_3__wrapup",
        "protocol", "protocol__item_1", "protocol__item_1__para_1", "protocol__final"]
    chapter = document.nodes[2]
    assert [c.eid for c in chapter.children] == ["art_1", "art_2"]
    assert document.by_eid()["art_2__para_1"].text == "@ a line that starts with an at sign"
    assert document.by_eid()["protocol__item_1"].heading == "अनुच्छेद 3 जोड़ें"


def test_every_bundled_source_file_round_trips(repo):
    files = sorted(p for p in (repo / "sources").glob("*/*.txt") if not p.name.endswith(".raw.txt"))
    assert len(files) >= 6
    for path in files:
        text = path.read_text("utf-8")
        findings = Findings()
        document = read_document(path, path.parent.name, path.stem, findings)
        assert write(document) == text, path
        assert "SOURCE.NONCANONICAL_SPACING" not in findings.codes(), path


@pytest.mark.parametrize("text, line, message", [
    ("@title\nx\n\n@bogus 1\n", 4, "unknown block kind '@bogus'"),
    ("@paragraph 1 | 1.\nx\n", 1, "must be indented"),
    ("@article 1\n   @paragraph 1\n", 2, "multiple of 2"),
    ("loose text\n", 1, "text before the first block"),
    ("@article 1\nx", 2, "end with a newline"),
    ("@article 1\nx\n\ny\n", 4, "must start a new block"),
    ("@article 1 2 | x\n", 1, "not usable in an eId"),
    ("@article 1\n@heading a\n@heading b\n", 3, "'@heading' must follow directly"),
    ("@article 1\n@@x\n", 2, "unknown or misplaced directive"),
    ("@article 1\n    @paragraph 1\n", 2, "no block one level up"),
    ("@article 1\nx\n\n  @wrapup\n  y\n\n    @item a\n    z\n", 7, "cannot hold other blocks"),
    ("@article 1\nx\x00\n", 2, "NUL byte"),
    ("@article 1\n  \n", 2, "blank line holds spaces"),
])
def test_malformed_source_gives_a_located_error(text, line, message):
    with pytest.raises(SourceFormatError) as caught:
        parse(text, "bad.txt")
    assert str(caught.value).startswith(f"bad.txt:{line}: ")
    assert message in str(caught.value)


def test_extra_blank_lines_parse_with_a_finding_and_are_normalised():
    findings = Findings()
    document = parse("@article 1\nx\n\n\n@article 2\ny\n", "x.txt", findings=findings)
    assert findings.codes() == ["SOURCE.NONCANONICAL_SPACING"]
    assert write(document) == "@article 1\nx\n\n@article 2\ny\n"


def test_invalid_utf8_file_is_a_located_error(tmp_path):
    path = tmp_path / "hi.txt"
    path.write_bytes("@article 1\nठीक\n".encode() + b"\xff\xfe\n")
    with pytest.raises(SourceFormatError) as caught:
        read_document(path, "t", "hi")
    assert ":3: not valid UTF-8" in str(caught.value)
