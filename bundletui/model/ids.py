"""Job ids in Oozie's shapes (oozie.md §0.3).

``0000001-<yyMMddHHmmssSSS>-bundletui-<user>-B|C|W``; the middle part is the store's creation
stamp (Oozie uses the server start) so ids stay unique and sortable per store. Coordinator
action ``<coordId>@<n>``, workflow node ``<wfId>@<name>``, bundle action ``<bundleId>_<name>``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum


class JobKind(StrEnum):
    BUNDLE = "B"
    COORDINATOR = "C"
    WORKFLOW = "W"


_ID_RE = re.compile(r"^(\d{7,})-(\d{15})-([A-Za-z0-9_.]+)-(.+)-([BCW])$")


def stamp(t: datetime) -> str:
    """``yyMMddHHmmssSSS`` in UTC."""
    t = t.astimezone(UTC)
    return t.strftime("%y%m%d%H%M%S") + f"{t.microsecond // 1000:03d}"


# Oozie's ids are at most 40 characters; ours name the submitter, cut so an id stays short
# enough for a column (the sequence alone makes it unique)
USER_IN_ID = 16


def job_id(seq: int, stamp_text: str, user: str, kind: JobKind, system: str = "bundletui") -> str:
    safe_user = re.sub(r"[^A-Za-z0-9_.]", "_", user)[:USER_IN_ID] or "user"
    return f"{seq:07d}-{stamp_text}-{system}-{safe_user}-{kind}"


def action_id(coord_id: str, number: int) -> str:
    return f"{coord_id}@{number}"


def node_id(wf_id: str, name: str) -> str:
    return f"{wf_id}@{name}"


def bundle_action_id(bundle_id: str, coord_name: str) -> str:
    return f"{bundle_id}_{coord_name}"


class IdKind(StrEnum):
    BUNDLE = "bundle"
    COORDINATOR = "coordinator"
    WORKFLOW = "workflow"
    COORD_ACTION = "coordinator action"
    WORKFLOW_NODE = "workflow node"


def kind_of(any_id: str) -> IdKind | None:
    """Route an id the way Oozie's REST layer does (suffix rules of §0.3)."""
    if "-C@" in any_id:
        return IdKind.COORD_ACTION
    if "-W@" in any_id:
        return IdKind.WORKFLOW_NODE
    if any_id.endswith("-B"):
        return IdKind.BUNDLE
    if any_id.endswith("-W"):
        return IdKind.WORKFLOW
    if any_id.endswith("-C"):
        return IdKind.COORDINATOR
    return None


def is_job_id(text: str) -> bool:
    return bool(_ID_RE.match(text))
