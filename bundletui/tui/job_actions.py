"""The keys that change jobs: suspend, resume, pause time, kill and rerun. Each takes its
targets (the marked jobs, else the selection), asks to confirm, and runs the CLI's commands on
a worker, one transaction and audit row each (``:submit`` runs through here too)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bundletui.commands import dispatch
from bundletui.commands.base import Ctx
from bundletui.errors import BundletuiError
from bundletui.model.clock import RealClock, from_ms
from bundletui.model.status import ACTION_ENDED_BADLY, COORD_SUSPENDED
from bundletui.model.timeutil import format_oozie_time
from bundletui.store.changes import ACTION, BUNDLE, COORD, WORKFLOW
from bundletui.tui.dialogs import ConfirmDialog, PauseDialog, RerunDialog
from bundletui.tui.inputs import PauseTime, number_ranges
from bundletui.tui.model import BULK, Target, availability, past_tense
from bundletui.tui.screen_state import ScreenState


class JobActionsMixin(ScreenState):
    """The job-changing keys of :class:`~bundletui.tui.app.MainScreen`."""

    def _targets(self, action: str) -> list[Target]:
        marked = self.model.marked_items()
        if marked and action in BULK:
            return [Target.of(m) for m in marked if availability(action, m).enabled]
        item = self._selected_item()
        return [Target.of(item)] if item is not None else []

    def _run_commands(
        self,
        verb: str,
        calls: list[tuple[str, Callable[[Ctx], object]]],
        *,
        poll: bool = True,
        new_job: bool = False,
        notes: list[str] | None = None,
    ) -> None:
        """Run commands one by one on a worker (each its own transaction and audit row) and
        toast what happened. ``new_job``: each call returns the id of the job it made (a
        submit), and the toast names that id rather than the target (a file). ``notes``:
        filled by the calls with what they passed over; toasted as a warning."""

        def work() -> tuple[list[str], list[str]]:
            ok: list[str] = []
            failed: list[str] = []
            for target, call in calls:
                try:
                    made = self.backend.command(call)
                    ok.append(str(made) if new_job else target)
                except BundletuiError as exc:
                    # as the CLI's line (``E0701: f.xml:3: …``): an error in a file says
                    # where itself (a submit's target is the properties file, the error may
                    # be in the coordinator it names)
                    text = str(exc) if exc.file else f"{target}: {exc}"
                    failed.append(f"{text}\n  hint: {exc.hint}" if exc.hint else text)
            return ok, failed

        def then(result: tuple[list[str], list[str]]) -> None:
            ok, failed = result
            if ok and not failed:
                what = ok[0] if len(ok) == 1 else f"{len(ok)} jobs"
                self.notify(f"{verb}: {what}", title="done", timeout=5)
            if failed:
                head = (
                    f"{verb}: {len(ok)} done, {len(failed)} failed\n" if ok else f"{verb} failed\n"
                )
                self.notify(head + "\n".join(failed[:4]), severity="error", timeout=10)
            if notes:
                self.notify("\n".join(notes[:4]), title=verb, severity="warning", timeout=10)
            if poll:
                self.start_poll(force=True)

        self._in_thread(work, then, group="command")

    def _confirm(
        self,
        verb: str,
        targets: list[Target],
        calls: list[tuple[str, Callable[[Ctx], object]]],
        *,
        note: str = "",
        type_to_confirm: str | None = None,
        danger: bool = True,
    ) -> None:
        hidden = self.model.hidden_count(t.id for t in targets if len(targets) > 1)
        count = f"{len(targets)} marked jobs" if len(targets) > 1 else targets[0].describe()
        if hidden:
            count += f" ({hidden} hidden by the filter)"
        title = f"{verb.capitalize()} {count}?"
        marked = self.model.marked_items() if verb in BULK else []
        left = len(marked) - len(targets)
        if marked and left > 0:  # marked, but the verb does not apply (a KILLED job's kill)
            jobs = "job" if left == 1 else "jobs"
            title += f" ({left} other marked {jobs} cannot be {past_tense(verb)})"

        def done(ok: bool | None) -> None:
            if ok:
                if marked:  # done with them, as k9s: the next key acts on the cursor again
                    self.action_clear_marks()
                self._run_commands(verb, calls)

        self.app.push_screen(
            ConfirmDialog(
                title, verb.capitalize(), targets, note=note, type_to_confirm=type_to_confirm,
                danger=danger,
            ),
            done,
        )  # fmt: skip

    def action_suspend(self) -> None:
        self._suspend_resume("suspend")

    def action_resume(self) -> None:
        self._suspend_resume("resume")

    def _suspend_resume(self, verb: str) -> None:
        targets = self._targets(verb)
        if not targets:
            return
        fn = dispatch.suspend if verb == "suspend" else dispatch.resume
        calls: list[tuple[str, Callable[[Ctx], object]]] = []
        notes = []
        for t in targets:
            job = t.link if t.kind == ACTION and t.link else t.id
            if job != t.id:
                notes.append(f"{t.name} acts on its workflow {job}")
            calls.append((job, _bind(fn, job)))
        cascade = {
            BUNDLE: "its coordinators and their running workflows follow",
            COORD: "its running workflows follow",
        }
        if verb == "suspend" and any(t.event for t in targets):
            # a suspend drops what an event schedule holds; a pause would keep it
            cascade[COORD] += (
                "; an event schedule drops its pending jobs and ignores events until resumed"
                " (pause keeps them)"
            )
        note = "; ".join(notes) or "; ".join(
            dict.fromkeys(cascade[t.kind] for t in targets if t.kind in cascade)
        )
        self._confirm(verb, targets, calls, note=note, danger=verb == "suspend")

    def action_kill(self) -> None:
        targets = self._targets("kill")
        if not targets:
            return
        calls = [(t.id, _bind(dispatch.kill, t.id)) for t in targets]
        typed: str | None = None
        if len(targets) > 1:
            typed = f"kill {len(targets)}"
        elif targets[0].kind == BUNDLE:
            typed = targets[0].name
        self._confirm(
            "kill",
            targets,
            calls,
            note="A kill cannot be undone; everything under it is killed too.",
            type_to_confirm=typed,
        )

    def action_pause(self) -> None:
        targets = self._targets("pause")
        if not targets:
            return
        target = targets[0]
        item = self.model.items.get(target.id)
        current = item.row.pause_time if item is not None else None
        now = self.server_now or self.config.clock.now()
        if self.server_now is not None and not self.simulated:
            now = RealClock().now() if not self.config.frozen_clock else self.config.clock.now()

        def done(result: PauseTime | None) -> None:
            if result is None:
                return
            value = f"pausetime={result.text}"
            verb = "clear pause time" if result.when is None else f"pause at {result.text}"
            self._run_commands(verb, [(target.id, _bind(dispatch.change, target.id, value))])

        self.app.push_screen(
            PauseDialog(target, format_oozie_time(from_ms(current)) if current else None, now),
            done,
        )

    def action_rerun(self) -> None:
        targets = self._targets("rerun")
        if not targets:
            return
        target = targets[0]

        def open_dialog(prefill: tuple[str, int | None]) -> None:
            actions, last = prefill
            coords = ""
            if target.kind == BUNDLE:
                kids = self.model.items[target.id].children or []
                coords = ",".join(self.model.items[k].name for k in kids if k in self.model.items)
            self.app.push_screen(
                RerunDialog(
                    target,
                    actions=actions,
                    coordinators=coords,
                    note=self._resumes(target),
                    last_action=last,
                ),
                lambda choice: self._rerun(target, choice),
            )

        def coord_prefill() -> tuple[str, int | None]:
            # its failed actions, and its last number: the dialog checks a scope against it,
            # as the command does
            failed = self.backend.action_numbers(target.id, tuple(sorted(ACTION_ENDED_BADLY)))
            last = self.backend.info(target.id, COORD).get("lastActionNumber")
            return number_ranges(failed), last if isinstance(last, int) else None

        if target.kind == COORD:
            self._in_thread(coord_prefill, open_dialog, group="prefill")
        else:
            open_dialog(("", None))

    def _resumes(self, target: Target) -> str:
        """A rerun of a suspended coordinator's actions resumes it (as Oozie's rerun does):
        the dialog says so, since its why said nothing launches until it is resumed."""
        coord_id = target.id.rpartition("@")[0] if target.kind == ACTION else target.id
        coord = self.model.items.get(coord_id)
        if target.kind in (ACTION, COORD) and coord is not None and coord.status in COORD_SUSPENDED:
            return f"Its coordinator is {coord.status}: the rerun resumes it."
        return ""

    def _rerun(self, target: Target, choice: Any) -> None:
        if choice is None:
            return
        a = choice.args()
        call: Callable[[Ctx], object]
        # a bundle's rerun by dates: the coordinators it passed over; a coordinator's: the
        # actions LAST_ONLY / NONE will skip at once
        notes: list[str] = []
        if target.kind == WORKFLOW:
            call = _bind(
                dispatch.rerun,
                target.id,
                skip_nodes=a["skip_nodes"],
                failed_nodes=a["failed_nodes"],
            )
        elif target.kind == ACTION:
            coord_id, _, number = target.id.rpartition("@")
            call = _bind(
                dispatch.rerun, coord_id, actions=number, refresh=a["refresh"],
                nocleanup=a["nocleanup"], failed=a["failed"], notes=notes,
            )  # fmt: skip
        elif target.kind == COORD:
            call = _bind(
                dispatch.rerun, target.id, actions=a["actions"], dates=a["dates"],
                refresh=a["refresh"], nocleanup=a["nocleanup"], failed=a["failed"], notes=notes,
            )  # fmt: skip
        else:
            call = _bind(
                dispatch.rerun, target.id, coordinators=a["coordinators"], dates=a["dates"],
                refresh=a["refresh"], nocleanup=a["nocleanup"], notes=notes,
            )  # fmt: skip
        self._run_commands("rerun", [(target.id, call)], notes=notes)

    def _submit(self, config: str, defines: list[str]) -> None:
        if self.config.read_only:
            self.notify("submit: the console is read-only", severity="warning")
            return
        from bundletui.commands.submit import submit_loaded
        from bundletui.spec.load import load_job

        path = Path(config).expanduser()
        home = self.config.home
        landing = self.config.landing or home / "landing"

        def call(ctx: Ctx) -> str:
            loaded = load_job(
                path, defines, ctx.store.clock, user=ctx.user, defaults={"landing": str(landing)}
            )
            return submit_loaded(ctx, loaded, start=True)

        self._run_commands(f"submit {path.name}", [(str(path), call)], new_job=True)


def _bind(fn: Callable[..., object], *args: Any, **kw: Any) -> Callable[[Ctx], object]:
    def call(ctx: Ctx) -> object:
        return fn(ctx, *args, **kw)

    return call
