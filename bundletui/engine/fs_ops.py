"""The Oozie fs action (oozie.md §5.6) on the local file system.

Paths are ``file://`` URIs (``file:///abs``, ``file:/abs``, ``file://localhost/abs``) or plain
absolute paths; relative paths fail with FS011 and other schemes with FS002. Like Oozie,
every path and permission mask of an action is validated before the first operation runs,
and ``delete``, ``move`` (source) and ``chmod`` accept Hadoop globs (``* ? [ab] [^a] {x,y}``).
Operations are applied in order and not rolled back: a failure leaves earlier ones done.

Crash safety: the engine runs an fs node in-process, so a crash can interrupt it between or
inside operations, and on restart the engine applies the node again with ``recovery=True``.
Every operation is idempotent on its own — mkdir of an existing directory, delete of a
missing path, chmod, touchz of an empty file — except ``move``, whose source is gone once it
has run: in recovery, a move whose source is missing but whose destination exists counts as
done (Oozie's recovery flag), as does a glob that now matches nothing. Without the flag those
are real errors (FS006), so a recurring workflow whose input never arrived is not mistaken for
one that already moved it.

A *sequence* is not idempotent as a whole (``delete out; move in -> out`` applied twice
deletes the moved data). So the engine passes a ``journal`` file per node attempt: after each
operation the number done is recorded there (tmp + rename), and a recovery run resumes at the
operation that was interrupted instead of starting over.
"""

from __future__ import annotations

import errno
import glob
import hashlib
import os
import re
import shutil
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bundletui.errors import EngineError
from bundletui.model.apps import FsAction, FsOp, FsOpKind
from bundletui.model.paths import PathProblem, parse_local_path, sweep_refusal

#: touchz on a directory or on a file that is not empty (Oozie raises a generic error).
TOUCHZ_NOT_EMPTY = "EB0601"
#: An unexpected I/O error with no Oozie code of its own.
FS_IO_ERROR = "EB0602"

_GLOB_CHARS = re.compile(r"[*?\[{]")
_PERM_TYPES = "-dlcbps"  # first character of a symbolic mask: the file type, ignored
_NOT_PERMITTED = (errno.EACCES, errno.EPERM, errno.EROFS)


def _err(code: str, message: str, hint: str | None = None) -> EngineError:
    return EngineError(code, message, hint=hint)


# --------------------------------------------------------------------------- validation


def local_path(uri: str) -> str:
    """The absolute local path a ``file:`` URI or plain path names (FS002 / FS011 otherwise)."""
    path = parse_local_path(uri)
    if isinstance(path, PathProblem):
        raise _err(path.code, path.message, hint=path.hint)
    return path


def parse_permissions(mask: str | None, path: str = "") -> int:
    """Mode bits of an octal ("755") or symbolic ("-rwxr-x--t") mask, as Hadoop reads them.

    Symbolic: the first character is the file type (ignored); ``s``/``S`` mean x/no-x (Hadoop
    has no setuid bits); ``t``/``T`` in the last place set the sticky bit with/without x.
    """
    text = (mask or "").strip()
    bad = _err("FS010", f"chmod, path [{path}] invalid permissions mask [{text}]")
    if len(text) == 3:
        if not all(c in "01234567" for c in text):
            raise bad
        return int(text, 8)
    if len(text) != 10 or text[0] not in _PERM_TYPES:
        raise bad
    mode = 0
    for i, c in enumerate(text[1:]):
        allowed = "r-" if i % 3 == 0 else "w-" if i % 3 == 1 else ("xsS-" if i < 8 else "xtT-")
        if c not in allowed:
            raise bad
        mode = (mode << 1) | (0 if c in "-ST" else 1)
    if text[9] in "tT":
        mode |= stat.S_ISVTX
    return mode


@dataclass(frozen=True, slots=True)
class _Op:
    op: FsOp
    path: str
    target: str | None = None
    mode: int = 0


def _validate(ops: Sequence[FsOp]) -> list[_Op]:
    checked = []
    for op in ops:
        path = local_path(op.path)
        # a whole tree is checked before any operation of the action is applied
        if op.op is FsOpKind.MOVE:
            if not op.target or not op.target.strip():
                raise _err("FS008", f"move, no target given for source [{op.path}]")
            _refuse_sweep(path, "move", "FS008")
            checked.append(_Op(op, path, target=local_path(op.target)))
        elif op.op is FsOpKind.CHMOD:
            if op.dir_files or op.recursive:
                _refuse_sweep(path, "chmod", "FS010")
            checked.append(_Op(op, path, mode=parse_permissions(op.permissions, op.path)))
        elif op.op is FsOpKind.DELETE:
            _refuse_sweep(path, "delete", "FS005")
            checked.append(_Op(op, path))
        else:
            checked.append(_Op(op, path))
    return checked


# --------------------------------------------------------------------------- globs


def _expand_braces(pattern: str) -> list[str]:
    """Hadoop's {a,b} alternation (nestable), which Python's glob lacks."""
    depth, start = 0, -1
    for i, c in enumerate(pattern):
        if c == "\\":
            continue
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                inner, parts, level, last = pattern[start + 1 : i], [], 0, 0
                for j, d in enumerate(inner):
                    level += d == "{"
                    level -= d == "}"
                    if d == "," and level == 0:
                        parts.append(inner[last:j])
                        last = j + 1
                parts.append(inner[last:])
                head, tail = pattern[:start], pattern[i + 1 :]
                return [x for p in parts for x in _expand_braces(head + p + tail)]
    return [pattern]


def _to_python_glob(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(glob.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "[" and pattern[i + 1 : i + 2] == "^":
            out.append("[!")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _matches(path: str) -> list[str]:
    """Existing paths matching ``path`` (a glob when it has glob characters)."""
    if not _GLOB_CHARS.search(path):
        return [path] if os.path.lexists(path) else []
    found: set[str] = set()
    for alt in _expand_braces(path):
        found.update(glob.glob(_to_python_glob(alt), include_hidden=True))
    return sorted(found)


# --------------------------------------------------------------------------- operations


def _io_error(code: str, what: str, exc: OSError) -> EngineError:
    if exc.errno in _NOT_PERMITTED:
        return _err("FS014", f"{what}: permission denied ({exc.strerror})")
    return _err(code, f"{what}: {exc.strerror or exc}")


def _mkdir(path: str) -> None:
    if os.path.lexists(path):
        return  # Oozie: an existing path is a no-op
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise _io_error("FS004", f"mkdir, path [{path}] could not create directory", exc) from exc


def _refuse_sweep(path: str, verb: str, code: str) -> None:
    """A delete, a move's source or a chmod of a directory's files may not take the root or a
    top-level directory, as written or through a symbolic link (see ``sweep_refusal``)."""
    why = sweep_refusal(path, verb, os.path.realpath)
    if why is not None:
        raise _err(
            code,
            f"{verb}, path [{path}]: {why}",
            hint=f"a {verb} names a path at least two levels deep; check the variables that"
            " make it (an empty one leaves the path's parent)",
        )


def _delete(path: str) -> None:
    matches = _matches(path)
    for p in matches:  # each as a pattern matched it (``/{tmp/..,x}`` matches ``/tmp/..``)
        _refuse_sweep(p, "delete", "FS005")
    for p in matches:
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.unlink(p)
        except FileNotFoundError:
            continue  # gone meanwhile: the goal is reached
        except OSError as exc:
            raise _io_error("FS005", f"delete, path [{p}] could not delete path", exc) from exc


def _move(source: str, target: str, recovery: bool) -> None:
    sources = _matches(source)
    for src in sources:
        _refuse_sweep(src, "move", "FS008")
    target_is_dir = os.path.isdir(target)
    if not sources:
        if recovery and (_GLOB_CHARS.search(source) or _destination(source, target, target_is_dir)):
            return  # moved before the crash
        raise _err("FS006", f"move, source path [{source}] does not exist")
    if len(sources) > 1 and not target_is_dir:
        raise _err("FS012", "move, could not rename multiple sources to the same target name")
    for src in sources:
        dest = os.path.join(target, os.path.basename(src)) if target_is_dir else target
        what = f"move, could not move [{src}] to [{dest}]"
        if os.path.lexists(dest):
            raise _err("FS008", f"{what}: target exists")
        parent = os.path.dirname(dest)
        if not os.path.isdir(parent):
            raise _err("FS008", f"{what}: target directory [{parent}] does not exist")
        try:
            os.rename(src, dest)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise _io_error("FS008", what, exc) from exc
            _move_across_devices(src, dest, what)


def _destination(source: str, target: str, target_is_dir: bool) -> bool:
    dest = os.path.join(target, os.path.basename(source)) if target_is_dir else target
    return os.path.lexists(dest)


def _move_across_devices(src: str, dest: str, what: str) -> None:
    """Copy under a fixed temporary name, rename into place, then delete the source.

    The destination appears whole or not at all; a crash leaves the source intact (and maybe
    the temporary copy, which the next attempt replaces).
    """
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.bundletui-move")
    try:
        if os.path.lexists(tmp):
            _remove(tmp)
        if os.path.isdir(src) and not os.path.islink(src):
            shutil.copytree(src, tmp, symlinks=True)
        else:
            shutil.copy2(src, tmp, follow_symlinks=False)
        os.rename(tmp, dest)
        _remove(src)
    except OSError as exc:
        raise _io_error("FS008", what, exc) from exc


def _remove(p: str) -> None:
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p)
    else:
        os.unlink(p)


def _chmod(path: str, mode: int, dir_files: bool, recursive: bool) -> None:
    matches = _matches(path)
    if not matches:
        raise _err("FS009", f"chmod, path(s) that matches [{path}] does not exist")
    if dir_files or recursive:
        for p in matches:
            _refuse_sweep(p, "chmod", "FS010")
    for p in matches:
        try:
            if dir_files and os.path.isdir(p):
                for q in _tree(p, recursive):
                    os.chmod(q, mode)
            else:
                os.chmod(p, mode)
        except FileNotFoundError as exc:
            raise _err("FS009", f"chmod, path [{exc.filename or p}] does not exist") from exc
        except OSError as exc:
            raise _io_error(
                FS_IO_ERROR, f"chmod, path [{p}] could not change permissions", exc
            ) from exc


def _tree(root: str, recursive: bool) -> Iterator[str]:
    """``root``'s entries (all levels if recursive), then root itself: every directory is
    listed before its own mode changes. Symbolic links are skipped, never followed."""
    with os.scandir(root) as it:
        entries = sorted(it, key=lambda e: e.name)
    for e in entries:
        if e.is_symlink():
            continue
        if recursive and e.is_dir(follow_symlinks=False):
            yield from _tree(e.path, True)
        else:
            yield e.path
    yield root


def _touchz(path: str) -> None:
    # The usual case first, in two system calls: a new file in an existing directory.
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        return
    except (FileExistsError, FileNotFoundError):
        pass  # it exists (checked below), or its directory does not (made below)
    except OSError as exc:
        raise _io_error(FS_IO_ERROR, f"touchz, path [{path}] could not be created", exc) from exc
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _io_error(FS_IO_ERROR, f"touchz, path [{path}]", exc) from exc
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _err(TOUCHZ_NOT_EMPTY, f"touchz, path [{path}] is a directory")
    if st is not None and st.st_size != 0:
        raise _err(TOUCHZ_NOT_EMPTY, f"touchz, path [{path}] must be a zero-length file")
    try:
        if st is None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
            os.close(fd)
        else:
            os.utime(path)
    except OSError as exc:
        raise _io_error(FS_IO_ERROR, f"touchz, path [{path}] could not be created", exc) from exc


# --------------------------------------------------------------------------- entry points


def _fingerprint(ops: Sequence[FsOp]) -> str:
    return hashlib.sha1(repr(tuple(ops)).encode()).hexdigest()[:16]


def _read_journal(journal: str, fingerprint: str) -> int:
    try:
        with open(journal) as f:
            done, _, fp = f.read().partition(" ")
    except (FileNotFoundError, NotADirectoryError):
        return 0
    if fp != fingerprint + "\n" or not done.isdigit():
        return 0  # another action's journal, or torn: start over
    return int(done)


def _write_journal(journal: str, fingerprint: str, done: int) -> None:
    tmp = journal + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{done} {fingerprint}\n")
    os.replace(tmp, journal)


def run_fs_ops(
    ops: Sequence[FsOp],
    *,
    recovery: bool = False,
    journal: str | os.PathLike[str] | None = None,
) -> None:
    """Validate every operation, then apply them in order (also used for shell ``<prepare>``).

    ``recovery``: this node was interrupted by a crash and is being applied again.
    ``journal``: a file private to this node attempt where progress is recorded; with
    ``recovery`` the operations it records as done are skipped. Only written for actions of
    more than one operation (a single operation is idempotent under ``recovery``).
    Raises :class:`EngineError` with the Oozie code (FS00x) of the first failure.
    """
    checked = _validate(ops)
    jpath = os.fspath(journal) if journal is not None and len(checked) > 1 else None
    fingerprint = _fingerprint(ops) if jpath else ""
    start = _read_journal(jpath, fingerprint) if jpath and recovery else 0
    for i, op in enumerate(checked):
        if i < start:
            continue
        _apply(op, recovery)
        if jpath:
            _write_journal(jpath, fingerprint, i + 1)


def _apply(op: _Op, recovery: bool) -> None:
    kind = op.op.op
    if kind is FsOpKind.MKDIR:
        _mkdir(op.path)
    elif kind is FsOpKind.DELETE:
        _delete(op.path)
    elif kind is FsOpKind.MOVE:
        assert op.target is not None
        _move(op.path, op.target, recovery)
    elif kind is FsOpKind.CHMOD:
        _chmod(op.path, op.mode, op.op.dir_files, op.op.recursive)
    elif kind is FsOpKind.TOUCHZ:
        _touchz(op.path)
    else:  # pragma: no cover - FsOpKind is closed
        raise ValueError(f"unknown fs operation {kind!r}")


def run_fs_action(
    action: FsAction,
    *,
    recovery: bool = False,
    journal: str | os.PathLike[str] | None = None,
) -> None:
    """Run an fs action node: see :func:`run_fs_ops` and the module docstring."""
    run_fs_ops(action.ops, recovery=recovery, journal=journal)
