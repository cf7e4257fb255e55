"""Ingest one hour of click logs: count clicks per page into <output>/counts.tsv."""

import argparse
import collections
import os
import sys
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--input", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--hour", default="")
    a = p.parse_args()
    src = Path(a.input)
    counts: collections.Counter[str] = collections.Counter()
    for f in sorted(src.glob("part-*")):
        for line in f.read_text().splitlines():
            parts = line.split("\t")
            if len(parts) >= 2:
                counts[parts[1]] += 1
    out = Path(a.output)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / ".counts.tsv.tmp"
    tmp.write_text("".join(f"{page}\t{n}\n" for page, n in sorted(counts.items())))
    os.replace(tmp, out / "counts.tsv")
    print(f"clicks={sum(counts.values())}")
    print(f"pages={len(counts)}")
    print(
        f"[ingest] {a.hour}: {sum(counts.values())} clicks on {len(counts)} pages", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
