#!/usr/bin/env python3
"""Payload sizes: every data file of a build, gzip level 6, against a reference build. Prints figures only.

    python3 bench/payload.py                              # builds the site into a temporary folder
    python3 bench/payload.py --site site                  # measures an existing build
    python3 bench/payload.py --site site --ref old/site   # … and compares with another build's data files

One row per file of ``data/``: reference gzip bytes, gzip bytes now, the change in percent, and the
budget it answers to: a dataset file ``data/<name>.js`` may be at most 1.25 × its reference (issue 9),
a dataset's bins files (``<name>-<part>-bins.js`` or ``<name>-all-bins.js``) at most 400,000 bytes
gzip together. Then one line per dataset with its bins files summed. Gzip is Python's ``gzip`` at
level 6 with a zero timestamp (what a static host serving gzip would send, give or take a header).
"""

import argparse
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASET_GROWTH = 1.25       # a dataset file may grow by at most 25 % over the reference
BINS_BUDGET = 400_000       # bytes gzip, a dataset's bins files together


def gzip_size(path):
    """Bytes of ``path`` compressed by gzip at level 6."""
    return len(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))


def dataset_of(file_name):
    """The dataset a bins file belongs to (``mixed-test-bins.js`` → ``mixed``), else None."""
    if not file_name.endswith("-bins.js"):
        return None
    return file_name[: -len("-bins.js")].rsplit("-", 1)[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an existing build (default: build one)")
    parser.add_argument("--ref", type=Path, help="a reference build whose data files to compare with")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(site)], check=True,
                           stdout=subprocess.DEVNULL)
        names = sorted(p.name for p in (site / "data").glob("*.js"))
        print(f"{'file':<36} {'ref gzip':>9} {'now gzip':>9} {'change':>8}  budget")
        bins_total = {}
        for name in names:
            now = gzip_size(site / "data" / name)
            ref_path = args.ref / "data" / name if args.ref else None
            ref = gzip_size(ref_path) if ref_path and ref_path.exists() else None
            owner = dataset_of(name)
            if owner:
                bins_total[owner] = bins_total.get(owner, 0) + now
            budget = ""
            if ref is not None and not name.endswith(("-analysis.js", "-groups.js")):
                limit = int(ref * DATASET_GROWTH)
                budget = f"≤ {limit:,} ({'within' if now <= limit else 'OVER'})"
            change = f"{100 * (now / ref - 1):+.1f}%" if ref else ""
            print(f"{name:<36} {ref if ref else '':>9,} {now:>9,} {change:>8}  {budget}".replace(" ,", "  ")
                  if ref else f"{name:<36} {'':>9} {now:>9,} {change:>8}  {budget}")
        print()
        print(f"{'bins files of a dataset, together':<36} {'':>9} {'now gzip':>9} {'':>8}  budget")
        for owner, total in sorted(bins_total.items()):
            verdict = "within" if total <= BINS_BUDGET else "OVER"
            print(f"{owner:<36} {'':>9} {total:>9,} {'':>8}  ≤ {BINS_BUDGET:,} ({verdict})")


if __name__ == "__main__":
    main()
