"""``bundletui dryrun``: the coordinator actions a job would materialize, without a store.

PATH is a coordinator XML (its variables come from ``-D``), a bundle XML, or a job
configuration (``.properties`` or Hadoop XML) naming either. Each action goes through the
same three phases as in the engine (:mod:`bundletui.spec.materialize`): creation at the
action's nominal time with actual time = now (as Oozie's dryrun does), the input check against
the real file system right now, and the action-start evaluation of the workflow configuration.

The result is plain data, printed as JSON by ``--json``::

    {"coordinators": [{"name": …, "actions": [{"number": 1, "nominal_time": "…",
      "data_in": {"name": ["uri", …]}, "data_out": {…}, "missing_dependencies": ["uri", …],
      "ready": true, "conf": {"k": "v"}}], "notes": ["…"]}]}

``notes``: what is valid but will fail as it stands (a workflow that cannot be read now).

A data-in whose latest()/future() cannot be resolved yet lists that EL text in place of its
URIs (first, where Oozie puts the resolved ones); ``missing_dependencies`` holds the done-flag
paths that do not exist, then the unresolved EL. ``ready`` is the engine's verdict on them: with
``<input-logic>`` an action can be ready while some paths are absent (an ``or`` met by its first
branch), so the status follows ``ready``, not the length of the list.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from bundletui._host import os_user
from bundletui.errors import SpecError
from bundletui.model.apps import BundleApp, CoordinatorApp
from bundletui.model.clock import Clock
from bundletui.model.events import describe
from bundletui.model.ids import JobKind, job_id, stamp
from bundletui.model.timeutil import format_oozie_time, option_time
from bundletui.spec import xmlsafe
from bundletui.spec.config import expand_conf, load_job_config, parse_overrides
from bundletui.spec.datasets import local_exists
from bundletui.spec.load import (
    Loaded,
    check_siblings,
    load_app,
    load_bundle_coordinator,
    load_configured,
    workflow_notes,
)
from bundletui.spec.materialize import compile_coordinator, iter_actions
from bundletui.spec.xmlsafe import AppKind

__all__ = ["default_landing", "dryrun", "dryrun_coordinator"]

DRYRUN_FILES = ("coordinator.xml", "bundle.xml", "job.properties")
PROGRESS_AFTER_SECONDS = 0.5  # show a progress bar only for runs longer than this
_PROGRESS_EVERY = 500  # actions between progress updates


def _user(conf: Mapping[str, str]) -> str:
    return conf.get("user.name") or os_user()


def _is_app_xml(path: Path) -> bool:
    """An application XML (coordinator/bundle/workflow) rather than a configuration file."""
    data = xmlsafe.read_bytes(path)
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return False
    root = xmlsafe.parse_xml(data, str(path))
    return xmlsafe.local_name(root) != "configuration"


def default_landing(home: Path | None = None) -> str:
    """``<home>/landing``: the directory ``bundletui run`` watches, the ``landing`` default."""
    if home is None:
        env = os.environ.get("BUNDLETUI_HOME")
        home = Path(env) if env else Path.home() / ".bundletui"
    landing = home.expanduser() / "landing"
    try:
        return str(landing.resolve())
    except (OSError, RuntimeError):  # a loop of links: the store's open says so, if it matters
        return os.path.abspath(landing)


def _load(path: Path, defines: Iterable[str], clock: Clock, home: Path | None) -> Loaded:
    if path.is_dir():  # as submit and validate say it, naming what it should hold
        raise xmlsafe.directory_error(path, DRYRUN_FILES)
    if not path.exists():
        raise SpecError(
            "E1001",
            f"Could not read the coordinator job definition, {path} does not exist",
            hint="give a coordinator.xml, a bundle.xml, or a job.properties file",
        )
    overrides = parse_overrides(defines)
    if _is_app_xml(path):
        conf = expand_conf({"landing": default_landing(home), **overrides})
        conf.setdefault("user.name", _user(conf))
        return load_app(path, conf, clock, kinds=(AppKind.COORDINATOR, AppKind.BUNDLE))
    job = load_job_config(path, overrides, defaults={"landing": default_landing(home)})
    if "landing" not in job.conf:
        job = replace(job, conf={"landing": default_landing(home), **job.conf})
    return load_configured(job, clock, user=_user(job.conf))


def _time_option(text: str | None, what: str) -> datetime | None:
    return None if text is None else option_time(text, what)


def dryrun(
    path: str | Path,
    defines: Iterable[str],
    clock: Clock,
    *,
    start: str | None = None,
    end: str | None = None,
    limit: int | None = None,
    progress: Console | None = None,
    home: Path | None = None,
) -> dict[str, Any]:
    """Materialize every coordinator of PATH on paper (see the module docstring).

    ``landing`` defaults to ``<home>/landing`` (``home``: ``--home``, ``$BUNDLETUI_HOME`` or
    ``~/.bundletui``) when neither the configuration nor ``-D`` sets it, as for ``submit``.
    """
    after = _time_option(start, "--start")
    before = _time_option(end, "--end")
    if after is not None and before is not None and after >= before:  # an empty window
        raise SpecError(
            "E0302",
            f"Invalid parameter [--start {start} --end {end}]: the window is empty",
            hint="--start is the first nominal time shown, --end the first one not shown: "
            "give a --start before --end",
            usage=True,
        )
    if limit is not None and limit < 0:
        raise SpecError(
            "E0302", f"Invalid parameter [--limit {limit}]", hint="give 0 or more", usage=True
        )
    loaded = _load(Path(path), list(defines), clock, home)
    return dryrun_loaded(loaded, clock, start=after, end=before, limit=limit, progress=progress)


def dryrun_loaded(
    loaded: Loaded,
    clock: Clock,
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    end_after_start: timedelta | None = None,
    limit: int | None = None,
    progress: Console | None = None,
) -> dict[str, Any]:
    """The actions every coordinator of an already loaded app would materialize.

    ``end_after_start`` bounds each coordinator's window from its own start (Oozie's REST
    dryrun shows the first hour). Shared by ``bundletui dryrun`` and the API's ``?action=dryrun``.
    """
    now = clock.now()
    user = loaded.user or _user(loaded.conf)
    jobs: list[tuple[str, CoordinatorApp, Mapping[str, str], str]] = []
    if loaded.kind is AppKind.COORDINATOR:
        jobs.append((loaded.app.name, loaded.app, loaded.conf, loaded.app_path))
    elif loaded.kind is AppKind.BUNDLE:
        bundle: BundleApp = loaded.app
        bundle_id = job_id(0, stamp(now), user, JobKind.BUNDLE, system="dryrun")
        entries = [coord for coord in bundle.coordinators if coord.enabled]
        children = [
            load_bundle_coordinator(bundle, coord, loaded.conf, bundle_id, clock)
            for coord in entries
        ]
        check_siblings(children)  # what submit refuses across them: clashes, program loops
        for coord, child in zip(entries, children, strict=True):
            jobs.append((coord.name, child.app, child.conf, child.app_path))
    else:
        raise SpecError(
            "EB0401",
            f"dryrun needs a coordinator or a bundle, {loaded.app_path} is a workflow",
            hint="start a workflow with `bundletui submit FILE --start`, or dryrun its coordinator",
        )
    exists = _Snapshot().__getitem__
    out: list[dict[str, Any]] = []
    for index, (name, app, conf, file) in enumerate(jobs, start=1):
        notes = list(workflow_notes(app, file, clock))
        if app.events is not None:  # event-triggered: no action is due at a nominal time
            events = describe(app.events, app.timezone)
            out.append({"name": name, "actions": [], "events": events, "notes": notes})
            continue
        coord_id = job_id(index, stamp(now), user, JobKind.COORDINATOR, system="dryrun")
        actions = dryrun_coordinator(
            app,
            conf,
            coord_id=coord_id,
            user=user,
            now=now,
            exists=exists,
            start=start,
            end=end if end_after_start is None else app.start + end_after_start,
            limit=limit,
            progress=progress,
            clock=clock,
        )
        out.append({"name": name, "actions": actions, "notes": notes})
    return {"coordinators": out}


class _Snapshot(dict[str, bool]):
    """One file-system answer per path per dryrun: a consistent snapshot, and fast (a hit is
    a plain dict lookup)."""

    def __missing__(self, path: str) -> bool:
        found = self[path] = local_exists(path)
        return found


def dryrun_coordinator(
    app: CoordinatorApp,
    conf: Mapping[str, str],
    *,
    coord_id: str,
    user: str,
    now: datetime,
    exists: Callable[[str], bool],
    start: datetime | None = None,
    end: datetime | None = None,
    limit: int | None = None,
    progress: Console | None = None,
    clock: Clock | None = None,
) -> list[dict[str, Any]]:
    """The action dicts of one coordinator (the ``actions`` list of the JSON)."""
    compiled = compile_coordinator(app, conf)
    if progress is not None and not progress.is_terminal:
        progress = None  # a bar is for people watching a terminal
    schedule = list(iter_actions(app, start=start, end=end, limit=limit))
    bar: Progress | None = None
    task = None
    began = clock.monotonic() if clock is not None else 0.0
    actions: list[dict[str, Any]] = []
    try:
        for i, (number, nominal) in enumerate(schedule):
            if progress is not None and clock is not None and i % _PROGRESS_EVERY == 0 and i:
                if bar is None and clock.monotonic() - began > PROGRESS_AFTER_SECONDS:
                    bar = Progress(
                        TextColumn(f"dryrun {app.name}"),
                        BarColumn(),
                        MofNCompleteColumn(),
                        TimeElapsedColumn(),
                        console=progress,
                        transient=True,
                    )
                    bar.start()
                    task = bar.add_task("actions", total=len(schedule))
                if bar is not None and task is not None:
                    bar.update(task, completed=i)
            plan = compiled.plan(coord_id=coord_id, number=number, nominal=nominal, actual=now)
            check = compiled.check(plan, now=now, exists=exists)
            wf_conf = compiled.workflow_conf(
                plan, check, coord_id=coord_id, action_id=plan.action_id, user=user, now=now
            )
            data_in: dict[str, list[str]] = {}
            for d in plan.data_ins:
                chosen = check.data_in.get(d.name)
                data_in[d.name] = (
                    list(chosen) if chosen is not None else [*(p.text for p in d.pending), *d.uris]
                )
            actions.append(
                {
                    "number": number,
                    "nominal_time": format_oozie_time(nominal),
                    "data_in": data_in,
                    "data_out": {d.name: list(d.uris) for d in plan.data_outs},
                    "missing_dependencies": list(check.missing_dependencies),
                    "ready": check.ready,
                    "conf": wf_conf,
                }
            )
    finally:
        if bar is not None:
            bar.stop()
    return actions
