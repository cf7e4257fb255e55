"""Small real applications (workflow, two coordinators, a bundle) written into a test's tmp dir.

They are submitted through the real commands; the coordinators read a local landing directory
(``file://`` dataset URIs with the default ``_SUCCESS`` done-flag).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:0.5" name="touch-wf">
  <start to="mark"/>
  <action name="mark">
    <fs><mkdir path="${out}/${wf:id()}"/></fs>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>failed: ${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>
"""

HOURLY = """<coordinator-app name="hourly-ingest" frequency="${coord:hours(1)}"
    start="${start}" end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls>
    <timeout>-1</timeout>
    <concurrency>${concurrency}</concurrency>
    <execution>FIFO</execution>
    <throttle>${throttle}</throttle>
  </controls>
  <datasets>
    <dataset name="clicks" frequency="${coord:hours(1)}" initial-instance="2024-01-01T00:00Z"
             timezone="UTC">
      <uri-template>file://${landing}/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="input" dataset="clicks"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <action>
    <workflow>
      <app-path>${wfPath}</app-path>
      <configuration>
        <property><name>out</name><value>${out}</value></property>
        <property><name>input</name><value>${coord:dataIn('input')}</value></property>
      </configuration>
    </workflow>
  </action>
</coordinator-app>
"""

DAILY = """<coordinator-app name="daily-rollup" frequency="${coord:days(1)}"
    start="${start}" end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.2">
  <controls><concurrency>2</concurrency><execution>LIFO</execution></controls>
  <action>
    <workflow>
      <app-path>${wfPath}</app-path>
      <configuration><property><name>out</name><value>${out}</value></property></configuration>
    </workflow>
  </action>
</coordinator-app>
"""

BUNDLE = """<bundle-app name="feeds" xmlns="uri:oozie:bundle:0.2">
  <controls><kick-off-time>${kickoff}</kick-off-time></controls>
  <coordinator name="hourly">
    <app-path>${coordDir}/hourly.xml</app-path>
  </coordinator>
  <coordinator name="daily">
    <app-path>${coordDir}/daily.xml</app-path>
  </coordinator>
</bundle-app>
"""


@dataclass
class Apps:
    root: Path
    landing: Path
    out: Path

    @property
    def workflow_props(self) -> Path:
        return self.root / "wf.properties"

    @property
    def hourly_props(self) -> Path:
        return self.root / "hourly.properties"

    @property
    def daily_props(self) -> Path:
        return self.root / "daily.properties"

    @property
    def bundle_props(self) -> Path:
        return self.root / "bundle.properties"

    def land(self, when: str) -> Path:
        """Drop the hourly partition for ``yyyy/MM/dd/HH`` with its done-flag."""
        part = self.landing / "clicks" / when
        part.mkdir(parents=True, exist_ok=True)
        (part / "_SUCCESS").write_text("")
        return part


def write_apps(
    root: Path,
    *,
    start: str = "2024-01-01T00:00Z",
    end: str = "2024-01-02T00:00Z",
    kickoff: str = "2024-01-01T00:00Z",
    concurrency: int = 1,
    throttle: int = 12,
) -> Apps:
    root.mkdir(parents=True, exist_ok=True)
    landing, out = root / "landing", root / "out"
    landing.mkdir(exist_ok=True)
    out.mkdir(exist_ok=True)
    (root / "wf").mkdir(exist_ok=True)
    (root / "wf" / "workflow.xml").write_text(WORKFLOW)
    coords = root / "coords"
    coords.mkdir(exist_ok=True)
    (coords / "hourly.xml").write_text(HOURLY)
    (coords / "daily.xml").write_text(DAILY)
    (root / "bundle.xml").write_text(BUNDLE)
    common = (
        f"start={start}\nend={end}\nlanding={landing}\nout={out}\nwfPath={root / 'wf'}\n"
        f"concurrency={concurrency}\nthrottle={throttle}\n"
    )
    (root / "wf.properties").write_text(f"oozie.wf.application.path={root / 'wf'}\nout={out}\n")
    (root / "hourly.properties").write_text(
        f"oozie.coord.application.path={coords / 'hourly.xml'}\n{common}"
    )
    (root / "daily.properties").write_text(
        f"oozie.coord.application.path={coords / 'daily.xml'}\n{common}"
    )
    (root / "bundle.properties").write_text(
        f"oozie.bundle.application.path={root / 'bundle.xml'}\n{common}"
        f"kickoff={kickoff}\ncoordDir={coords}\n"
    )
    return Apps(root, landing, out)


# ----------------------------------------------------------------------------- hand-made actions


@dataclass
class ActionSpec:
    """One coordinator action row written through the store layer (see add_actions)."""

    nominal: str  # yyyy-MM-ddTHH:mmZ
    status: str = "WAITING"
    deps: tuple[tuple[str, bool], ...] = ()  # (path, available)
    held_missing: tuple[str, ...] | None = (
        None  # held_by {"missing": [...]} as the engine writes it
    )
    external_id: str | None = None
    error: tuple[str, str] | None = None
    timeout_at: str | None = None


def add_actions(store: object, coord_id: str, specs: list[ActionSpec]) -> list[str]:
    """Materialize actions by hand, through the store layer (jobs.insert / insert_input_deps).

    Used where an engine run cannot produce the wanted rows: the engine's input checker
    (engine/coord_inputs.py) is being written concurrently, and some statuses (a READY action
    held by concurrency next to RUNNING ones) only exist for an instant in a real run.
    """
    from bundletui.model.clock import to_ms
    from bundletui.model.ids import action_id
    from bundletui.model.timeutil import parse_oozie_time
    from bundletui.store import jobs
    from bundletui.store.db import Store
    from bundletui.store.rows import ActionRow, CoordRow

    assert isinstance(store, Store)
    ids = []
    with store.write() as tx:
        coord = jobs.must_get(tx.conn, CoordRow, coord_id)
        number = coord.last_action_number
        for spec in specs:
            number += 1
            aid = action_id(coord_id, number)
            nominal = to_ms(parse_oozie_time(spec.nominal))
            row: dict[str, object] = {
                "id": aid,
                "coord_id": coord_id,
                "action_number": number,
                "nominal_time": nominal,
                "created_time": nominal + 60_000,
                "status": spec.status,
                "external_id": spec.external_id,
                "held_by": None
                if spec.held_missing is None
                else json.dumps({"missing": list(spec.held_missing)}),
                "timeout_at": None
                if spec.timeout_at is None
                else to_ms(parse_oozie_time(spec.timeout_at)),
            }
            if spec.error:
                row["error_code"], row["error_message"] = spec.error
            jobs.insert(tx, ActionRow, row)
            jobs.insert_input_deps(
                tx, ((aid, p, "input", i, int(ok)) for i, (p, ok) in enumerate(spec.deps))
            )
            ids.append(aid)
        jobs.update(
            tx,
            CoordRow,
            coord_id,
            last_action_number=number,
            status="RUNNING" if coord.status == "PREP" else coord.status,
        )
    return ids
