"""Time diff_words (pure vs fast) and difflib on a seed file against a lightly edited copy.

Run by hand: ``python benchmarks/bench_textdiff.py [--seed 000] [--rate 0.01] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import difflib
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

from consolidate import textdiff

DEFAULT_SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def edit_words(text: str, rate: float, rng: random.Random) -> tuple[str, int]:
    """Replace, delete or duplicate about rate of the word tokens; return text and edit count."""
    tokens = textdiff.tokenize(text)
    word_positions = [
        i for i, tok in enumerate(tokens) if textdiff.stats([("equal", tok)]).unchanged_words
    ]
    vocabulary = [tokens[i] for i in word_positions]
    chosen = rng.sample(word_positions, max(1, round(len(word_positions) * rate)))
    for i in sorted(chosen, reverse=True):  # back to front so earlier indices stay valid
        action = rng.randrange(3)
        if action == 0:
            tokens[i] = rng.choice(vocabulary)
        elif action == 1:
            del tokens[i]
        else:
            tokens.insert(i + 1, " " + rng.choice(vocabulary))
    return "".join(tokens), len(chosen)


def median_time(func: Callable[[], object], runs: int) -> tuple[float, object]:
    """Median wall time of runs calls, and the last result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds-dir", type=Path, default=DEFAULT_SEEDS, help="seed texts folder")
    parser.add_argument("--seed", default="000", help="seed file prefix, e.g. 000")
    parser.add_argument("--rate", type=float, default=0.01, help="fraction of words edited")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--random-seed", type=int, default=1234, help="seed of the edit generator")
    parser.add_argument("--skip-ndiff", action="store_true", help="leave out difflib.ndiff")
    parser.add_argument(
        "--sequence-matcher",
        action="store_true",
        help="also time difflib.SequenceMatcher with autojunk off (tens of seconds per run)",
    )
    args = parser.parse_args(argv)

    matches = sorted(args.seeds_dir.glob(f"{args.seed}_*.txt"))
    if not matches:
        print(f"no seed file {args.seed}_*.txt in {args.seeds_dir}", file=sys.stderr)
        return 2
    path = matches[0]
    original = path.read_text(encoding="utf-8")
    edited, edits = edit_words(original, args.rate, random.Random(args.random_seed))
    tokens_a, tokens_b = textdiff.tokenize(original), textdiff.tokenize(edited)

    print(f"file      {path.name}: {len(original):,} chars, {len(tokens_a):,} tokens, "
          f"{edits} words edited (rate {args.rate}), median of {args.runs} runs")
    print(f"backends  available: {', '.join(textdiff.available_backends())}")

    tok_time, _ = median_time(
        lambda: (textdiff.tokenize(original), textdiff.tokenize(edited)), args.runs
    )
    print(f"{'tokenize both sides':<34}{tok_time:9.3f} s")

    results = {}
    for backend in textdiff.available_backends():
        seconds, ops = median_time(
            lambda: textdiff.diff_words(original, edited, backend=backend), args.runs
        )
        results[backend] = (seconds, ops)
        counts = textdiff.stats(ops)
        print(f"{'diff_words backend=' + backend:<34}{seconds:9.3f} s   {len(ops):,} ops, "
              f"+{counts.inserted_words} -{counts.deleted_words} words")
    if len(results) == 2:
        same = results["pure"][1] == results["fast"][1]
        ratio = results["pure"][0] / results["fast"][0]
        print(f"{'pure / fast':<34}{ratio:9.1f} x   identical ops: {'yes' if same else 'NO'}")

    # The engines alone, on the token-encoded strings (private helpers: this isolates the
    # part the C++ binding replaces from tokenising and the shared Python clean-up).
    book = textdiff._Codebook()
    encoded_a, encoded_b = book.encode(original), book.encode(edited)
    engines = {"pure": textdiff._raw_pure, "fast": textdiff._raw_fast}
    for backend in textdiff.available_backends():
        seconds, raw = median_time(lambda: engines[backend](encoded_a, encoded_b), args.runs)
        print(f"{'raw engine ' + backend:<34}{seconds:9.3f} s   {len(raw):,} raw diffs")

    if not args.skip_ndiff:
        nd_time, lines = median_time(lambda: list(difflib.ndiff(tokens_a, tokens_b)), args.runs)
        changed = sum(1 for line in lines if line[:1] in "+-")
        print(f"{'difflib.ndiff (tokens)':<34}{nd_time:9.3f} s   {changed:,} +/- lines")
    if args.sequence_matcher:
        # ndiff keeps autojunk on, which ignores tokens as frequent as " "; this is the
        # like-for-like exact alignment.
        sm_time, opcodes = median_time(
            lambda: difflib.SequenceMatcher(None, tokens_a, tokens_b, autojunk=False).get_opcodes(),
            args.runs,
        )
        label = "difflib.SequenceMatcher, no junk"
        print(f"{label:<34}{sm_time:9.3f} s   {len(opcodes):,} opcodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
