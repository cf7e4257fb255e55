"""`count-words` / `count-lines` actions: count one unit of a text file.

Prints `<unit>=<n>` on stdout (capture-output), so the report action can take the
result as `${wf:actionData('count-words')['words']}`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--input", required=True, help="text file to count")
    p.add_argument("--unit", required=True, choices=("words", "lines"))
    args = p.parse_args(argv)
    try:
        text = Path(args.input).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        print(f"cannot read {args.input}: {e.strerror}", file=sys.stderr)
        return 1
    n = len(text.split()) if args.unit == "words" else len(text.splitlines())
    print(f"{args.unit}={n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
