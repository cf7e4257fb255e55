"""Job commands: submit, start, info, jobs, suspend, resume, kill, rerun, log, definition,
purge."""

from __future__ import annotations

import codecs
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bundletui.cli._common import (
    DefineOpt,
    HomeOpt,
    JsonOpt,
    err,
    filter_is_usage,
    handle_errors,
    out,
    print_json,
)
from bundletui.commands import dispatch, queries
from bundletui.commands import purge as purge_cmd
from bundletui.commands.base import Ctx
from bundletui.errors import CommandError, UsageError
from bundletui.model.clock import RealClock, from_ms, to_ms
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.java import JAVA_INT_MAX
from bundletui.model.listing import first_few
from bundletui.model.timeutil import format_oozie_time
from bundletui.store import jobs as store_jobs
from bundletui.store.db import Store, current_user, resolve_home, store_exists
from bundletui.store.lease import engine_running, stopped_holder
from bundletui.store.rows import BundleRow, NodeRow, WorkflowRow

if TYPE_CHECKING:
    from bundletui.commands.logs import Sections

_PURGE_DEFAULTS = purge_cmd.PurgeDays()
IdArg = Annotated[str, typer.Argument(help="Job id (…-W, …-C, …-B, …-C@n, …-W@node).")]
ActionScopeOpt = Annotated[
    str | None, typer.Option("--action", help="Coordinator: only these actions, e.g. 1,3-4.")
]
DateScopeOpt = Annotated[
    str | None,
    typer.Option("--date", help="Coordinator: actions with these nominal times, d1::d2,d3."),
]


def _ctx(home: Path | None) -> Ctx:
    """A command on jobs that exist: a mistyped ``--home`` is EB001, not a new empty store."""
    return Ctx(Store(home, create=False), face="cli")


def submit_defaults(home: Path) -> dict[str, str]:
    """Properties a submission gets unless it sets them: ``landing`` = <home>/landing."""
    return {"landing": str(home / "landing")}


def _note_without_engine(ctx: Ctx, what: str) -> None:
    """Processes are signalled by an engine: without one, or with one stopped (Ctrl-Z,
    SIGSTOP), say when it will happen."""
    if not engine_running(ctx.store.conn, to_ms(RealClock().now())):
        typer.echo(f"note: no engine is running; {what} when one starts (bundletui run)", err=True)
        return
    stopped = stopped_holder(ctx.store.conn)
    if stopped is not None:
        typer.echo(
            f"note: the engine (pid {stopped}) is stopped (Ctrl-Z or SIGSTOP); {what} when it"
            f" continues (kill -CONT {stopped}, or fg in its terminal)",
            err=True,
        )


_JOB_TYPES = {
    "wf": "workflow",
    "workflows": "workflow",
    "coord": "coordinator",
    "coordinators": "coordinator",
    "bundles": "bundle",
}


def _job_type(value: str) -> str:
    """``jobs --type``: Oozie's names and their plurals; anything else is a usage mistake."""
    kind = _JOB_TYPES.get(value, value)
    if kind not in ("workflow", "coordinator", "bundle"):
        raise typer.BadParameter(f"{value!r}: use workflow, coordinator or bundle")
    return kind


def _t(ms: int | None) -> str:

    return "-" if ms is None else format_oozie_time(from_ms(ms))


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def submit(
        config: Annotated[Path, typer.Argument(help="job.properties or Hadoop XML configuration.")],
        define: DefineOpt = None,
        start: Annotated[
            bool, typer.Option("--start", help="Start it right away (Oozie's -run).")
        ] = False,
        external_id: Annotated[
            str | None,
            typer.Option(
                "--external-id", help="Idempotency key: the same id again returns the first job."
            ),
        ] = None,
        home: HomeOpt = None,
    ) -> None:
        """Submit a bundle, coordinator or workflow; prints its id."""
        from bundletui.commands.schedules import landing_warnings
        from bundletui.commands.submit import schedule_apps, submit_noting
        from bundletui.spec.load import load_job

        where = resolve_home(home)
        # the store is made by the first submission that is valid, not by a failed one
        store = Store(where, create=False) if store_exists(where) else None
        loaded = load_job(
            config,
            define or [],
            store.clock if store is not None else RealClock(),
            user=current_user(),
            external_id=external_id,
            defaults=submit_defaults(where),
        )
        ctx = Ctx(store or Store(where), face="cli")
        job_id, again = submit_noting(ctx, loaded, start=start)
        typer.echo(job_id)
        if again is not None:
            err.print(again, markup=False)
        # feeds the engine's --landing (the job's ${landing}) does not watch: found by rescans only
        apps = schedule_apps(loaded)
        for warning in landing_warnings(apps, submit_defaults(where)["landing"]):
            typer.echo(warning, err=True)

    @app.command()
    @handle_errors
    def start(job_id: IdArg, home: HomeOpt = None) -> None:
        """Start a PREP workflow or bundle."""
        dispatch.start(_ctx(home), job_id)

    @app.command()
    @handle_errors
    def suspend(
        job_id: IdArg,
        freeze: Annotated[
            bool,
            typer.Option(
                "--freeze",
                help="Also freeze the running jobs (SIGSTOP) under it, not only drain them.",
            ),
        ] = False,
        action: ActionScopeOpt = None,
        date: DateScopeOpt = None,
        home: HomeOpt = None,
    ) -> None:
        """Suspend a job (bundles and coordinators cascade to their children), or chosen
        running coordinator actions (their workflows)."""
        ctx = _ctx(home)
        for held in dispatch.suspend(ctx, job_id, freeze=freeze, actions=action, dates=date):
            typer.echo(held)
        if freeze:
            _note_without_engine(ctx, "the suspend is recorded, and running jobs are frozen")
        elif kind_of(job_id) is IdKind.BUNDLE:  # a coordinator's cascade is the command's own
            # PREPSUSPENDED for a bundle not started yet (QA: the note said SUSPENDED)
            now = store_jobs.must_get(ctx.store.conn, BundleRow, job_id).status
            _note_without_engine(
                ctx,
                f"the suspend is recorded (its status is {now} now); its coordinators,"
                " their actions and workflows are suspended",
            )

    @app.command()
    @handle_errors
    def resume(
        job_id: IdArg,
        action: ActionScopeOpt = None,
        date: DateScopeOpt = None,
        home: HomeOpt = None,
    ) -> None:
        """Resume a suspended job, or chosen suspended coordinator actions."""
        ctx = _ctx(home)
        for resumed in dispatch.resume(ctx, job_id, actions=action, dates=date):
            typer.echo(resumed)
        _note_without_engine(
            ctx,
            "the resume is recorded; what it holds goes on (new launches, and any job a"
            " suspend --freeze stopped continues)",
        )

    @app.command()
    @handle_errors
    def kill(
        job_id: IdArg,
        action: ActionScopeOpt = None,
        date: DateScopeOpt = None,
        home: HomeOpt = None,
    ) -> None:
        """Kill a job and everything under it (or chosen coordinator actions)."""
        ctx = _ctx(home)
        if action is not None or date is not None:  # given empty: an error, not a whole kill
            for killed in dispatch.kill_actions(ctx, job_id, actions=action, dates=date):
                typer.echo(killed)
        else:
            dispatch.kill(ctx, job_id)
            if kind_of(job_id) is IdKind.COORD_ACTION:
                typer.echo(job_id)  # as --action prints what it killed
        _note_without_engine(  # the job reads KILLED now; the cascade is the engine's
            ctx,
            "the kill is recorded (its status is KILLED now); what runs under it (a bundle's "
            "coordinators, their actions and workflows) is killed, and its processes stopped,",
        )

    @app.command()
    @handle_errors
    def rerun(
        job_id: IdArg,
        skip_nodes: Annotated[
            str | None,
            typer.Option(
                "--skip-nodes", help="Workflow: nodes to skip, a,b (must have succeeded)."
            ),
        ] = None,
        failed_nodes: Annotated[
            bool,
            typer.Option(
                "--failed-nodes", help="Workflow: re-run only the nodes that did not succeed."
            ),
        ] = False,
        action: Annotated[
            str | None, typer.Option("--action", help="Coordinator: actions 1,3-4.")
        ] = None,
        date: Annotated[
            str | None, typer.Option("--date", help="Coordinator/bundle: nominal times d1::d2,d3.")
        ] = None,
        coordinator: Annotated[
            str | None, typer.Option("--coordinator", help="Bundle: coordinator names c1,c2.")
        ] = None,
        refresh: Annotated[
            bool,
            typer.Option(
                "--refresh", help="Re-resolve latest()/future() and re-check every input."
            ),
        ] = False,
        nocleanup: Annotated[
            bool, typer.Option("--nocleanup", help="Keep the output-event directories.")
        ] = False,
        failed: Annotated[
            bool,
            typer.Option(
                "--failed",
                help="Coordinator: re-run only the failed nodes of each action's workflow.",
            ),
        ] = False,
        config: Annotated[
            Path | None,
            typer.Option(
                "--config",
                help="Workflow / coordinator: a properties/XML file of new property values.",
            ),
        ] = None,
        define: DefineOpt = None,
        home: HomeOpt = None,
    ) -> None:
        """Re-run a workflow (same id, run + 1), coordinator actions, or a bundle's coordinators."""
        from bundletui.spec.config import parse_overrides, read_conf_file

        skip = [s.strip() for s in (skip_nodes or "").split(",") if s.strip()]
        # an empty <value> is a value here: skip.nodes empty means every node
        conf = read_conf_file(config, keep_empty=True) if config is not None else {}
        conf.update(parse_overrides(define or []))
        ctx = _ctx(home)
        notes: list[str] = []
        if kind_of(job_id) is IdKind.COORD_ACTION and action is None and date is None:
            # ``rerun C@2`` is ``rerun C --action 2``, as kill / suspend / ignore take it (the
            # API and the oozie front route an action id as Oozie does: not a rerun)
            job_id, _, action = job_id.rpartition("@")
        ids = dispatch.rerun(
            ctx,
            job_id,
            skip_nodes=skip,
            failed_nodes=failed_nodes,
            actions=action,
            dates=date,
            coordinators=coordinator,
            refresh=refresh,
            nocleanup=nocleanup,
            failed=failed,
            conf=conf,
            notes=notes,
        )
        for rid in ids:  # the actions rerun (a workflow or a bundle is its own id)
            if rid != job_id:
                typer.echo(rid)
        for note in notes:
            err.print(f"Warning: {note}", markup=False)

    @app.command()
    @handle_errors
    def change(
        job_id: IdArg,
        value: Annotated[
            str,
            typer.Option(
                "--value",
                help="Coordinator: endtime=…;concurrency=…;pausetime=…;status=RUNNING. Bundle: pausetime=… or endtime=….",
            ),
        ],
        home: HomeOpt = None,
    ) -> None:
        """Change a coordinator's or bundle's end time, pause time, concurrency or status."""
        dispatch.change(_ctx(home), job_id, value)

    @app.command()
    @handle_errors
    def ignore(
        job_id: IdArg,
        action: Annotated[
            str | None, typer.Option("--action", help="Only these actions, 1,3-4.")
        ] = None,
        date: Annotated[
            str | None, typer.Option("--date", help="Actions with these nominal times.")
        ] = None,
        home: HomeOpt = None,
    ) -> None:
        """Ignore a FAILED/KILLED coordinator, or its FAILED/KILLED/TIMEDOUT actions."""
        for ignored in dispatch.ignore(_ctx(home), job_id, actions=action, dates=date):
            typer.echo(ignored)

    @app.command()
    @handle_errors
    def purge(
        wf: Annotated[
            int, typer.Option("--wf", help="Workflows that ended more than this many days ago.")
        ] = _PURGE_DEFAULTS.wf,
        coord: Annotated[
            int,
            typer.Option("--coord", help="Coordinators that ended more than this many days ago."),
        ] = _PURGE_DEFAULTS.coord,
        bundle: Annotated[
            int, typer.Option("--bundle", help="Bundles that ended more than this many days ago.")
        ] = _PURGE_DEFAULTS.bundle,
        limit: Annotated[
            int, typer.Option("--limit", help="Jobs of each kind per transaction.")
        ] = _PURGE_DEFAULTS.limit,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Print the ids that would go; delete nothing.")
        ] = False,
        home: HomeOpt = None,
    ) -> None:
        """Delete ended jobs older than a number of days, with their logs and work directories
        (Oozie's purge: a job goes whole, with its sub-workflows, actions and coordinators)."""
        days = purge_cmd.PurgeDays(wf=wf, coord=coord, bundle=bundle, limit=limit)
        purged = purge_cmd.purge(_ctx(home), days, dry_run=dry_run)
        if dry_run:
            for job_id in (*purged.bundles, *purged.coordinators, *purged.workflows):
                typer.echo(job_id)
        verb = "would purge" if dry_run else "purged"
        err.print(f"{verb} {purged.counts()}", markup=False, highlight=False)
        for left in purged.unremoved:
            err.print(f"Warning: not removed: {left}", markup=False, highlight=False)

    _UNPAGED: dict[IdKind | None, str] = {
        IdKind.BUNDLE: "a bundle lists all of its coordinators",
        IdKind.COORD_ACTION: "an action is one row",
        IdKind.WORKFLOW_NODE: "a node is one row",
    }

    @app.command()
    @handle_errors
    def info(
        job_id: IdArg,
        json_out: JsonOpt = False,
        length: Annotated[
            int | None,
            typer.Option(
                "--len",
                min=0,
                max=JAVA_INT_MAX,
                help="Coordinator actions (or a workflow's nodes) to show (a coordinator's:"
                f" {queries.DEFAULT_ACTIONS_LEN} unless given, as Oozie's v1 API).",
            ),
        ] = None,
        offset: Annotated[
            int,
            typer.Option(
                "--offset", min=1, max=JAVA_INT_MAX, help="First action or node (1-based)."
            ),
        ] = 1,
        order: Annotated[str, typer.Option("--order", help="asc or desc.")] = "asc",
        filter_text: Annotated[str, typer.Option("--filter", help="status=…;nominaltime>=…")] = "",
        home: HomeOpt = None,
    ) -> None:
        """Show a job: status, times, and its nodes / actions / coordinators."""
        if order.lower() not in ("asc", "desc"):
            raise UsageError(
                "E0303", f"Invalid parameter value, [order] = [{order}]", hint="asc or desc"
            )
        if (filter_text or order.lower() != "asc") and kind_of(job_id) is not IdKind.COORDINATOR:
            raise UsageError(
                "E0302",
                "Invalid parameter [--filter / --order apply to a coordinator's actions]",
                hint="give a coordinator id (…-C), or leave them out",
            )
        whole = _UNPAGED.get(kind_of(job_id))  # a silent no-op misleads: refused
        if (length is not None or offset != 1) and whole:
            raise UsageError(
                "E0302",
                "Invalid parameter [--len / --offset page a coordinator's actions or a"
                f" workflow's nodes; {whole}]",
                hint="leave them out, or page one coordinator: bundletui info COORD_ID --len N",
            )
        if length is None and kind_of(job_id) is IdKind.COORDINATOR:
            # a page, not every action: a year-long minutely one printed 500,000 rows (QA)
            length = queries.DEFAULT_ACTIONS_LEN
        store = Store(home, create=False)
        with filter_is_usage():
            data = queries.job_info(
                store.conn,
                job_id,
                offset=offset,
                length=length,
                order=order,
                filter_text=filter_text,
            )
        if json_out:
            print_json(data)
            return
        from bundletui.cli.render import render_info

        render_info(store, job_id, data)

    @app.command("jobs")
    @handle_errors
    def list_jobs(
        kind: Annotated[
            str,
            typer.Option("--type", help="workflow | coordinator | bundle", parser=_job_type),
        ] = "workflow",
        filter_text: Annotated[
            str, typer.Option("--filter", help="status=RUNNING;name=x (same key = OR)")
        ] = "",
        length: Annotated[int, typer.Option("--len", min=1, max=JAVA_INT_MAX)] = 100,
        offset: Annotated[int, typer.Option("--offset", min=1, max=JAVA_INT_MAX)] = 1,
        json_out: JsonOpt = False,
        home: HomeOpt = None,
    ) -> None:
        """List jobs of one type, newest first."""
        from bundletui.cli.render import render_jobs

        store = Store(home, create=False)
        with filter_is_usage():
            if kind == "workflow":
                data = queries.list_workflows(store.conn, filter_text, offset, length)
            else:
                from bundletui.commands import coord_queries

                data = coord_queries.list_jobs(store.conn, kind, filter_text, offset, length)
        if json_out:
            print_json(data)
        else:
            render_jobs(kind, data)

    @app.command()
    @handle_errors
    def definition(job_id: IdArg, home: HomeOpt = None) -> None:
        """Print the application XML a job was submitted with."""
        from bundletui.commands.coord_queries import definition_of

        typer.echo(definition_of(Store(home, create=False).conn, job_id), nl=False)

    @app.command()
    @handle_errors
    def log(
        job_id: IdArg,
        follow: Annotated[
            bool, typer.Option("--follow", "-f", help="Keep printing as the node writes.")
        ] = False,
        stderr_only: Annotated[bool, typer.Option("--stderr", help="Only stderr.")] = False,
        run: Annotated[
            int | None,
            typer.Option(
                "--run",
                min=0,
                help="An earlier run's files (a rerun adds one; info shows the current run).",
            ),
        ] = None,
        action_scope: ActionScopeOpt = None,
        date_scope: DateScopeOpt = None,
        home: HomeOpt = None,
    ) -> None:
        """Print a node's stdout/stderr (a workflow id: every node's; a coordinator action: its
        workflow's; a coordinator: its actions', each headed by its id)."""
        if run is not None and follow:
            raise CommandError(
                "E0302",
                "Invalid parameter [--run with --follow]: only the current run can be followed",
                hint="leave out --follow to print an earlier run's files",
            )
        store = Store(home, create=False)
        kind = kind_of(job_id)
        if kind is not IdKind.COORDINATOR and (action_scope or date_scope):
            raise CommandError(
                "E0302",
                "Invalid parameter [--action/--date]: they pick a coordinator's actions",
                hint=f"give the coordinator's id (…-C), or leave them out for {job_id}",
                usage=True,
            )
        if kind is IdKind.COORDINATOR:
            if follow or run is not None:
                raise CommandError(
                    "E0302",
                    f"Invalid parameter [{'--follow' if follow else '--run'}]: a coordinator's"
                    " log is its actions' logs, printed one after the other",
                    hint=f"give one action: bundletui log {job_id}@N",
                    usage=True,
                )
            print_coordinator_logs(store, job_id, action_scope, date_scope, stderr_only)
            return
        if kind is IdKind.BUNDLE:
            store_jobs.must_get(store.conn, BundleRow, job_id)  # E0604 for an unknown one
            names = first_few([c.id for c in store_jobs.coord_children(store.conn, job_id)])
            raise CommandError(
                "E0302",
                f"Invalid parameter [{job_id}]: a bundle runs no process of its own; its"
                " coordinators' actions have the logs",
                hint=f"bundletui log <coordinator id> (its coordinators: {names or 'none yet'});"
                f" the commands run on it: bundletui oozie job -auditlog {job_id}",
                usage=True,
            )
        from bundletui.commands import logs

        found = logs.log_nodes(store.conn, job_id, sub_workflow=True)
        if found.no_workflow is not None:
            err.print(found.no_workflow, markup=False)  # the action is there: it has no log yet
            return
        if run is not None:
            if (child := found.sub_workflow) is not None:  # its output is its jobs'
                raise CommandError(
                    "E0302",
                    f"Invalid parameter [--run]: {job_id} runs sub-workflow {child}, whose "
                    "logs are its own jobs'",
                    hint=f"bundletui log {child} --run N (bundletui info {child} shows its runs)",
                )
            _print_run_logs(store, list(found.nodes), run, stderr_only=stderr_only)
            return
        if follow:  # a workflow's nodes still to come too; a sub-workflow node: its child's
            nodes = list(logs.log_nodes(store.conn, job_id).nodes)
            if any(n.status in LIVE for n in nodes):  # else all there is: printed as without
                _follow_logs(store, nodes, stderr_only=stderr_only, header=len(nodes) > 1)
                return
        sections = logs.sections(store, job_id)
        for node_id, child in sections.subs:  # their output is their jobs': the child's logs
            err.print(f"{node_id} is sub-workflow {child}: its jobs' logs", markup=False)
        if not sections.sections and not sections.subs:
            err.print(f"{job_id}: no node has run yet", markup=False)
        print_sections(sections, stderr_only=stderr_only)


LIVE = ("RUNNING", "READY", "WAITING")


def print_coordinator_logs(
    store: Store, coord_id: str, actions: str | None, dates: str | None, stderr_only: bool
) -> None:
    """Each chosen action's workflow output (every action when none is chosen), headed by its
    id as the API's ``show=log&type=action`` heads them; an action with no workflow yet is
    passed over."""
    from bundletui.commands import coordinators as coordcmd
    from bundletui.commands import logs

    coord = store_jobs.must_coord_head(store.conn, coord_id)
    if actions is None and dates is None:
        # the newest, as info pages them: every action's read 100,000 logs (QA: 17 s)
        newest = queries.DEFAULT_ACTIONS_LEN
        rows, launched = store_jobs.launched_actions(store.conn, coord_id, newest)
        if launched > newest:
            err.print(
                f"{coord_id}: the logs of its newest {newest} actions of {launched} that"
                f" launched a workflow (from {rows[0].id}); others: --action N-M or --date"
                " D1::D2",
                markup=False,
            )
    else:
        rows = coordcmd.select_actions(store.conn, coord, actions=actions, dates=dates)
    printed = 0
    for row in rows:
        if not row.external_id:
            continue
        _heading_line()
        out.print(f"[bold]── {row.id}[/bold] ({row.status}, workflow {row.external_id})")
        print_sections(logs.sections(store, row.id), stderr_only=stderr_only)
        printed += 1
    if not printed:
        err.print(
            f"{coord_id}: no action {'chosen ' if rows and (actions or dates) else ''}has"
            " launched a workflow yet, so there is no log to show"
            f" (see its actions with: bundletui info {coord_id})",
            markup=False,
        )


def print_sections(found: Sections, *, stderr_only: bool) -> None:
    """Each section's files in turn, each under its heading when there are several (the rule
    of ``commands.logs``, which every face follows)."""
    from rich.markup import escape

    for section in found.sections:
        files = section.files
        if found.headed:
            _heading_line()
            out.print(f"[bold]── {escape(section.name)}[/bold] {section.detail}")
        for p in [files.err] if stderr_only else [files.out, files.err]:
            _cat(p, 0)


def _print_run_logs(store: Store, nodes: list[NodeRow], run: int, *, stderr_only: bool) -> None:
    """Run ``run``'s files of each node, attempt after attempt (they are kept after a rerun;
    the store keeps only the current run, so the attempts are the files found)."""
    from bundletui.commands import logs

    # the workflow's run, not its nodes': a node a rerun skipped keeps its old run number
    newest = store_jobs.must_get(store.conn, WorkflowRow, nodes[0].wf_id).run
    if run > newest:
        raise CommandError(
            "E0302",
            f"Invalid parameter [--run {run}]: {nodes[0].wf_id} has runs 0 to {newest}",
            hint=f"bundletui info {nodes[0].wf_id} shows its current run",
        )
    found = logs.run_sections(store, nodes, run)
    print_sections(found, stderr_only=stderr_only)
    if not found.sections:
        names = nodes[0].id if len(nodes) == 1 else nodes[0].wf_id
        err.print(f"{names}: no log files of run {run} (a node that did not run then has none)")


def _follow_logs(
    store: Store,
    nodes: Sequence[NodeRow],
    *,
    stderr_only: bool,
    header: bool,
    path: tuple[str, ...] = (),
) -> None:
    """Follow each node's log in turn until it ends, those still to come too. What will run
    is not known yet: the sections are headed when more than one node may run (a lone node's
    later attempts are marked on stderr), as ``parent-node → child-node`` in a sub-workflow."""
    for node in nodes:
        _follow_node(store, node, stderr_only=stderr_only, header=header, path=path)


def _follow_node(
    store: Store, node: NodeRow, *, stderr_only: bool, header: bool, path: tuple[str, ...]
) -> None:
    """Print one node's log, attempt after attempt, until the node ends, moving on to each
    new attempt's files when it is retried; a sub-workflow node's: its child's nodes'."""
    from rich.markup import escape

    from bundletui.commands import logs

    shown = 0  # the attempt whose files are being printed (0: none yet)
    positions: dict[Path, int] = {}
    current: NodeRow | None = node
    while current is not None:
        if (child := logs.sub_workflow_of(current)) is not None:
            err.print(f"{node.id} is sub-workflow {child}: its jobs' logs", markup=False)
            kids = store_jobs.workflow_nodes(store.conn, child)
            many = header or len(kids) > 1
            _follow_logs(store, kids, stderr_only=stderr_only, header=many, path=(*path, node.name))
            return
        # every attempt of this run, in order (a retried node's earlier failures explain it);
        # a retry may start and end between two polls: each attempt in between is printed too
        every = logs.attempts(store, current) if current.attempt > 0 else []
        for files in every[shown:]:
            for p in positions:  # the rest of the previous attempt
                positions[p] = _cat(p, positions[p])
            positions = dict.fromkeys([files.err] if stderr_only else [files.out, files.err], 0)
            section = logs.Section((*path, node.name), files, len(every))
            if header or shown:
                _heading_line()
            if header:
                out.print(f"[bold]── {escape(section.name)}[/bold] {section.detail}")
            elif shown:
                err.print(f"── {section.name}: attempt {files.attempt}", markup=False)
            shown = files.attempt
        live = current.status in LIVE
        for p in positions:
            positions[p] = _cat(p, positions[p], final=not live)
        if not live:
            break
        time.sleep(0.2)
        current = store_jobs.get(store.conn, NodeRow, node.id)
        if current is not None and current.status not in LIVE and current.attempt == shown:
            for p in positions:
                positions[p] = _cat(p, positions[p])
            break


_CHUNK = 1 << 20


class _Output:
    """Whether the log printed last ended inside a line: a heading then starts a new one
    (``…xxxx── b (SUCCEEDED, attempt 1)`` was one line)."""

    mid_line = False


def _cat(path: Path, offset: int, *, final: bool = True) -> int:
    """Print ``path`` from ``offset``, a chunk at a time (a job's log may be GBs: it is never
    read whole); the offset reached. Unless ``final``, the bytes of a character cut by the
    file's end are left for the next call (``log -f`` prints it once it is whole); when
    final they are printed as ``�``."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return offset
    with f:
        f.seek(offset)
        while chunk := f.read(_CHUNK):
            offset += len(chunk)
            text = decoder.decode(chunk)
            if text:
                # color=True: as the job wrote it, as `cat` and the API give it (click would
                # strip its escape sequences when stdout is not a terminal)
                typer.echo(text, nl=False, color=True)
                _Output.mid_line = not text.endswith("\n")
    if final and (rest := decoder.decode(b"", final=True)):
        typer.echo(rest, nl=False, color=True)
        _Output.mid_line = True
        return offset
    return offset - len(decoder.getstate()[0])


def _heading_line() -> None:
    """Before a heading: end the line the last log left open."""
    if _Output.mid_line:
        typer.echo("")
        _Output.mid_line = False
