"""The action-start EL of an event-triggered action: ``trigger:`` functions beside ``coord:`` ones.

What fired an action reaches its workflow as configuration (and from there as argv elements,
never through a shell string):

* ``${trigger:partitions()}`` — the partition paths consumed, comma-joined, oldest first;
  ``${trigger:partitions('clicks')}`` only those of one feed;
* ``${trigger:count()}`` / ``${trigger:bytes()}`` — how many partitions, how many bytes;
* ``${trigger:time()}`` — when it fired (``yyyy-MM-ddTHH:mmZ``), ``${trigger:timestamp()}``
  with seconds and milliseconds (ISO-8601);
* ``${trigger:reason()}`` — which leaves of the trigger were satisfied (e.g. ``partitions``);
* ``${trigger:programs()}`` — the actions whose outcome fired it.

``coord:nominalTime()`` is the firing time; ``coord:actionId()``, ``coord:name()``,
``coord:user()``, ``coord:conf()``, ``coord:formatTime()``… work as for any coordinator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from bundletui.model.apps import CoordinatorApp
from bundletui.model.events import partition_key
from bundletui.model.timeutil import format_oozie_time
from bundletui.spec.coord_el import (
    SLA_CONSTANTS,
    CoordELEnv,
    Phase,
    coord_functions,
    date_functions,
)
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    ELContext,
    basic_functions,
    property_variables,
    render,
)
from bundletui.spec.el.evaluator import reachable
from bundletui.spec.el.nodes import Call, Literal, TextPart
from bundletui.spec.el.parser import parse_template
from bundletui.spec.submit_el import TRIGGER_NAMES, DeferringFunctions

APP_PATH_KEYS = (
    "oozie.coord.application.path",
    "oozie.bundle.application.path",
    "oozie.application.bundle.path",
)


def trigger_functions(
    app: CoordinatorApp, fired: Mapping[str, Any]
) -> dict[str, Callable[..., Any]]:
    events: list[dict[str, Any]] = list(fired.get("events", []))
    fired_ms = int(fired.get("fired_at", 0))
    when = datetime.fromtimestamp(fired_ms / 1000, tz=UTC)
    spec = app.events
    # a partition under two nested feeds is an event of each: the workflow gets it once
    distinct: list[dict[str, Any]] = []
    seen: set[str] = set()
    for e in events:
        if e["kind"] == "partition":
            if e["path"] in seen:
                continue
            seen.add(e["path"])
        distinct.append(e)

    def partitions(feed: str = "") -> str:
        key = partition_key(spec.feed(feed).path) if (feed and spec is not None) else None
        return ",".join(
            e["path"]
            for e in (events if key is not None else distinct)
            if e["kind"] == "partition" and (key is None or e["key"] == key)
        )

    return {
        "trigger:partitions": partitions,  # optional feed name: arity checked by Python
        "trigger:count": lambda: sum(1 for e in distinct if e["kind"] == "partition"),
        "trigger:bytes": lambda: sum(int(e.get("size", 0)) for e in distinct),
        "trigger:time": lambda: format_oozie_time(when),
        "trigger:timestamp": lambda: when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "trigger:reason": lambda: ",".join(fired.get("reason", [])),
        "trigger:programs": lambda: ",".join(
            e["path"].split(":")[0] for e in events if e["kind"] == "program"
        ),
    }


# how many arguments each trigger: function takes (trigger_functions below; a test holds the
# two together)
TRIGGER_ARITY: dict[str, tuple[int, int]] = {
    n: (0, 1) if n == "trigger:partitions" else (0, 0) for n in TRIGGER_NAMES
}


def trigger_call_problem(value: str, feeds: set[str] | None) -> str | None:
    """What is wrong with the ``trigger:`` calls of one configuration value, seen before any
    firing: a call with the wrong number of arguments, a feed the schedule does not declare,
    or (``feeds`` None: a time coordinator) any call at all; in an event schedule, a data-in
    or data-out function (it has neither). None when nothing is."""
    if "trigger:" not in value and (feeds is None or "coord:data" not in value):
        return None
    for part in parse_template(value):
        if isinstance(part, TextPart):
            continue
        for node in reachable(part.node):
            if not isinstance(node, Call):
                continue
            if feeds is not None and node.name.startswith(("coord:dataIn", "coord:dataOut")):
                return (
                    f"{node.name}: an event schedule has no data-in or data-out; its firing's "
                    "partitions are trigger:partitions([feed])"
                )
            if not node.name.startswith("trigger:"):
                continue
            if feeds is None:
                return (
                    f"{node.name}: trigger: functions describe an event schedule's firing; a "
                    "time coordinator has none"
                )
            low, high = TRIGGER_ARITY.get(node.name, (0, 9))
            if not low <= len(node.args) <= high:
                takes = f"{low} to {high}" if low != high else str(low)
                return f"{node.name} takes {takes} argument(s), {len(node.args)} given"
            if node.args and isinstance(node.args[0], Literal):
                feed = str(node.args[0].value)
                if feed not in feeds:
                    known = ", ".join(sorted(feeds)) or "none"
                    return (
                        f"{node.name}('{feed}'): the schedule has no feed [{feed}] (feeds: {known})"
                    )
    return None


def event_run_conf(
    app: CoordinatorApp,
    conf: Mapping[str, str],
    fired: Mapping[str, Any],
    *,
    coord_id: str,
    action_id: str,
    user: str,
    now: datetime,
) -> dict[str, str]:
    """The workflow's configuration for one firing: job conf + the resolved ``<configuration>``."""
    nominal = datetime.fromtimestamp(int(fired.get("fired_at", 0)) / 1000, tz=UTC)
    env = CoordELEnv(
        nominal=nominal,
        actual=now,
        coord_timezone=app.timezone,
        coord_id=coord_id,
        action_id=action_id,
        app_name=app.name,
        user=user,
        conf=conf,
    )
    functions: dict[str, Callable[..., Any]] = DeferringFunctions(
        basic_functions(lambda: now)
    )  # wf: etc. stay for the workflow
    functions.update(coord_functions(env, Phase.START))
    functions.update(date_functions())
    functions.update(trigger_functions(app, fired))
    ctx = ELContext(
        variables={**BASIC_CONSTANTS, **SLA_CONSTANTS, **property_variables(conf)},
        functions=functions,
        on_unknown_variable="error",
    )
    out = {k: v for k, v in conf.items() if k not in APP_PATH_KEYS}
    for name, value in app.workflow_conf:
        out[name] = render(value, ctx)
    out["oozie.wf.application.path"] = app.workflow_app_path
    return out
