"""Repair Devanagari that a PDF extractor garbled through a wrong legacy-font table.

Gazette PDFs (seed 002) come out glyph by glyph, in visual order, through a wrong
glyph-to-Unicode table.  ``repair`` undoes that in four named stages, each a table or a small
documented function:

1. **substitute** (``SUBSTITUTIONS``): context-free code-point fixes (shifted independent
   vowels, ``र्`` = ष, ``न्द्`` = न्, ``स्ट्`` = स्, the ``र्भ`` i-sign-plus-reph glyph).
2. **join** (``_Joiner``): removes spaces the extractor put inside words and moves signs that
   landed behind punctuation (``ह।ै`` = है।) or behind a space (``स ेप्रकाजित`` = से प्रकाशित);
   other spaces inside words (``सबं धं`` = संबंध) are closed only when the vocabulary says so.
3. **reorder** (``_apply``): turns visual order into logical order: the i-sign written
   before its cluster, the reph written after it, u/ū/e/ai/anusvara signs pushed one cluster
   right, a sign or virama pushed past a half consonant.
4. **choose** (``READINGS``): per word, the letters ज द र प च ि म and the pushed signs are
   ambiguous; every consistent combination of readings is assembled and the cheapest reading
   found in the vocabulary wins; else a reading whose reph fused with ी/े/ो is restored by the
   vocabulary; else the rule-based reading (cheapest by the costs below, near-ties broken by
   the vocabulary's letter-trigram statistics).

Vocabulary split (honest measurement): the shipped word list ``hindi_words`` is built from the
clean seeds 000 and 001 only (``benchmarks/build_hindi_wordlist.py``); coverage is measured
against a vocabulary built from seeds 003 and 004, which the repair never sees.  The output is
machine-repaired; the English text of the same treaty prevails.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import regex

__all__ = [
    "READINGS",
    "SUBSTITUTIONS",
    "RepairResult",
    "WordChange",
    "garbled_score",
    "load_vocabulary",
    "looks_garbled",
    "measure",
    "reading_candidates",
    "repair",
    "repair_word",
    "substitute",
    "vocabulary_from_texts",
    "words",
]

# --------------------------------------------------------------------------- characters

VIRAMA = "\u094d"
NUKTA = "\u093c"
I_SIGN = "\u093f"
ANUSVARA = "\u0902"
REPH = "र" + VIRAMA
# Private-use marker for the र्भ glyph (i-sign with a reph on top) between stages 1 and 3.
I_REPH_MARK = "\ue000"

# Dependent vowel signs other than the i-sign, which this font never emits as a sign.
MATRAS = frozenset("\u093a\u093b\u093e\u0940\u0941\u0942\u0943\u0944\u0945\u0946\u0947\u0948"
                   "\u0949\u094a\u094b\u094c\u094e\u094f\u0955\u0956\u0957\u0962\u0963")
MODIFIERS = frozenset("\u0900\u0901\u0902\u0903")  # candrabindu, anusvara, visarga
# Signs the extractor often places one cluster too far right (u, ū, e, ai, anusvara).
PUSHABLE = frozenset("\u0941\u0942\u0947\u0948\u0902")
# Below-signs that can arrive after a virama drawn under the preceding consonant (द्भू).
BELOW_SIGNS = frozenset("\u0941\u0942")
# Closing punctuation a sign can land behind (ह।ै = है।, ह,ै = है,, िर्’च’ = वर्ष’’).
CLOSING_PUNCTUATION = frozenset(",;:।॥)’”\"'.?!]")

_WORD_RE = regex.compile(r"[\u0900-\u0963\u0971-\u097f]+")
_SIGN_RUN_RE = regex.compile(r"[\u0900-\u0903\u093a-\u093e\u0940-\u094f\u0955-\u0957\u0962\u0963]+")


def _is_consonant(ch: str) -> bool:
    """True for a Devanagari consonant letter (nukta forms included)."""
    return "\u0915" <= ch <= "\u0939" or "\u0958" <= ch <= "\u095f" or "\u0979" <= ch <= "\u097f"


def _is_vowel(ch: str) -> bool:
    """True for an independent Devanagari vowel letter."""
    return "\u0904" <= ch <= "\u0914" or ch in "\u0960\u0961" or "\u0972" <= ch <= "\u0977"


def _consonant_like(ch: str) -> bool:
    """A glyph that starts a consonant cluster in garbled text (ि stands for व/श/क्र)."""
    return _is_consonant(ch) or ch == I_SIGN or ch == I_REPH_MARK


def words(text: str) -> list[str]:
    """Devanagari words of ``text`` (runs of letters and signs), NFC-normalised."""
    return [unicodedata.normalize("NFC", w) for w in _WORD_RE.findall(text)]


# --------------------------------------------------------------------------- stage 1

# (rule, pattern, replacement).  One alternation, tried in this order at each position.
SUBSTITUTIONS: tuple[tuple[str, str, str], ...] = (
    # The aa-sign with candrabindu is one glyph extracted as two aa-signs: जहााँ = जहाँ.
    ("candrabindu-ligature", "ााँ", "ाँ"),
    # The a-glyph followed by an aa-sign is आ written in two pieces (कुअाँ = कुआँ); not shifted.
    ("aa-ligature", "अा", "आ"),
    # i-sign with a reph on top, one glyph: ऄर्भजत = अर्जित, अर्भथक = आर्थिक.
    ("i-reph-glyph", "र्भ", I_REPH_MARK),
    # Half-na glyph is mapped to न्द्; the real न्द्र (केन्द्र) is kept.
    ("half-na-glyph", "न्द्(?!र)", "न्"),
    # Half-sa glyph is mapped to स्ट्; the real स्ट्र/स्र is kept.
    ("half-sa-glyph", "स्ट्(?!र)", "स्"),
    # The ssa glyph is mapped to र् (राजकोर्ीय = राजकोषीय); the real reph comes out as च.
    ("ssa-glyph", "र्", "ष"),
    # Independent vowels are shifted by one code point (ऄ = अ … ऊ = ऋ).
    ("vowel-shift", "ऄ", "अ"),
    ("vowel-shift", "अ", "आ"),
    ("vowel-shift", "आ", "इ"),
    ("vowel-shift", "इ", "ई"),
    ("vowel-shift", "ई", "उ"),
    ("vowel-shift", "उ", "ऊ"),
    ("vowel-shift", "ऊ", "ऋ"),
)
_SUB_RE = regex.compile("|".join(f"({p})" for _, p, _ in SUBSTITUTIONS))


def substitute(word: str) -> tuple[str, tuple[str, ...]]:
    """Stage 1: apply ``SUBSTITUTIONS`` to one raw word; return the text and the rules used."""
    used: list[str] = []

    def one(m: regex.Match) -> str:
        rule, _, replacement = SUBSTITUTIONS[m.lastindex - 1]
        if rule not in used:
            used.append(rule)
        return replacement

    return _SUB_RE.sub(one, word), tuple(used)


# --------------------------------------------------------------------------- detection

# Patterns that never occur in correctly encoded Hindi (checked on the clean seeds).
GARBLE_SIGNATURES: tuple[tuple[str, str], ...] = (
    ("short-a", "ऄ"),  # U+0904 is not used in Hindi; it is the shifted अ
    ("sign-after-virama", "र्(?=[\u093e-\u094c])"),  # राजकोर्ीय: a vowel sign after र्
    ("half-sa-glyph", "स्ट्(?!र)"),
    ("half-na-glyph", "न्द्(?!र)"),
    ("sign-after-gap", "(?<=[\\s,;:।)’”])[\u0901-\u0903\u093e\u0940-\u094d]"),  # ह ै, ह।ै
    ("orphan-i-sign", "(?<![\u0915-\u0939\u0958-\u095f\u093c])\u093f"),  # िह = वह
    ("i-sign-then-sign", "\u093f[\u093e-\u094c\u0901]"),  # िा = वा
    ("wide-i-sign-first", "(?<![\u0900-\u097f])दक(?![\u094d\u093c])"),  # दकसी = किसी (not दक्ष)
    ("i-sign-before-ja", "(?<![\u0900-\u097f])जज(?=[\u0915-\u0939])"),  # जजस = जिस (not जजों)
)
_SIGNATURE_RE = regex.compile("|".join(f"(?:{p})" for _, p in GARBLE_SIGNATURES))


def garbled_score(text: str) -> float:
    """Garble signatures per Devanagari word (0.0 for clean Hindi, about 0.27 in seed 002)."""
    n = len(_WORD_RE.findall(text))
    return len(_SIGNATURE_RE.findall(text)) / n if n else 0.0


def looks_garbled(text: str) -> bool:
    """True if ``text`` carries legacy-font damage (a signature on at least 2% of words)."""
    return garbled_score(text) >= 0.02


# --------------------------------------------------------------------------- stage 4 table

# Readings of the ambiguous glyphs: letter -> ((action, cost, rule), ...).  The cost is the
# rule-based preference (0 = default), set from counts on seed 002 over words with exactly one
# reading in the clean seeds: ज before a consonant was the i-sign 1729 times and a real ज 397
# times; ि was व 1251, श 216, क्र 34, ष्ट 10 and ष्ठ once; म before a consonant was म 228 and
# half श 14 times; a pushed ू moved back 147 times in 471, ु 44/343, ै 25/477, ं 39/2113.
READINGS: dict[str, tuple[tuple[tuple, float, str], ...]] = {
    # ज is the usual i-sign glyph drawn before its cluster (जचली = चिली); else a real ज.
    "ज": ((("I", "ज"), 0.0, "i-sign-before-cluster"), (("C", "ज"), 1.0, "real-ja")),
    # द is the wide i-sign before क, द, फ, क्र (दकसी = किसी, ददनांक = दिनांक); else द.
    "द": ((("I", "द"), 0.0, "i-sign-before-cluster"), (("C", "द"), 1.0, "real-da")),
    # र is the narrow i-sign before र, ट, ठ (पररहार = परिहार); else र, rarely द्र (समुर).
    "र": ((("I", "र"), 0.0, "i-sign-before-cluster"), (("C", "र"), 1.0, "real-ra"),
          (("C", "द्र"), 3.0, "dra-glyph")),
    # प is mostly a real प; rarely the i-sign with anusvara (पहदी = हिंदी).
    "प": ((("C", "प"), 0.0, "real-pa"), (("I", "प"), 2.0, "i-anusvara-glyph")),
    # च after a cluster is often the reph (माचच = मार्च, कायच = कार्य); else a real च.
    "च": ((("C", "च"), 0.0, "real-ca"), (("R", 1), 0.0, "reph-after-cluster"),
          (("R", 2), 1.5, "reph-pushed")),
    # ि (U+093F) is not the i-sign here but the glyph of व, also श, क्र, rarely ष्ट or ष्ठ
    # (जनिासी = निवासी, िब्द = शब्द, ईपिम = उपक्रम, व्यजि = व्यष्टि, घजनि = घनिष्ठ).
    I_SIGN: ((("C", "व"), 0.0, "va-glyph"), (("C", "श"), 1.0, "sha-glyph"),
             (("C", "क्र"), 1.5, "kra-glyph"), (("C", "ष्ट"), 3.0, "shta-glyph"),
             (("C", "ष्ठ"), 3.0, "shtha-glyph")),
    # म before a consonant is sometimes a half श or स (उद्देमय = उद्देश्य, एतजममन = एतस्मिन).
    "म": ((("C", "म"), 0.0, "real-ma"), (("C", "श्"), 2.0, "half-sha-glyph"),
          (("C", "स्"), 2.5, "half-sa-glyph")),
}
# Sign placements: stay on the cluster it follows, move one cluster left, or (for u/ū after
# a virama) give the virama back to the preceding consonant (ईदभ्ूत = उद्भूत).
SIGN_STAY, SIGN_MOVE, SIGN_VIRAMA_BACK = 0, 1, 2
SIGN_COSTS = {SIGN_STAY: 0.0, SIGN_MOVE: 1.0, SIGN_VIRAMA_BACK: 1.5}
E_SIGN_MOVE_COST = 1.5  # the e-sign is pushed less often than u, ū, ai and anusvara
KRA_AFTER_WIDE_I = 0.5  # ि right after द (wide i-sign) is क्र, not व
# The i-sign glyph is chosen by the width of the consonant it stands before.
WIDE_I_SIGN_CLUSTERS = frozenset({"क", "द", "फ", "क्र"})  # drawn with द
NARROW_I_SIGN_CLUSTERS = frozenset({"र", "ट", "ठ"})  # drawn with र
I_SIGN_MISMATCH_COST = 2.0
# Costs of (real च, reph) by position, from counts on seed 002 where exactly one reading was a
# clean-seed word: word-final after a consonant or ā the reph won 118 to 0 (कायच, कताच); after
# ī, u, e, o or anusvara the real च won 23 to 1 (बीच, पांच); inside a word after a consonant
# the reph won 54 to 39 (ऄंतगचत against सूचना), after a vowel sign it was a tie, 27 to 27.
CA_COSTS = {
    "final": (1.0, 0.0),
    "final-after-vowel-sign": (0.0, 1.0),
    "medial": (0.5, 0.0),
    "medial-after-vowel-sign": (0.0, 0.5),
}
# The vowel signs and modifier after which a word-final च is real: ी ु ू े ै ो ौ ं.
REAL_CA_FINAL_AFTER = frozenset("\u0940\u0941\u0942\u0947\u0948\u094b\u094c\u0902")
MAX_READINGS = 2048  # above this many combinations the dearest alternatives are dropped first
READING_BUDGET = 5.0  # readings dearer than the cheapest conceivable one by more are skipped


def _options(t: str) -> list[tuple[tuple[tuple, float], ...]]:
    """The possible actions for each glyph of a stage-1 word, with their costs."""
    out: list[tuple[tuple[tuple, float], ...]] = []
    n = len(t)
    for k, ch in enumerate(t):
        nx = t[k + 1] if k + 1 < n else ""
        pv = t[k - 1] if k else ""
        # The cluster an i-sign glyph stands before may be preceded by a pushed sign (हजै सयत).
        nx2 = t[k + 2] if nx and (nx in MATRAS or nx in MODIFIERS) and k + 2 < n else nx
        opts: tuple[tuple[tuple, float], ...]
        if ch in ("ज", "द", "र", "प") and _consonant_like(nx2) and nx2 != I_REPH_MARK:
            cands = READINGS[ch]
            if ch == "द" and nx2 not in "कदफ" + I_SIGN:
                cands = tuple(c for c in cands if c[0][0] != "I")
            if ch == "र" and nx2 not in "रटठ":
                cands = tuple(c for c in cands if c[0][0] != "I")
            opts = tuple((c[0], c[1]) for c in cands)
            if ch == "ज" and k == 0 and nx == "ज":
                # Word-initial जज is the i-sign before a real ज (जजस = जिस, जजन = जिन).
                opts = tuple((a, c + 0.5 if a[0] == "C" else c) for a, c in opts)
        elif ch == "र":
            opts = tuple((c[0], c[1]) for c in READINGS["र"] if c[0][0] != "I")
        elif ch == "च" and k > 0 and pv != I_REPH_MARK and (
            _consonant_like(pv) or pv in MATRAS or pv in MODIFIERS or pv == NUKTA
        ) and nx not in MATRAS and nx not in MODIFIERS and nx not in (VIRAMA, NUKTA):
            real, reph, pushed = READINGS["च"]
            if not nx:
                where = "final-after-vowel-sign" if pv in REAL_CA_FINAL_AFTER else "final"
            else:
                where = "medial-after-vowel-sign" if pv in MATRAS else "medial"
            real_cost, reph_cost = CA_COSTS[where]
            opts = ((real[0], real_cost), (reph[0], reph_cost), (pushed[0], pushed[1]))
        elif ch == "च" and k > 1 and nx == "ा" and _consonant_like(pv):
            # ऄहतच ा = अर्हता: a reph pushed past the next cluster but not past its aa-sign.
            real, _, pushed = READINGS["च"]
            opts = ((real[0], real[1]), (pushed[0], 2.0))
        elif ch == I_SIGN:
            opts = tuple((c[0], c[1]) for c in READINGS[I_SIGN])
            if pv == "द":  # the wide i-sign glyph stands before क्र: प्रदिया = प्रक्रिया
                opts = tuple((a, KRA_AFTER_WIDE_I if a[1] == "क्र" else c) for a, c in opts)
        elif ch == "म" and _consonant_like(nx):
            opts = tuple((c[0], c[1]) for c in READINGS["म"])
        elif _is_consonant(ch):
            opts = ((("C", ch), 0.0),)
        elif ch == I_REPH_MARK:
            opts = ((("IR", ""), 0.0),)
        elif ch == VIRAMA:
            opts = ((("H", ""), 0.0),)
        elif ch == NUKTA:
            opts = ((("N", ""), 0.0),)
        elif _is_vowel(ch):
            opts = ((("V", ch), 0.0),)
        elif ch in MATRAS or ch in MODIFIERS:
            if pv == VIRAMA:
                opts = ((("S", ch, SIGN_MOVE), 0.0),)
                if ch in BELOW_SIGNS:
                    opts += ((("S", ch, SIGN_VIRAMA_BACK), SIGN_COSTS[SIGN_VIRAMA_BACK]),)
            elif ch in PUSHABLE and (_consonant_like(pv) or pv == NUKTA or _is_vowel(pv)
                                     or pv in MATRAS or pv in MODIFIERS):
                move = E_SIGN_MOVE_COST if ch == "\u0947" else SIGN_COSTS[SIGN_MOVE]
                opts = ((("S", ch, SIGN_STAY), 0.0), (("S", ch, SIGN_MOVE), move))
            else:
                opts = ((("S", ch, SIGN_STAY), 0.0),)
        else:
            opts = ((("L", ch), 0.0),)
        out.append(opts)
    return out


# --------------------------------------------------------------------------- stage 3

def _expected_i_glyph(cluster: str) -> str:
    """The garbled letter the font uses for an i-sign before ``cluster`` (ज, द or र)."""
    bare = cluster.replace(NUKTA, "")
    if bare in WIDE_I_SIGN_CLUSTERS:
        return "द"
    if bare in NARROW_I_SIGN_CLUSTERS:
        return "र"
    return "ज"


# A syllable under construction: [reph, cluster, i-glyph, vowel sign, modifiers, is an
# independent vowel, cluster still open (ends in a virama)].
_REPH, _CLUSTER, _I, _MATRA, _MODS, _VOWEL, _OPEN = range(7)
_NO_PENDING = ("", False)  # (i-sign glyph waiting for its cluster, reph waiting with it)


def _apply(syls: list[list], pend: tuple[str, bool], a: tuple, note=None):
    """Stage 3, one visual-order action: update ``syls``; return the new pending state or None.

    None means the reading is impossible (two vowel signs on a syllable, an i-sign with no
    cluster after it, a sign on a half consonant, …).
    """
    op = a[0]
    pend_i, pend_reph = pend
    if op == "C":
        c = a[1]
        if pend_i or pend_reph:
            if syls and syls[-1][_OPEN]:
                return None
            syls.append([pend_reph, c, pend_i, "", ANUSVARA if pend_i == "प" else "",
                         False, c.endswith(VIRAMA)])
            return _NO_PENDING
        if syls and syls[-1][_OPEN]:
            s = syls[-1]
            s[_CLUSTER] += c
            s[_OPEN] = c.endswith(VIRAMA)
        else:
            syls.append([False, c, "", "", "", False, c.endswith(VIRAMA)])
        return pend
    if op == "I":
        # The i-sign is drawn before its cluster: hold it until the cluster arrives.
        if pend_i or pend_reph:
            return None
        if note:
            note("i-anusvara-glyph" if a[1] == "प" else "i-sign-before-cluster")
        return (a[1], False)
    if op == "IR":
        if pend_i or pend_reph:
            return None
        if note:
            note("i-reph-glyph")
        return (I_REPH_MARK, True)
    if op == "R":
        # The reph is drawn over the end of its cluster, so it follows the cluster and its
        # vowel sign; sometimes it is pushed one cluster further (ऄहतच ा = अर्हता).  A reph on
        # a cluster with the i-sign is always the र्भ glyph, never च.
        if pend_i or pend_reph or len(syls) < a[1] or syls[-1][_OPEN]:
            return None
        s = syls[-a[1]]
        if s[_VOWEL] or s[_OPEN] or s[_REPH] or s[_I]:
            return None
        s[_REPH] = True
        if note:
            note("reph-after-cluster" if a[1] == 1 else "reph-pushed")
        return pend
    if op == "H":
        if pend_i or pend_reph or not syls:
            return None
        s = syls[-1]
        if s[_VOWEL] or s[_OPEN] or s[_MATRA] or s[_MODS]:
            return None
        s[_CLUSTER] += VIRAMA
        s[_OPEN] = True
        return pend
    if op == "N":
        if not syls or syls[-1][_VOWEL]:
            return None
        syls[-1][_CLUSTER] += NUKTA
        return pend
    if op == "S":
        return _apply_sign(syls, pend, a[1], a[2], note)
    # "V" independent vowel, "L" anything else: a syllable of its own.
    if pend_i or pend_reph or (syls and syls[-1][_OPEN]):
        return None
    syls.append([False, a[1], "", "", "", True, False])
    return pend


def _apply_sign(syls: list[list], pend: tuple[str, bool], ch: str, mode: int, note):
    """Attach a vowel sign or modifier to the syllable it was drawn on (see ``_apply``)."""
    if not syls:
        return None
    last = syls[-1]
    if pend[0] or pend[1]:
        # A sign drawn on the previous cluster lands behind the next i-sign glyph (हजै = है…).
        if mode != SIGN_STAY or last[_OPEN]:
            return None
        tgt = last
        if note:
            note("sign-past-i-sign")
    elif last[_OPEN]:
        # A sign cannot sit on a half consonant: it belongs one cluster left (नच्ु छेद) …
        if mode == SIGN_STAY or len(syls) < 2:
            return None
        if mode == SIGN_MOVE:
            tgt = syls[-2]
            if note:
                note("sign-past-half-consonant")
        else:  # … or the virama belongs to the consonant before (दभ्ू = द्भू).
            prev = syls[-2]
            if prev[_VOWEL] or prev[_OPEN] or prev[_I] or prev[_MATRA] or prev[_MODS] \
                    or last[_REPH] or last[_I]:
                return None
            prev[_CLUSTER] += VIRAMA + last[_CLUSTER][:-1]
            syls.pop()
            tgt = prev
            if note:
                note("virama-pushed")
    elif mode == SIGN_MOVE:
        # u, ū, e, ai and anusvara are often drawn one cluster too far right (दसू रे = दूसरे).
        if len(syls) < 2:
            return None
        tgt = syls[-2]
        if note:
            note("pushed-sign")
    else:
        tgt = last
    if tgt[_OPEN]:
        return None
    if ch in MODIFIERS:
        if ch in tgt[_MODS]:
            return None
        tgt[_MODS] += ch
    else:
        # One vowel sign per syllable, never on an independent vowel, never after a
        # modifier (the anusvara is drawn over the vowel sign, so it comes later).
        if tgt[_VOWEL] or tgt[_MATRA] or tgt[_I] or tgt[_MODS]:
            return None
        tgt[_MATRA] += ch
    return pend


def _serialise(syls: list[list]) -> tuple[str, float]:
    """Logical-order text of finished syllables, and the penalty for ill-fitting i-glyphs."""
    penalty = 0.0
    parts = []
    for s in syls:
        if s[_I] in ("ज", "द", "र") and s[_I] != _expected_i_glyph(s[_CLUSTER]):
            penalty += I_SIGN_MISMATCH_COST
        parts.append((REPH if s[_REPH] else "") + s[_CLUSTER] + (I_SIGN if s[_I] else "")
                     + s[_MATRA] + s[_MODS])
    return "".join(parts), penalty


def _assemble(actions, trace: list[str] | None = None) -> tuple[str, float] | None:
    """Stage 3 for a whole word: logical text and i-glyph penalty, or None if impossible."""
    syls: list[list] = []
    pend = _NO_PENDING
    note = trace.append if trace is not None else None
    for a in actions:
        pend = _apply(syls, pend, a, note)
        if pend is None:
            return None
    if pend != _NO_PENDING:
        return None
    return _serialise(syls)


def reading_candidates(word: str) -> list[tuple[str, float]]:
    """All readings of one stage-1 word as (text, cost), cheapest first (ties by text)."""
    return [(t, c) for t, c, _ in _readings(word)]


def _readings(word: str) -> list[tuple[str, float, tuple]]:
    """Readings of a stage-1 word with the actions that produced them, cheapest first.

    Depth-first over the ambiguous glyphs, sharing the assembled prefix and dropping a
    branch as soon as it is impossible.
    """
    opts = _options(word)
    # Keep the number of combinations bounded: drop the dearest alternatives first.
    limit = 3.0
    while limit >= 0:
        total = 1
        for o in opts:
            total *= len(o)
        if total <= MAX_READINGS:
            break
        opts = [tuple(x for x in o if x[1] < limit) or o[:1] for o in opts]
        limit -= 0.5
    n = len(opts)
    best: dict[str, tuple[float, tuple]] = {}
    # Cheapest cost still to come from position k on; a branch more than READING_BUDGET above
    # the cheapest conceivable reading is not explored.
    rest = [0.0] * (n + 1)
    for k in range(n - 1, -1, -1):
        rest[k] = rest[k + 1] + min(c for _, c in opts[k])
    ceiling = rest[0] + READING_BUDGET

    chosen = [o[0][0] for o in opts]  # the action taken at each position on this branch

    def walk(k: int, syls: list[list], pend, cost: float) -> None:
        while k < n and len(opts[k]) == 1:
            act, c = opts[k][0]
            pend = _apply(syls, pend, act)
            if pend is None:
                return
            cost += c
            k += 1
        if cost + rest[k] > ceiling:
            return
        if k == n:
            if pend != _NO_PENDING:
                return
            text, penalty = _serialise(syls)
            cost += penalty
            prev = best.get(text)
            if prev is None or cost < prev[0]:
                best[text] = (cost, tuple(chosen))
            return
        for act, c in opts[k]:
            # Actions change only the last two syllables (after merging one away at most, the
            # last three): copy those, share the rest.
            branch = syls[:-3] + [s[:] for s in syls[-3:]]
            p2 = _apply(branch, pend, act)
            if p2 is not None:
                chosen[k] = act
                walk(k + 1, branch, p2, cost + c)

    walk(0, [], _NO_PENDING, 0.0)
    return sorted(((t, c, a) for t, (c, a) in best.items()), key=lambda x: (x[1], x[0]))


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class WordChange:
    """One repaired word: where it was in the raw text, before, after, and the rules used."""

    offset_in_raw: int
    raw: str
    repaired: str
    rule: str


@dataclass(frozen=True)
class RepairResult:
    """Repaired text, the raw text, and one ``WordChange`` per changed word."""

    text: str
    raw: str
    changes: tuple[WordChange, ...]
    garbled: bool
    words: int

    @property
    def changed_share(self) -> float:
        """Share of the output's Devanagari words that the repair changed."""
        return len(self.changes) / self.words if self.words else 0.0

    @property
    def notice(self) -> str:
        """A line to print with repaired text (empty when nothing was repaired)."""
        if not self.garbled:
            return ""
        return ("Hindi text machine-repaired from a garbled PDF extraction (legacy-font "
                "table); the raw extraction is kept beside it.")


# --------------------------------------------------------------------------- stage 4 helpers

# A reph fused with ी, े, ो (or ौ, ै) comes out as the bare vowel sign (पूिचिती = पूर्ववर्ती);
# only a vocabulary can put it back.  Tried on the cheapest few readings.
LOST_REPH_TRIES = 4
_FUSED_REPH_RE = regex.compile(
    r"((?:[\u0915-\u0939\u0958-\u095f]\u093c?\u094d)*[\u0915-\u0939\u0958-\u095f]\u093c?)"
    r"(?=[\u0940\u0947\u094b\u094c\u0948])"
)


def _lost_reph_variants(text: str) -> list[str]:
    """Readings of ``text`` with a reph restored on one cluster carrying ी, े, ो, ौ or ै."""
    return [text[:m.start()] + REPH + text[m.start():] for m in _FUSED_REPH_RE.finditer(text)
            if not text[:m.start()].endswith(REPH)]


# Weight of the letter statistics against the rule costs (chosen by repairing seed 002 with a
# word list from seed 000 and measuring against seed 001, and the other way round: the
# held-out seeds 003 and 004 played no part).  It adds about 0.3 points of coverage.
LETTER_WEIGHT = 1.0
LETTER_TRIES = 12  # only the cheapest readings compete …
LETTER_WINDOW = 1.0  # … and only those at most this much dearer than the rule-based one


@lru_cache(maxsize=4)
def _letter_model(vocabulary: frozenset[str]) -> "_LetterModel":
    """The letter model of ``vocabulary``, built once per word list."""
    return _LetterModel(vocabulary)


class _LetterModel:
    """Letter trigram statistics of a vocabulary; breaks near-ties between rule readings."""

    def __init__(self, vocabulary: frozenset[str]):
        self.tri: Counter = Counter()
        self.bi: Counter = Counter()
        self.uni: Counter = Counter()
        for w in vocabulary:
            t = "^^" + w + "$"
            for i in range(2, len(t)):
                self.tri[t[i - 2:i + 1]] += 1
                self.bi[t[i - 1:i + 1]] += 1
                self.uni[t[i]] += 1
        self.ctx2: Counter = Counter()
        self.ctx1: Counter = Counter()
        for k, v in self.tri.items():
            self.ctx2[k[:2]] += v
        for k, v in self.bi.items():
            self.ctx1[k[:1]] += v
        self.total = sum(self.uni.values())
        self.kinds = len(self.uni) + 1
        self._costs: dict[str, float] = {}
        self._steps: dict[str, float] = {}

    def cost(self, word: str) -> float:
        """Negative log-probability of ``word`` (interpolated trigram, add-one unigram)."""
        got = self._costs.get(word)
        if got is None:
            t = "^^" + unicodedata.normalize("NFC", word) + "$"
            got = 0.0
            for i in range(2, len(t)):
                got += self._step(t[i - 2:i + 1])
            self._costs[word] = got
        return got

    def _step(self, abc: str) -> float:
        """Negative log-probability of the last letter of ``abc`` given the first two."""
        got = self._steps.get(abc)
        if got is None:
            a, b, c = abc
            p1 = (self.uni[c] + 1) / (self.total + self.kinds)
            n1 = self.ctx1[b]
            p2 = self.bi[b + c] / n1 if n1 else 0.0
            n2 = self.ctx2[a + b]
            p3 = self.tri[abc] / n2 if n2 else 0.0
            got = self._steps[abc] = -math.log(0.6 * p3 + 0.3 * p2 + 0.1 * p1)
        return got


# --------------------------------------------------------------------------- the repairer

class _Repairer:
    """Holds the vocabulary and per-call caches; ``line`` repairs one garbled line."""

    def __init__(self, vocabulary: frozenset[str] | None):
        self.vocabulary = frozenset(vocabulary) if vocabulary else frozenset()
        self._sub: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._best: dict[str, tuple[str, bool, tuple[str, ...]]] = {}
        self.model = _letter_model(self.vocabulary) if self.vocabulary else None

    def known(self, text: str) -> bool:
        """True if ``text`` (NFC) is in the vocabulary."""
        return unicodedata.normalize("NFC", text) in self.vocabulary

    def sub(self, raw: str) -> tuple[str, tuple[str, ...]]:
        """Cached stage 1."""
        got = self._sub.get(raw)
        if got is None:
            got = self._sub[raw] = substitute(raw)
        return got

    def best(self, word: str) -> tuple[str, bool, tuple[str, ...]]:
        """Stages 3-4 for a stage-1 word: (text, in vocabulary, rules), cached."""
        got = self._best.get(word)
        if got is not None:
            return got
        cands = _readings(word)
        if not cands:  # no consistent reading: leave the word as stage 1 made it
            text = word.replace(I_REPH_MARK, "र्भ")
            got = (text, self.known(text), ("choose:unreadable",))
            self._best[word] = got
            return got
        pick, how, extra = self._choose(cands)
        trace: list[str] = []
        _assemble(pick[2], trace)
        rules = [f"reorder:{r}" for r in trace]
        rules += [f"choose:{r}" for r in (_reading_rule(w, a) for w, a in zip(word, pick[2])) if r]
        rules += [how] if how else []
        got = (extra or pick[0], self.known(extra or pick[0]), tuple(dict.fromkeys(rules)))
        self._best[word] = got
        return got

    def _choose(self, cands: list[tuple[str, float, tuple]]) -> tuple[tuple, str, str]:
        """Stage 4: the vocabulary reading, else a lost-reph vocabulary reading, else the rule."""
        if self.vocabulary:
            for cand in cands:
                if self.known(cand[0]):
                    return cand, ("choose:vocabulary" if len(cands) > 1 else ""), ""
            for cand in cands[:LOST_REPH_TRIES]:
                for variant in _lost_reph_variants(cand[0]):
                    if self.known(variant):
                        return cand, "choose:lost-reph", variant
        if len(cands) == 1:
            return cands[0], "", ""
        if self.model is not None:
            model = self.model
            window = cands[0][1] + LETTER_WINDOW
            scored = min((c for c in cands[:LETTER_TRIES] if c[1] <= window),
                         key=lambda c: (c[1] + LETTER_WEIGHT * model.cost(c[0]), c[0]))
            if scored is not cands[0]:
                return scored, "choose:letter-statistics", ""
        return cands[0], "choose:rule", ""

    def score(self, parts: list[str]) -> float:
        """Share of characters of the readings of ``parts`` that are vocabulary words."""
        total = hit = 0
        for p in parts:
            text, ok, _ = self.best(p)
            total += len(text)
            # One-letter list labels such as (ख) are in the vocabulary but prove nothing.
            hit += len(text) if ok and len(text) > 1 else 0
        return hit / total if total else 0.0

    def line(self, line: str, base: int) -> tuple[str, list[WordChange]]:
        """Repair one garbled line; ``base`` is its offset in the caller's text."""
        groups = _Joiner(self, line).groups()
        out: list[str] = []
        changes: list[WordChange] = []
        cursor = 0
        for g in groups:
            out.append(line[cursor:g.start])
            text, _, rules = self.best(g.text)
            repaired = text + g.moved + g.suffix
            raw = line[g.start:g.end]
            out.append(repaired)
            cursor = g.end
            if repaired != raw:
                rule = "+".join(dict.fromkeys(
                    [f"substitute:{r}" for r in g.sub_rules] + [f"join:{r}" for r in g.join_rules]
                    + list(rules)))
                changes.append(WordChange(base + g.start, raw, repaired, rule))
        out.append(line[cursor:])
        return "".join(out), changes


def _reading_rule(glyph: str, action: tuple) -> str:
    """Name of the ``READINGS`` entry behind ``action`` for an ambiguous glyph, else ''."""
    for act, _, rule in READINGS.get(glyph, ()):
        if act == action and act[0] == "C" and act[1] != glyph:
            return rule
    return ""


# --------------------------------------------------------------------------- stage 2

@dataclass
class _Group:
    """Raw span [start, end) that becomes one word: stage-1 text, moved punctuation, rules."""

    start: int
    end: int
    text: str
    sub_rules: list[str]
    join_rules: list[str]
    moved: str = ""
    suffix: str = ""
    virama_end: bool = False  # the last piece ends in consonant + virama (after stage 1)

    def add(self, text: str, end: int, rules: tuple[str, ...], join_rule: str) -> None:
        """Append a piece of stage-1 text that ends at raw offset ``end``."""
        self.text += text
        self.end = end
        self.sub_rules.extend(r for r in rules if r not in self.sub_rules)
        if join_rule not in self.join_rules:
            self.join_rules.append(join_rule)


class _Joiner:
    """Stage 2: decide which raw words and sign runs make one word, scanning left to right."""

    def __init__(self, rep: _Repairer, line: str):
        self.rep = rep
        self.line = line

    def _new(self, start: int, raw: str) -> _Group:
        text, rules = self.rep.sub(raw)
        return _Group(start, start + len(raw), text, list(rules), [],
                      virama_end=_ends_in_half_consonant(text))

    def groups(self) -> list[_Group]:
        """Scan the line's Devanagari words and return the joined groups in order."""
        line, rep = self.line, self.rep
        tokens = [(m.start(), m.group()) for m in _WORD_RE.finditer(line)]
        out: list[_Group] = []
        cur: _Group | None = None
        for k, (start, raw) in enumerate(tokens):
            if cur is None:
                cur = self._new(start, raw)
                continue
            end = start + len(raw)
            gap = line[cur.end:start]
            spaces = gap != "" and gap.isspace()
            punct = gap != "" and all(ch in CLOSING_PUNCTUATION for ch in gap)
            run = _SIGN_RUN_RE.match(raw)
            run_text = run.group() if run else ""
            rest = raw[len(run_text):]
            sub_raw, r_raw = rep.sub(raw)
            if run_text and (spaces or punct):
                sub_run, r_run = rep.sub(run_text)
                if punct:
                    # A sign drawn on the word lands behind the punctuation: ह।ै = है।
                    cur.add(sub_run, start + len(run_text), r_run, "sign-behind-punctuation")
                    cur.moved += gap
                    if rest:
                        out.append(cur)
                        cur = self._new(start + len(run_text), rest)
                    continue
                if cur.virama_end and run_text[0] in BELOW_SIGNS:
                    # भ् ूत: the virama drawn under the consonant before lands after the next
                    # one (दभ्ू = द्भू); the below-sign and what follows continue the word.
                    cur.text = _virama_back(cur.text)
                    cur.add(sub_raw, end, r_raw, "virama-pushed")
                    cur.virama_end = _ends_in_half_consonant(sub_raw)
                    continue
                if not rest:
                    cur.add(sub_run, end, r_run, "sign-after-space")
                    continue
                sub_rest, _ = rep.sub(rest)
                whole = run_text[0] == "ा"  # मत्रं ालय: an aa-sign continues the word
                if rep.vocabulary:
                    s_whole = rep.score([cur.text + sub_raw])
                    s_swap = rep.score([cur.text + sub_run, sub_rest])
                    if s_whole != s_swap:
                        whole = s_whole > s_swap
                if whole:
                    cur.add(sub_raw, end, r_raw, "sign-after-space")
                    cur.virama_end = _ends_in_half_consonant(sub_raw)
                else:
                    # स ेप्रकाजित = से प्रकाशित: the sign joins left, the space moves after it.
                    cur.add(sub_run, start + len(run_text), r_run, "sign-space-swap")
                    cur.suffix = gap
                    out.append(cur)
                    cur = self._new(start + len(run_text), rest)
                continue
            if spaces and (cur.virama_end or _sign_on_half(cur.text)) \
                    and _consonant_like(sub_raw[:1]):
                # माध् यम = माध्यम, ऄनच्ु छेद = अनुच्छेद: a space after a half consonant (with a
                # sign pushed onto it) is inside the word.
                cur.add(sub_raw, end, r_raw, "virama-gap")
                cur.virama_end = _ends_in_half_consonant(sub_raw)
                continue
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if spaces and _ends_in_half_consonant(sub_raw) and nxt is not None \
                    and nxt[1][0] in BELOW_SIGNS and line[end:nxt[0]].isspace() \
                    and _is_consonant(cur.text[-1:]):
                # ईद भ् ूत = उद्भूत: the half consonant and its pushed virama belong to the word.
                cur.add(sub_raw, end, r_raw, "virama-pushed")
                cur.virama_end = True
                continue
            after = line[end:end + 1]
            if raw == "च" and (spaces or (punct and set(gap) <= set("’”'\""))) \
                    and after not in (")", ".") and not cur.moved and _can_carry_reph(cur.text):
                # ऄथ च = अर्थ: the reph drawn over the word's last cluster lands after the gap.
                cur.add("च", end, (), "reph-after-gap")
                cur.moved += gap if punct else ""
                continue
            if spaces and rep.vocabulary and _may_continue(cur.text, sub_raw):
                sep = rep.score([cur.text, sub_raw])
                if sep < 1.0:
                    if raw.startswith("च") and len(raw) > 1 and _can_carry_reph(cur.text):
                        # संदभ चके = संदर्भ के: the reph crossed the space and the next word.
                        moved = rep.score([cur.text + "च", sub_raw[1:]])
                        if moved > sep and moved >= rep.score([cur.text + sub_raw]):
                            cur.add("च", start + 1, (), "reph-across-space")
                            cur.suffix = gap
                            out.append(cur)
                            cur = self._new(start + 1, raw[1:])
                            continue
                    if rep.score([cur.text + sub_raw]) > sep:
                        # सबं धं = संबंध: a space inside a word, found by the vocabulary.
                        cur.add(sub_raw, end, r_raw, "vocabulary-join")
                        cur.virama_end = _ends_in_half_consonant(sub_raw)
                        continue
            out.append(cur)
            cur = self._new(start, raw)
        if cur is not None:
            out.append(cur)
        return out


def _sign_on_half(text: str) -> bool:
    """True if stage-1 ``text`` ends in consonant, virama, sign (ऄनच्ु: the cluster goes on)."""
    return len(text) >= 3 and text[-2] == VIRAMA and _is_consonant(text[-3]) \
        and (text[-1] in MATRAS or text[-1] in MODIFIERS)


def _virama_back(text: str) -> str:
    """Move a final virama one consonant left: ईदभ् → ईद्भ (the virama was pushed right)."""
    if len(text) >= 3 and text[-1] == VIRAMA and _is_consonant(text[-2]) \
            and (_is_consonant(text[-3]) or text[-3] == NUKTA):
        return text[:-2] + VIRAMA + text[-2]
    return text


def _ends_in_half_consonant(text: str) -> bool:
    """True if stage-1 ``text`` ends in a consonant followed by a virama (माध्)."""
    return len(text) >= 2 and text[-1] == VIRAMA and _is_consonant(text[-2])


# Endings and beginnings that suggest a word goes on across a space: a sign pushed off its
# cluster (दसू रे, सबं धं, ऄनच्ु छेद), or an i-sign / reph glyph next to the gap (जनजम चत).
_CONTINUING_ENDS = PUSHABLE | {"\u0943"} | set("जदरप")
_CONTINUING_STARTS = frozenset("जदरपच")


def _may_continue(left: str, right: str) -> bool:
    """True if two stage-1 words separated by a space may be one word (worth a vocabulary try)."""
    return left[-1:] in _CONTINUING_ENDS or right[:1] in _CONTINUING_STARTS


def _can_carry_reph(text: str) -> bool:
    """True if the last glyph of a stage-1 word can be followed by a reph glyph."""
    last = text[-1:]
    return bool(last) and (_consonant_like(last) or last in MATRAS or last == NUKTA)


# --------------------------------------------------------------------------- public API

def repair_word(word: str, vocabulary: frozenset[str] | None = None) -> str:
    """Stages 1, 3 and 4 for one raw word without spaces (no detection, no joins)."""
    rep = _Repairer(vocabulary)
    return rep.best(rep.sub(word)[0])[0]


def repair(text: str, vocabulary: frozenset[str] | None = None, *,
           garbled: bool | None = None) -> RepairResult:
    """Repair legacy-font damage in ``text``, line by line; clean lines pass through unchanged.

    ``garbled=None`` detects damage per line (``looks_garbled``); True/False forces it.
    """
    rep = _Repairer(vocabulary)
    out: list[str] = []
    changes: list[WordChange] = []
    base = 0
    any_garbled = False
    for line in text.split("\n"):
        is_garbled = looks_garbled(line) if garbled is None else garbled
        if is_garbled and _WORD_RE.search(line):
            any_garbled = True
            fixed, ch = rep.line(line, base)
            out.append(fixed)
            changes.extend(ch)
        else:
            out.append(line)
        base += len(line) + 1
    result = "\n".join(out)
    return RepairResult(result, text, tuple(changes), any_garbled, len(_WORD_RE.findall(result)))


def measure(text: str, vocabulary: frozenset[str]) -> float:
    """Share of the Devanagari words of ``text`` that occur in ``vocabulary`` (NFC)."""
    ws = words(text)
    if not ws:
        return 0.0
    return sum(1 for w in ws if w in vocabulary) / len(ws)


def vocabulary_from_texts(*texts: str) -> frozenset[str]:
    """All Devanagari words (NFC) of the given texts."""
    return frozenset(w for t in texts for w in words(t))


def load_vocabulary(name: str = "hindi_words") -> frozenset[str]:
    """Read the word list ``consolidate/data/<name>.txt`` (one word per line, UTF-8)."""
    path = resources.files("consolidate").joinpath("data", f"{name}.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(unicodedata.normalize("NFC", w.strip()) for w in lines if w.strip())
