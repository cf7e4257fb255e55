"""PredictJob: classify test documents and report accuracy.

Score(c) = log P(c) + sum over the document's in-vocabulary tokens of log P(w|c);
the highest score wins (ties broken by label name, so runs are reproducible).
Words never seen in training are ignored.

Writes a predictions TSV (doc_id, label, predicted) and prints Java-properties
lines on stdout for capture-output, e.g. `accuracy=0.9166`, so a workflow can use
`${wf:actionData('predict')['accuracy']}`.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

import nbtext

JOB = "predict"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--test", required=True, help="test TSV: doc_id, label, text")
    p.add_argument("--priors", required=True, help="priors TSV written by class_prior.py")
    p.add_argument("--cond-prob", required=True, help="TSV written by cond_prob.py")
    p.add_argument("--out", required=True, help="predictions TSV to write")
    p.add_argument(
        "--min-accuracy", type=float, default=0.0, help="exit 1 if accuracy is below this"
    )
    p.add_argument("--trace", default="", help="append '<job> ran' to this file")
    p.add_argument("--sleep", type=float, default=0.0, help="seconds to wait before working")
    p.add_argument("--job-name", default=JOB, help="name written to the trace file")
    args = p.parse_args(argv)
    nbtext.start(args.job_name, args.trace, args.sleep)

    log_prior = {
        row["label"]: math.log(float(row["prior"]))
        for row in nbtext.read_tsv(args.priors, ("label", "prior"))
    }
    log_cond: dict[str, dict[str, float]] = defaultdict(dict)
    for row in nbtext.read_tsv(args.cond_prob, ("label", "word", "prob")):
        log_cond[row["label"]][row["word"]] = math.log(float(row["prob"]))
    if not log_prior or set(log_prior) != set(log_cond):
        raise SystemExit(f"{args.priors} and {args.cond_prob} disagree on the class set")

    rows = []
    correct = 0
    for row in nbtext.read_tsv(args.test, ("doc_id", "label", "text")):
        tokens = nbtext.tokenize(row["text"])

        def score(label: str, tokens: list[str] = tokens) -> float:
            words = log_cond[label]
            return log_prior[label] + sum(words[t] for t in tokens if t in words)

        predicted = min(sorted(log_prior), key=lambda c: -score(c))
        correct += predicted == row["label"]
        rows.append((row["doc_id"], row["label"], predicted))
    if not rows:
        raise SystemExit(f"{args.test}: no test documents")
    nbtext.write_tsv(args.out, ("doc_id", "label", "predicted"), rows)

    accuracy = correct / len(rows)
    nbtext.log(args.job_name, f"{correct}/{len(rows)} correct -> {args.out}")
    print(f"accuracy={accuracy:.4f}")
    print(f"correct={correct}")
    print(f"total={len(rows)}")
    return 0 if accuracy >= args.min_accuracy else 1


if __name__ == "__main__":
    raise SystemExit(main())
