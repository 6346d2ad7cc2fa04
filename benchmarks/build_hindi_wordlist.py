#!/usr/bin/env python3
"""Rebuild consolidate/data/hindi_words.txt, the word list used by the Devanagari repair.

The list holds every Devanagari word (NFC) of the clean Hindi seeds 000 and 001, sorted by
code point, one per line.  Seeds 003 and 004 are left out on purpose: tests measure the repair
against a vocabulary built from them, which must be one the repair never saw.

    python benchmarks/build_hindi_wordlist.py [--seeds DIR] [--out FILE] [--ids 000 001]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SEEDS = REPO.parent / "shared" / "seeds"
DEFAULT_OUT = REPO / "consolidate" / "data" / "hindi_words.txt"
REPAIR_SEEDS = ("000", "001")


def seed_path(seeds: Path, seed_id: str) -> Path:
    """The one file ``<seed_id>_*.txt`` in ``seeds``; exits with a message otherwise."""
    found = sorted(seeds.glob(f"{seed_id}_*.txt"))
    if len(found) != 1:
        sys.exit(f"{seeds}: expected one file {seed_id}_*.txt, found {len(found)}")
    return found[0]


def build(seeds: Path, ids: tuple[str, ...] = REPAIR_SEEDS) -> list[str]:
    """Sorted Devanagari words of the given seeds."""
    sys.path.insert(0, str(REPO))
    from consolidate.importer.devanagari import vocabulary_from_texts

    texts = [seed_path(seeds, i).read_text(encoding="utf-8") for i in ids]
    return sorted(vocabulary_from_texts(*texts))


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS,
                        help="folder of the seed texts (default: ../shared/seeds beside the repo)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="word list to write (default: consolidate/data/hindi_words.txt)")
    parser.add_argument("--ids", nargs="+", default=list(REPAIR_SEEDS),
                        help="seed numbers to read (default: 000 001)")
    args = parser.parse_args(argv)
    if not args.seeds.is_dir():
        parser.error(f"seeds folder not found: {args.seeds}")
    words = build(args.seeds, tuple(args.ids))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(w + "\n" for w in words), encoding="utf-8")
    # Which documents the list came from, so an import can measure its repair against others.
    sources = args.out.with_name(args.out.stem + ".sources.txt")
    sources.write_text("".join(seed_path(args.seeds, i).name + "\n" for i in args.ids), encoding="utf-8")
    print(f"{args.out}: {len(words)} words from seeds {', '.join(args.ids)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
