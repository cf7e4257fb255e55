"""Stopping the engine while its lease heartbeat runs in its thread must not crash the process.

The heartbeat runs on a worker thread with its own connection. Cancelling the await left the
statement running while the connection was closed under it: a segfault, seen once in CI when a
console test stopped its engine. A beat every 0.2 ms and hundreds of stops in a child process
(a crash would take a test worker down with it) show it: the old code died within 300 stops.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from bundletui.engine.service import Engine, EngineConfig

    async def main(home: Path, stops: int) -> None:
        for i in range(stops):
            engine = Engine(EngineConfig(home=home, watch=False, lease_ttl=0.0006))
            task = asyncio.create_task(engine.run())
            await asyncio.sleep(0.005 + (i % 5) * 0.002)
            engine.request_stop()
            await task
        print("stopped", stops, "times")

    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
    """
)


def test_stopping_during_a_heartbeat_leaves_the_process_alive(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", SCRIPT, str(tmp_path / "home"), "400"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (p.returncode, p.stdout.strip()) == (0, "stopped 400 times"), p.stderr[-3000:]
