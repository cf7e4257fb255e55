"""`report` action: write the counts gathered by the two forked actions.

`--fail-times N` makes the first N attempts fail (exit 75, EX_TEMPFAIL), counting
attempts in `--attempts-file`; it exists to exercise the action's `retry-max`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def bump(counter: Path) -> int:
    """Increment and return the attempt counter kept in `counter`."""
    try:
        n = int(counter.read_text() or "0") + 1
    except FileNotFoundError:
        n = 1
    counter.parent.mkdir(parents=True, exist_ok=True)
    counter.write_text(str(n))
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--input", required=True, help="the file that was counted")
    p.add_argument("--words", type=int, required=True)
    p.add_argument("--lines", type=int, required=True)
    p.add_argument("--out", required=True, help="report file to write")
    p.add_argument("--fail-times", type=int, default=0)
    p.add_argument("--attempts-file", default="", help="required with --fail-times")
    args = p.parse_args(argv)

    if args.fail_times > 0:
        if not args.attempts_file:
            p.error("--fail-times needs --attempts-file")
        attempt = bump(Path(args.attempts_file))
        if attempt <= args.fail_times:
            print(f"attempt {attempt}: failing on purpose", file=sys.stderr)
            return 75

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    # WORKFLOW_ID comes from the action's <env-var>, showing env-vars reach the process.
    workflow = os.environ.get("WORKFLOW_ID", "-")
    tmp.write_text(
        f"workflow: {workflow}\ninput: {args.input}\nlines: {args.lines}\nwords: {args.words}\n",
        encoding="utf-8",
    )
    os.replace(tmp, out)
    print(f"report={out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
