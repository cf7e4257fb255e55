"""Make the README's console screenshots (SVG) from the real app running the demo.

    .venv/bin/python screenshots/make_screenshots.py [--out screenshots]

What it does is what ``bundletui console --demo`` does — a fresh temporary home with the feeds
bundle submitted and started and the feeder dropping partitions — then it drives the console
with Textual's Pilot (headless, 120×40), waits until actions are in every state, and saves:
main.svg, main-80x24.svg, kill-dialog.svg, pause-dialog.svg, logs.svg, help.svg, filter.svg.
The temporary directory is shown as /tmp/bundletui-demo.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from textual.pilot import Pilot

from bundletui.tui.app import ConsoleApp, ConsoleConfig
from bundletui.tui.demo import make_demo
from bundletui.tui.widgets import JobTree

OUT = Path(__file__).resolve().parent


async def until(pilot: Pilot[None], predicate: object, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > end:
            raise TimeoutError("the demo did not get there")
        await pilot.pause(0.1)


async def shoot(out: Path, feeder_interval: float) -> list[Path]:
    demo = make_demo()
    demo.start_feeder(interval=feeder_interval)
    saved: list[Path] = []
    app = ConsoleApp(
        ConsoleConfig(
            home=demo.home,
            landing=demo.landing,
            demo=demo,
            poll_interval=0.5,
            path_aliases={str(demo.home): "/tmp/bundletui-demo"},
        )
    )

    def save(name: str) -> None:
        path = out / name
        path.write_text(app.export_screenshot(title="bundletui console --demo"))
        saved.append(path)

    try:
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main
            await until(pilot, lambda: main.ready and len(main.model.items) >= 4)
            ingest = next(i for i in main.model.items.values() if i.name == "ingest")
            tree = main.query_one(JobTree)
            tree.focus()
            tree.select_id(ingest.id)
            tree.nodes[ingest.id].expand()
            # wait until the ingest actions show every stage at once
            await until(
                pilot,
                lambda: {"SUCCEEDED", "WAITING"} <= {
                    main.model.items[k].status for k in (main.model.items[ingest.id].children or [])
                    if k in main.model.items
                }
                and ingest.counts.get("SUCCEEDED", 0) >= 6,
            )  # fmt: skip
            await pilot.pause(1.0)
            save("main.svg")

            await pilot.resize_terminal(80, 24)
            await pilot.pause(0.8)
            save("main-80x24.svg")
            await pilot.resize_terminal(120, 40)
            await pilot.pause(0.8)

            kids = [k for k in main.model.items[ingest.id].children or [] if "@" in k]
            # the latest: the feeder reaches the first ones while the shots are taken
            waiting = next(k for k in reversed(kids) if main.model.items[k].status == "WAITING")
            tree.select_id(waiting)
            await pilot.pause(0.8)
            save("action-why.svg")
            await pilot.press("ctrl+k")
            await pilot.pause(0.5)
            save("kill-dialog.svg")
            await pilot.press("escape")

            tree.select_id(ingest.id)
            await pilot.pause(0.3)
            await pilot.press("p", "plus", "2", "h")
            await pilot.pause(0.5)
            save("pause-dialog.svg")
            await pilot.press("escape")

            done = next(k for k in kids if main.model.items[k].status == "SUCCEEDED")
            tree.select_id(done)
            tree.nodes[done].expand()
            await until(pilot, lambda: bool(main.model.items[done].children))
            tree.select_id(f"{main.model.items[done].row.link}@count")
            await pilot.pause(0.5)
            await pilot.press("l")
            await pilot.pause(1.5)
            save("logs.svg")
            await pilot.press("escape")

            await pilot.press("question_mark")
            await pilot.pause(0.5)
            save("help.svg")
            await pilot.press("escape")

            await pilot.press("slash", *"rollup")
            await pilot.pause(0.8)
            save("filter.svg")
    finally:
        demo.cleanup()
    return saved


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--feeder-interval", type=float, default=1.0)
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for path in asyncio.run(shoot(a.out, a.feeder_interval)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
