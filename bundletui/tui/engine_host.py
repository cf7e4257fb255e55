"""The engine inside the console: who holds the store's lease, and running our own engine on a
background thread (its own asyncio loop) when nobody does.

The engine's log never reaches the terminal (it would tear the screen): it goes to
``<home>/console-engine.log`` and to a ring buffer the ``:engine`` view shows.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from bundletui.engine.service import Engine, EngineConfig
from bundletui.errors import BundletuiError
from bundletui.model.clock import RealClock, to_ms
from bundletui.store.db import Store
from bundletui.store.lease import Lease, lease_state, read_lease

# refusals of the engine's clock options (EB201 a simulated clock without a start time, EB203 a
# simulated store without --clock): `bundletui console` takes --clock/--start-time as `run` does
_CLOCK_REFUSALS = ("EB201", "EB203")


def live_lease(home: Path) -> Lease | None:
    """The lease of an engine that holds the store now: one not past its expiry whose
    holder, if it ran on this host, still exists. A holder killed here (kill -9) holds
    nothing even before its lease expires (a console opened then ran no engine at all, where
    ``run`` takes over at once); a stopped one past its expiry is not attached to either:
    the console's own engine waits beside it as a standby."""
    store = Store(home)
    try:
        lease = read_lease(store.conn)
    finally:
        store.close()
    return lease if lease_state(lease, to_ms(RealClock().now()), store.path) == "active" else None


def ago(ms: int) -> str:
    """``12s`` / ``4m`` / ``3h`` / ``2d``: how long ago, in one unit."""
    s = max(ms, 0) // 1000
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"


class _Ring(logging.Handler):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.lines: collections.deque[str] = collections.deque(maxlen=size)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(self.format(record))
        except Exception:  # pragma: no cover - logging must never raise
            self.handleError(record)


@dataclass
class EngineStatus:
    state: str  # starting | standby | active | stopped | failed
    holder: str
    error: str | None = None


class EmbeddedEngine:
    """One :class:`Engine` on a thread of its own; ``stop`` asks it to finish and waits."""

    def __init__(self, config: EngineConfig, *, log_lines: int = 2000) -> None:
        self.config = config
        self.engine = Engine(config)
        self.error: str | None = None
        self.done = threading.Event()
        self.ring = _Ring(log_lines)
        self.ring.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        self._file: logging.Handler | None = None
        self._was: tuple[int, bool] = (logging.NOTSET, True)

    @property
    def status(self) -> EngineStatus:
        state = "failed" if self.error else self.engine.state
        return EngineStatus(state, self.engine.holder, self.error)

    @property
    def log_path(self) -> Path:
        return self.config.home / "console-engine.log"

    def _attach_logging(self) -> None:
        logger = logging.getLogger("bundletui")
        self._was = (logger.level, logger.propagate)  # given back when the engine stops
        logger.setLevel(logging.INFO)
        logger.propagate = False
        logger.addHandler(self.ring)
        try:
            self.config.home.mkdir(parents=True, exist_ok=True)
            self._file = logging.FileHandler(self.log_path, encoding="utf-8")
            self._file.setFormatter(self.ring.formatter)
            logger.addHandler(self._file)
        except OSError:
            self._file = None
        logging.getLogger("watchfiles").setLevel(logging.WARNING)

    def _detach_logging(self) -> None:
        logger = logging.getLogger("bundletui")
        logger.removeHandler(self.ring)
        logger.setLevel(self._was[0])
        logger.propagate = self._was[1]
        if self._file is not None:
            logger.removeHandler(self._file)
            self._file.close()

    def run_blocking(self) -> None:
        """The thread's body: the engine's own event loop until :meth:`stop`."""
        self._attach_logging()
        try:
            asyncio.run(self.engine.run())
        except BundletuiError as exc:  # a refusal (EB203: a simulated store): said, not a crash
            self.error = f"{exc} ({exc.hint})" if exc.hint else str(exc)
            if exc.code in _CLOCK_REFUSALS:  # the options the hint names are the console's too;
                # the fix first: the header cuts the rest at 80 columns (QA (n))
                self.error = (
                    f"{exc.code}: quit, then start bundletui console again: {exc.hint}"
                    f" — {exc.message}"
                )
            logging.getLogger("bundletui.engine").error("embedded engine: %s", exc.describe())
        except Exception as exc:  # shown in the header; the console keeps working
            self.error = f"{type(exc).__name__}: {exc}"
            logging.getLogger("bundletui.engine").exception("embedded engine failed")
        finally:
            self._detach_logging()
            self.done.set()

    def start_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.run_blocking, name="bundletui-engine", daemon=True)
        thread.start()
        return thread

    def stop(self, timeout: float = 10.0) -> bool:
        """Ask the engine to stop (running jobs keep running) and wait; False on timeout."""
        self.engine.request_stop()
        return self.done.wait(timeout)
