"""Shell jobs as crash-safe subprocesses: spawn, identify, signal, watch, adopt.

Every job runs under a constant ``/bin/sh`` wrapper (docs/decisions/0003-process-wrapper.md)
that is the leader of a new session and process group, runs the job as a foreground child,
and writes the job's exit status to an *exit file* (tmp + rename) before it exits itself.
Then it sends its group SIGTERM (it ignores the signal itself): what the job left running in
the background ends with it, as a YARN container's processes do when the container completes.
The exit file is what lets an engine that was ``kill -9``-ed learn, after a restart, how a job
ended while nobody was watching. A process is identified by ``(pid, start_ticks)`` — the
start time from ``/proc/<pid>/stat`` — so a reused pid is never mistaken for our job.

Signals go to the whole group (:func:`kill_group`): the job receives them directly with
default dispositions, the wrapper catches them and stays alive to write the record. Only
SIGKILL of the wrapper loses the record; watchers then report ``None`` ("unknown").

The job's argv travels as separate ``execve`` arguments (``exec "$@"``); nothing supplied by
a workflow is ever spliced into shell text, and ``exec`` never runs a shell builtin or
function, so ``["exit", "3"]`` or ``["cd", "x"]`` fail with 127 like any missing program.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bundletui._host import this_host
from bundletui._procfs import proc_stat
from bundletui.errors import EngineError

log = logging.getLogger(__name__)

#: Could not start the wrapper (bad cwd, unwritable log directory, exec failure ...).
SPAWN_FAILED = "EB0501"
#: The exit file of this attempt already exists: starting again would run the job twice.
EXIT_FILE_EXISTS = "EB0502"

# Positional parameters: $1 exit file, $2 working directory, $3 beat interval in seconds
# (0: none), $4... the job's argv. Nothing before the job assigns a variable in the wrapper
# itself (an imported variable of the same name would leak, changed, into the job's
# environment): the beat loop's counters live in its own subshell. `command` skips functions
# an environment may export (bash's BASH_FUNC_*), and `exec` never runs builtins or functions.
#
# The beat loop rewrites ``$1.beat`` every $3 seconds while the wrapper lives and the job has
# no exit record, so an engine on another host, which cannot see this host's processes, can
# tell a job still running here from one whose host is gone (decision 0003). It passes that
# engine's kill request (``$1.kill``) on as SIGTERM to the group (itself excepted: it goes on
# beating), and as SIGKILL two beats later. Its sleep is a waited-for child, so the wrapper's
# closing SIGTERM ends it at once; a SIGTERM or SIGHUP before the exit record (the job's own
# ``kill 0``) only cuts its sleep short. A SIGTERM lost before its trap is set (dash) is made
# up for by the exit record (or its ``.tmp``), which ends the loop too. The wrapper waits for
# it: no zombie is left for an init that may not reap (a container's); only when not even the
# ``.tmp`` could be made (a full file system) does it SIGKILL the loop rather than wait for
# ever. A failed sleep ends the loop rather than spin.
_TRAP = (
    "'command kill -KILL $! 2>/dev/null; command wait $! 2>/dev/null;"
    ' command test -e "$1" -o -e "$1.tmp" && exit 0\''
)
WRAPPER_SCRIPT = (
    "trap : HUP INT QUIT TERM\n"
    'case "$3" in 0) ;; *) (trap ' + _TRAP + " HUP TERM; n=0; k=0\n"
    '  while command test ! -e "$1" -a ! -e "$1.tmp" && command kill -0 $$; do\n'
    '    if command test -e "$1.kill"; then k=$((k + 1)); case $k in\n'
    "      1) trap '' TERM; command kill -TERM 0; trap " + _TRAP + " TERM ;;\n"
    "      3) command kill -KILL 0 ;; esac; fi\n"
    '    n=$((n + 1)); command printf \'%s %d\\n\' "$3" "$n" >"$1.beat"\n'
    '    PATH=/usr/bin:/bin command sleep "$3" & command wait $!; s=$?\n'
    '    command test "$s" -eq 0 || command test "$s" -gt 128 || exit 0\n'
    "  done) </dev/null >/dev/null 2>&1 & ;; esac\n"
    'command cd "$2" && (shift 3; exec "$@"); r=$?\n'
    'command printf \'%d\\n\' "$r" >"$1.tmp" &&'
    ' PATH=/usr/bin:/bin command mv -f "$1.tmp" "$1"\n'
    "command kill -TERM 0 2>/dev/null\n"
    'command test -e "$1" -o -e "$1.tmp" || case "$3" in 0) ;; *) command kill -KILL $! ;; esac\n'
    "command wait\n"
    'exit "$r"\n'
)

_SH = "/bin/sh"
_BASH = "/bin/bash"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_EXIT_RECORD = re.compile(rb"([0-9]{1,3})\n\Z")
# Reset in the wrapper (and so in the job) whatever the engine ignores or handles.
_DEFAULT_SIGNALS = frozenset(
    s
    for s in (
        signal.SIGHUP,
        signal.SIGINT,
        signal.SIGQUIT,
        signal.SIGTERM,
        signal.SIGPIPE,
        signal.SIGXFSZ,
        signal.SIGCHLD,
        signal.SIGUSR1,
        signal.SIGUSR2,
        signal.SIGALRM,
        signal.SIGTSTP,
        signal.SIGTTIN,
        signal.SIGTTOU,
        signal.SIGWINCH,
    )
)


@dataclass(frozen=True, slots=True)
class Launched:
    """A started job: what the engine stores to find it again after a restart."""

    pid: int  # the wrapper's pid
    pgid: int  # == pid: the wrapper leads the job's session and process group
    start_ticks: int  # /proc/<pid>/stat field 22 (clock ticks after boot)
    argv: tuple[str, ...]  # the job's argv, as given
    exit_path: str


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a job ended. ``code`` follows the shell: 0-255, ``128 + N`` when killed by signal N."""

    code: int

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def signal(self) -> int | None:
        """The signal that killed the job, by shell convention (a job that *exits* 137 looks
        the same as one killed by SIGKILL)."""
        return self.code - 128 if 128 < self.code < 128 + 65 else None

    @property
    def killed_by(self) -> str | None:
        """``killed by SIGSEGV`` for a job a signal ended, else None."""
        sig = self.signal
        if sig is None:
            return None
        try:
            return f"killed by {signal.Signals(sig).name}"
        except ValueError:
            return f"killed by signal {sig}"

    def __str__(self) -> str:
        killed = self.killed_by
        return f"{killed} (exit code {self.code})" if killed else f"exit code {self.code}"


ExitCallback = Callable[[int, ExitStatus | None], None]


# --------------------------------------------------------------------------- spawn


def spawn(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    stdout_path: str | os.PathLike[str],
    stderr_path: str | os.PathLike[str],
    exit_path: str | os.PathLike[str],
    beat: float = 0.0,
) -> Launched:
    """Start ``argv`` under the wrapper in a new session; return as soon as it is running.

    ``beat`` > 0: the wrapper rewrites the attempt's beat file (:func:`read_beat`) that often.

    ``env`` is the job's complete environment. stdout/stderr are appended to their files
    (one file if both paths are equal); stdin is /dev/null. ``PATH`` in ``env`` is used to
    find ``argv[0]``. Environment names that are not shell identifiers survive only where
    bash is installed (dash drops them), so such environments use bash as the wrapper shell.
    """
    args = tuple(argv)
    if not args or not args[0]:
        raise ValueError("spawn: argv must start with a program name")
    if args[0].startswith("-"):  # bash's `exec` would read it as its own option (-a, -c)
        raise ValueError(f"a program name cannot start with '-': {args[0]!r}")
    if not beat >= 0:
        raise ValueError(f"spawn: beat must be >= 0 seconds, got {beat!r}")
    if beat and not _can_beat():
        beat = 0.0
    cwd_s, out_s, err_s, exit_s = (os.fspath(p) for p in (cwd, stdout_path, stderr_path, exit_path))
    for what, p in (
        ("cwd", cwd_s),
        ("stdout_path", out_s),
        ("stderr_path", err_s),
        ("exit_path", exit_s),
    ):
        if not os.path.isabs(p):
            raise ValueError(f"spawn: {what} must be absolute, got {p!r}")
    if not os.path.isdir(cwd_s):
        raise EngineError(
            SPAWN_FAILED, f"Cannot start [{args[0]}]: working directory [{cwd_s}] does not exist"
        )
    if not os.path.isdir(os.path.dirname(exit_s)):
        raise EngineError(
            SPAWN_FAILED,
            f"Cannot start [{args[0]}]: directory of exit file [{exit_s}] does not exist",
        )
    for left in (exit_s, exit_s + ".tmp"):
        if os.path.lexists(left):
            raise EngineError(
                EXIT_FILE_EXISTS,
                f"Exit file [{left}] already exists: this attempt has run before, not starting"
                " it again",
            )

    try:  # before the job exists: no host record means it never started
        record_launch_host(exit_s)
    except OSError as exc:
        raise EngineError(SPAWN_FAILED, f"Cannot start [{args[0]}]: {exc}") from exc
    shell = _SH
    if not all(_ENV_NAME.match(k) for k in env) and os.access(_BASH, os.X_OK):
        shell = _BASH  # invoked as "sh": POSIX mode, reads no startup files
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    actions: list[tuple[int, int, str, int, int] | tuple[int, int, int]] = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_s, flags, 0o666),
    ]
    if os.path.abspath(err_s) == os.path.abspath(out_s):
        actions.append((os.POSIX_SPAWN_DUP2, 1, 2))
    else:
        actions.append((os.POSIX_SPAWN_OPEN, 2, err_s, flags, 0o666))
    try:
        pid = os.posix_spawn(
            shell,
            ["sh", "-c", WRAPPER_SCRIPT, "bundletui-job", exit_s, cwd_s, f"{beat:g}", *args],
            dict(env),
            file_actions=actions,
            setsid=True,
            setsigmask=(),
            setsigdef=_DEFAULT_SIGNALS,
        )
    except (OSError, ValueError) as exc:
        raise EngineError(SPAWN_FAILED, f"Cannot start [{args[0]}]: {exc}") from exc
    try:
        ticks = proc_start_ticks(pid)
        why = "no such process"  # impossible for our own unreaped child
    except OSError as exc:  # out of fds (EMFILE): it runs, and would run untracked
        ticks, why = None, str(exc)
    if ticks is None:
        # without its start time it cannot be told from a later process with its pid:
        # stopped, rather than left to run while its node says it never started
        _signal_group(pid, signal.SIGKILL, None)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise EngineError(
            SPAWN_FAILED,
            f"Started [{args[0]}] as pid {pid} but cannot read /proc/{pid}/stat ({why}):"
            " stopped it",
        )
    return Launched(pid=pid, pgid=pid, start_ticks=ticks, argv=args, exit_path=exit_s)


def host_path(exit_path: str | os.PathLike[str]) -> str:
    """Where an attempt's launch host is kept, beside its exit file."""
    return os.fspath(exit_path).removesuffix(".exit") + ".host"


def record_launch_host(exit_path: str | os.PathLike[str]) -> None:
    """Which host starts this attempt, written before it starts: an engine on another host
    that takes the store over cannot see its process (its pids are not ours), and says so
    when it judges the job by what it can see."""
    with open(host_path(exit_path), "w", encoding="utf-8") as f:
        f.write(this_host() + "\n")


@functools.cache
def _can_beat() -> bool:
    """The beat loop needs a ``sleep`` in /usr/bin or /bin that takes fractions (GNU,
    busybox's usual build). Asked once; without one, jobs run without a beat (said once)."""
    sleep = shutil.which("sleep", path="/usr/bin:/bin")
    try:
        ok = sleep is not None and (
            subprocess.run([sleep, "0.01"], capture_output=True, timeout=5).returncode == 0
        )
    except (OSError, subprocess.SubprocessError):
        ok = False
    if not ok:
        log.warning(
            "no sleep in /usr/bin or /bin that takes fractions of a second: shell jobs run"
            " without a beat, so an engine on another host judges them by their exit record"
            " alone"
        )
    return ok


def read_beat(exit_path: str | os.PathLike[str]) -> tuple[float, bytes] | None:
    """The attempt's last beat: (the wrapper's interval in seconds, the beat's text, which
    changes at every beat), or None when it has none (an older wrapper, no beat asked, or
    not started). Another host judges a beat by whether it changes under its own clock, so
    the two hosts' clocks need not agree."""
    try:
        with open(os.fspath(exit_path) + ".beat", "rb") as f:
            data = f.read(64)
    except OSError:
        return None
    try:
        return float(data.split()[0]), data
    except (IndexError, ValueError):  # caught mid-write (empty): its interval unknown (0)
        return 0.0, data


def request_kill(exit_path: str | os.PathLike[str]) -> bool:
    """Ask a job another host runs to stop: its wrapper's beat loop sends its group SIGTERM
    within one beat. False when the request could not be written."""
    try:
        with open(os.fspath(exit_path) + ".kill", "w", encoding="utf-8") as f:
            f.write(this_host() + "\n")
    except OSError:
        return False
    return True


def launch_host(exit_path: str | os.PathLike[str]) -> str | None:
    """The host that started this attempt; None when it was never started (or by an engine
    older than the record)."""
    try:
        with open(host_path(exit_path), encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def keep_inherited_fds_from_jobs() -> None:
    """Descriptors the engine inherited from whoever started it (a shell's, a pipe's) are
    not closed on exec, and posix_spawn would pass them on to every job: marked so once
    here (the engine's own are already, PEP 446)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in fds:
        if fd > 2:  # (the listing's own descriptor is closed by now)
            with contextlib.suppress(OSError):
                os.set_inheritable(fd, False)


# --------------------------------------------------------------------------- identity


def proc_start_ticks(pid: int) -> int | None:
    """Start time of ``pid`` in clock ticks after boot (stat field 22), None if no such pid."""
    st = proc_stat(pid)
    return None if st is None else st.start_ticks


def is_alive(pid: int, start_ticks: int) -> bool:
    """True if ``pid`` is running and is the process that started at ``start_ticks``.

    False for a dead pid, a zombie (it has exited, only its status is left) and a pid that
    was reused by another process.
    """
    st = proc_stat(pid)
    return st is not None and st.start_ticks == start_ticks and st.state not in ("Z", "X", "x")


def find_wrappers(exit_paths: Iterable[str | os.PathLike[str]]) -> dict[str, tuple[int, int]]:
    """Live wrappers running the given attempts: ``{exit_path: (pid, start_ticks)}``.

    For a restarted engine that finds a node RUNNING without a recorded pid (it died between
    starting the process and committing its pid): one scan of /proc matches each wrapper's
    command line (``sh -c SCRIPT bundletui-job EXIT CWD BEAT ARGV…``), which names its exit file.
    No match and no exit file: it never started.
    """
    wanted = {os.fspath(p) for p in exit_paths}
    found: dict[str, tuple[int, int]] = {}
    if not wanted:
        return found
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        # by its arguments, not its script: an older bundletui's wrapper (a script since
        # changed) must be found too, or its job would be started a second time (QA)
        if len(argv) < 6 or argv[1] != b"-c" or argv[3] != b"bundletui-job":
            continue
        exit_path = os.fsdecode(argv[4])
        pid = int(name)
        st = proc_stat(pid)
        # The wrapper leads its group; the subshell it forks shows the same command line
        # until it execs the job.
        if st is None or st.pgrp != pid or st.state in ("Z", "X", "x"):
            continue
        if exit_path in wanted:
            found[exit_path] = (pid, st.start_ticks)
    return found


def read_exit(exit_path: str | os.PathLike[str]) -> ExitStatus | None:
    """The status recorded by the wrapper, or None if there is no complete record. (Or by
    the engine, as a symbolic link to the code, when the wrapper could not write it.)

    Falls back to the wrapper's temporary file: it holds the final status as soon as it ends
    in a newline, and is all that is left if ``mv`` itself was killed (a second signal to the
    group while the wrapper was renaming).
    """
    base = os.fspath(exit_path)
    with contextlib.suppress(OSError):  # the engine's own record of a wrapper's exit
        m = _EXIT_RECORD.match(os.readlink(base).encode() + b"\n")
        if m:
            return ExitStatus(int(m.group(1)))
    for path in (base, base + ".tmp"):
        try:
            with open(path, "rb") as f:
                data = f.read(16)
        except OSError:  # none, or not a file (a directory in its place): no record there
            continue
        m = _EXIT_RECORD.match(data)
        if m:
            return ExitStatus(int(m.group(1)))
    return None


def job_survivors(
    home: str, groups: Mapping[int, set[tuple[str, str]]]
) -> list[tuple[int, tuple[str, str]]]:
    """Of ``groups`` (process group id -> the (workflow id, node name) of jobs killed earlier
    in it), those with a live member of such a job: one scan of /proc. A member counts when
    it is in that group and its environment names this store, the workflow and the node (the
    engine sets them for every job, and children inherit them), so a group id that now
    belongs to someone else, or to another store's job, is left alone."""
    found: dict[int, tuple[str, str]] = {}
    if not groups:
        return []
    store = f"BUNDLETUI_STORE={home}".encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = proc_stat(int(name))
        if st is None or st.pgrp not in groups or st.pgrp in found or st.state in "ZXx":
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = set(f.read().split(b"\0"))
        except OSError:
            continue
        if store not in env:
            continue
        for wf_id, node in groups[st.pgrp]:
            if {
                f"BUNDLETUI_WORKFLOW_ID={wf_id}".encode(),
                f"BUNDLETUI_NODE={node}".encode(),
            } <= env:
                found[st.pgrp] = (wf_id, node)
                break
    return sorted(found.items())


# --------------------------------------------------------------------------- signals


def _signal_group(pgid: int, sig: int, start_ticks: int | None) -> bool:
    if pgid <= 1 or pgid == os.getpgrp():
        raise ValueError(f"refusing to signal process group {pgid}")
    if start_ticks is not None:
        # The leader's pid is also the group id. While the group has members Linux keeps that
        # number reserved, so a leader with another start time means our group is gone and the
        # number now belongs to someone else. No leader at all: only our orphans can hold it.
        ticks = proc_start_ticks(pgid)
        if ticks is not None and ticks != start_ticks:
            return False
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def kill_group(pgid: int, sig: int = signal.SIGTERM, *, start_ticks: int | None = None) -> bool:
    """Send ``sig`` to every process of the job's group; False if the group is already gone.

    Pass the leader's ``start_ticks`` after a restart: then a group id whose number has been
    reused by an unrelated process is left alone. SIGKILL also kills the wrapper, so it leaves
    no exit record — the engine records the kill itself before sending it.
    """
    return _signal_group(pgid, sig, start_ticks)


def kill_running_jobs(conn: sqlite3.Connection, wait: float = 5.0) -> int:
    """SIGTERM the group of every job the store ``conn`` has open says is RUNNING (each
    checked by its leader's start ticks), then wait up to ``wait`` seconds for the groups to
    go; returns how many are left. For a store about to be thrown away (the console's
    ``--demo`` home): an engine stops with its jobs running, and nobody else would end them."""
    from bundletui.store import jobs

    running = jobs.running_nodes_with_pid(conn)
    groups = [(n.pid, n.start_ticks) for n in running if n.pid]
    for pid, ticks in groups:
        kill_group(pid, start_ticks=ticks)
    end = time.monotonic() + wait
    while groups and time.monotonic() < end:
        groups = [(p, t) for p, t in groups if kill_group(p, 0, start_ticks=t)]
        time.sleep(0.05)
    return len(groups)


def stop_group(pgid: int, *, start_ticks: int | None = None) -> bool:
    """Freeze the job (SIGSTOP to its group) for a workflow suspend."""
    return _signal_group(pgid, signal.SIGSTOP, start_ticks)


def continue_group(pgid: int, *, start_ticks: int | None = None) -> bool:
    """Resume a frozen job (SIGCONT to its group)."""
    return _signal_group(pgid, signal.SIGCONT, start_ticks)


# --------------------------------------------------------------------------- watcher


# fds the engine keeps for everything but pidfds: the store, its WAL, the landing watcher,
# log files, API sockets, the pipes of a spawn batch
FD_RESERVE = 256


def raise_fd_limit() -> int:
    """The soft limit on open files raised to the hard one (1024 is a common soft default),
    as a server that holds one pidfd per running job should; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


@dataclass(slots=True, eq=False)
class _Watch:
    pid: int
    start_ticks: int
    exit_path: str
    callback: ExitCallback
    child: bool
    fd: int | None = None
    timer: asyncio.TimerHandle | None = None
    delay: float = 0.0
    done: bool = field(default=False)
    wait_status: int | None = None  # what waitpid said, when we reaped it


#: What a watch of another host's job reports: its exit record, or None when its beat
#: stopped; and for how long its beat had not changed (seconds, by this host's clock).
RemoteCallback = Callable[[ExitStatus | None, float], None]


@dataclass(slots=True, eq=False)
class _Remote:
    """A job another host runs, known by its attempt's files alone."""

    exit_path: str
    callback: RemoteCallback
    stale_after: float
    beat: bytes | None
    changed: float  # time.monotonic() of the last change seen in its beat
    timer: asyncio.TimerHandle | None = None


def stale_after(interval: float) -> float:
    """How long a beat may stay unchanged before its wrapper is judged gone: three missed
    beats and two seconds (a loaded host's ``sleep`` runs late)."""
    return 3 * interval + 2.0


class ProcessWatcher:
    """Reports, on the event loop, when watched processes end — our children and adopted ones.

    Each process gets a pidfd (``os.pidfd_open``) registered with ``loop.add_reader``: no
    threads, no SIGCHLD handler, no polling, so hundreds of jobs cost hundreds of idle fds.
    Where pidfds are unavailable (old kernel), or past ``pidfd_budget`` (the fd limit less
    ``FD_RESERVE``: the engine's other files must still open), a process is polled with backoff.
    Children are reaped as they end. The callback gets ``(pid, status)``; status comes from
    the exit file and is None when the wrapper left no record ("unknown": the engine fails the
    node with a clear error and should ``kill_group(pgid, SIGKILL)`` in case the job lives on).
    Callbacks run on the loop, never inside ``watch_child``/``adopt`` themselves.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop | None = None,
        *,
        use_pidfd: bool = True,
        poll_initial: float = 0.005,
        poll_max: float = 0.5,
        pidfd_budget: int | None = None,
    ) -> None:
        self._loop = loop or asyncio.get_running_loop()
        self._use_pidfd = use_pidfd and hasattr(os, "pidfd_open")
        if pidfd_budget is None:
            pidfd_budget = resource.getrlimit(resource.RLIMIT_NOFILE)[0] - FD_RESERVE
        self._pidfd_budget = max(pidfd_budget, 0)
        self._pidfds = 0
        self._poll_initial = poll_initial
        self._poll_max = poll_max
        self._watches: dict[tuple[int, int], _Watch] = {}
        self._remotes: dict[str, _Remote] = {}
        self._closed = False

    def __len__(self) -> int:
        """Processes still being watched."""
        return len(self._watches)

    def watch_child(self, launched: Launched, callback: ExitCallback) -> None:
        """Watch a process this engine spawned; it is reaped when it ends."""
        self._add(
            _Watch(launched.pid, launched.start_ticks, launched.exit_path, callback, child=True)
        )

    def adopt(self, pid: int, start_ticks: int, exit_path: str, callback: ExitCallback) -> None:
        """Watch a job left running by an earlier engine (not our child).

        If ``pid`` is gone, a zombie, or another process (start time differs), the job has
        already ended: the callback soon gets what its exit file says.
        """
        self._add(_Watch(pid, start_ticks, os.fspath(exit_path), callback, child=False))

    def watch_beats(self, exit_path: str, interval: float, callback: RemoteCallback) -> None:
        """Watch a job whose process this host cannot see (another host started it) by its
        attempt's files: the callback gets its exit record once there is one, or None once
        its beat (:func:`read_beat`) has not changed for :func:`stale_after` its interval
        (the interval the beat itself names, once it names one). The beat is timed by this
        host's clock alone, from now: the other host's clock may differ, and a beat seen once
        is no proof of life until it changes. One watch per attempt: a second replaces it."""
        if self._closed:
            raise RuntimeError("ProcessWatcher is closed")
        exit_path = os.fspath(exit_path)
        if (old := self._remotes.pop(exit_path, None)) is not None and old.timer is not None:
            old.timer.cancel()
        seen = read_beat(exit_path)
        r = _Remote(
            exit_path,
            callback,
            stale_after(interval),
            None if seen is None else seen[1],
            time.monotonic(),
        )
        self._remotes[exit_path] = r
        every = max(min(interval / 2, 1.0), 0.05)
        self._loop.call_soon(self._poll_remote, r, every)

    def close(self) -> None:
        """Stop watching everything. The processes keep running (a later engine adopts them)."""
        self._closed = True
        for w in list(self._watches.values()):
            self._forget(w)
        self._watches.clear()
        for r in self._remotes.values():
            if r.timer is not None:
                r.timer.cancel()
        self._remotes.clear()

    # -- internals

    def _add(self, w: _Watch) -> None:
        if self._closed:
            raise RuntimeError("ProcessWatcher is closed")
        key = (w.pid, w.start_ticks)
        if key in self._watches:
            raise ValueError(f"pid {w.pid} is already watched")
        self._watches[key] = w
        if self._use_pidfd and self._pidfds < self._pidfd_budget:
            try:
                fd = os.pidfd_open(w.pid)
            except ProcessLookupError:
                self._loop.call_soon(self._finish, w)  # gone already (reaped by someone else)
                return
            except OSError as exc:
                if exc.errno not in (errno.EMFILE, errno.ENFILE, errno.ENOSYS):
                    raise
                if exc.errno == errno.ENOSYS:
                    self._use_pidfd = False
                log.debug("pidfd_open(%d) failed (%s); polling instead", w.pid, exc)
            else:
                # The pidfd pins the process we opened. If it is not the one that started at
                # start_ticks (pid reused) or it has already exited, there is nothing to wait for.
                if not w.child and not is_alive(w.pid, w.start_ticks):
                    os.close(fd)
                    self._loop.call_soon(self._finish, w)
                    return
                w.fd = fd
                self._pidfds += 1
                self._loop.add_reader(fd, self._finish, w)
                return
        w.delay = self._poll_initial
        self._loop.call_soon(self._poll, w)

    def _poll(self, w: _Watch) -> None:
        w.timer = None
        if w.done:
            return
        if w.child:
            try:
                ended = self._reap(w)
            except ChildProcessError:
                ended = True
        else:
            ended = not is_alive(w.pid, w.start_ticks)
        if ended:
            self._finish(w)
            return
        w.timer = self._loop.call_later(w.delay, self._poll, w)
        w.delay = min(w.delay * 2, self._poll_max)

    def _finish(self, w: _Watch) -> None:
        if w.done:
            return
        self._forget(w)
        self._watches.pop((w.pid, w.start_ticks), None)
        if w.wait_status is None and (w.child or self._is_our_zombie(w)):
            # Reap it. Someone else may have (ECHILD): the status is in the exit file anyway.
            with contextlib.suppress(ChildProcessError):
                self._reap(w)
        status = read_exit(w.exit_path)
        if status is None and w.wait_status is not None and os.WIFEXITED(w.wait_status):
            # the wrapper exits with the job's code after writing it down: it ended, but its
            # record could not be written (a full disk, logs/ gone), so its own exit tells
            status = ExitStatus(os.WEXITSTATUS(w.wait_status))
            log.warning(
                "process %d left no exit record in %s (could it be written? a full disk?);"
                " its wrapper's exit says %s",
                w.pid,
                w.exit_path,
                status,
            )
            # kept where a restart looks, should this engine stop before it records the end
            # (a full disk stops it at its next commit): a symbolic link needs no data block
            with contextlib.suppress(OSError):
                os.symlink(str(status.code), w.exit_path)
        elif status is None:
            log.warning("process %d ended without an exit record in %s", w.pid, w.exit_path)
        w.callback(w.pid, status)

    def _poll_remote(self, r: _Remote, every: float) -> None:
        r.timer = None
        if self._remotes.get(r.exit_path) is not r:
            return
        status = read_exit(r.exit_path)
        now = time.monotonic()
        if status is None:
            seen = read_beat(r.exit_path)
            beat = None if seen is None else seen[1]
            if seen is not None and seen[0] > 0:
                r.stale_after = stale_after(seen[0])
            if beat != r.beat:
                r.beat, r.changed = beat, now
            if now - r.changed <= r.stale_after:
                r.timer = self._loop.call_later(every, self._poll_remote, r, every)
                return
            # a shared file system's client may cache that the exit record is missing:
            # reading the directory makes it look again before the job is judged gone
            with contextlib.suppress(OSError):
                os.listdir(os.path.dirname(r.exit_path))
            status = read_exit(r.exit_path)
            if status is None:
                log.warning(
                    "job of %s: no exit record, and its wrapper has not beaten for %.0f s",
                    r.exit_path,
                    now - r.changed,
                )
        del self._remotes[r.exit_path]
        r.callback(status, now - r.changed)

    @staticmethod
    def _reap(w: _Watch) -> bool:
        """waitpid without waiting; True when it had ended (its status kept)."""
        pid, wait_status = os.waitpid(w.pid, os.WNOHANG)
        if pid == 0:
            return False
        w.wait_status = wait_status
        return True

    @staticmethod
    def _is_our_zombie(w: _Watch) -> bool:
        """An adopted process that is in fact our own child (an engine adopting what it spawned)."""
        st = proc_stat(w.pid)
        return st is not None and st.ppid == os.getpid() and st.start_ticks == w.start_ticks

    def _forget(self, w: _Watch) -> None:
        w.done = True
        if w.fd is not None:
            self._loop.remove_reader(w.fd)
            os.close(w.fd)
            w.fd = None
            self._pidfds -= 1
        if w.timer is not None:
            w.timer.cancel()
            w.timer = None
