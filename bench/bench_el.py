"""Per-evaluation cost of cached EL templates (goal: on the order of 10 µs with one call).

Run: ``.venv/bin/python bench/bench_el.py``
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from datetime import UTC, datetime

from bundletui.spec.el import (
    BASIC_CONSTANTS,
    Deferred,
    ELContext,
    basic_functions,
    compile_template,
    el_function,
    evaluate,
    render,
)


@el_function(int)
def current(n: int) -> str:
    return f"2009-01-{n + 10:02d}T00:00Z"


def latest(n: int) -> str:
    raise Deferred("latest")


def per_call(call: Callable[[], object], n: int) -> float:
    """Best-of-5 microseconds per call."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            call()
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def main() -> None:
    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args()
    functions = {
        **basic_functions(lambda: datetime(2009, 1, 1, tzinfo=UTC)),
        "coord:current": current,
        "coord:latest": latest,
    }
    ctx = ELContext(
        {**BASIC_CONSTANTS, "nameNode": "file:///data", "feed": "clicks"},
        functions,
        frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"}),
    )
    cases = {
        "one call          ${coord:current(-1)}": "${coord:current(-1)}",
        "mixed, one call   ${nameNode}/${feed}/${coord:current(0)}": "${nameNode}/${feed}/${coord:current(0)}",
        "echo (deferred)   /d/${YEAR}/${coord:latest(0)}": "/d/${YEAR}/${coord:latest(0)}",
        "arith + ternary   ${2 * GB > MB ? 'big' : 'small'}": "${2 * GB > MB ? 'big' : 'small'}",
        "nested basic      ${concat(trim(feed), replaceAll(feed, 'c', 'k'))}": "${concat(trim(feed), replaceAll(feed, 'c', 'k'))}",
        "literal text      /no/expressions/here": "/no/expressions/here",
    }
    n = 50_000
    print(f"EL evaluation, best of 5 x {n:,} (template cached):")
    for label, text in cases.items():
        compile_template(text)
        us = per_call(functools.partial(evaluate, text, ctx), n)
        print(f"  {label:<80} {us:6.2f} µs")
    compile_us = per_call(
        lambda: compile_template.__wrapped__("${nameNode}/${feed}/${coord:current(0)}"), 5_000
    )
    print(
        f"  {'compile (uncached) ${nameNode}/${feed}/${coord:current(0)}':<80} {compile_us:6.2f} µs"
    )
    us = per_call(lambda: render("${coord:current(-1)}", ctx), n)
    print(f"  {'render() of one call':<80} {us:6.2f} µs")


if __name__ == "__main__":
    main()
