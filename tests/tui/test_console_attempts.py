"""The console's log of a retried node shows every attempt, each headed, as ``bundletui log``
and the API's ``show=log`` do: it showed the last attempt's files only, so an operator could
not see why the earlier attempts failed. Tailing a node that is retried goes on into the new
attempt's files as they grow."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Log

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from bundletui.tui.views import LogScreen
from tests.tui.conftest import Env, console

# fails its first ``failTimes`` attempts (the count kept in a file); with ``gate``, a later
# attempt waits for that file (30 s at most) before it writes its last line
RETRIED = """<dag-app xmlns="uri:bundletui:dag:1.0" name="retried">
  <job name="flaky" retry-max="2" retry-interval="0">
    <shell><exec>sh</exec><argument>-c</argument>
      <argument>n=`cat "$1" 2>/dev/null || echo 0`; n=`expr $n + 1`; echo $n > "$1";
        echo "flaky attempt $n"; if [ $n -le $2 ]; then echo "attempt $n fails" >&amp;2; exit 1; fi
        i=0; while [ -n "$3" ] &amp;&amp; [ ! -e "$3" ] &amp;&amp; [ $i -lt 300 ]; do sleep 0.1; i=`expr $i + 1`; done
        echo "attempt $n done"
      </argument>
      <argument>flaky</argument><argument>${dir}/count</argument><argument>${failTimes}</argument>
      <argument>${gate}</argument>
    </shell>
  </job>
  <job name="after"><depends>flaky</depends>
    <shell><exec>echo</exec><argument>after ran</argument></shell></job>
</dag-app>
"""


# the log view of the node above, retried twice (failTimes=2): every attempt, each headed
EVERY_ATTEMPT = [
    "── flaky (attempt 1 of 3) stdout ──",
    "flaky attempt 1",
    "── flaky (attempt 1 of 3) stderr ──",
    "attempt 1 fails",
    "── flaky (attempt 2 of 3) stdout ──",
    "flaky attempt 2",
    "── flaky (attempt 2 of 3) stderr ──",
    "attempt 2 fails",
    "── flaky (attempt 3 of 3) stdout ──",
    "flaky attempt 3",
    "attempt 3 done",
]


def submit_retried(env: Env, fail_times: int, gate: Path | None = None) -> str:
    app = env.root / "retried"
    app.mkdir(exist_ok=True)
    (app / "workflow.xml").write_text(RETRIED)
    conf = {
        "oozie.wf.application.path": str(app),
        "dir": str(app),
        "failTimes": str(fail_times),
        "gate": str(gate or ""),
    }
    with Store(env.home) as store:
        loaded = load_job(None, conf, store.clock, user="alice")
        return submit_loaded(Ctx(store), loaded, start=True)


async def test_the_log_of_a_retried_node_shows_every_attempt_headed(env: Env) -> None:
    wf = submit_retried(env, fail_times=2)
    async with console(env) as h:
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="it ran")
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.expand(wf)
        await h.select(f"{wf}@flaky")
        tail = h.main.query_one("#logtail", Log)
        await h.until(lambda: "flaky attempt 3" in tail.lines, what="the log tail")
        # the pane's headings are the view's without its closing rule
        assert list(tail.lines) == [line.removesuffix(" ──") for line in EVERY_ATTEMPT]
        await h.press("l")
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: "attempt 3 done" in screen.lines, what="the log view")
        assert screen.lines == EVERY_ATTEMPT
        await h.press("e", "e")  # stderr only: the earlier attempts' failures
        await h.until(lambda: "attempt 2 fails" in screen.lines, what="stderr only")
        assert screen.lines == [
            line for line in EVERY_ATTEMPT if "stderr" in line or "fails" in line
        ]
        await h.press("escape")
        await h.select(wf)
        await h.press("l")  # the workflow's log: every node, the retried one's every attempt
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: "after ran" in screen.lines, what="the workflow's log view")
        headings = [line for line in EVERY_ATTEMPT if line.startswith("──")]
        assert [line for line in screen.lines if line.startswith("──")] == [
            *headings,
            "── after stdout ──",
        ]


async def test_tailing_a_retried_node_goes_on_into_the_new_attempts_files(env: Env) -> None:
    gate = env.root / "gate"
    wf = submit_retried(env, fail_times=1, gate=gate)
    async with console(env) as h:
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.expand(wf)
        flaky = f"{wf}@flaky"
        await h.until(
            lambda: (
                h.main.model.items[flaky].row.attempt == 2
                and h.main.model.items[flaky].status == "RUNNING"
            ),
            what="the second attempt runs",
        )
        await h.select(flaky)
        await h.press("l")
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: "flaky attempt 2" in screen.lines, what="the second attempt")
        assert "attempt 2 done" not in screen.lines
        gate.touch()
        await h.until(lambda: "attempt 2 done" in screen.lines, what="the attempt's last line")
        # headed while the node ran its second attempt with a retry left (retry-max 2)
        assert screen.lines == [
            "── flaky (attempt 1 of up to 3) stdout ──",
            "flaky attempt 1",
            "── flaky (attempt 1 of up to 3) stderr ──",
            "attempt 1 fails",
            "── flaky (attempt 2 of up to 3) stdout ──",
            "flaky attempt 2",
            "attempt 2 done",
        ]
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="it ended")
