"""ExtractJob: tokenise labelled training documents into a features file.

Output TSV columns: doc_id, label, tokens (space-separated, in document order).
"""

from __future__ import annotations

import argparse

import nbtext

JOB = "extract"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data", required=True, help="training TSV: doc_id, label, text")
    p.add_argument("--out", required=True, help="features TSV to write")
    p.add_argument("--trace", default="", help="append '<job> ran' to this file")
    p.add_argument("--sleep", type=float, default=0.0, help="seconds to wait before working")
    p.add_argument("--job-name", default=JOB, help="name written to the trace file")
    args = p.parse_args(argv)
    nbtext.start(args.job_name, args.trace, args.sleep)

    rows = []
    for row in nbtext.read_tsv(args.data, ("doc_id", "label", "text")):
        tokens = nbtext.tokenize(row["text"])
        rows.append((row["doc_id"], row["label"], " ".join(tokens)))
    if not rows:
        raise SystemExit(f"{args.data}: no training documents")
    nbtext.write_tsv(args.out, ("doc_id", "label", "tokens"), rows)
    nbtext.log(args.job_name, f"{len(rows)} documents -> {args.out}")
    print(f"documents={len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
