"""Tests for consolidate.textdiff: tokens, word diff, backends."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consolidate import textdiff
from consolidate.errors import ConsolidateError
from consolidate.textdiff import (
    DiffBackendError,
    DiffStats,
    available_backends,
    backend_name,
    diff_words,
    source_text,
    stats,
    target_text,
    tokenize,
)

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"

# GB9c for Devanagari, written out here independently of the module under test.
CONSONANT = "[\u0915-\u0939\u0958-\u095f\u0978-\u097f]"
LINK_OR_EXTEND = "[\u094d\u0900-\u0902\u093a\u093c\u0941-\u0948\u0951-\u0957\u0962\u0963\u200d]"
CONJUNCT_TAIL = regex.compile(rf"{CONSONANT}{LINK_OR_EXTEND}*\u094d{LINK_OR_EXTEND}*\Z")
CONSONANT_RE = regex.compile(CONSONANT)


def cluster_boundaries(text: str) -> set[int]:
    """Offsets where regex's \\X puts a cluster boundary, ends included."""
    offsets, pos = {0}, 0
    for cluster in regex.findall(r"\X", text):
        pos += len(cluster)
        offsets.add(pos)
    return offsets


def splits_conjunct(text: str, pos: int) -> bool:
    """Whether a boundary at pos separates consonant+virama from the next consonant."""
    return (
        0 < pos < len(text)
        and CONSONANT_RE.match(text, pos) is not None
        and CONJUNCT_TAIL.search(text[:pos]) is not None
    )


def side_boundaries(ops: list[tuple[str, str]], skip: str) -> list[int]:
    """Offsets of op boundaries within one side's text (skip the other side's op)."""
    offsets, pos = [], 0
    for op, text in ops:
        if op == skip:
            continue
        offsets.append(pos)
        pos += len(text)
    offsets.append(pos)
    return offsets


def assert_well_formed(ops: list[tuple[str, str]]) -> None:
    """The documented shape guarantees of diff_words output."""
    for op, text in ops:
        assert op in ("equal", "insert", "delete")
        assert text, ops
    for (op1, _), (op2, _) in zip(ops, ops[1:]):
        assert op1 != op2, ops
        assert (op1, op2) != ("insert", "delete"), ops


def require_fast() -> None:
    """Skip without the fast backend, except in CI where it is a declared test dependency."""
    if "fast" in available_backends():
        return
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail(
            "fast_diff_match_patch is a test dependency (pip install -e '.[test]') but is not importable"
        )
    pytest.skip("fast_diff_match_patch not installed; backend equivalence not checked")


@pytest.fixture
def fast_backend():
    """Runs require_fast once per test, before any hypothesis examples."""
    require_fast()


@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch):
    # A developer's CONSOLIDATE_DIFF_BACKEND must not change what these tests exercise.
    monkeypatch.delenv(textdiff.ENV_VAR, raising=False)


# --- tokenisation ------------------------------------------------------------------------


def test_hindi_sentence_tokens_and_danda():
    assert tokenize("यह करार लागू होगा। पाठ॥") == [
        "यह", " ", "करार", " ", "लागू", " ", "होगा", "।", " ", "पाठ", "॥",
    ]


def test_conjunct_words_are_single_tokens():
    assert tokenize("क्षेत्र प्रतिस्थापित स्त्री") == ["क्षेत्र", " ", "प्रतिस्थापित", " ", "स्त्री"]


def test_nukta_as_two_code_points_stays_in_word():
    # The seed files store ड़ as ड + nukta (U+0921 U+093C).
    assert tokenize("पड़ोसी देश") == ["प\u0921\u093cोसी", " ", "देश"]


def test_numbers_and_labels():
    assert tokenize("अनुच्छेद 12A और 5.1, कुल 1,000 रु.") == [
        "अनुच्छेद", " ", "12A", " ", "और", " ", "5.1", ",", " ", "कुल", " ", "1,000", " ", "रु", ".",
    ]
    # "N.text" without a space and a closing "3." keep the dot separate.
    assert tokenize("1.यह 3. १२.५") == ["1", ".", "यह", " ", "3", ".", " ", "१२.५"]


def test_brackets_and_footnote_markers():
    assert tokenize("¹[समझौते]1 (क)") == ["¹", "[", "समझौते", "]", "1", " ", "(", "क", ")"]


def test_whitespace_runs_are_one_token():
    assert tokenize("a \u00a0\n\n b\tc") == ["a", " \u00a0\n\n ", "b", "\t", "c"]


def test_mixed_hindi_english_tokens():
    assert tokenize("Article 5 अनुच्छेद 5(1)") == [
        "Article", " ", "5", " ", "अनुच्छेद", " ", "5", "(", "1", ")",
    ]


# --- grapheme clusters and the conjunct fallback -----------------------------------------


def test_join_conjuncts_on_pre_gb9c_clusters():
    old = ["क्", "षे", "त्", "र", " ", "स्", "त्", "री"]
    assert textdiff._join_conjuncts(old) == ["क्षे", "त्र", " ", "स्त्री"]


def test_join_conjuncts_respects_zwnj_and_needs_a_consonant():
    # ZWNJ asks for a visible virama: Unicode breaks there, so must we; a bare virama too.
    assert textdiff._join_conjuncts(["क्\u200c", "ष"]) == ["क्\u200c", "ष"]
    assert textdiff._join_conjuncts(["्", "क"]) == ["्", "क"]
    assert textdiff._join_conjuncts(["क्\u200d", "ष"]) == ["क्\u200dष"]


def test_fallback_is_used_when_regex_splits_conjuncts(monkeypatch):
    class PreGB9c:
        """Stands in for a regex build whose \\X splits after a virama."""

        @staticmethod
        def findall(text):
            return ["क्", "षे", "त्", "र"] if text == "क्षेत्र" else list(text)

    monkeypatch.setattr(textdiff, "_CLUSTER", PreGB9c)
    monkeypatch.setattr(textdiff, "_X_KEEPS_CONJUNCTS", False)
    assert textdiff.grapheme_clusters("क्षेत्र") == ["क्षे", "त्र"]
    assert tokenize("क्षेत्र") == ["क्षेत्र"]


# --- literal diffs -----------------------------------------------------------------------


def test_hindi_word_substitution_is_one_delete_and_one_insert():
    a = "यह समझौता भारत में लागू होगा।"
    b = "यह करार भारत में लागू होगा।"
    ops = diff_words(a, b, backend="pure")
    assert ops == [
        ("equal", "यह "),
        ("delete", "समझौता"),
        ("insert", "करार"),
        ("equal", " भारत में लागू होगा।"),
    ]


def test_conjunct_words_change_as_whole_words():
    # Character-level diff would keep the shared prefix "क्षेत्र"/"प्रतिस्थापित" and
    # split inside a cluster; at word level both words are replaced whole.
    ops = diff_words(
        "इस क्षेत्र को प्रतिस्थापित किया", "इन क्षेत्रों को प्रतिस्थापना किया", backend="pure"
    )
    assert ops == [
        ("delete", "इस क्षेत्र"),
        ("insert", "इन क्षेत्रों"),
        ("equal", " को "),
        ("delete", "प्रतिस्थापित"),
        ("insert", "प्रतिस्थापना"),
        ("equal", " किया"),
    ]


def test_danda_change_is_its_own_edit():
    ops = diff_words("यह लागू होगा।", "यह लागू होगा॥", backend="pure")
    assert ops == [("equal", "यह लागू होगा"), ("delete", "।"), ("insert", "॥")]


def test_mixed_hindi_english_numbers():
    a = "अनुच्छेद 12A के paragraph 5.1 में"
    b = "अनुच्छेद 12B के paragraph 5.2 में"
    assert diff_words(a, b, backend="pure") == [
        ("equal", "अनुच्छेद "),
        ("delete", "12A"),
        ("insert", "12B"),
        ("equal", " के paragraph "),
        ("delete", "5.1"),
        ("insert", "5.2"),
        ("equal", " में"),
    ]


def test_english_sentence():
    ops = diff_words(
        "The quick brown fox jumps over the lazy dog.",
        "The quick red fox leaped over the lazy dog.",
        backend="pure",
    )
    assert ops == [
        ("equal", "The quick "),
        ("delete", "brown"),
        ("insert", "red"),
        ("equal", " fox "),
        ("delete", "jumps"),
        ("insert", "leaped"),
        ("equal", " over the lazy dog."),
    ]


def test_inserted_sentence_is_aligned_on_tokens_not_code_points():
    # diff-match-patch's own boundary score reads the encoded characters and would give
    # "the cat sat. the " + <ins>"cat sat. the "</ins>; the token score keeps whole sentences.
    a = "the cat sat. the dog ran."
    ops = diff_words(a, "the cat sat. the cat sat. the dog ran.", backend="pure")
    assert ops == [
        ("equal", "the cat sat."),
        ("insert", " the cat sat."),
        ("equal", " the dog ran."),
    ]


def test_trivial_inputs():
    assert diff_words("", "") == []
    assert diff_words("वही पाठ", "वही पाठ") == [("equal", "वही पाठ")]
    assert diff_words("", "नया पाठ") == [("insert", "नया पाठ")]
    assert diff_words("पुराना", "") == [("delete", "पुराना")]


def test_reconstruction_helpers_and_stats():
    ops = diff_words("यह समझौता भारत में लागू होगा।", "यह नया करार भारत में होगा।", backend="pure")
    assert source_text(ops) == "यह समझौता भारत में लागू होगा।"
    assert target_text(ops) == "यह नया करार भारत में होगा।"
    assert stats(ops) == DiffStats(inserted_words=2, deleted_words=2, unchanged_words=4)


def test_helpers_reject_unknown_ops():
    with pytest.raises(ValueError, match="unknown diff op 'replace'"):
        source_text([("replace", "x")])
    with pytest.raises(ValueError, match="unknown diff op"):
        stats([("equal", "a"), ("moved", "b")])


def test_diff_stats_is_frozen():
    result = stats([("insert", "नया शब्द")])
    with pytest.raises(AttributeError):
        result.inserted_words = 0  # type: ignore[misc]


# --- properties --------------------------------------------------------------------------

DEVANAGARI = (
    [chr(c) for c in range(0x0915, 0x093A)]  # consonants
    + ["\u0958", "\u095c"]  # precomposed nukta consonants
    + [chr(c) for c in range(0x093E, 0x094D)]  # vowel signs
    + ["\u094d"] * 8  # virama, often, so that conjuncts are frequent
    + ["\u093c", "\u0902", "\u0901", "\u0903"]  # nukta, anusvara, candrabindu, visarga
    + ["\u0905", "\u0906", "\u0907", "\u090f"]  # independent vowels
    + ["\u0964", "\u0965"] * 2  # danda, double danda
    + [chr(c) for c in range(0x0966, 0x0970)]  # digits
    + ["\u200c", "\u200d"]  # ZWNJ, ZWJ
)
LATIN = list("abcdexyzABCXYZ0123456789")
SEPARATORS = [" "] * 6 + ["\n", "\t", "\u00a0"] + list(".,;:()[]-\"'")
ALPHABET = DEVANAGARI + LATIN + SEPARATORS

texts = st.text(alphabet=st.sampled_from(ALPHABET), max_size=60)


@st.composite
def text_pairs(draw):
    """Two texts: unrelated, or the second an edited copy of the first."""
    a = draw(texts)
    if draw(st.booleans()):
        return a, draw(texts)
    b = a
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, len(b)))
        end = draw(st.integers(start, min(len(b), start + 8)))
        b = b[:start] + draw(st.text(alphabet=st.sampled_from(ALPHABET), max_size=8)) + b[end:]
    return a, b


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(texts)
def test_tokens_rebuild_text_on_cluster_boundaries(text):
    tokens = tokenize(text)
    assert "".join(tokens) == text
    assert all(tokens)
    allowed = cluster_boundaries(text)
    pos = 0
    for token in tokens:
        assert pos in allowed and not splits_conjunct(text, pos), (text, tokens)
        if "\u0964" in token or "\u0965" in token:
            # A danda is a token of its own (with any marks \X attaches to it).
            assert token[0] in "\u0964\u0965" and len(regex.findall(r"\X", token)) == 1
        pos += len(token)


@PROPERTY
@given(texts)
def test_conjunct_rule_rebuilds_unicode_clusters(text):
    # Simulate a pre-15.1 \X by cutting each cluster where GB9c joined it, then check that
    # the fallback rule restores exactly the clusters of this regex build.
    modern = regex.findall(r"\X", text)
    old = []
    for cluster in modern:
        start = 0
        for pos in range(1, len(cluster)):
            if splits_conjunct(cluster, pos):
                old.append(cluster[start:pos])
                start = pos
        old.append(cluster[start:])
    assert textdiff._join_conjuncts(old) == modern


@PROPERTY
@given(text_pairs())
def test_diff_reconstructs_both_sides_on_cluster_boundaries(pair):
    a, b = pair
    ops = diff_words(a, b, backend="pure")
    assert_well_formed(ops)
    assert source_text(ops) == a
    assert target_text(ops) == b
    for text, skip in ((a, "insert"), (b, "delete")):
        allowed = cluster_boundaries(text)
        for pos in side_boundaries(ops, skip):
            assert pos in allowed and not splits_conjunct(text, pos), (text, ops)
    counts = stats(ops)
    assert counts.deleted_words + counts.unchanged_words == stats([("equal", a)]).unchanged_words
    assert counts.inserted_words + counts.unchanged_words == stats([("equal", b)]).unchanged_words


@pytest.mark.usefixtures("fast_backend")
@settings(max_examples=150, deadline=None)
@given(text_pairs())
def test_backends_agree_on_generated_text(pair):
    a, b = pair
    assert diff_words(a, b, backend="fast") == diff_words(a, b, backend="pure")


# --- backends on the real corpus ---------------------------------------------------------


def seed_paragraphs(prefix: str) -> list[str]:
    """Non-blank lines of the seed file whose name starts with prefix."""
    if not SEEDS.is_dir():
        pytest.fail(
            f"seed corpus not found at {SEEDS}: it must sit beside the repository as shared/seeds"
        )
    matches = sorted(SEEDS.glob(f"{prefix}_*.txt"))
    if not matches:
        pytest.fail(f"seed {prefix} missing from {SEEDS}")
    lines = matches[0].read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()]


def edited_copy(text: str, rng: random.Random, rate: float = 0.05) -> str:
    """Replace, drop or duplicate about rate of the words of text, deterministically."""
    words = text.split(" ")
    out = []
    for word in words:
        roll = rng.random()
        if roll < rate / 3:
            continue
        if roll < 2 * rate / 3:
            out.append(rng.choice(words))
        elif roll < rate:
            out.extend([word, rng.choice(words)])
        else:
            out.append(word)
    return " ".join(out)


def corpus_pairs() -> list[tuple[str, str]]:
    """Paragraph pairs from seeds 000 and 001: consecutive, cross-document, edited copies."""
    p000, p001 = seed_paragraphs("000"), seed_paragraphs("001")
    rng = random.Random(20240611)
    short = [p for p in p000 + p001 if len(p) < 1500]
    pairs = list(zip(p000[:40], p000[1:41]))
    pairs += list(zip(p000[40:70], p001[40:70]))
    pairs += list(zip(p001[:40], p001[1:41]))
    pairs += [(p, edited_copy(p, rng)) for p in short[::5][:80]]
    # The longest paragraph of 000 (the 4,440-character disclaimer) against an edit of it.
    longest = max(p000, key=len)
    pairs.append((longest, edited_copy(longest, rng, rate=0.02)))
    return pairs


def test_backends_agree_on_seed_paragraphs():
    require_fast()
    pairs = corpus_pairs()
    assert len(pairs) > 150
    changed = 0
    for a, b in pairs:
        pure = diff_words(a, b, backend="pure")
        assert diff_words(a, b, backend="fast") == pure, (a[:80], b[:80])
        assert source_text(pure) == a and target_text(pure) == b
        changed += any(op != "equal" for op, _ in pure)
    # Guard against a corpus that silently produced only identical pairs.
    assert changed > 100


def test_backends_agree_on_a_whole_seed_file():
    require_fast()
    original = "\n\n".join(seed_paragraphs("000"))
    edited = edited_copy(original, random.Random(7), rate=0.01)
    pure = diff_words(original, edited, backend="pure")
    assert sum(op != "equal" for op, _ in pure) > 50
    assert diff_words(original, edited, backend="fast") == pure


def test_normalise_enforces_the_documented_shape():
    raw = [
        ("equal", "a"),
        ("insert", "x"),
        ("delete", ""),
        ("delete", "y"),
        ("equal", "b"),
        ("equal", "c"),
        ("insert", ""),
    ]
    expected = [("equal", "a"), ("delete", "y"), ("insert", "x"), ("equal", "bc")]
    assert textdiff._normalise(raw) == expected


# --- backend selection -------------------------------------------------------------------


def test_missing_fast_backend_fails_in_ci_and_skips_elsewhere(monkeypatch):
    monkeypatch.setattr(textdiff, "_fast_dmp", None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="test dependency"):
        require_fast()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        require_fast()


def test_unknown_backend_argument_is_rejected():
    expected = r"unknown diff backend 'turbo' \(from backend argument\)"
    with pytest.raises(DiffBackendError, match=expected):
        diff_words("a", "b", backend="turbo")
    with pytest.raises(ConsolidateError, match="auto, pure, fast"):
        backend_name("Pure")


def test_unknown_backend_from_environment_is_rejected(monkeypatch):
    monkeypatch.setenv(textdiff.ENV_VAR, "turbo")
    with pytest.raises(DiffBackendError, match=f"from environment variable {textdiff.ENV_VAR}"):
        diff_words("a", "b")


def test_forcing_fast_without_the_binding_fails_clearly(monkeypatch):
    monkeypatch.setattr(textdiff, "_fast_dmp", None)
    assert available_backends() == ["pure"]
    assert backend_name() == "pure"
    with pytest.raises(DiffBackendError, match="fast_diff_match_patch is not installed"):
        diff_words("a", "b", backend="fast")
    monkeypatch.setenv(textdiff.ENV_VAR, "fast")
    with pytest.raises(DiffBackendError, match="environment variable"):
        diff_words("a", "b")
    # An explicit argument outranks the environment.
    assert diff_words("a", "b", backend="pure") == [("delete", "a"), ("insert", "b")]


def test_environment_selects_the_engine(monkeypatch):
    require_fast()
    calls = []
    real = textdiff._fast_dmp

    class Spy:
        """Counts calls into the C++ binding."""

        CHAR_WIDTH = real.CHAR_WIDTH

        @staticmethod
        def diff(*args, **kwargs):
            calls.append(kwargs)
            return real.diff(*args, **kwargs)

    monkeypatch.setattr(textdiff, "_fast_dmp", Spy)
    assert backend_name() == "fast"
    diff_words("एक दो", "एक तीन")
    assert calls and calls[-1]["timelimit"] == 0 and calls[-1]["cleanup"] == "No"
    monkeypatch.setenv(textdiff.ENV_VAR, " Pure ")
    assert backend_name() == "pure"
    count = len(calls)
    diff_words("एक दो", "एक चार")
    assert len(calls) == count
