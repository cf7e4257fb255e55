"""Spec commands, useful without any engine: validate, eval, dryrun."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bundletui.cli._common import (
    DefineOpt,
    HomeOpt,
    SpecJsonOpt,
    err,
    handle_errors,
    out,
    print_error,
    print_json,
)
from bundletui.errors import BundletuiError
from bundletui.model.clock import RealClock

if TYPE_CHECKING:
    from bundletui.spec.load import Validation


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def validate(
        files: Annotated[
            list[Path], typer.Argument(help="Bundle, coordinator or workflow XML files.")
        ],
        config: Annotated[
            Path | None,
            typer.Option("--config", help="job.properties giving values to the variables."),
        ] = None,
        define: DefineOpt = None,
        json_out: SpecJsonOpt = False,
        home: HomeOpt = None,
    ) -> None:
        """Check files against the schema and Oozie's submit-time rules; exit 1 on any error."""
        from bundletui.spec.config import parse_overrides, read_conf_file
        from bundletui.spec.dryrun import default_landing
        from bundletui.spec.load import submission_conf, validate_file
        from bundletui.store.db import current_user

        conf: dict[str, str] | None = None
        # what a submit gives when nothing else does (landing = <home>/landing, the user)
        defaults = {"landing": default_landing(home), "user.name": current_user()}
        try:
            if config is not None or define:
                given = read_conf_file(config) if config is not None else {}
                given.update(parse_overrides(define or []))
                conf = submission_conf(
                    given,
                    user=current_user(),
                    defaults={"landing": defaults["landing"]},
                    source=str(config) if config is not None else "",
                )
        except BundletuiError as exc:
            print_error(exc)
            raise typer.Exit(1) from None
        results = []
        failed = False
        for path in files:
            try:
                v = validate_file(path, RealClock(), conf, defaults=defaults)
                results.append(
                    {
                        "file": str(path),
                        "valid": True,
                        "kind": v.kind_name,
                        "semantics_checked": v.checked_semantics,
                        "needs": list(v.needs),
                        "notes": list(v.notes),
                    }
                )
                if not json_out:
                    out.print(f"Valid {v.kind_name}: {path}{_unchecked_note(v)}", markup=False)
                    for note in v.notes:
                        out.print(f"  note: {note}", markup=False)
            except BundletuiError as exc:
                failed = True
                results.append(
                    {
                        "file": str(path),
                        "valid": False,
                        "code": exc.code,
                        "message": exc.message,
                        "line": exc.line,
                        "hint": exc.hint,
                    }
                )
                if not json_out:
                    print_error(exc)
        if json_out:
            print_json(results)
        if failed:
            raise typer.Exit(1)

    @app.command("eval")
    @handle_errors
    def eval_cmd(
        expr: Annotated[str, typer.Argument(help="An EL expression, e.g. '${coord:current(-1)}'.")],
        nominal_time: Annotated[str | None, typer.Option("--nominal-time")] = None,
        actual_time: Annotated[str | None, typer.Option("--actual-time")] = None,
        timezone: Annotated[str, typer.Option("--timezone", help="Coordinator timezone.")] = "UTC",
        dataset_frequency: Annotated[str | None, typer.Option("--dataset-frequency")] = None,
        dataset_initial_instance: Annotated[
            str | None, typer.Option("--dataset-initial-instance")
        ] = None,
        dataset_timezone: Annotated[str | None, typer.Option("--dataset-timezone")] = None,
        uri_template: Annotated[str | None, typer.Option("--uri-template")] = None,
        done_flag: Annotated[
            str | None,
            typer.Option(
                "--done-flag",
                help="Done-flag file of the dataset (default _SUCCESS; '' = the directory itself).",
            ),
        ] = None,
        define: DefineOpt = None,
        json_out: SpecJsonOpt = False,
        home: HomeOpt = None,
    ) -> None:
        """Evaluate one EL expression in a coordinator action's context (the EL playground)."""
        from bundletui.spec.dryrun import default_landing
        from bundletui.spec.playground import evaluate_playground

        result = evaluate_playground(
            expr,
            nominal_time=nominal_time,
            actual_time=actual_time,
            timezone=timezone,
            dataset_frequency=dataset_frequency,
            dataset_initial_instance=dataset_initial_instance,
            dataset_timezone=dataset_timezone,
            uri_template=uri_template,
            done_flag=done_flag,
            # ${landing} is <home>/landing unless -D says otherwise, as for validate and submit
            defines=[f"landing={default_landing(home)}", *(define or [])],
            clock=RealClock(),
        )
        if json_out:
            print_json({"expression": expr, "result": result})
        else:
            typer.echo(result)

    @app.command()
    @handle_errors
    def dryrun(
        path: Annotated[
            Path, typer.Argument(help="Coordinator XML, bundle XML, or a job.properties file.")
        ],
        define: DefineOpt = None,
        start: Annotated[
            str | None, typer.Option("--start", help="Only actions at or after this nominal time.")
        ] = None,
        end: Annotated[
            str | None, typer.Option("--end", help="Only actions before this nominal time.")
        ] = None,
        limit: Annotated[
            int | None,
            typer.Option("--limit", min=1, help="At most this many actions per coordinator."),
        ] = None,
        json_out: SpecJsonOpt = False,
        home: HomeOpt = None,
    ) -> None:
        """Show the coordinator actions that would be materialized, with resolved inputs."""
        from bundletui.cli.render_dryrun import render_dryrun
        from bundletui.spec.dryrun import dryrun as run_dryrun

        result = run_dryrun(
            path,
            define or [],
            RealClock(),
            start=start,
            end=end,
            limit=limit,
            progress=err,
            home=home,
        )
        if json_out:
            big = sum(len(c["actions"]) for c in result["coordinators"]) > 1000
            print_json(result, compact=big)  # years of actions: hundreds of MB, no indent
        else:
            render_dryrun(result)


def _unchecked_note(v: Validation) -> str:
    """What ``validate`` could not check without the submission's values."""
    if v.checked_semantics:
        return ""
    names = ", ".join(v.needs) or "its variables"
    if v.kind_name == "bundle-app":  # the notes say which coordinators were checked
        if not v.needs:
            return (
                " (not every coordinator can be checked without the submission's values: add"
                " --config job.properties or -D)"
            )
        return f" (give values for {names} with --config or -D to check the rest)"
    if v.kind_name in ("workflow-app", "dag-app"):  # their EL syntax and functions were checked
        return f" (variables not checked: give values for {names} with --config or -D)"
    return f" (schema only: give values for {names} with --config or -D to check the rest)"
