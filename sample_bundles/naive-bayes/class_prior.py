"""ClassPriorJob: count documents per class and compute P(class).

Output TSV columns: label, docs, prior (docs / total docs).
"""

from __future__ import annotations

import argparse
from collections import Counter

import nbtext

JOB = "class-prior"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--features", required=True, help="features TSV written by extract.py")
    p.add_argument("--out", required=True, help="priors TSV to write")
    p.add_argument("--trace", default="", help="append '<job> ran' to this file")
    p.add_argument("--sleep", type=float, default=0.0, help="seconds to wait before working")
    p.add_argument("--job-name", default=JOB, help="name written to the trace file")
    args = p.parse_args(argv)
    nbtext.start(args.job_name, args.trace, args.sleep)

    docs = Counter(row["label"] for row in nbtext.read_tsv(args.features, ("label",)))
    total = sum(docs.values())
    if total == 0:
        raise SystemExit(f"{args.features}: no documents")
    rows = [(label, n, f"{n / total:.12g}") for label, n in sorted(docs.items())]
    nbtext.write_tsv(args.out, ("label", "docs", "prior"), rows)
    nbtext.log(args.job_name, f"{len(rows)} classes from {total} documents -> {args.out}")
    print(f"classes={len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
