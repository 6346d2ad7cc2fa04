"""Tests for consolidate.importer.devanagari: each stage on literal examples, then seed 002.

Honest measurement: the repair uses the shipped word list (clean seeds 000 and 001 only);
coverage is measured against a vocabulary built here from seeds 003 and 004, which the repair
never sees, and word accuracy against hand-corrected passages in tests/data.
"""

from __future__ import annotations

import difflib
import time
from pathlib import Path

import pytest
import regex
import yaml

from consolidate.importer import devanagari
from consolidate.importer.devanagari import (
    READINGS,
    SUBSTITUTIONS,
    RepairResult,
    WordChange,
    load_vocabulary,
    looks_garbled,
    measure,
    reading_candidates,
    repair,
    repair_word,
    substitute,
    vocabulary_from_texts,
    words,
)

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
GOLD = Path(__file__).resolve().parent / "data" / "devanagari_gold.yaml"
# Line 3 of seed 002 is the whole gazette; its Hindi half ends where the English notification
# begins ("… संयुक्त सजचि MINISTRY OF FINANCE (Department of Revenue) NOTIFICATION …").
HINDI_END = 71787


def seed_text(seed_id: str) -> str:
    """Text of seed ``seed_id``; fails (never skips) when the seeds folder is missing."""
    found = sorted(SEEDS.glob(f"{seed_id}_*.txt"))
    if len(found) != 1:
        pytest.fail(f"seed {seed_id} not found in {SEEDS}: the shared seeds folder must sit "
                    f"beside the repository (../shared/seeds)")
    return found[0].read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def vocabulary() -> frozenset[str]:
    """The shipped word list (seeds 000 and 001)."""
    return load_vocabulary()


@pytest.fixture(scope="module")
def held_out() -> frozenset[str]:
    """Vocabulary of seeds 003 and 004, never seen by the repair."""
    return vocabulary_from_texts(seed_text("003"), seed_text("004"))


@pytest.fixture(scope="module")
def all_clean() -> frozenset[str]:
    """Vocabulary of all four clean Hindi seeds."""
    return vocabulary_from_texts(*(seed_text(s) for s in ("000", "001", "003", "004")))


@pytest.fixture(scope="module")
def line3() -> str:
    """Line 3 of seed 002: the whole gazette, Hindi then English."""
    return seed_text("002").split("\n")[2]


@pytest.fixture(scope="module")
def hindi(line3: str) -> str:
    """The garbled Hindi half of seed 002."""
    return line3[:HINDI_END]


@pytest.fixture(scope="module")
def repaired(hindi: str, vocabulary: frozenset[str]) -> RepairResult:
    """The Hindi half repaired with the shipped word list."""
    return repair(hindi, vocabulary)


def fix(text: str, vocabulary: frozenset[str] | None = None) -> str:
    """Repaired text of a short garbled example (detection forced on)."""
    return repair(text, vocabulary, garbled=True).text


# --------------------------------------------------------------------------- stage 1

@pytest.mark.parametrize(("raw", "meant"), [
    ("ऄन्द्य", "अन्य"),                  # half-na glyph + shifted अ
    ("हस्ट्ताक्षर", "हस्ताक्षर"),          # half-sa glyph
    ("राजकोर्ीय", "राजकोषीय"),           # र् is ष
    ("ऄअआइईउऊ", "अआइईउऊऋ"),           # every shifted independent vowel
    ("जहााँ", "जहाँ"),                    # candrabindu ligature
    ("कुअाँ", "कुआँ"),                    # a-glyph + aa-sign is आ, not shifted twice
    ("केन्द्र", "केन्द्र"),                  # the real न्द्र stays
    ("स्रोत", "स्रोत"),                    # the real स्र stays
])
def test_substitutions(raw: str, meant: str) -> None:
    assert substitute(raw)[0] == meant


def test_substitution_rules_are_named() -> None:
    assert substitute("ऄन्द्य")[1] == ("vowel-shift", "half-na-glyph")
    assert all(rule and pattern for rule, pattern, _ in SUBSTITUTIONS)
    assert set(READINGS) == set("जदरपचिम")


# --------------------------------------------------------------------------- stages 3-4 by rule

@pytest.mark.parametrize(("raw", "meant"), [
    ("जनिासी", "निवासी"),       # ज = i-sign before its cluster, ि = व
    ("जचली", "चिली"),
    ("व्यजक्त", "व्यक्ति"),       # i-sign before a conjunct
    ("दकसी", "किसी"),          # द = wide i-sign before क
    ("ददनांक", "दिनांक"),
    ("प्रदिया", "प्रक्रिया"),     # wide i-sign before ि = क्र
    ("पररहार", "परिहार"),       # र = narrow i-sign before र
    ("माचच", "मार्च"),          # च = reph after its cluster
    ("कायच", "कार्य"),
    ("बीच", "बीच"),            # … but a real च after ī
    ("ऄर्भजत", "अर्जित"),       # र्भ = i-sign with reph
    ("अर्भथक", "आर्थिक"),
    ("जजस", "जिस"),            # word-initial जज
    ("मत्रंालय", "मंत्रालय"),     # anusvara pushed one cluster right
    ("केन्द्र", "केन्द्र"),
])
def test_rule_readings(raw: str, meant: str) -> None:
    assert repair_word(raw) == meant


def test_rule_reading_can_be_overruled_by_the_word_list(vocabulary: frozenset[str]) -> None:
    # ि reads व by rule (1251 of 1512 times in seed 002); the word list picks क्र here.
    assert repair_word("ईपिम") == "उपवम"
    assert repair_word("ईपिम", vocabulary) == "उपक्रम"


def test_candidates_are_ordered_and_consistent() -> None:
    cands = reading_candidates(substitute("जनिासी")[0])
    assert cands[0] == ("निवासी", 0.0)
    assert [c for _, c in cands] == sorted(c for _, c in cands)
    assert "जनवासी" in dict(cands)                     # real ज is a dearer reading
    # ज as the i-sign would put ि and ा on the same ह: impossible, so जहां keeps a real ज
    # (the other reading moves the anusvara one cluster left).
    assert reading_candidates("जहां") == [("जहां", 1.0), ("जंहा", 2.0)]


# --------------------------------------------------------------------------- end to end

@pytest.mark.parametrize(("raw", "meant"), [
    ("ऄन्द्य", "अन्य"), ("हस्ट्ताक्षर", "हस्ताक्षर"), ("जनिासी", "निवासी"), ("दकसी", "किसी"),
    ("पररहार", "परिहार"), ("माचच", "मार्च"), ("ऄनच्ु छेद", "अनुच्छेद"), ("दसू रे", "दूसरे"),
    ("ह।ै", "है।"), ("राजकोर्ीय", "राजकोषीय"), ("ऄर्भजत", "अर्जित"), ("केन्द्र", "केन्द्र"),
])
def test_reference_examples(raw: str, meant: str, vocabulary: frozenset[str]) -> None:
    assert fix(raw, vocabulary) == meant


def test_repair_never_reads_the_gold_file() -> None:
    # The gold passages measure the repair; neither its code nor its word list may know them.
    source = Path(devanagari.__file__).read_text(encoding="utf-8")
    assert "gold" not in source and "tests" not in source


# --------------------------------------------------------------------------- stage 2

@pytest.mark.parametrize(("raw", "meant"), [
    ("ऄनच्ु छेद 1", "अनुच्छेद 1"),       # u-sign pushed past a half consonant, space inside
    ("ह।ै", "है।"),                    # sign behind punctuation
    ("ह,ै जो", "है, जो"),
    ("स.ं 1971", "सं. 1971"),
    ("ह ैं", "हैं"),                    # sign after a space
    ("म ें", "में"),
    ("लाग ूहोगा", "लागू होगा"),          # sign and space swapped
    ("माध् यम", "माध्यम"),              # space after a virama
    ("खण् ड", "खण्ड"),
    ("ऄथ च जचली", "अर्थ चिली"),         # reph after a space
    ("िर्’च’ िब्द", "वर्ष’’ वब्द"),      # reph behind closing quotes (ि = श needs the word list)
    ("ईद भ् ूत होता", "उद्भूत होता"),    # virama pushed, spaces inside
    ("ह।ै च) कोइ", "है। च) कोई"),       # च) is a list label, not a reph
])
def test_joins_by_rule(raw: str, meant: str) -> None:
    assert fix(raw) == meant


@pytest.mark.parametrize(("raw", "meant"), [
    ("दसू रे", "दूसरे"),                # ū pushed one cluster right, across a space
    ("सबं धं", "संबंध"),
    ("हजै सयत", "हैसियत"),              # ai-sign pushed past the next i-sign glyph
    ("संदभ चके ऄनसु ार", "संदर्भ के अनुसार"),  # reph across a space into the next word
    ("िब्द", "शब्द"),                  # ि = श
    ("पहदी", "हिंदी"),                  # प = i-sign with anusvara
    ("समुरी", "समुद्री"),                # र = द्र
    ("ईद्देमय", "उद्देश्य"),              # म = half श
    ("पूिचिती", "पूर्ववर्ती"),            # reph fused with ी, restored from the word list
    ("ितों", "शर्तों"),
    ("जबदक", "जबकि"),
])
def test_choices_by_vocabulary(raw: str, meant: str, vocabulary: frozenset[str]) -> None:
    assert fix(raw, vocabulary) == meant


def test_changes_name_their_rules(vocabulary: frozenset[str]) -> None:
    result = repair("ऄनच्ु छेद 1 दकसी ह।ै", vocabulary, garbled=True)
    assert result.text == "अनुच्छेद 1 किसी है।"
    assert [c.raw for c in result.changes] == ["ऄनच्ु छेद", "दकसी", "ह।ै"]
    anuc, kisi, hai = result.changes
    assert anuc.offset_in_raw == 0 and kisi.offset_in_raw == 12 and hai.offset_in_raw == 17
    assert "substitute:vowel-shift" in anuc.rule and "join:virama-gap" in anuc.rule
    assert "reorder:sign-past-half-consonant" in anuc.rule
    assert "reorder:i-sign-before-cluster" in kisi.rule
    assert hai == WordChange(17, "ह।ै", "है।", "join:sign-behind-punctuation")
    stages = {"substitute", "join", "reorder", "choose"}
    assert all(part.split(":")[0] in stages for c in result.changes for part in c.rule.split("+"))


# --------------------------------------------------------------------------- leaving things alone

def test_clean_hindi_passes_through(vocabulary: frozenset[str]) -> None:
    for seed_id in ("000", "001", "003", "004"):
        text = seed_text(seed_id)
        assert not looks_garbled(text)
        result = repair(text, vocabulary)
        assert result.text == text and result.changes == () and not result.garbled


def test_forced_repair_of_clean_words(vocabulary: frozenset[str]) -> None:
    # Words whose letters read the same in the garbled font stay put even when forced …
    text = "केन्द्र सरकार राज्य करार के"
    assert repair(text, vocabulary, garbled=True).changes == ()
    # … but in that font ि is the glyph of व and अ stands for आ, so clean लिए and अनुसार would
    # be misread.  That is why repair() only touches lines that look garbled (see above).
    forced = repair("लिए अनुसार", vocabulary, garbled=True)
    assert [c.raw for c in forced.changes] == ["लिए", "अनुसार"]
    assert repair("लिए अनुसार", vocabulary).changes == ()


def test_latin_digits_and_punctuation_untouched(vocabulary: frozenset[str]) -> None:
    text = "Income-tax Act, 1961 (43 of 1961); S.O. 2059(E) — ‘‘Sd/-’’ 10% [PART II—SEC. 3(ii)]"
    assert fix(text, vocabulary) == text
    mixed = "ह ै Section 3(ii) of 2023, ऄथिा 2."
    assert fix(mixed, vocabulary) == "है Section 3(ii) of 2023, अथवा 2."


def test_english_half_keeps_every_non_devanagari_character(line3: str,
                                                          vocabulary: frozenset[str]) -> None:
    letters = regex.compile(r"[\u0900-\u0963\u0971-\u097f\s]")
    out = repair(line3, vocabulary).text
    # Only Devanagari letters and spaces may change; every other character keeps its order.
    assert letters.sub("", out) == letters.sub("", line3)
    assert out[-2000:] == line3[-2000:]  # the English tail has no Devanagari at all


# --------------------------------------------------------------------------- seed 002

def test_hindi_half_boundary(line3: str) -> None:
    # The first English word after the Hindi signature block; nothing Latin-worded before it
    # except page headers, and only page headers' Devanagari after it.
    assert line3.index("MINISTRY OF FINANCE") == HINDI_END
    assert line3[:HINDI_END].endswith("संयुक्त सजचि ")
    assert not regex.search(r"[A-Za-z]{4,}", line3[HINDI_END - 400:HINDI_END])
    assert looks_garbled(line3[:HINDI_END])


def test_word_list_is_built_from_seeds_000_and_001_only(vocabulary: frozenset[str]) -> None:
    lines = (Path(__file__).resolve().parents[1] / "consolidate" / "data"
             / "hindi_words.txt").read_text(encoding="utf-8").splitlines()
    assert lines == sorted(set(lines))
    assert vocabulary == vocabulary_from_texts(seed_text("000"), seed_text("001"))


def test_measure_counts_devanagari_words() -> None:
    assert measure("के लिए abc 12 ऄथिा", frozenset({"के", "लिए"})) == pytest.approx(2 / 3)
    assert measure("no hindi", frozenset({"के"})) == 0.0
    assert words("है। ह,ै") == ["है", "ह", "ै"]


def test_coverage_on_seed_002(hindi: str, repaired: RepairResult, held_out: frozenset[str],
                              all_clean: frozenset[str]) -> None:
    before = measure(hindi, all_clean)
    # Measured 48.6% before repair (the reference says about 49%).
    assert 0.40 < before < 0.60
    # Measured after repair: 88.2% on the held-out vocabulary (seeds 003, 004) and 95.9% on all
    # four clean seeds (46.8% and 48.6% before).  The hand-corrected gold passages themselves
    # reach only 90.3% and 96.2% on those vocabularies (proper names, words the clean seeds
    # never use), so the floors sit about two points below what the repair achieves.
    assert measure(repaired.text, held_out) > 0.86
    assert measure(repaired.text, all_clean) > 0.94
    assert repaired.garbled and "machine-repaired" in repaired.notice


def test_rules_alone_on_seed_002(hindi: str, held_out: frozenset[str]) -> None:
    # Without any word list: measured 82.4% on the held-out vocabulary (46.8% before); spaces
    # inside words are then closed only where a rule proves it.
    assert measure(repair(hindi).text, held_out) > 0.80


def output_span(result: RepairResult, start: int, end: int) -> str:
    """The repaired text of raw[start:end], widened to whole changed words at either end."""
    shift = 0
    out_start = out_end = None
    for c in result.changes:
        a, b = c.offset_in_raw, c.offset_in_raw + len(c.raw)
        if out_start is None and b > start:
            out_start = (a if a <= start else start) + shift
        if out_end is None and b >= end:
            out_end = (a + shift + len(c.repaired)) if a < end else end + shift
        shift += len(c.repaired) - len(c.raw)
    out_start = start + shift if out_start is None else out_start
    out_end = end + shift if out_end is None else out_end
    return result.text[out_start:out_end]


def gold_accuracy(result: RepairResult) -> float:
    """Share of gold words the repair reproduces exactly (aligned passage by passage)."""
    total = hit = 0
    for g in yaml.safe_load(GOLD.read_text(encoding="utf-8")):
        want = words(g["corrected"])
        got = words(output_span(result, g["offset"], g["offset"] + len(g["raw"])))
        match = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
        total += len(want)
        hit += sum(block.size for block in match.get_matching_blocks())
    return hit / total


def test_gold_file(line3: str) -> None:
    gold = yaml.safe_load(GOLD.read_text(encoding="utf-8"))
    assert len(gold) >= 12
    for g in gold:
        assert line3[g["offset"]:g["offset"] + len(g["raw"])] == g["raw"]
        assert g["offset"] + len(g["raw"]) <= HINDI_END
        assert looks_garbled(g["raw"]) and not looks_garbled(g["corrected"])
    assert sum(len(words(g["corrected"])) for g in gold) > 600


def test_gold_word_accuracy(repaired: RepairResult, hindi: str) -> None:
    # Measured 99.5% of 743 gold words with the shipped word list (misses: एतस्मिन, पूर्णतया,
    # पारदर्शी, none of them in seeds 000/001); 92.1% with rules alone.  Floors ~2 points below.
    assert gold_accuracy(repaired) > 0.97
    assert gold_accuracy(repair(hindi)) > 0.90


def test_changes_point_into_the_raw_text(hindi: str, repaired: RepairResult) -> None:
    assert repaired.raw == hindi
    assert len(repaired.changes) > 4000
    for c in repaired.changes:
        assert hindi[c.offset_in_raw:c.offset_in_raw + len(c.raw)] == c.raw
        assert c.repaired != c.raw and c.rule


def test_deterministic_and_quick_enough(hindi: str, repaired: RepairResult) -> None:
    again = repair(hindi, frozenset(load_vocabulary()))  # an equal, separate word list
    assert again == repaired
    started = time.perf_counter()
    repair(hindi, load_vocabulary())
    elapsed = time.perf_counter() - started
    # No timing assertion (machines differ); about 0.5 s on one core when measured.
    print(f"repair of {len(hindi)} characters took {elapsed:.2f} s")
