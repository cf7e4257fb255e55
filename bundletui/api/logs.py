"""``show=log|errorlog|auditlog``: what Oozie streams as the job's log, from what we keep.

A workflow (or one of its nodes, or the coordinator action that launched it) has real output:
each node's stdout and stderr files (a sub-workflow node's: its child's nodes'), in sections
headed as ``commands.logs`` heads them for every face. Bundles and coordinators run no process
of their own; their log is the audit trail of the commands run on them, in the shape of
Oozie's server-log lines so tools that grep ``JOB[<id>]`` still work.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from bundletui.commands import coordinators as coordcmd
from bundletui.commands import logs, queries
from bundletui.model.ids import IdKind, kind_of
from bundletui.store import jobs
from bundletui.store.db import Store

MAX_LOG_BYTES = 8 * 1024 * 1024  # per file; the tail is what matters in a long log
MAX_TOTAL_BYTES = 32 * 1024 * 1024  # per answer


def job_log(
    store: Store,
    job_id: str,
    what: str,
    *,
    actions: str | None = None,
    dates: str | None = None,
) -> str:
    """``what`` is ``log``, ``errorlog`` (stderr / failed commands) or ``auditlog``;
    ``actions`` / ``dates`` pick a coordinator's actions (``1,3-4``, ``d1::d2``): their logs,
    one after the other, each headed by its id."""
    queries.job_info(store.conn, job_id, length=0)  # E0604 / E0605 for an unknown id
    if actions is not None or dates is not None:
        with store.read() as conn:
            coord = jobs.must_coord_head(conn, job_id)
            rows = coordcmd.select_actions(conn, coord, actions=actions, dates=dates)
        parts: list[str] = []
        size = 0
        for n, row in enumerate(rows):
            if size >= MAX_TOTAL_BYTES:  # each action's log is capped, and so is the answer
                parts.append(
                    f"(… {len(rows) - n} more actions not shown: the answer is capped at"
                    f" {MAX_TOTAL_BYTES:,} bytes; ask for fewer)\n"
                )
                break
            part = f"── {row.id}\n{_ended(job_log(store, row.id, what))}"
            parts.append(part)
            size += len(part.encode())
        return "".join(parts)
    kind = kind_of(job_id)
    if what == "auditlog" or kind in (IdKind.BUNDLE, IdKind.COORDINATOR):
        return audit_text(store, job_id, errors_only=what == "errorlog")
    # in the order the nodes ran (not the definition's): the total cap serves the latest
    # first; an action that launched no workflow yet has none: an empty log, as Oozie's
    found = logs.sections(store, job_id, by_start=True)
    return node_output(found, stderr_only=what == "errorlog")


def node_output(found: logs.Sections, *, stderr_only: bool) -> str:
    """Every section's files, in order, headed when there are several. The answer is built in
    the engine's process when it serves the API: each file gives its last ``MAX_LOG_BYTES``
    and all of them together ``MAX_TOTAL_BYTES``, the latest files first served (the tail is
    what matters), so a workflow of many big logs is not a GB string."""
    pieces: list[tuple[str | None, Path]] = []  # (heading, file)
    for section in found.sections:
        heading = f"── {section.heading}\n" if found.headed else None
        files = section.files
        for path in [files.err] if stderr_only else [files.out, files.err]:
            pieces.append((heading, path))
            heading = None
    budget = MAX_TOTAL_BYTES
    tails: list[str] = []
    for _heading, file in reversed(pieces):
        text, read = _read_tail(file, min(MAX_LOG_BYTES, budget))
        budget -= read
        tails.append(text)
    parts: list[str] = []
    for (heading, _file), text in zip(pieces, reversed(tails), strict=True):
        if heading is not None:
            if parts and not parts[-1].endswith("\n"):
                parts.append("\n")  # a heading starts its own line
            parts.append(heading)
        if text:
            parts.append(text)
    return "".join(parts)


def _read_tail(path: Path, limit: int) -> tuple[str, int]:
    """The last ``limit`` bytes of ``path`` as text, said to be cut if they are; the bytes read."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            skipped = max(size - limit, 0)
            f.seek(skipped)
            data = f.read()
    except OSError:
        return "", 0
    text = data.decode("utf-8", "replace")
    return (f"[… {skipped} bytes skipped …]\n{text}" if skipped else text), len(data)


def audit_text(store: Store, job_id: str, *, errors_only: bool) -> str:
    lines = queries.audit_log_lines(store.conn, job_id, errors_only=errors_only, zone=UTC)
    return "".join(f"{line}\n" for line in lines)


def _ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"
