"""A shell action's ``<file>`` and ``<archive>`` entries made present in its working
directory when it starts, as Hadoop's distributed cache does for Oozie's launcher.

The working directory is shared by the nodes of a run, so only symlinks are put in it: a file
is linked where it is; an archive is unpacked under ``.localized/`` and linked; the program
``<exec>`` names is copied there with its execute bit set, as YARN's localizer makes what it
localizes executable (the common ``<exec>run.sh</exec><file>run.sh</file>`` works with a
``run.sh`` that is not). A name in the way that is not a link is left alone, and fails the
attempt: it is something a job wrote."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from bundletui.errors import EngineError
from bundletui.model.localized import CacheEntry, archive_format
from bundletui.model.paths import PathProblem
from bundletui.spec.config import locate_cache_entry

LOCALIZE_FAILED = "EB0507"
STAGING = ".localized"


def localize(
    files: Iterable[str],
    archives: Iterable[str],
    app_dir: str,
    cwd: Path,
    exec_name: str,
    *,
    in_use: bool = False,
) -> str | None:
    """Link the entries (EL already rendered) into ``cwd``; the path to run when ``exec_name``
    is a bare name one of the files takes, else None. Raises EngineError: JA008 when a path is
    missing (Oozie's code, retried under retry-max), EB0720 for an entry not usable as written
    (the code submit gives it), EB0507 when linking or unpacking fails. ``in_use``: another
    job of the run may still be working in an archive unpacked before: it is kept."""
    cwd.mkdir(parents=True, exist_ok=True)
    run = None
    # ``./run.sh`` names the file brought as run.sh as well (QA: it ran the link to the
    # user's file, not executable: exit 126), as YARN's localized files are executable
    bare = exec_name.removeprefix("./")
    for raw in files:
        entry, source = _located(raw, "file", app_dir)
        if entry.link == bare and "/" not in bare:
            target = _executable_copy(source, cwd, entry.link)
            run = str(cwd / entry.link)
        else:
            target = source
        _link(cwd / entry.link, target, raw)
    for raw in archives:
        entry, source = _located(raw, "archive", app_dir)
        _link(cwd / entry.link, _unpacked(source, cwd, entry, raw, in_use), raw)
    return run


def _located(raw: str, kind: str, app_dir: str) -> tuple[CacheEntry, Path]:
    found = locate_cache_entry(raw, kind, app_dir)
    if isinstance(found, PathProblem):
        raise EngineError(found.code, found.message)
    return found


def _link(at: Path, target: Path, raw: str) -> None:
    if at.is_symlink():
        if os.readlink(at) == str(target):
            return
        # pointed elsewhere at once (a job of the run may be reading through it)
        swap = at.with_name(f".{at.name}.{os.getpid()}.swap")
        swap.unlink(missing_ok=True)
        swap.symlink_to(target)
        os.replace(swap, at)
        return
    if at.exists():
        raise EngineError(
            LOCALIZE_FAILED,
            f"[{raw}]: {at} is in the way (not a link: something a job wrote there); "
            "it was left as it is",
        )
    at.symlink_to(target)


def _executable_copy(source: Path, cwd: Path, link: str) -> Path:
    staged = cwd / STAGING / "files" / link
    staged.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, name = tempfile.mkstemp(dir=staged.parent, prefix=f".{link}.")
        os.close(fd)  # a file open for writing cannot be executed (ETXTBSY)
        tmp = Path(name)
        shutil.copyfile(source, tmp)
        mode = source.stat().st_mode
        tmp.chmod(stat.S_IMODE(mode) | stat.S_IXUSR | stat.S_IRUSR)
        tmp.replace(staged)  # a running earlier attempt keeps the copy it opened
    except OSError as exc:
        raise EngineError(LOCALIZE_FAILED, f"cannot copy {source}: {exc}") from None
    return staged


def _unpacked(source: Path, cwd: Path, entry: CacheEntry, raw: str, in_use: bool) -> Path:
    """The archive unpacked afresh at each start (an earlier attempt may have changed what it
    unpacked), in a directory of its own under ``.localized/archives/<link>/``; the ones
    unpacked before go, unless another job of the run may still work in one (``in_use``:
    review, a job that had ``cd``-ed into it lost its directory to a later job's unpacking;
    they go at a later start, or with the run's working directory). Members that would land
    outside the directory (absolute paths, ``..``, links out) are refused: a tar's by
    tarfile's ``data`` filter, a zip's here (shutil would drop them without a word, and a job
    would then miss a file its archive names)."""
    fmt = archive_format(entry.path)
    assert fmt is not None  # locate_cache_entry refused it otherwise
    home = cwd / STAGING / "archives" / entry.link
    home.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=home, prefix="."))
    try:
        if fmt == "zip":
            _unzip(source, tmp)
        else:
            shutil.unpack_archive(source, tmp, fmt, filter="data")
        final = home / tmp.name.removeprefix(".")
        tmp.rename(final)
    except Exception as exc:  # tarfile, zipfile and OS errors alike: the archive is unusable
        shutil.rmtree(tmp, ignore_errors=True)
        raise EngineError(
            LOCALIZE_FAILED, f"<archive> [{raw}]: cannot unpack {source}: {exc}"
        ) from None
    if not in_use:
        for old in home.iterdir():
            if old != final and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)
    return final


def _unzip(source: Path, into: Path) -> None:
    with zipfile.ZipFile(source) as archive:
        for name in archive.namelist():
            path = PurePosixPath(name.replace("\\", "/"))
            if path.is_absolute() or ".." in path.parts:
                raise ValueError(f"member {name!r} would land outside the archive's directory")
        archive.extractall(into)
