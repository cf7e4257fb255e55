"""ConditionalProbabilityJob: P(word | class) with Laplace (add-alpha) smoothing.

Multinomial model: P(w|c) = (count(w, c) + alpha) / (total words in c + alpha * |V|),
where V is the vocabulary of the whole training set. Every (class, word) pair of
V is written, so predict.py needs no knowledge of the smoothing rule.

Output TSV columns: label, word, count, prob.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

import nbtext

JOB = "cond-prob"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--features", required=True, help="features TSV written by extract.py")
    p.add_argument("--out", required=True, help="conditional probabilities TSV to write")
    p.add_argument("--alpha", type=float, default=1.0, help="Laplace smoothing constant")
    p.add_argument("--trace", default="", help="append '<job> ran' to this file")
    p.add_argument("--sleep", type=float, default=0.0, help="seconds to wait before working")
    p.add_argument("--job-name", default=JOB, help="name written to the trace file")
    args = p.parse_args(argv)
    if args.alpha <= 0:
        p.error("--alpha must be positive")
    nbtext.start(args.job_name, args.trace, args.sleep)

    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for row in nbtext.read_tsv(args.features, ("label", "tokens")):
        counts[row["label"]].update(row["tokens"].split())
    if not counts:
        raise SystemExit(f"{args.features}: no documents")
    vocab = sorted(set().union(*counts.values()))
    rows: list[tuple[str, str, int, str]] = []
    for label in sorted(counts):
        c = counts[label]
        denom = sum(c.values()) + args.alpha * len(vocab)
        rows.extend((label, w, c[w], f"{(c[w] + args.alpha) / denom:.12g}") for w in vocab)
    nbtext.write_tsv(args.out, ("label", "word", "count", "prob"), rows)
    nbtext.log(args.job_name, f"{len(counts)} classes x {len(vocab)} words -> {args.out}")
    print(f"vocabulary={len(vocab)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
