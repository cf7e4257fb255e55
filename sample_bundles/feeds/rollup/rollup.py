"""Sum hourly page counts (comma-separated input dirs) into one daily counts.tsv."""

import argparse
import collections
import os
import sys
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--inputs", required=True, help="comma-separated hourly directories")
    p.add_argument("--output", required=True)
    a = p.parse_args()
    total: collections.Counter[str] = collections.Counter()
    dirs = [d for d in a.inputs.split(",") if d]
    for d in dirs:
        f = Path(d) / "counts.tsv"
        if f.exists():
            for line in f.read_text().splitlines():
                page, n = line.split("\t")
                total[page] += int(n)
    out = Path(a.output)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / ".counts.tsv.tmp"
    tmp.write_text("".join(f"{page}\t{n}\n" for page, n in total.most_common()))
    os.replace(tmp, out / "counts.tsv")
    print(f"hours={len(dirs)}")
    print(f"clicks={sum(total.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
