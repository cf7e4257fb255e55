"""``-submit``, ``-run``, ``-dryrun``: OozieCLI's checks of -config and -D, then the same load
and submission as ``bundletui submit``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bundletui.cli._common import printable
from bundletui.cli.oozie.errors import CliError
from bundletui.cli.oozie.format import say
from bundletui.cli.oozie.front import Front


def _conf_args(front: Front) -> tuple[str | None, list[str]]:
    """-config / -D the way OozieCLI.getConfiguration checks them."""
    config = front.args.get("config")
    if config is not None and not Path(config).exists():
        # OozieCLI: isConfigurationSpecified() says no without -D; with -D, getConfiguration()
        # then refuses the missing file
        if front.args.defines:
            raise CliError("E0702", f"configuration file [{config}] not found")
        missing = CliError("E0305", "configuration is not specified")  # Oozie's words, for scripts
        missing.add_note(f"the -config file {config} does not exist")
        raise missing
    if config is None and not front.args.defines:
        raise CliError("E0305", "configuration is not specified")
    if config is not None and not config.endswith((".properties", ".xml")):
        raise CliError("E0303", "configuration must be a '.properties' or a '.xml' file")
    return config, front.args.defines


def _load(front: Front) -> Any:
    from bundletui.model.clock import RealClock
    from bundletui.spec.load import load_job
    from bundletui.store.db import current_user, resolve_home

    config, defines = _conf_args(front)
    from bundletui.cli.job_cmds import submit_defaults

    return load_job(
        config,
        defines,
        front.store.clock if front.has_store() else RealClock(),
        user=current_user(),
        defaults=submit_defaults(resolve_home(front.home)),
    )


def op_submit(front: Front, *, start: bool = False) -> None:
    from bundletui.commands.submit import submit_noting

    loaded = _load(front)
    ctx = front.ctx(create=True)
    # a reused oozie.wf.external.id returns (and -run starts) the job it named: said, as
    # `bundletui submit` says it, so another application's key is not taken silently (QA)
    job_id, again = submit_noting(ctx, loaded, start=start)
    say(f"job: {job_id}")
    if again is not None:
        print(printable(again), file=sys.stderr)


def op_run(front: Front) -> None:
    op_submit(front, start=True)


def op_dryrun(front: Front) -> None:
    """Oozie's dryrun text, the same the API answers in ``id`` (bundletui/api/dryrun.py): a
    workflow ``OK``; a coordinator its XML and first hour of actions (an event-triggered one:
    its trigger instead); a bundle its XML, then each coordinator with its app path."""
    from bundletui.api.dryrun import dryrun_reply
    from bundletui.model.clock import RealClock

    loaded = _load(front)
    clock = front.store.clock if front.has_store() else RealClock()
    say(str(dryrun_reply(loaded, clock)["id"]))
