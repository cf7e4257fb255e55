"""The console's details pane on event schedules: an action says what fired it (the reason
and its first partitions, shortened) and when; a schedule, its trigger, feeds and run
constraints, as ``bundletui info`` does.

The store is the one tests/cli/test_event_trigger_info.py builds (the real engine on a
simulated clock, in-process), made once per module; the console runs on it with no engine
(a real-clock engine refuses a simulated store, EB203), through Textual's Pilot.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest
from rich.text import Text

from tests.cli.test_event_trigger_info import Fired, build_store
from tests.e2e5.conftest import kill_jobs_under
from tests.tui.conftest import Env, Harness, console

pytestmark = pytest.mark.usefixtures("fast_keys")


@pytest.fixture(scope="module")
def fired(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fired]:
    built = build_store(tmp_path_factory.mktemp("console-event-trigger"))
    yield built
    kill_jobs_under(built.home)


@contextlib.asynccontextmanager
async def on_store(f: Fired) -> AsyncIterator[Harness]:
    env = Env(f.root, f.home, f.landing, f.root / "out", bundle=f.bundle)
    async with console(env, engine="none", ready=False, size=(160, 50)) as h:
        await h.until(lambda: f.bundle in h.tree.nodes, what="the bundle in the tree")
        yield h


def details(h: Harness) -> str:
    shown = h.main.query_one("#details-text")._shown  # type: ignore[attr-defined]
    return shown.plain if isinstance(shown, Text) else str(shown)


async def details_of(h: Harness, job_id: str, text: str) -> list[str]:
    await h.select(job_id)
    page = await h.until(
        lambda: details(h) if text in details(h) else None, what=f"{text!r} in the details"
    )
    return str(page).splitlines()


def field(lines: list[str], name: str) -> str:
    """A details field's value (names are padded to 10, then a space)."""
    head = f"{name:<10} "
    found = [x[len(head) :] for x in lines if x.startswith(head)]
    assert found, (name, lines)
    return found[0]


async def test_an_event_action_says_what_fired_it_and_when(fired: Fired) -> None:
    async with on_store(fired) as h:
        await h.expand(fired.arrivals)
        lines = await details_of(h, f"{fired.arrivals}@1", "action @1 of arrivals")
        assert field(lines, "fired by") == (
            "3 new partitions in feed clicks: 2026/03/01/07, 2026/03/01/08, 2026/03/01/09"
        )
        assert field(lines, "fired at") == "2026-03-01 10:00Z"
        await h.expand(fired.after)
        lines = await details_of(h, f"{fired.after}@1", "action @1 of after")
        assert field(lines, "fired by") == "program arrivals SUCCEEDED (action @1)"
        assert field(lines, "fired at").startswith("2026-03-01 10:05")


async def test_a_held_action_joined_by_a_later_firing_says_so(fired: Fired) -> None:
    """Six partitions of one feed, from two firings merged by since-last-run."""
    async with on_store(fired) as h:
        await h.expand(fired.arrivals)
        lines = await details_of(h, f"{fired.arrivals}@2", "action @2 of arrivals")
        assert field(lines, "fired by") == (
            "6 new partitions in feed clicks: 2026/03/01/10, 2026/03/01/11, 2026/03/01/12 (+3 more)"
        )
        assert field(lines, "fired at") == "2026-03-01 10:30Z (+1 later firing joined it)"


async def test_many_partitions_of_several_feeds_are_shortened(fired: Fired) -> None:
    """Five partitions of two feeds: the first three, each with its feed, and how many more."""
    async with on_store(fired) as h:
        await h.expand(fired.bulk)
        lines = await details_of(h, f"{fired.bulk}@1", "action @1 of bulk")
        reason, _, shown = field(lines, "fired by").partition(": ")
        assert reason == "4 new partitions in feed logs and 1 new partition in feed audit"
        names = shown.removesuffix(" (+2 more)").split(", ")
        assert shown.endswith(" (+2 more)") and len(names) == 3, shown
        assert set(names) <= {"logs/a", "logs/b", "logs/c", "logs/d", "audit/x"}, shown


async def test_an_event_schedule_shows_its_trigger_and_constraints(fired: Fired) -> None:
    async with on_store(fired) as h:
        lines = await details_of(h, fired.arrivals, "coordinator arrivals")
        assert field(lines, "trigger") == "3 new partitions of clicks OR cron '0 22 * * *'"
        assert field(lines, "feeds") == f"clicks {fired.landing / 'clicks'}"
        assert field(lines, "constraints") == (
            "concurrency 2, delay 5m, time window 06:00-23:00 UTC, 1h since the last run,"
            " timeout 3h, then started anyway"
        )
        assert field(lines, "priority") == "5"
        lines = await details_of(h, fired.after, "coordinator after")
        assert field(lines, "trigger") == "program arrivals SUCCEEDED"
        assert field(lines, "constraints") == "none"
