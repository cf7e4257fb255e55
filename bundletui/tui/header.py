"""The header: the store, the engine (who holds the store's lease, judged by the one rule
every face uses, :func:`~bundletui.store.lease.lease_state`), the time, the polls' health and
the badges; and ``:stats``, the console's diagnostics of itself."""

from __future__ import annotations

import gc

from bundletui._host import host_label
from bundletui.model.clock import RealClock, to_ms
from bundletui.store.lease import EngineState, Lease, lease_state
from bundletui.tui.engine_host import EngineStatus, ago
from bundletui.tui.screen_state import ScreenState
from bundletui.tui.widgets import HeaderBar, HeaderState, JobTree


def engine_text(
    state: EngineState,
    lease: Lease | None,
    now_ms: int,
    embedded: EngineStatus | None,
    read_only: bool,
) -> tuple[str, str, str]:
    """What the header says of the engine: the text, a shorter one for a narrow header,
    and its style. ``state`` is :func:`~bundletui.store.lease.lease_state` of ``lease`` at
    ``now_ms``; ``embedded`` the status of the console's own engine, when it has one. A lease
    past its expiry whose holder still runs on this host is an engine that exists but does
    not respond (SIGSTOP, Ctrl-Z, a stall): nothing takes over from it, so it is not "none"."""
    hung = state in ("hung", "stopped")
    since = ago(now_ms - lease.expires) if lease is not None else ""
    why = f"{'stopped; ' if state == 'stopped' else ''}lease expired {since} ago"
    if embedded is not None:
        status = embedded
        if status.state == "active":
            pid = status.holder.split(":")[1] if status.holder.count(":") >= 2 else "?"
            return (
                f"engine: active (in console, pid {pid})",
                "engine: active (in console)",
                "green",
            )
        if status.state == "failed":
            failed = f"engine: FAILED {status.error}"  # the error wins over the path
            return failed, failed, "bold red"
        if lease is not None and hung:
            # it waits for a holder that will not go (a standby), or for the store's
            # write lock that a stopped engine may hold (starting)
            return (
                f"engine: {status.state}; pid {lease.pid} not responding ({why})",
                f"engine: {status.state}; pid {lease.pid} not responding",
                "bold red",
            )
        if status.state == "standby":
            who = f" pid {lease.pid}@{host_label(lease.host)}" if lease else ""
            return (
                f"engine: standby (in console; lease held by{who})",
                "engine: standby (in console)",
                "yellow",
            )
        return f"engine: {status.state} (in console)", f"engine: {status.state}", "yellow"
    if lease is not None and state == "active":
        return (
            f"engine: active (attached to pid {lease.pid}@{host_label(lease.host)})",
            f"engine: active (pid {lease.pid})",
            "green",
        )
    if lease is not None and hung:
        return (
            f"engine: pid {lease.pid} not responding ({why})",
            f"engine: pid {lease.pid} not responding",
            "bold red",
        )
    hint = "" if read_only else "; :engine start"
    if lease is not None:
        if state == "gone" and lease.expires > now_ms:  # killed: its lease has not run out yet
            text = f"engine: none (pid {lease.pid} exited{hint})"
        elif state == "gone":
            text = f"engine: none (pid {lease.pid} exited, lease expired {since} ago{hint})"
        else:
            text = f"engine: none (pid {lease.pid}@{host_label(lease.host)}'s lease expired {since} ago{hint})"
        return text, "engine: none", "bold red"
    if read_only:  # no command is sent from here: nothing waits
        return "engine: none", "engine: none", "yellow"
    return "engine: none (commands wait)", "engine: none", "yellow"


class HeaderMixin(ScreenState):
    """The header and ``:stats`` of :class:`~bundletui.tui.app.MainScreen`."""

    def _engine_text(self) -> tuple[str, str, str]:
        """:func:`engine_text` now. Asked at every refresh, not only once the lease is late:
        a holder killed on this host (kill -9) is gone at once, not when its lease runs out
        (one read of /proc)."""
        now_ms = to_ms(RealClock().now())
        embedded = self.console.embedded
        return engine_text(
            lease_state(self.lease, now_ms, self._db_path),
            self.lease,
            now_ms,
            embedded.status if embedded is not None else None,
            self.config.read_only,
        )

    def header_state(self) -> HeaderState:
        clock = self.config.clock
        badges: list[tuple[str, str]] = []
        if self.config.read_only:
            badges.append(("RO", "bold black on yellow"))
        if self.config.demo is not None:
            badges.append(("DEMO", "bold black on cyan"))
        dialog = self.is_mounted and self.app.screen is not self
        if self.frozen:
            badges.append(("FROZEN", "bold black on magenta"))
        if self.system_mode == "SAFEMODE":  # why every control key answers E0002
            badges.append(("SAFEMODE", "bold white on red"))
        elif self.system_mode != "NORMAL":
            badges.append((self.system_mode, "bold black on yellow"))
        if self.config.frozen_clock or self.server_now is None:
            now = clock.now()
        elif self.simulated:
            now = self.server_now
        else:
            now = RealClock().now()
        server = f"{now:%Y-%m-%d %H:%M:%S}Z" + (" sim" if self.simulated else "")
        if self.last_poll_mono is None:
            poll, style = "loading", "yellow"
        elif self.config.frozen_clock:
            poll, style = "poll 0.0s", "dim"
        else:
            age = clock.monotonic() - self.last_poll_mono
            if self.frozen or dialog:
                poll, style = f"paused {age:.0f}s", "magenta"
            elif self.poll_error:
                poll, style = f"POLL ERROR {age:.0f}s", "bold red"
            elif age > max(10.0, 5 * self.config.poll_interval):
                poll, style = f"STALE {age:.0f}s", "bold red"
            elif age > 3 * self.config.poll_interval:
                poll, style = f"poll {age:.1f}s", "yellow"
            else:
                poll, style = f"poll {age:.1f}s", "dim"
        engine, engine_short, engine_style = self._engine_text()
        return HeaderState(
            path=self.alias(str(self.backend.db_path)),
            engine=engine,
            engine_short=engine_short,
            engine_style=engine_style,
            server_time=server,
            poll=poll,
            poll_style=style,
            badges=badges,
            totals=self.totals,
            marked=len(self.model.marks),
            filter_text=self.model.filter_text,
            faults_only=self.model.faults_only,
        )

    def _refresh_header(self) -> None:
        if self.is_mounted and not self.closing:
            self.query_one(HeaderBar).show(self.header_state())

    def stats_text(self) -> str:
        tree = self.query_one(JobTree)
        lines = [
            f"store            {self.alias(str(self.backend.db_path))}",
            f"revision         {self.rev}",
            f"polls            {self.polls} applied, {self.skipped_polls} skipped (frozen/dialog)",
            f"rows applied     {self.rows_applied}",
            f"last poll        {self.last_poll_seconds * 1000:.1f} ms in its worker",
            f"poll interval    {self.config.poll_interval:g} s",
            f"jobs loaded      {len(self.model.items)} ({len(tree.nodes)} in the tree)",
            f"marked           {len(self.model.marks)}",
            f"gc               {gc.get_freeze_count()} objects frozen at start-up",
        ]
        embedded = self.console.embedded
        if embedded is not None:
            status = embedded.status
            lines.append(
                f"engine           in console, {status.state}, {embedded.engine.ticks} ticks"
            )
            lines.append(f"engine log       {self.alias(str(embedded.log_path))}")
        elif self.lease is not None:
            lines.append(
                f"engine           pid {self.lease.pid}@{host_label(self.lease.host)} ({self.lease.mode})"
            )
        return "\n".join(lines)
