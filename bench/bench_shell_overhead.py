"""Shell-job overhead of the process layer (issue 3 §6): goal ≤ 5 ms per job.

Throughput: N jobs of `true` started at once through spawn() + ProcessWatcher, against N bare
``subprocess.run(["true"])`` one after another; overhead per job = (ours - bare) / N.
Latency: the same, one job at a time (a chain of shell jobs pays this per link).
``--compare`` also times the wrapper alternatives weighed in docs/decisions/0003.

The jobs' wrappers beat as the engine's do (``--beat``, the engine's lease TTL: 5 s; 0: none).

Usage: python bench/bench_shell_overhead.py [--jobs 200] [--rounds 5] [--beat 5] [--compare]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bundletui.engine.processes import WRAPPER_SCRIPT, ExitStatus, ProcessWatcher, spawn

TRUE = shutil.which("true") or "/bin/true"


def bare(n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        subprocess.run([TRUE], check=True)
    return time.perf_counter() - t


async def ours(n: int, root: Path, parallel: bool, beat: float) -> float:
    env = dict(os.environ)
    watcher = ProcessWatcher()
    loop = asyncio.get_running_loop()
    dirs = []
    for i in range(n):  # directories are the engine's business, not timed
        d = root / f"j{i}"
        d.mkdir()
        dirs.append(d)
    failures: list[ExitStatus | None] = []

    def start(d: Path, cb: Callable[[int, ExitStatus | None], None]) -> None:
        launched = spawn(
            [TRUE],
            cwd=d,
            env=env,
            stdout_path=d / "out",
            stderr_path=d / "out",
            exit_path=d / "exit",
            beat=beat,
        )
        watcher.watch_child(launched, cb)

    t = time.perf_counter()
    if parallel:
        left = n
        done = loop.create_future()

        def finished(pid: int, st: ExitStatus | None) -> None:
            nonlocal left
            if st != ExitStatus(0):
                failures.append(st)
            left -= 1
            if left == 0:
                done.set_result(None)

        for d in dirs:
            start(d, finished)
        await done
    else:
        for d in dirs:
            one: asyncio.Future[ExitStatus | None] = loop.create_future()
            start(d, lambda pid, st, f=one: f.set_result(st))  # type: ignore[misc]
            st = await one
            if st != ExitStatus(0):
                failures.append(st)
    elapsed = time.perf_counter() - t
    watcher.close()
    if failures:
        raise SystemExit(f"{len(failures)} jobs failed: {failures[:3]}")
    return elapsed


def raw_wrapper(n: int, shell_argv: list[str], root: Path) -> float:
    """n sequential runs of `true` under an alternative wrapper started with posix_spawn."""
    t = time.perf_counter()
    for i in range(n):
        exit_path = str(root / f"alt{i}")
        pid = os.posix_spawn(
            shell_argv[0], [*shell_argv, exit_path, str(root), TRUE], os.environ, setsid=True
        )
        os.waitpid(pid, 0)
    return time.perf_counter() - t


NO_RENAME = WRAPPER_SCRIPT.replace(
    'command printf \'%d\\n\' "$r" >"$1.tmp" && PATH=/usr/bin:/bin command mv -f "$1.tmp" "$1"',
    'command printf \'%d\\n\' "$r" >"$1"',
)
PY_WRAPPER = (
    "import os, subprocess, sys\n"
    "e, d, *argv = sys.argv[1:]\n"
    "r = subprocess.run(argv, cwd=d).returncode\n"
    "r = 128 - r if r < 0 else r\n"
    "open(e + '.tmp', 'w').write(f'{r}\\n'); os.rename(e + '.tmp', e)\n"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--compare", action="store_true", help="also time wrapper alternatives")
    ap.add_argument("--beat", type=float, default=5.0, help="the wrappers' beat (0: none)")
    args = ap.parse_args()
    n = args.jobs

    print(f"machine: {os.cpu_count()} CPUs, {platform.machine()}, Linux {platform.release()}")
    print(f"python {sys.version.split()[0]}, /bin/sh -> {os.path.realpath('/bin/sh')}")
    rows: dict[str, list[float]] = {"bare": [], "parallel": [], "sequential": []}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            par, seq = Path(tmp) / "p", Path(tmp) / "s"
            par.mkdir()
            seq.mkdir()
            rows["bare"].append(bare(n))
            rows["parallel"].append(asyncio.run(ours(n, par, True, args.beat)))
            rows["sequential"].append(asyncio.run(ours(n, seq, False, args.beat)))
    med = {k: statistics.median(v) for k, v in rows.items()}
    ms = 1000 / n
    print(f"{n} jobs of `true`, median of {args.rounds} rounds:")
    print(
        f"  bare subprocess.run, sequential   {med['bare']:.3f} s  ({med['bare'] * ms:.2f} ms/job)"
    )
    print(
        f"  spawn()+watcher, all in parallel  {med['parallel']:.3f} s  ({med['parallel'] * ms:.2f} ms/job)"
    )
    print(
        f"  spawn()+watcher, one at a time    {med['sequential']:.3f} s  ({med['sequential'] * ms:.2f} ms/job)"
    )
    over_par = (med["parallel"] - med["bare"]) * ms
    over_seq = (med["sequential"] - med["bare"]) * ms
    print(
        f"overhead per job (parallel vs bare):   {over_par:+.2f} ms   goal <= 5 ms: {'OK' if over_par <= 5 else 'MISSED'}"
    )
    print(f"latency added per job (one at a time): {over_seq:+.2f} ms")

    if args.compare:
        m = min(n, 100)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            alts = {
                "sh wrapper, tmp + rename (ours)": ["/bin/sh", "-c", WRAPPER_SCRIPT, "w"],
                "sh wrapper, direct write": ["/bin/sh", "-c", NO_RENAME, "w"],
                "python wrapper": [sys.executable, "-S", "-c", PY_WRAPPER],
            }
            base = min(bare(m) for _ in range(3)) / m * 1000
            print(f"wrapper alternatives, {m} sequential runs of `true` (bare {base:.2f} ms/job):")
            for name, argv in alts.items():
                per = min(raw_wrapper(m, argv, root) for _ in range(3)) / m * 1000
                print(f"  {name:34s} {per:6.2f} ms/job  (+{per - base:.2f})")


if __name__ == "__main__":
    main()
