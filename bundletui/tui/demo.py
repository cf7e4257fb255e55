"""``bundletui console --demo``: a fresh home with the feeds bundle running and a feeder.

The bundle starts 23 hours before the current hour, so the engine materializes the ingest
actions of the last day at once (WAITING for their click partitions); the feeder then drops one
hourly partition every few seconds, oldest first, and each action goes WAITING → READY →
RUNNING → SUCCEEDED in turn. The roll-up and training coordinators keep WAITING for inputs that
only whole days produce — which is what the details pane explains.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.errors import BundletuiError
from bundletui.model.clock import RealClock
from bundletui.model.timeutil import format_oozie_time
from bundletui.spec.load import load_job
from bundletui.store.db import DB_NAME, Store, current_user

HOURS_BACK = 23


def samples_dir() -> Path:
    """``sample_bundles/`` next to the package (a source checkout or an editable install)."""
    return Path(__file__).resolve().parents[2] / "sample_bundles"


@dataclass
class Demo:
    home: Path
    landing: Path
    bundle_id: str
    start: datetime
    temporary: bool = True
    feeder: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def start_feeder(self, interval: float = 3.0) -> None:
        """Drop one hourly partition every ``interval`` seconds, from the bundle's start on."""
        script = samples_dir() / "feeds" / "feeder.py"
        log = (self.home / "feeder.log").open("ab")
        self.feeder = subprocess.Popen(
            [
                sys.executable,
                str(script),
                "--landing",
                str(self.landing),
                "--start",
                format_oozie_time(self.start),
                "--hours",
                str(HOURS_BACK + 1),
                "--interval",
                str(interval),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        log.close()

    def stop_feeder(self) -> None:
        if self.feeder is not None and self.feeder.poll() is None:
            self.feeder.terminate()
            try:
                self.feeder.wait(5)
            except subprocess.TimeoutExpired:
                self.feeder.kill()
                self.feeder.wait(5)

    def cleanup(self) -> None:
        """Stop the feeder and, for a temporary home, the jobs still running in it (the engine
        leaves running jobs alone when it stops), then remove the home."""
        self.stop_feeder()
        if not self.temporary:
            return
        self._stop_jobs()
        shutil.rmtree(self.home, ignore_errors=True)

    def _stop_jobs(self, wait: float = 5.0) -> None:
        from bundletui.engine.processes import kill_running_jobs

        if not (self.home / DB_NAME).exists():
            return
        with Store(self.home) as store:
            kill_running_jobs(store.conn, wait)


def check_demo_home(home: Path | None) -> None:
    """A ``--demo --home`` that holds a store is refused before anything is written."""
    if home is not None and (home / DB_NAME).exists():
        raise BundletuiError(
            "E0303",
            f"--demo needs a home of its own: {home} holds a store ({home / DB_NAME})",
            hint="drop --home (the demo then makes a temporary home, whatever BUNDLETUI_HOME"
            " says) or pick an empty directory",
            usage=True,  # two options that do not go together: exit 2, as other E0303s
        )


def make_demo(home: Path | None = None, now: datetime | None = None) -> Demo:
    """Create the demo home (a new temporary directory, removed on exit, unless ``home``: kept)
    and submit + start the feeds bundle in it.

    A ``home`` that holds a store is refused before anything is written: the demo would add a
    second feeds bundle to someone's store (an engine there adopts it) and its feeder would
    drop partitions into that store's landing directory."""
    feeds = samples_dir() / "feeds" / "job.properties"
    if not feeds.exists():
        raise BundletuiError(
            "EB601",
            f"the demo needs the sample bundles, not found at {feeds.parent}",
            hint="run the demo from a source checkout (make demo)",
        )
    check_demo_home(home)
    temporary = home is None
    root = Path(tempfile.mkdtemp(prefix="bundletui-demo-")) if home is None else home
    try:
        return _fill(root, feeds, temporary, now)
    except BaseException:
        if temporary:  # a half-made demo home is nobody's
            shutil.rmtree(root, ignore_errors=True)
        raise


def _fill(root: Path, feeds: Path, temporary: bool, now: datetime | None) -> Demo:
    root.mkdir(parents=True, exist_ok=True)
    landing = root / "landing"
    landing.mkdir(exist_ok=True)
    now = now or RealClock().now()
    start = now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=HOURS_BACK)
    end = start + timedelta(days=2)
    store = Store(root)
    try:
        loaded = load_job(
            feeds,
            [f"start={format_oozie_time(start)}", f"end={format_oozie_time(end)}"],
            store.clock,
            user=current_user(),
            defaults={"landing": str(landing)},
        )
        bundle_id = submit_loaded(Ctx(store, face="console"), loaded, start=True)
    finally:
        store.close()
    return Demo(root, landing, bundle_id, start, temporary)
