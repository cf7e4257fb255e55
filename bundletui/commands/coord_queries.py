"""Read side for coordinators and bundles (filled in with the coordinator commands)."""

from __future__ import annotations

import sqlite3
from typing import Any

from bundletui.commands.base import fail
from bundletui.model.ids import IdKind, kind_of
from bundletui.store import jobs
from bundletui.store.rows import BundleRow, CoordRow, WorkflowRow


def definition_of(conn: sqlite3.Connection, job_id: str) -> str:
    kind = kind_of(job_id)
    cls: type = {IdKind.BUNDLE: BundleRow, IdKind.COORDINATOR: CoordRow}.get(kind, WorkflowRow)  # type: ignore[arg-type]
    row: Any = jobs.get(conn, cls, job_id)
    if row is None:
        raise fail("E0604", job_id)
    return str(row.definition)
