"""App definitions survive the trip through the store's JSON unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

from bundletui.model import codec
from bundletui.model.apps import (
    BundleApp,
    BundleCoordinator,
    CoordControls,
    CoordinatorApp,
    DataIn,
    DataOut,
    Dataset,
    ExecutionOrder,
    FsAction,
    FsOp,
    FsOpKind,
    InputLogic,
    LogicOp,
    Node,
    NodeType,
    ShellAction,
    SubWorkflowAction,
    WorkflowApp,
    WorkflowForm,
)
from bundletui.model.frequency import Frequency, TimeUnit

T0 = datetime(2009, 1, 1, tzinfo=UTC)


def test_coordinator_round_trip() -> None:
    ds = Dataset(
        "clicks", Frequency(60, TimeUnit.MINUTE), T0, "America/Los_Angeles", "/d/${YEAR}", ""
    )
    app = CoordinatorApp(
        name="c",
        frequency=Frequency(1, TimeUnit.DAY, end_of=TimeUnit.END_OF_DAY),
        start=T0,
        end=datetime(2010, 1, 1, tzinfo=UTC),
        timezone="UTC",
        controls=CoordControls(
            timeout=10, concurrency=-1, execution=ExecutionOrder.LAST_ONLY, throttle=3
        ),
        datasets=(ds,),
        data_ins=(
            DataIn(
                "in",
                "clicks",
                start_instance="${coord:current(-23)}",
                end_instance="${coord:current(0)}",
            ),
        ),
        data_outs=(DataOut("out", "clicks", "${coord:current(0)}", nocleanup=True),),
        input_logic=InputLogic(
            LogicOp.OR, children=(InputLogic(LogicOp.DATA_IN, dataset="in", min=2),)
        ),
        workflow_app_path="/wf",
        workflow_conf=(("a", "${coord:dataIn('in')}"),),
    )
    back = codec.loads(codec.dumps(app), CoordinatorApp)
    assert back == app
    assert isinstance(back.controls.execution, ExecutionOrder)
    assert back.start.tzinfo is not None


def test_workflow_with_action_union_round_trip() -> None:
    nodes = (
        Node("a", NodeType.ACTION, action=ShellAction("python3", ("x y", "$(z)"), ("A=1",), True)),
        Node(
            "b",
            NodeType.ACTION,
            action=FsAction((FsOp(FsOpKind.MOVE, "/a", target="/b"),)),
            depends=("a",),
        ),
        Node(
            "c",
            NodeType.ACTION,
            action=SubWorkflowAction("/sub", True, (("k", "v"),)),
            depends=("b",),
        ),
    )
    app = WorkflowApp("w", WorkflowForm.DAG, nodes, max_parallel=2)
    assert codec.loads(codec.dumps(app), WorkflowApp) == app


def test_bundle_round_trip() -> None:
    app = BundleApp(
        "b", (BundleCoordinator("c1", "/c1", (("x", "1"),), critical=True),), kickoff_time=T0
    )
    assert codec.loads(codec.dumps(app), BundleApp) == app
