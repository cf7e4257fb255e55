"""QA: in a suspended coordinator a WAITING action's "why" read ``missing …/00`` although the
engine looks at no input until the resume (the file may well have landed): the row says that
now, as ``bundletui info C`` does."""

from __future__ import annotations

import pytest

from bundletui.commands.base import Ctx
from bundletui.commands.dispatch import suspend
from bundletui.store.rows import CoordRow
from bundletui.tui.widgets import ActionTable
from tests.tui.conftest import Env, console

pytestmark = pytest.mark.usefixtures("fast_keys")


async def test_a_suspended_coordinators_waiting_rows_say_the_inputs_wait_for_the_resume(
    env: Env,
) -> None:
    async with console(env, engine="none", size=(160, 30)) as h:
        hourly = h.coords()["hourly"].id
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.coord_id == hourly and table.row_count >= 6, what="page")
        column = list(table.widths).index("why" if "why" in table.widths else "wf")
        assert str(table.get_row_at(0)[column]).startswith("missing ")
        suspend(Ctx(h.store, face="cli"), hourly)
        await h.until(lambda: h.status(CoordRow, hourly) == "SUSPENDED", what="suspended")

        def says_why() -> bool:
            texts = [str(table.get_row_at(r)[column]) for r in range(table.row_count)]
            return all(t.startswith("coordinator SUSPENDED: inputs are") for t in texts)

        await h.until(says_why, what="every waiting row naming the suspension")
