"""eId rules: prefixes, grouping, Hindi letters, duplicates and unnumbered provisions."""

from __future__ import annotations

import pytest

from consolidate.findings import Findings
from consolidate.ids import HINDI_LETTERS, latin_letter, letter_value
from consolidate.sourcefmt import parse


@pytest.mark.parametrize("printed, value", [
    ("क", "a"), ("ख", "b"), ("ग", "c"), ("घ", "d"), ("ड़", "e"), ("ड़", "e"), ("ड.", "e"),
    ("च", "f"), ("ज", "h"), ("झ", "i"), ("ञ", "j"), ("ट", "k"),
    ("कक", "aa"), ("खख", "bb"), ("ए", "a"), ("बी", "b"), ("सी", "c"), ("जे", "j"), ("b", "b"),
])
def test_letter_values(printed, value):
    assert letter_value(printed) == value


def test_hindi_letter_table_is_in_latin_order():
    assert [latin for _, latin in HINDI_LETTERS] == [chr(ord("a") + i) for i in range(len(HINDI_LETTERS))]
    assert letter_value("अ") is None  # not a list letter: the importer numbers it by position


def test_latin_letter_by_position():
    assert [latin_letter(n) for n in (1, 2, 26, 27, 28)] == ["a", "b", "z", "aa", "bb"]


def test_hindi_and_english_texts_get_the_same_ids():
    hindi = parse("@article 12A | अनुच्छेद 12- क\n\n  @paragraph 1 | 1.\n  x\n\n    @subparagraph a | (क)\n    y\n",
                  "hi.txt")
    english = parse("@article 12A | Article 12A\n\n  @paragraph 1 | 1.\n  x\n\n    @subparagraph a | (a)\n    y\n",
                    "en.txt")
    assert hindi.eids() == english.eids() == ["art_12A", "art_12A__para_1", "art_12A__para_1__subpara_a"]


def test_duplicate_ids_get_a_suffix_and_a_finding():
    findings = Findings()
    document = parse("@article 3\n\n  @paragraph 3 | 3.\n  x\n\n  @paragraph 3 | 3.\n  y\n", "x.txt",
                     findings=findings)
    assert document.eids() == ["art_3", "art_3__para_3", "art_3__para_3_2"]
    assert [f.code for f in findings] == ["ID.DUPLICATE"]
    assert findings.items[0].location.line == 6


def test_unnumbered_provisions_are_identified_by_position():
    findings = Findings()
    document = parse("@article 1\n\n  @paragraph\n  x\n\n  @paragraph\n  y\n", "x.txt", findings=findings)
    assert document.eids() == ["art_1", "art_1__para_nn_1", "art_1__para_nn_2"]
    assert findings.codes() == ["ID.UNNUMBERED", "ID.UNNUMBERED"]


def test_chapters_do_not_prefix_articles_and_protocol_items_are_prefixed():
    document = parse("@chapter 2 | CHAPTER II\n\n@article 5\nx\n\n@protocol\n\n@protocol_item 3\ny\n", "x.txt")
    assert document.eids() == ["chp_2", "art_5", "protocol", "protocol__item_3"]
