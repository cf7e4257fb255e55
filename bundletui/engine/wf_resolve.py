"""The EL of one workflow at one moment: decision predicates, a kill node's message, a node's
action with its expressions resolved (the advance and the launch both ask it)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from bundletui.engine import action_conf, processes
from bundletui.engine.wfel import app_dir
from bundletui.errors import BundletuiError, EngineError
from bundletui.model.apps import (
    Conf,
    FsAction,
    FsOp,
    Node,
    NodeType,
    ShellAction,
    SubWorkflowAction,
)
from bundletui.model.ids import node_id
from bundletui.model.wfgraph import index_of
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow

if TYPE_CHECKING:
    from bundletui.engine.wf_state import RunnerState

# what Java's String.trim() removes: every character up to the space
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


def _pair(env_var: str) -> str:
    """An ``<env-var>`` once its EL is resolved: still ``NAME=VALUE`` (submit checks those
    written so; one whose ``${…}`` gave no name or no ``=`` fails its node, rather than setting
    a variable with no value or an empty name)."""
    if "=" not in env_var or env_var.startswith("="):
        raise EngineError(
            "EB0720",
            f"env-var [{env_var}] is not NAME=VALUE once its expressions are resolved",
        )
    return env_var


class WorkflowElEnv:
    """The EL context of one workflow at one moment: its conf as variables, wf:/fs: functions.
    Built on first use only: most actions hold no ``${`` at all."""

    def __init__(
        self, runner: RunnerState, tx: Tx, wf: WorkflowRow, current: str | None = None
    ) -> None:
        self._runner = runner
        self._tx = tx
        self._wf = wf
        self._current = current
        self._ctx: Any = None

    @property
    def ctx(self) -> Any:
        if self._ctx is None:
            from bundletui.engine.wfel import workflow_context

            tx, wf = self._tx, self._wf
            self._ctx = workflow_context(
                self._runner.engine.clock,
                wf,
                self._runner.conf(tx, wf),
                lambda name: jobs.get(tx.conn, NodeRow, node_id(wf.id, name)),
                lambda: jobs.failed_nodes(tx.conn, wf.id),
                self._current,
                lambda name: index_of(self._runner.app(tx, wf)).by_name.get(name),
            )
        return self._ctx

    def render(self, text: str) -> str:
        if "${" not in text:
            return text
        from bundletui.spec.el import render

        return render(text, self.ctx)

    def predicate(self, text: str) -> bool:
        """Oozie's DecisionActionExecutor: a case is taken when its text, EL rendered and
        trimmed, is exactly ``true``; anything else (``True``, ``1``) falls through."""
        return self.render(text).strip(_JAVA_TRIMMED) == "true"

    def resolve_action(
        self, spec: Node, global_conf: Conf = (), global_job_xml: tuple[str, ...] = ()
    ) -> Any:
        """The node's action with its expressions resolved. The configuration of a shell or
        sub-workflow action is the workflow's ``<global>`` one overridden by its own, as
        Oozie merges them (a sub-workflow's since Oozie 4.3, OOZIE-2030); a shell action's
        takes the ``<job-xml>`` files too, read now (:mod:`bundletui.engine.action_conf`). An
        fs action runs on the local file system, where a Hadoop configuration has no use, but
        its job-xml files are read all the same, as Oozie's: one it cannot read fails it."""
        action = spec.action
        r = self.render
        if isinstance(action, ShellAction):
            program = r(action.exec)
            if not program.strip():
                raise EngineError(
                    processes.SPAWN_FAILED,
                    f"Cannot start shell action [{spec.name}]: its <exec> [{action.exec}] is"
                    " empty once its expressions are resolved",
                    hint="give its variables a value (job.properties, --config or -D)",
                )
            return ShellAction(
                exec=program,
                arguments=tuple(r(a) for a in action.arguments),
                env_vars=tuple(_pair(r(v)) for v in action.env_vars),
                capture_output=action.capture_output,
                configuration=self._merged(
                    global_conf, action.configuration, global_job_xml, action.job_xml
                ),
                prepare=tuple(dataclasses.replace(op, path=r(op.path)) for op in action.prepare),
                files=tuple(r(f) for f in action.files),
                archives=tuple(r(a) for a in action.archives),
            )
        if isinstance(action, FsAction):
            self._job_xml((*global_job_xml, *action.job_xml))
            return FsAction(
                ops=tuple(
                    FsOp(
                        op.op,
                        r(op.path),
                        target=r(op.target) if op.target else None,
                        permissions=r(op.permissions) if op.permissions else None,
                        recursive=op.recursive,
                        dir_files=op.dir_files,
                    )
                    for op in action.ops
                )
            )
        if isinstance(action, SubWorkflowAction):
            return SubWorkflowAction(
                app_path=r(action.app_path),
                propagate_configuration=action.propagate_configuration,
                configuration=self._merged(global_conf, action.configuration),
            )
        if spec.type is not NodeType.ACTION:
            return None
        raise BundletuiError("EB0505", f"node {spec.name} has no action to run")

    def _merged(
        self,
        global_conf: Conf,
        own: Conf,
        global_job_xml: tuple[str, ...] = (),
        job_xml: tuple[str, ...] = (),
    ) -> Conf:
        """``<global>`` configuration under the action's own, rendered; a global value the
        action overrides is never rendered (its EL may not work in this action). With
        ``<job-xml>`` files, each set of them lies under its configuration (global files,
        ``<global>``, the action's files, its own)."""
        layers = (
            (self._job_xml(global_job_xml), False),
            (global_conf, True),
            (self._job_xml(job_xml), False),
            (own, True),
        )
        return action_conf.layered(layers, self.render)

    def _job_xml(self, paths: tuple[str, ...]) -> Conf:
        """The properties of the ``<job-xml>`` files ``paths`` name (their EL rendered),
        relative to the workflow's application directory."""
        if not paths:
            return ()
        where = app_dir(self._wf.app_path)
        return action_conf.read_job_xmls((self.render(p) for p in paths), where)
