"""Word-level diff of two plain strings: grapheme-safe tokens, diff-match-patch, semantic clean-up.

Public API
----------
``tokenize(text) -> list[str]``
    Words, whitespace runs and single punctuation marks; ``"".join(tokenize(t)) == t``.
``diff_words(a, b, backend="auto") -> list[tuple[str, str]]``
    ``(op, text)`` pairs with op in ``"equal" | "insert" | "delete"``.
``source_text(ops) -> str`` / ``target_text(ops) -> str``
    Rebuild ``a`` / ``b`` from the ops.
``stats(ops) -> DiffStats``
    Frozen dataclass of inserted / deleted / unchanged word counts.
``backend_name(backend="auto") -> str`` / ``available_backends() -> list[str]``
    Which diff engine a call would use / which engines are importable.
``grapheme_clusters(text) -> list[str]``
    The clusters tokens are built from (``\\X`` plus the conjunct rule below).

Ops are plain tuples so they compare, hash and serialise without ceremony.  Guarantees:
no empty text, never two adjacent ops with the same name, and a delete that touches an
insert always comes first.  Between two equal ops there is at most one delete and one
insert; the overlap step of the semantic clean-up may still yield insert, equal, delete.

Grapheme safety
---------------
Tokens are concatenations of ``regex`` ``\\X`` clusters, so no token boundary (and hence no
op boundary) ever falls inside a cluster: a vowel sign, nukta, virama or anusvara stays
with its consonant.  Since Unicode 15.1 (rule GB9c) ``\\X`` also keeps virama conjuncts
such as ``क्ष``/``त्र`` in one cluster; the ``regex`` builds before that split them
(``क्`` + ``ष``).  On such builds, detected at import, adjacent clusters are re-joined by
the same rule restricted to Devanagari (consonant, linker virama, consonant; ZWJ and
combining marks allowed in between, ZWNJ deliberately breaks as in Unicode).

Backends
--------
``"pure"`` is the diff-match-patch Python port; ``"fast"`` the C++ binding
``fast_diff_match_patch``, used by ``"auto"`` when importable.  ``"auto"`` first consults
``$CONSOLIDATE_DIFF_BACKEND``; an explicit ``"pure"``/``"fast"`` argument wins over it.
Both backends compute only the raw Myers diff of the token-encoded strings (no timeout,
no line mode, no C++ clean-up); the clean-up is the same Python code for both, so the
output is identical.  The C++ clean-up is not used: its boundary score relies on the C
library's character classes, not Python's, and its output differed from the Python port's
on mixed Hindi/English text (about 1 pair in 9 in a randomised check).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex
from diff_match_patch import diff_match_patch

from consolidate.errors import UsageError

try:
    import fast_diff_match_patch as _fast_dmp
except ImportError:  # optional extra: consolidate[fast]
    _fast_dmp = None

EQUAL = "equal"
INSERT = "insert"
DELETE = "delete"
BACKENDS = ("auto", "pure", "fast")
ENV_VAR = "CONSOLIDATE_DIFF_BACKEND"

__all__ = [
    "BACKENDS",
    "DELETE",
    "ENV_VAR",
    "EQUAL",
    "INSERT",
    "DiffBackendError",
    "DiffStats",
    "available_backends",
    "backend_name",
    "diff_words",
    "grapheme_clusters",
    "source_text",
    "stats",
    "target_text",
    "tokenize",
]


class DiffBackendError(UsageError):
    """An unknown diff backend was named, or the requested one is not installed."""


@dataclass(frozen=True)
class DiffStats:
    """Word counts of a diff; punctuation and whitespace are not words."""

    inserted_words: int
    deleted_words: int
    unchanged_words: int


# --- grapheme clusters -------------------------------------------------------------------

_CLUSTER = regex.compile(r"\X")

# Devanagari part of Unicode's Indic_Conjunct_Break property (GB9c), written out because
# the regex builds that lack GB9c do not know the InCB property either.
_DEVA_CONSONANT = "\u0915-\u0939\u0958-\u095f\u0978-\u097f"
_DEVA_LINKER = "\u094d"
_DEVA_EXTEND = "\u0900-\u0902\u093a\u093c\u0941-\u0948\u0951-\u0957\u0962\u0963\u200d"
_CONJUNCT_TAIL = regex.compile(
    rf"[{_DEVA_CONSONANT}][{_DEVA_EXTEND}{_DEVA_LINKER}]*{_DEVA_LINKER}"
    rf"[{_DEVA_EXTEND}{_DEVA_LINKER}]*\Z"
)
_CONSONANT_HEAD = regex.compile(rf"[{_DEVA_CONSONANT}]")

# True for regex builds with Unicode >= 15.1 grapheme rules; then no re-joining is needed.
_X_KEEPS_CONJUNCTS = len(_CLUSTER.findall("\u0915\u094d\u0937")) == 1


def _join_conjuncts(clusters: Sequence[str]) -> list[str]:
    """Merge clusters split between ``consonant virama`` and a following consonant (GB9c)."""
    out: list[str] = []
    for cluster in clusters:
        if out and _CONSONANT_HEAD.match(cluster) and _CONJUNCT_TAIL.search(out[-1]):
            out[-1] += cluster
        else:
            out.append(cluster)
    return out


def grapheme_clusters(text: str) -> list[str]:
    """Split text into extended grapheme clusters, conjuncts kept whole on any regex build."""
    clusters = _CLUSTER.findall(text)
    if not _X_KEEPS_CONJUNCTS:
        clusters = _join_conjuncts(clusters)
    return clusters


# --- tokens ------------------------------------------------------------------------------

_WORD, _PUNCT, _SPACE = 0, 1, 2
# Letters, marks, digits, connector punctuation, plus the joiners and soft hyphen that sit
# inside words; everything else that is not whitespace (danda, brackets, quotes, symbols,
# ZWSP) is punctuation and becomes a token of its own.
_WORD_BASE = regex.compile(r"[\p{L}\p{M}\p{N}\p{Pc}\u200c\u200d\u00ad]")
_DIGIT = regex.compile(r"\p{Nd}")
_NUMBER_SEPARATORS = frozenset(".,")


def _kind(cluster: str) -> int:
    """Classify a cluster (or a token) by its first code point."""
    if cluster[0].isspace():
        return _SPACE
    if _WORD_BASE.match(cluster):
        return _WORD
    return _PUNCT


def _tokens_with_kinds(text: str) -> tuple[list[str], list[int]]:
    """Tokenise and return each token's kind alongside."""
    clusters = grapheme_clusters(text)
    kinds = [_kind(c) for c in clusters]
    tokens: list[str] = []
    token_kinds: list[int] = []
    i, n = 0, len(clusters)
    while i < n:
        cluster, kind = clusters[i], kinds[i]
        if (
            kind == _PUNCT
            and cluster in _NUMBER_SEPARATORS
            and token_kinds
            and token_kinds[-1] == _WORD
            and _DIGIT.match(tokens[-1][-1])
            and i + 1 < n
            and kinds[i + 1] == _WORD
            and _DIGIT.match(clusters[i + 1])
        ):
            # 5.1 and 1,000 are one number, not three tokens; "1.यह" and "3." stay split.
            tokens[-1] += cluster + clusters[i + 1]
            i += 2
            continue
        if token_kinds and kind != _PUNCT and token_kinds[-1] == kind:
            tokens[-1] += cluster
        else:
            tokens.append(cluster)
            token_kinds.append(kind)
        i += 1
    return tokens, token_kinds


def tokenize(text: str) -> list[str]:
    """Split text into words, whitespace runs and single punctuation clusters."""
    return _tokens_with_kinds(text)[0]


# --- backends ----------------------------------------------------------------------------


def available_backends() -> list[str]:
    """Names of the diff engines that can run here, ``"pure"`` first."""
    return ["pure"] + (["fast"] if _fast_dmp is not None else [])


def backend_name(backend: str = "auto") -> str:
    """Resolve ``backend`` to "pure" or "fast"; for "auto", ``$CONSOLIDATE_DIFF_BACKEND``
    (case-insensitive) decides first, then whether the C++ binding imports."""
    choice, origin = backend, "backend argument"
    if backend == "auto":
        from_env = os.environ.get(ENV_VAR, "").strip().lower()
        if from_env:
            choice, origin = from_env, f"environment variable {ENV_VAR}"
    if choice not in BACKENDS:
        raise DiffBackendError(
            f"unknown diff backend {choice!r} (from {origin}); choose one of: {', '.join(BACKENDS)}"
        )
    if choice == "auto":
        return "fast" if _fast_dmp is not None else "pure"
    if choice == "fast" and _fast_dmp is None:
        raise DiffBackendError(
            f"diff backend 'fast' requested (from {origin}) but the module fast_diff_match_patch "
            "is not installed; install it with pip install 'consolidate[fast]' or use 'pure'"
        )
    return choice


# --- encoding tokens as characters -------------------------------------------------------

_FIRST_CODE = 1  # never U+0000: the C++ binding reads its input as a NUL-terminated string
_SURROGATES = range(0xD800, 0xE000)
_MAX_CODE = 0x10FFFF

# Boundary classes for the clean-up score, ordered so that ">= _B_SPACE" means whitespace.
_B_WORD, _B_PUNCT, _B_SPACE, _B_LINE, _B_BLANK = 0, 1, 2, 3, 4
_LINE_BREAK = regex.compile(r"\r\n|\r|\n")


def _boundary_class(token: str, kind: int) -> int:
    """Class of a token for the clean-up's word-boundary score."""
    if kind != _SPACE:
        return _B_WORD if kind == _WORD else _B_PUNCT
    breaks = len(_LINE_BREAK.findall(token))
    return _B_BLANK if breaks >= 2 else _B_LINE if breaks == 1 else _B_SPACE


class _Codebook:
    """Maps each distinct token to one character, the "lines-to-chars" trick for tokens."""

    def __init__(self) -> None:
        self.char_of: dict[str, str] = {}
        self.token_of: dict[int, str] = {}  # code point -> token, the form str.translate wants
        self.boundary: dict[str, int] = {}
        self._next = _FIRST_CODE

    def encode(self, text: str) -> str:
        """Return one character per token of text, adding new tokens to the book."""
        tokens, kinds = _tokens_with_kinds(text)
        char_of = self.char_of
        for token, kind in zip(tokens, kinds):
            if token not in char_of:
                code = self._allocate()
                char = chr(code)
                char_of[token] = char
                self.token_of[code] = token
                self.boundary[char] = _boundary_class(token, kind)
        return "".join([char_of[t] for t in tokens])

    @property
    def highest_code(self) -> int:
        """The largest code point handed out so far (0 when the book is empty)."""
        return self._next - 1

    def _allocate(self) -> int:
        code = self._next
        if code in _SURROGATES:
            # Lone surrogates cannot cross into the C++ binding as wchar_t text.
            code = _SURROGATES.stop
        if code > _MAX_CODE:
            raise ValueError("more distinct tokens than Unicode code points; split the input")
        self._next = code + 1
        return code

    def decode(self, encoded: str) -> str:
        """Turn encoded characters back into the text of their tokens."""
        return encoded.translate(self.token_of)


# --- diff engines (raw Myers diff, no clean-up) ------------------------------------------

_DMP_DELETE, _DMP_EQUAL, _DMP_INSERT = -1, 0, 1


def _raw_pure(a: str, b: str) -> list[tuple[int, str]]:
    """Raw diff by the Python port: no deadline (so no half-match shortcut), no line mode."""
    dmp = diff_match_patch()
    dmp.Diff_Timeout = 0
    return list(dmp.diff_main(a, b, checklines=False))


def _raw_fast(a: str, b: str) -> list[tuple[int, str]]:
    """Raw diff by the C++ binding with the same settings; lengths are sliced back to text."""
    diffs: list[tuple[int, str]] = []
    i = j = 0
    for op, length in _fast_dmp.diff(
        a, b, timelimit=0, checklines=False, cleanup="No", counts_only=True
    ):
        if op == "=":
            diffs.append((_DMP_EQUAL, a[i : i + length]))
            i += length
            j += length
        elif op == "-":
            diffs.append((_DMP_DELETE, a[i : i + length]))
            i += length
        else:
            diffs.append((_DMP_INSERT, b[j : j + length]))
            j += length
    return diffs


class _TokenCleanup(diff_match_patch):
    """diff-match-patch clean-up whose boundary score reads tokens, not encoded characters."""

    def __init__(self, boundary: dict[str, int]) -> None:
        super().__init__()
        self.Diff_Timeout = 0
        self._boundary = boundary

    def _score(self, one: str, two: str) -> int:
        """The port's 0..6 boundary score, applied to the tokens on either side."""
        if not one or not two:
            return 6
        left = self._boundary[one[-1]]
        right = self._boundary[two[0]]
        if left == _B_BLANK or right == _B_BLANK:
            return 5
        if left == _B_LINE or right == _B_LINE:
            return 4
        if left == _B_PUNCT and right >= _B_SPACE:
            return 3  # end of a sentence or clause: "।", ".", ";" then whitespace
        if left >= _B_SPACE or right >= _B_SPACE:
            return 2
        if left != _B_WORD or right != _B_WORD:
            return 1
        return 0

    def diff_cleanupSemanticLossless(self, diffs: list[tuple[int, str]]) -> None:
        """Slide single edits between equalities to the best-scoring token boundary."""
        # Same sliding walk as the library's method; only the score differs, because the
        # library's score looks at the characters, which here are arbitrary code points.
        pointer = 1
        while pointer < len(diffs) - 1:
            if diffs[pointer - 1][0] == _DMP_EQUAL and diffs[pointer + 1][0] == _DMP_EQUAL:
                equality1 = diffs[pointer - 1][1]
                edit = diffs[pointer][1]
                equality2 = diffs[pointer + 1][1]

                common = self.diff_commonSuffix(equality1, edit)
                if common:
                    shared = edit[-common:]
                    equality1 = equality1[:-common]
                    edit = shared + edit[:-common]
                    equality2 = shared + equality2

                best = (equality1, edit, equality2)
                best_score = self._score(equality1, edit) + self._score(edit, equality2)
                while edit and equality2 and edit[0] == equality2[0]:
                    equality1 += edit[0]
                    edit = edit[1:] + equality2[0]
                    equality2 = equality2[1:]
                    score = self._score(equality1, edit) + self._score(edit, equality2)
                    if score >= best_score:  # ">=" prefers trailing whitespace, as upstream
                        best_score = score
                        best = (equality1, edit, equality2)

                if diffs[pointer - 1][1] != best[0]:
                    if best[0]:
                        diffs[pointer - 1] = (_DMP_EQUAL, best[0])
                    else:
                        del diffs[pointer - 1]
                        pointer -= 1
                    diffs[pointer] = (diffs[pointer][0], best[1])
                    if best[2]:
                        diffs[pointer + 1] = (_DMP_EQUAL, best[2])
                    else:
                        del diffs[pointer + 1]
                        pointer -= 1
            pointer += 1


# --- public diff -------------------------------------------------------------------------

_OP_NAME = {_DMP_EQUAL: EQUAL, _DMP_INSERT: INSERT, _DMP_DELETE: DELETE}


def _normalise(ops: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop empty ops, merge neighbours with the same name, put delete before insert."""
    out: list[tuple[str, str]] = []
    deleted: list[str] = []
    inserted: list[str] = []

    def flush() -> None:
        if deleted:
            out.append((DELETE, "".join(deleted)))
            deleted.clear()
        if inserted:
            out.append((INSERT, "".join(inserted)))
            inserted.clear()

    for op, text in ops:
        if not text:
            continue
        if op == DELETE:
            deleted.append(text)
        elif op == INSERT:
            inserted.append(text)
        else:
            flush()
            if out and out[-1][0] == EQUAL:
                out[-1] = (EQUAL, out[-1][1] + text)
            else:
                out.append((EQUAL, text))
    flush()
    return out


def diff_words(a: str, b: str, backend: str = "auto") -> list[tuple[str, str]]:
    """Word-level diff of a (old) and b (new) as ``(op, text)`` pairs."""
    engine = backend_name(backend)
    if a == b:
        return [(EQUAL, a)] if a else []
    book = _Codebook()
    encoded_a = book.encode(a)
    encoded_b = book.encode(b)
    if engine == "fast":
        if book.highest_code > 0xFFFF and getattr(_fast_dmp, "CHAR_WIDTH", 4) < 4:
            raise DiffBackendError(
                "diff backend 'fast' uses 16-bit characters on this platform and the texts have "
                "too many distinct tokens for it; use backend 'pure'"
            )
        diffs = _raw_fast(encoded_a, encoded_b)
    else:
        diffs = _raw_pure(encoded_a, encoded_b)
    cleaner = _TokenCleanup(book.boundary)
    # Re-merge with the Python port first so both engines enter the clean-up in one
    # canonical form, whatever the C++ port's own merge step did.
    cleaner.diff_cleanupMerge(diffs)
    cleaner.diff_cleanupSemantic(diffs)
    return _normalise((_OP_NAME[op], book.decode(text)) for op, text in diffs)


def _check_op(op: str) -> str:
    if op not in _OP_NAME.values():
        raise ValueError(f"unknown diff op {op!r}; expected equal, insert or delete")
    return op


def source_text(ops: Iterable[tuple[str, str]]) -> str:
    """The old text: equal and deleted segments in order."""
    return "".join(text for op, text in ops if _check_op(op) != INSERT)


def target_text(ops: Iterable[tuple[str, str]]) -> str:
    """The new text: equal and inserted segments in order."""
    return "".join(text for op, text in ops if _check_op(op) != DELETE)


def _word_count(text: str) -> int:
    return sum(1 for kind in _tokens_with_kinds(text)[1] if kind == _WORD)


def stats(ops: Iterable[tuple[str, str]]) -> DiffStats:
    """Count the words (numbers included) inserted, deleted and left unchanged."""
    counts = {EQUAL: 0, INSERT: 0, DELETE: 0}
    for op, text in ops:
        counts[_check_op(op)] += _word_count(text)
    return DiffStats(
        inserted_words=counts[INSERT], deleted_words=counts[DELETE], unchanged_words=counts[EQUAL]
    )
