"""Application definitions as frozen data: what the spec layer produces and the engine consumes.

Fields where Oozie defers EL evaluation (instance expressions, workflow configuration, shell
arguments) hold the EL text; everything resolved at submit time is typed. Times are aware UTC
``datetime`` values. Configurations are ordered ``(name, value)`` pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from bundletui.model.events import EventSpec
from bundletui.model.frequency import Frequency

Conf = tuple[tuple[str, str], ...]


def overlay(base: Conf, top: Conf) -> Conf:
    """``top`` laid over ``base``, as Oozie merges a workflow's ``<global>`` configuration
    into an action's (and a parent's ``<global>`` into a sub-workflow's): every property of
    ``top``, and those of ``base`` that ``top`` does not set (``base``'s first). A name set
    twice in one of them keeps its last value, as a Hadoop configuration does."""
    names = {name for name, _value in top}
    merged = {name: value for name, value in base if name not in names}
    merged.update(top)
    return tuple(merged.items())


class ExecutionOrder(StrEnum):
    FIFO = "FIFO"
    LIFO = "LIFO"
    LAST_ONLY = "LAST_ONLY"
    NONE = "NONE"


# --------------------------------------------------------------------------- bundle


@dataclass(frozen=True, slots=True)
class BundleCoordinator:
    name: str
    app_path: str
    configuration: Conf = ()
    critical: bool = False
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class BundleApp:
    name: str
    coordinators: tuple[BundleCoordinator, ...]
    kickoff_time: datetime | None = None
    namespace: str = "uri:oozie:bundle:0.2"
    source: str = ""  # file the definition came from
    parameters: Conf = ()  # <parameters> defaults (bundle 0.2)
    required_parameters: tuple[str, ...] = ()  # <parameters> without a default


# --------------------------------------------------------------------------- coordinator


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    frequency: Frequency
    initial_instance: datetime
    timezone: str
    uri_template: str
    done_flag: str = "_SUCCESS"  # "" means: the directory itself is the flag


@dataclass(frozen=True, slots=True)
class DataIn:
    name: str
    dataset: str
    instances: tuple[str, ...] = ()  # EL text of each <instance>, document order
    start_instance: str | None = None  # EL text of <start-instance>
    end_instance: str | None = None


@dataclass(frozen=True, slots=True)
class DataOut:
    name: str
    dataset: str
    instance: str  # EL text
    nocleanup: bool = False


class LogicOp(StrEnum):
    AND = "and"
    OR = "or"
    COMBINE = "combine"
    DATA_IN = "data-in"


@dataclass(frozen=True, slots=True)
class InputLogic:
    """A node of ``<input-logic>`` (coordinator 0.5, oozie.md §2.7)."""

    op: LogicOp
    children: tuple[InputLogic, ...] = ()
    name: str | None = None
    dataset: str | None = None  # for op DATA_IN: the data-in name it refers to
    min: int | None = None
    wait: int | None = None  # minutes


@dataclass(frozen=True, slots=True)
class CoordControls:
    timeout: int = 120  # minutes; normalised as in oozie.md §2.1 (-1 stored as 86400)
    concurrency: int = 1  # negative = unlimited
    execution: ExecutionOrder = ExecutionOrder.FIFO
    throttle: int = 12


@dataclass(frozen=True, slots=True)
class CoordinatorApp:
    name: str
    frequency: Frequency
    start: datetime
    end: datetime
    timezone: str
    controls: CoordControls = field(default_factory=CoordControls)
    datasets: tuple[Dataset, ...] = ()
    data_ins: tuple[DataIn, ...] = ()
    data_outs: tuple[DataOut, ...] = ()
    input_logic: InputLogic | None = None
    workflow_app_path: str = ""
    workflow_conf: Conf = ()  # values may hold action-start EL (coord:dataIn, ...)
    namespace: str = "uri:oozie:coordinator:0.5"
    source: str = ""
    line: int | None = None  # of <coordinator-app>, whose attributes errors may be about
    events: EventSpec | None = None  # uri:bundletui:coordinator:1.0: event-triggered
    parameters: Conf = ()  # <parameters> defaults (coordinator >= 0.4)
    required_parameters: tuple[str, ...] = ()  # <parameters> without a default

    def dataset(self, name: str) -> Dataset:
        for ds in self.datasets:
            if ds.name == name:
                return ds
        raise KeyError(name)


# --------------------------------------------------------------------------- workflow


@dataclass(frozen=True, slots=True)
class ShellAction:
    exec: str
    arguments: tuple[str, ...] = ()
    env_vars: tuple[str, ...] = ()  # "NAME=VALUE" each
    capture_output: bool = False
    configuration: Conf = ()
    kind: str = "shell"
    prepare: tuple[FsOp, ...] = ()  # <prepare>: delete / mkdir before the process starts
    job_xml: tuple[str, ...] = ()  # <job-xml> paths as written (EL), read at action start
    files: tuple[str, ...] = ()  # <file>: "path[#link]" as written (EL), linked at start
    archives: tuple[str, ...] = ()  # <archive>: "path[#link]", unpacked at start


class FsOpKind(StrEnum):
    MKDIR = "mkdir"
    DELETE = "delete"
    MOVE = "move"
    CHMOD = "chmod"
    TOUCHZ = "touchz"


@dataclass(frozen=True, slots=True)
class FsOp:
    op: FsOpKind
    path: str
    target: str | None = None  # move
    permissions: str | None = None  # chmod
    recursive: bool = False
    dir_files: bool = True


@dataclass(frozen=True, slots=True)
class FsAction:
    ops: tuple[FsOp, ...]
    kind: str = "fs"
    job_xml: tuple[str, ...] = ()  # <job-xml> paths as written (EL), read at action start


@dataclass(frozen=True, slots=True)
class SubWorkflowAction:
    app_path: str
    propagate_configuration: bool = False
    configuration: Conf = ()
    kind: str = "sub-workflow"


Action = ShellAction | FsAction | SubWorkflowAction


class NodeType(StrEnum):
    START = "start"
    END = "end"
    KILL = "kill"
    DECISION = "decision"
    FORK = "fork"
    JOIN = "join"
    ACTION = "action"


class RetryPolicy(StrEnum):
    PERIODIC = "periodic"
    EXPONENTIAL = "exponential"


# oozie.service.LiteWorkflowStoreService.user.retry.max: a larger retry-max is cut to this (E0820).
USER_RETRY_MAX = 3


@dataclass(frozen=True, slots=True)
class Node:
    """One node of a workflow, in either form.

    DAG form: every node is an ACTION with ``depends``. Oozie form: control nodes and action
    nodes joined by transitions (``to`` / ``ok_to`` / ``error_to`` / ``cases`` / ``paths``).
    """

    name: str
    type: NodeType
    action: Action | None = None
    depends: tuple[str, ...] = ()  # DAG form
    to: str | None = None  # start, join
    ok_to: str | None = None  # action
    error_to: str | None = None  # action
    cases: tuple[tuple[str, str], ...] = ()  # decision: (EL predicate, to), document order
    default_to: str | None = None  # decision
    paths: tuple[str, ...] = ()  # fork
    message: str = ""  # kill
    retry_max: int = 0  # as declared; the engine retries at most ``user_retry_max`` times
    retry_interval: int = 10  # minutes, as Oozie
    retry_policy: RetryPolicy = RetryPolicy.PERIODIC
    line: int | None = None  # source line, for errors

    @property
    def user_retry_max(self) -> int:
        """The retries the engine allows: ``retry-max`` capped at :data:`USER_RETRY_MAX`."""
        return min(self.retry_max, USER_RETRY_MAX)


class WorkflowForm(StrEnum):
    DAG = "dag"  # uri:bundletui:dag:1.0, Hadoop JobControl semantics
    OOZIE = "oozie"  # uri:oozie:workflow:0.5 / 1.0


@dataclass(frozen=True, slots=True)
class WorkflowApp:
    name: str
    form: WorkflowForm
    nodes: tuple[Node, ...]
    start_to: str | None = None  # Oozie form
    start_line: int | None = None  # of <start>, for errors
    max_parallel: int = 0  # DAG form; 0 = the engine's limit
    parameters: Conf = ()  # <parameters> defaults
    global_conf: Conf = ()
    global_job_xml: tuple[str, ...] = ()  # <global> <job-xml> paths, as written
    namespace: str = ""
    source: str = ""
    required_parameters: tuple[str, ...] = ()  # <parameters> without a default

    def node(self, name: str) -> Node:
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)
