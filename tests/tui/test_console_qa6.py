"""Console QA, sixth pass: a bundle suspended with no engine running said "a command is being
carried out on its coordinators" while nothing was; it says the command waits for the engine."""

from __future__ import annotations

import pytest

from bundletui.commands.base import Ctx
from bundletui.commands.dispatch import suspend
from bundletui.store.rows import BundleRow
from tests.tui.conftest import Env, console

pytestmark = pytest.mark.usefixtures("fast_keys")


async def test_a_bundle_command_with_no_engine_says_it_waits_for_one(env: Env) -> None:
    async with console(env, engine="none", size=(160, 40)) as h:
        suspend(Ctx(h.store, face="cli"), env.bundle)
        await h.until(lambda: h.status(BundleRow, env.bundle) == "SUSPENDED", what="suspended")
        await h.select(env.bundle)

        def said() -> str:
            return str(h.main.query_one("#details-text").render())  # type: ignore[attr-defined]

        await h.until(
            lambda: (
                "a command is queued for its coordinators: the engine carries it out"
                " (none running: when one starts)" in said().replace("\n", " ")
            ),
            what=f"the details saying the command waits: {said()!r}",
        )
        assert "being carried out" not in said()
