"""Helpers shared by the four naive-Bayes job scripts (stdlib only).

The scripts run as separate processes, like the MapReduce jobs of the JobControl
example, so everything they exchange goes through small TSV files. Outputs are
written to a temporary file and renamed into place, so a job that is killed half
way never leaves a truncated file for the next job to read.
"""

from __future__ import annotations

import csv
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

# Function words carry no class signal and only dilute the counts of a tiny corpus.
# fmt: off
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is",
    "it", "its", "of", "on", "or", "our", "so", "that", "the", "their", "them", "then", "they",
    "this", "to", "was", "were", "will", "with",
})
# fmt: on

TOKEN_RE = re.compile(r"[a-z]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphabetic tokens of at least two letters, stopwords removed."""
    return [t for t in TOKEN_RE.findall(text.lower()) if len(t) > 1 and t not in STOPWORDS]


def read_tsv(path: str | Path, columns: Sequence[str]) -> Iterator[dict[str, str]]:
    """Rows of a headed TSV file.

    A missing file or column ends the job with a one-line message and exit code 1,
    not a traceback: it is a user mistake, not a bug.
    """
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh, delimiter="\t")
            missing = [c for c in columns if c not in (reader.fieldnames or [])]
            if missing:
                raise SystemExit(f"{path}: missing column(s) {', '.join(missing)}")
            for row in reader:
                yield {c: row[c] or "" for c in columns}
    except OSError as e:
        raise SystemExit(f"cannot read {path}: {e.strerror}") from None


def write_tsv(path: str | Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Write a headed TSV file atomically (temp file in the same directory, then rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def trace(trace_file: str, job_name: str) -> None:
    """Append `<job> ran` to the trace file, so tests can count executions of each job.

    One `write` on an O_APPEND descriptor: lines from parallel jobs never interleave.
    An empty path (the workflow's default) disables tracing.
    """
    if not trace_file:
        return
    Path(trace_file).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(trace_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{job_name} ran\n".encode())
    finally:
        os.close(fd)


def start(job_name: str, trace_file: str, sleep: float) -> None:
    """Common job prologue: record the execution, then optionally linger.

    `--sleep` lets crash tests keep a job running long enough to kill the engine under it.
    """
    trace(trace_file, job_name)
    if sleep > 0:
        time.sleep(sleep)


def log(job_name: str, message: str) -> None:
    """Diagnostics go to stderr; stdout is reserved for capture-output properties."""
    print(f"[{job_name}] {message}", file=sys.stderr)
