#!/usr/bin/env python3
"""Time the site build on synthetic corpora (run by hand; prints a markdown table).

For each N: generate N treaties (benchmarks/make_corpus.py), build with --jobs 1 and --jobs 2
from an empty cache, rebuild with nothing changed, change one overlay and rebuild. Peak memory
is the largest resident set of the build and its worker processes (getrusage of children).

    python benchmarks/bench_build.py --sizes 100 1000 3500 --seed 7 --work DIR
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(command: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in KiB of the command and its children, and its last output line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return seconds, max(peak, before), last


def build(root: Path, out: Path, jobs: int) -> tuple[float, int, str]:
    return run([sys.executable, "-m", "consolidate", "build", "--root", str(root), "--out", str(out),
                "--jobs", str(jobs)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 3500])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (will be emptied)")
    parser.add_argument("--skip-serial", action="store_true", help="leave out the --jobs 1 build (saves time)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}")
    print("| treaties | generate s | build --jobs 1 s | build --jobs 2 s | no-change rebuild s | "
          "rebuild after one overlay s | peak RSS MiB | site files | site MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        root = args.work / f"n{size}"
        shutil.rmtree(root, ignore_errors=True)
        generated = run([sys.executable, str(REPO / "benchmarks" / "make_corpus.py"), "--treaties", str(size),
                         "--seed", str(args.seed), "--out", str(root)])[0]
        serial = (float("nan"), 0, "") if args.skip_serial else build(root, root / "out1", 1)
        shutil.rmtree(root / ".consolidate-cache", ignore_errors=True)
        shutil.rmtree(root / "out1", ignore_errors=True)
        parallel = build(root, root / "out2", 2)
        unchanged = build(root, root / "out2", 2)
        overlay = sorted((root / "overlays").glob("syn-*/0*.yaml"))[0]
        overlay.write_text(overlay.read_text("utf-8") + "# changed\n", "utf-8")
        touched = build(root, root / "out2", 2)
        files = [p for p in (root / "out2").rglob("*") if p.is_file()]
        megabytes = sum(p.stat().st_size for p in files) / 2**20
        peak = max(serial[1], parallel[1], touched[1]) / 1024
        print(f"| {size} | {generated:.1f} | {serial[0]:.1f} | {parallel[0]:.1f} | {unchanged[0]:.2f} | "
              f"{touched[0]:.2f} | {peak:.0f} | {len(files)} | {megabytes:.0f} |", flush=True)
        print(f"<!-- {size}: {touched[2]} -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
