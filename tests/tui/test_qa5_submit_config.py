"""QA5: the console's ``:submit`` of a .xml that is not XML says how a configuration is
written, not "a job.properties goes with --config" (the console has no --config)."""

from __future__ import annotations

import pytest

from tests.tui.conftest import Env, console

pytestmark = pytest.mark.usefixtures("fast_keys")


async def test_submit_of_a_non_xml_configuration_says_how_one_is_written(env: Env) -> None:
    bad = env.home.parent / "qa5-bad.xml"
    bad.write_text("hello\n")
    async with console(env, engine="none") as h:
        await h.press("colon")
        await h.type(f"submit {bad}")
        await h.press("enter")
        await h.until(lambda: h.warned("E0701"), what="the toast")
        toast = next(m for _s, m in h.toasts if "E0701" in m)
        # the CLI's line, file:line first (review: the toast left the place out)
        assert f"failed\nE0701: {bad}:1: XML schema error, {bad}, malformed" in toast, toast
        assert "(line 1, column 1)" in toast, toast
        assert f"hint: {bad} is read as a Hadoop configuration" in toast, toast
        assert "<configuration><property><name>" in toast, toast
        assert "goes with --config" not in toast, toast
