"""``oozie admin``: what Oozie asks its server (system mode, version, purge) done on the local
store, whose mode every process shares."""

from __future__ import annotations

import sys

from bundletui.cli.oozie.format import say
from bundletui.cli.oozie.front import Front


def admin_command(front: Front) -> None:
    """``oozie admin -status | -systemmode MODE | -version | -purge SPEC``. The mode is the
    store's, shared with the HTTP API and every other process (SAFEMODE refuses every change
    to jobs). Oozie queues a purge on its server; here it is done before the command returns."""
    from bundletui.commands import admin
    from bundletui.commands import purge as purge_cmd

    if front.args.operation == "purge":
        days = purge_cmd.parse_purge_spec(front.args.get("purge") or "")
        for left in purge_cmd.purge(front.ctx(), days).unremoved:
            print(f"not removed: {left}", file=sys.stderr)
        say("Purge command executed successfully")
        return
    if front.args.operation == "version":
        say(f"Oozie server build version: {admin.BUILD_VERSION}")
        return
    if front.args.operation == "systemmode":
        mode = admin.set_system_mode(front.ctx(), front.args.get("systemmode") or "")
    else:
        mode = front.store.system_mode()
    say(f"System mode: {mode}")
