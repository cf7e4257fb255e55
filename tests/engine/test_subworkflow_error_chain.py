"""A workflow failed by its sub-workflow ends with a chain of the nodes down to the one that
failed (``node a → b → c: message``), each level writing its own when it ends: the child's
chain with its node in front. These follow every level's text, the shortened form of a long
chain, and the texts that are not a chain (a killed child's, an EL error's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundletui.store.db import Store
from tests.engine.test_qa5_subworkflow_errors import RECURSIVE, run

NAMES = ["extract", "clean", "join_all", "load-2", "publish", "archive"]


def sub(app: str, job: str, child: str) -> str:
    return f"""<dag-app xmlns="uri:bundletui:dag:1.0" name="{app}">
  <job name="{job}"><sub-workflow><app-path>{child}</app-path></sub-workflow></job>
</dag-app>
"""


LEAF = """<dag-app xmlns="uri:bundletui:dag:1.0" name="leaf">
  <job name="fails"><shell><exec>false</exec></shell></job>
</dag-app>
"""


def chain(names: list[str], message: str) -> str:
    """The text expected for a failure at ``names[-1]`` reached through the others."""
    if len(names) > 4:
        shown = f"{names[0]} → {names[1]} → … → {names[-1]} ({len(names)} levels)"
    else:
        shown = " → ".join(names)
    return f"node {shown}: {message}"


def texts_by_depth(home: Path, top: str) -> list[tuple[str, str, str]]:
    """(status, error_code, error_message) of ``top`` and of each sub-workflow below it."""
    with Store(home, create=False) as store:
        rows = store.conn.execute(
            "SELECT id, parent_id, status, error_code, error_message FROM wf_jobs"
        ).fetchall()
    below = {r[1]: r for r in rows}
    out, at = [], next(r for r in rows if r[0] == top)
    while at is not None:
        out.append((at[2], at[3], at[4]))
        at = below.get(at[0])
    return out


def leaf_text(home: Path, name: str) -> tuple[str, str]:
    with Store(home, create=False) as store:
        row = store.conn.execute(
            "SELECT error_code, error_message FROM wf_nodes WHERE name = ?", (name,)
        ).fetchone()
    return row[0], row[1]


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_a_chain_of_different_names_at_every_level(tmp_path: Path, depth: int) -> None:
    """``depth`` workflows, each starting the next at its own node, the last failing at
    ``fails``: every level names the nodes below it in order, shortened past four."""
    names = [*NAMES[: depth - 1], "fails"]
    for i, job in enumerate(names[:-1]):
        (tmp_path / f"w{i}.xml").write_text(sub(f"w{i}", job, f"w{i + 1}.xml"))
    (tmp_path / f"w{depth - 1}.xml").write_text(LEAF)
    home, wf_id = run(tmp_path, "w0.xml")
    code, message = leaf_text(home, "fails")
    levels = texts_by_depth(home, wf_id)
    assert len(levels) == depth
    for i, said in enumerate(levels):
        assert said == ("FAILED", code, chain(names[i:], message)), (i, said)
    if depth == 3:  # as the brief puts it: a → b → c, where c failed
        assert levels[0][2] == f"node extract → clean → fails: {message}"
    if depth == 5:
        assert levels[0][2] == f"node extract → clean → … → fails (5 levels): {message}"


def test_every_level_of_a_workflow_that_starts_itself(tmp_path: Path) -> None:
    """51 workflows (the depth limit refuses the 52nd): the deepest says its node's launch
    error, each one above adds a level, and from five on the chain is shortened."""
    (tmp_path / "workflow.xml").write_text(RECURSIVE)
    home, wf_id = run(tmp_path, "workflow.xml")
    levels = texts_by_depth(home, wf_id)
    assert len(levels) == 51
    status, code, deepest = levels[-1]
    assert (status, code) == ("FAILED", "EB0506")
    assert deepest.startswith("node again: sub-workflow depth cannot exceed 50"), deepest
    message = deepest.removeprefix("node again: ")
    for i, said in enumerate(levels):
        assert said == ("FAILED", "EB0506", chain(["again"] * (51 - i), message)), (i, said)
    assert levels[46][2] == f"node again → again → … → again (5 levels): {message}"
    assert levels[47][2] == f"node again → again → again → again: {message}"


GRAND_EL = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="grand">
  <start to="d"/>
  <decision name="d">
    <switch><case to="end">${wf:name() gt 3}</case><default to="end"/></switch>
  </decision>
  <end name="end"/>
</workflow-app>
"""


def test_a_chain_above_a_child_that_failed_on_an_el_error(tmp_path: Path) -> None:
    """The grandchild fails on its decision's EL error, its text naming the decision as a
    failed action's names its node (``node d: <error>``; it named none); the middle one says
    ``node inner → d: <error>``, the top one puts its node in front of that. It read ``node
    outer: node inner: <error>`` (the chain was given up for the nesting whenever the walk
    down the rows went past the level where it began)."""
    (tmp_path / "parent.xml").write_text(sub("parent", "outer", "middle.xml"))
    (tmp_path / "middle.xml").write_text(sub("middle", "inner", "grand.xml"))
    (tmp_path / "grand.xml").write_text(GRAND_EL)
    home, wf_id = run(tmp_path, "parent.xml")
    top, middle, grand = texts_by_depth(home, wf_id)
    assert grand[:2] == ("FAILED", "E1004") and "cannot coerce" in grand[2], grand
    assert grand[2].startswith("node d: "), grand
    error = grand[2].removeprefix("node d: ")
    assert middle == ("FAILED", "E1004", f"node inner → d: {error}")
    assert top == ("FAILED", "E1004", f"node outer → inner → d: {error}")


CHILD_KILLED = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="child">
  <start to="k"/>
  <kill name="k"><message>node load: gave up</message></kill>
  <end name="end"/>
</workflow-app>
"""


def test_a_killed_childs_message_is_not_taken_for_a_chain(tmp_path: Path) -> None:
    """A kill node's message is the user's text, whatever it looks like: the parent says it
    after its node, as it is."""
    (tmp_path / "parent.xml").write_text(sub("parent", "outer", "child.xml"))
    (tmp_path / "child.xml").write_text(CHILD_KILLED)
    home, wf_id = run(tmp_path, "parent.xml")
    top, child = texts_by_depth(home, wf_id)
    assert child == ("KILLED", "E0729", "node load: gave up")
    assert top == ("FAILED", "E0729", "node outer: node load: gave up")
