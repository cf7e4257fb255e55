"""MainScreen is put together from mixins, one a concern (bundletui/tui/screen_state.py): each
key still reaches its action, no Textual handler is defined twice (Textual would run both),
every ``:`` verb has its handler; and ``--demo``'s clean-up ends the jobs its home still runs
through the engine's function, not by signalling them itself."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from bundletui.engine.service import EngineConfig
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import NodeRow
from bundletui.tui.app import ConsoleApp, ConsoleConfig, MainScreen
from bundletui.tui.demo import Demo
from bundletui.tui.engine_host import EmbeddedEngine
from bundletui.tui.inputs import COMMANDS
from bundletui.tui.screen_state import ScreenState
from tests.tui.conftest import Env, submit


def _parts() -> list[type]:
    return [c for c in MainScreen.__mro__[1:] if issubclass(c, ScreenState)]


def test_every_binding_reaches_an_action_of_the_screen() -> None:
    for binding in MainScreen.BINDINGS:
        action = getattr(binding, "action", None)
        assert action is not None
        name = action.partition("(")[0]
        assert callable(getattr(MainScreen, f"action_{name}", None)), name


def test_no_handler_or_action_is_defined_in_two_parts() -> None:
    seen: dict[str, str] = {}
    for part in [MainScreen, *_parts()]:
        for name, value in vars(part).items():
            handler = name.startswith(("on_", "action_", "_on_")) or name == "check_action"
            if callable(value) and (handler or hasattr(value, "_textual_on")):
                assert name not in seen, f"{name}: {seen[name]} and {part.__name__}"
                seen[name] = part.__name__
    assert {"on_key", "check_action", "action_kill", "on_descendant_focus"} <= set(seen)


def test_every_command_verb_has_a_handler(tmp_path: Path) -> None:
    Store(tmp_path).close()
    app = ConsoleApp(ConsoleConfig(home=tmp_path, engine="none", auto_poll=False))
    try:
        screen = MainScreen(app.config, app.backend, app)
        assert set(screen._verbs()) == set(COMMANDS)
    finally:
        app.backend.close()


def test_the_demos_clean_up_ends_the_jobs_its_home_still_runs(env: Env) -> None:
    submit(env, "sleepy")
    engine = EmbeddedEngine(EngineConfig(home=env.home, landing=env.landing))
    engine.start_thread()
    try:
        end = time.monotonic() + 30
        with Store(env.home) as store:
            while not (running := jobs.select(store.conn, NodeRow, "status = 'RUNNING'")):
                assert time.monotonic() < end, "nap did not start"
                time.sleep(0.05)
    finally:
        engine.stop()  # the engine stops; its job goes on running
    pid = running[0].pid
    assert pid is not None
    os.killpg(pid, 0)  # still there
    Demo(env.home, env.landing, "", datetime(2024, 1, 1), temporary=True).cleanup()
    assert not env.home.exists()
    assert not Path(f"/proc/{pid}").exists() or _zombie(pid)


def _zombie(pid: int) -> bool:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rpartition(b")")[2].split()[0] in (b"Z", b"X")


async def test_a_result_read_before_an_exclusive_restart_is_not_shown(env: Env) -> None:
    """The CI flake of the paged action table: a poll's reload of page 2 had its result and
    was on its way to the UI thread when `[` asked for page 1 (cancelling it). The stale page
    was shown anyway, the next poll read its offset, and page 1 never came. A result now
    reaches the screen only if its worker is still wanted when the UI thread takes it."""
    import threading

    from tests.tui.conftest import console

    async with console(env) as h:
        screen = h.main
        shown: list[str] = []
        go = threading.Event()

        def slow() -> str:
            go.wait(5)
            return "stale"

        screen._in_thread(slow, shown.append, group="probe", exclusive=True)
        await h.pilot.pause(0.2)  # its thread runs, and waits for `go`
        go.set()
        time.sleep(0.3)  # the UI thread is busy: the result waits in call_from_thread
        screen._in_thread(lambda: "fresh", shown.append, group="probe", exclusive=True)
        await h.until(lambda: shown, what="a result")
        await h.pilot.pause(0.2)
        assert shown == ["fresh"]


async def test_a_dropped_poll_does_not_hide_the_change_it_read(env: Env) -> None:
    """The lost change behind a console test that failed under load: a timer's poll read a
    change (and, then, the store's version), and a forced poll after a command cancelled it
    before the screen took it. The next poll found the version already seen and read nothing,
    and with no engine to commit again the change never reached the tree. The version a poll
    read now counts only once the screen has applied that poll."""
    import threading

    from bundletui.commands import dispatch
    from bundletui.commands.base import Ctx
    from tests.tui.conftest import console

    async with console(env, engine="none", ready=False, auto_poll=False) as h:
        screen = h.main
        bundle = next(i for i, item in screen.model.items.items() if item.kind == "bundle")
        assert screen.model.items[bundle].status != "SUSPENDED"
        backend = screen.backend
        real_poll = backend.poll
        read, gate = threading.Event(), threading.Event()

        def held_first(*args: object, **kwargs: object) -> object:
            result = real_poll(*args, **kwargs)  # type: ignore[arg-type]
            if not read.is_set():
                read.set()
                gate.wait(5)  # the screen starts another poll meanwhile
            return result

        backend.poll = held_first  # type: ignore[method-assign]
        with Store(env.home) as store:
            dispatch.suspend(Ctx(store, face="cli"), bundle)  # another process's command
        screen.start_poll()
        while not read.is_set():
            await h.pilot.pause(0.05)
        screen.start_poll()  # a timer's poll, not forced: cancels the first
        await h.pilot.pause(0.2)
        gate.set()
        await h.until(
            lambda: screen.model.items[bundle].status == "SUSPENDED", timeout=5, what="suspended"
        )
