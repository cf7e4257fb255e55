"""`check` action: inspect the input file and report its size for the decision node.

Prints Java-properties on stdout (capture-output), e.g. `rows=5` and `bytes=254`;
the workflow branches on `${wf:actionData('check')['rows'] gt 0}`. A missing file
is an error (exit 1), an empty one is not: the decision sends it to a kill node.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--input", required=True, help="text file to check")
    args = p.parse_args(argv)
    path = Path(args.input)
    try:
        data = path.read_bytes()
    except OSError as e:
        print(f"cannot read {path}: {e.strerror}", file=sys.stderr)
        return 1
    rows = sum(1 for line in data.decode("utf-8", "replace").splitlines() if line.strip())
    print(f"rows={rows}")
    print(f"bytes={len(data)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
