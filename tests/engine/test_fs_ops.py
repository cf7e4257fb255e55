"""The fs action on real files: each operation, Oozie's error codes, validation, re-application."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from bundletui.engine.fs_ops import (
    TOUCHZ_NOT_EMPTY,
    local_path,
    parse_permissions,
    run_fs_action,
    run_fs_ops,
)
from bundletui.errors import EngineError
from bundletui.model.apps import FsAction, FsOp, FsOpKind
from bundletui.model.paths import sweep_refusal

K = FsOpKind


def run(*ops: FsOp, recovery: bool = False) -> None:
    run_fs_action(FsAction(ops=ops), recovery=recovery)


def code_of(*ops: FsOp, recovery: bool = False) -> str:
    with pytest.raises(EngineError) as err:
        run(*ops, recovery=recovery)
    assert err.value.message  # a clear message, never an empty one
    return err.value.code


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def uri(p: Path) -> str:
    return f"file://{p}"


# --------------------------------------------------------------------------- paths


def test_local_path_forms() -> None:
    assert local_path("/a/b") == "/a/b"
    assert local_path("  file:///a/b/  ") == "/a/b"
    assert local_path("file:/a//b") == "/a/b"
    assert local_path("file://localhost/a") == "/a"
    assert local_path("FILE:///a") == "/a"
    assert local_path("/") == "/"
    assert local_path("file:///a%20b c") == "/a%20b c"  # no decoding, as Hadoop's Path


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a/b", "FS011"),
        ("./a", "FS011"),
        ("", "FS011"),
        ("file:a/b", "FS011"),
        ("hdfs://nn:8020/a", "FS002"),
        ("s3a://bucket/a", "FS002"),
        ("file://data/in", "FS002"),  # two slashes: "data" is a host
    ],
)
def test_bad_paths(text: str, code: str) -> None:
    with pytest.raises(EngineError) as err:
        local_path(text)
    assert err.value.code == code
    assert err.value.hint


def test_every_path_is_validated_before_any_operation(tmp_path: Path) -> None:
    first = tmp_path / "first"
    assert (
        code_of(
            FsOp(K.MKDIR, str(first)),
            FsOp(K.TOUCHZ, str(tmp_path / "t")),
            FsOp(K.DELETE, "relative/path"),
        )
        == "FS011"
    )
    assert not first.exists()
    assert (
        code_of(FsOp(K.MKDIR, str(first)), FsOp(K.CHMOD, str(tmp_path), permissions="999"))
        == "FS010"
    )
    assert not first.exists()
    assert (
        code_of(FsOp(K.MKDIR, str(first)), FsOp(K.MOVE, str(tmp_path / "x"), target="rel"))
        == "FS011"
    )
    assert code_of(FsOp(K.MKDIR, str(first)), FsOp(K.MOVE, str(tmp_path / "x"))) == "FS008"
    assert not first.exists()


# --------------------------------------------------------------------------- mkdir / delete


def test_mkdir_creates_parents_and_existing_is_a_noop(tmp_path: Path) -> None:
    d = tmp_path / "a" / "b" / "c"
    run(FsOp(K.MKDIR, uri(d)))
    assert d.is_dir()
    (d / "keep").write_text("x")
    run(FsOp(K.MKDIR, str(d)))
    assert (d / "keep").read_text() == "x"
    f = tmp_path / "file"
    f.write_text("data")
    run(FsOp(K.MKDIR, str(f)))  # Oozie checks only that the path exists
    assert f.read_text() == "data"


def test_mkdir_under_a_file_fails_fs004(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert code_of(FsOp(K.MKDIR, str(tmp_path / "file" / "sub"))) == "FS004"


def test_delete_is_recursive_and_missing_is_fine(tmp_path: Path) -> None:
    d = tmp_path / "d"
    (d / "x" / "y").mkdir(parents=True)
    (d / "x" / "y" / "f").write_text("1")
    (tmp_path / "f").write_text("2")
    run(
        FsOp(K.DELETE, uri(d)),
        FsOp(K.DELETE, str(tmp_path / "f")),
        FsOp(K.DELETE, str(tmp_path / "missing")),
    )
    assert sorted(os.listdir(tmp_path)) == []


def test_delete_removes_a_symlink_not_its_target(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (target / "precious").write_text("x")
    link = tmp_path / "link"
    link.symlink_to(target)
    run(FsOp(K.DELETE, str(link)))
    assert not link.exists() and (target / "precious").exists()


def test_delete_glob(tmp_path: Path) -> None:
    for name in ("part-0", "part-1", ".part-2", "other", "log-a", "log-b", "log-c"):
        (tmp_path / name).write_text("")
    run(FsOp(K.DELETE, f"{tmp_path}/*part-[0-9]"), FsOp(K.DELETE, f"{tmp_path}/log-{{a,c}}"))
    assert sorted(os.listdir(tmp_path)) == ["log-b", "other"]  # Hadoop globs match dotfiles too
    run(FsOp(K.DELETE, f"{tmp_path}/[^o]*"))
    assert sorted(os.listdir(tmp_path)) == ["other"]


def test_delete_root_is_refused() -> None:
    assert code_of(FsOp(K.DELETE, "file:///")) == "FS005"


def test_dot_segments_go_as_hadoop_path_drops_them() -> None:
    assert local_path("/a/./b/../c") == "/a/c"
    assert local_path("file:///tmp/../") == "/"
    assert local_path("//./") == "/"


@pytest.mark.parametrize("text", ["/", "/.", "/tmp/..", "//./", "file:///tmp/../", "/a/b/../.."])
def test_every_spelling_of_the_root_is_refused_for_a_delete(text: str) -> None:
    # the pure check only: a regression must never get as far as deleting for real
    assert sweep_refusal(local_path(text), "delete") == "refusing to delete the root"


TOP = "refusing to delete a top-level directory of the file system"
PATTERN = "refusing to delete what a pattern matches at the top of the file system"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("//home", TOP),  # what the brace pattern /{/home,zz} matches
        ("/*/*", PATTERN),  # every top-level directory's contents
        ("/{usr,x}/lib", PATTERN),
        ("/usr", TOP),
    ],
)
def test_paths_that_sweep_the_top_of_the_file_system_are_refused(text: str, why: str) -> None:
    """Review: ``/{/home,zz}`` matched ``//home``, which normpath keeps, and ``/*/*`` counted
    as two levels deep. The pure check only, never a real delete."""
    assert sweep_refusal(text, "delete") == why


def test_a_link_to_the_root_is_no_way_round(tmp_path: Path) -> None:
    """Review: with ``rl -> /``, ``rl/usr`` and ``rl/*`` were deep enough to delete."""
    (tmp_path / "rl").symlink_to("/")
    for text in (f"{tmp_path}/rl/usr", f"{tmp_path}/rl/bundletui-none-x"):
        why = sweep_refusal(text, "delete", os.path.realpath)
        assert why is not None and "through a symbolic link" in why, why
    assert sweep_refusal(f"{tmp_path}/rl", "delete", os.path.realpath) is None  # the link
    with pytest.raises(EngineError) as err:  # refused before anything is touched
        run(FsOp(K.DELETE, f"{tmp_path}/rl/bundletui-none-x"))
    assert err.value.code == "FS005"


@pytest.mark.parametrize(
    "op",
    [
        FsOp(K.MOVE, "/bundletui-none-x", target="/tmp/bundletui-none-y"),
        FsOp(K.CHMOD, "/bundletui-none-x", permissions="777", recursive=True),
        FsOp(K.CHMOD, "/tmp/..", permissions="777"),  # dir-files: every top-level entry
    ],
    ids=["move", "chmod-recursive", "chmod-dir-files"],
)
def test_a_move_or_chmod_of_a_whole_top_level_tree_is_refused(op: FsOp) -> None:
    with pytest.raises(EngineError) as err:
        run(op)
    assert err.value.code in ("FS008", "FS010") and "refusing to" in err.value.message


@pytest.mark.parametrize(
    "text",
    [
        "/bundletui-none-x",
        "/bundletui-none-x/a/..",
        "file:///bundletui-none-x/.",
        "/bundletui-none-*",
        "/{bundletui-none-x,bundletui-none-y}",
    ],
)
def test_a_top_level_delete_is_refused_before_any_operation(tmp_path: Path, text: str) -> None:
    """An empty variable (``${scratch}/..``) must not make a delete of a whole top-level
    directory (QA: ``/.``, ``/tmp/..`` and ``/*`` reached rmtree of the root)."""
    made = tmp_path / "made"
    with pytest.raises(EngineError) as err:
        run(FsOp(K.MKDIR, str(made)), FsOp(K.DELETE, text))
    assert err.value.code == "FS005"
    assert "top" in err.value.message and err.value.hint
    assert not made.exists()  # refused before the action's first operation


def test_a_deep_delete_still_goes(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    run(FsOp(K.DELETE, f"{tmp_path}/a/b/.."))
    assert not (tmp_path / "a").exists()


# --------------------------------------------------------------------------- move


def test_move_renames(tmp_path: Path) -> None:
    (tmp_path / "src").write_text("payload")
    run(FsOp(K.MOVE, uri(tmp_path / "src"), target=str(tmp_path / "dst")))
    assert (tmp_path / "dst").read_text() == "payload"
    assert not (tmp_path / "src").exists()


def test_move_into_an_existing_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_text("1")
    (tmp_path / "archive").mkdir()
    run(FsOp(K.MOVE, str(tmp_path / "src"), target=uri(tmp_path / "archive")))
    assert (tmp_path / "archive" / "src" / "f").read_text() == "1"


def test_move_errors(tmp_path: Path) -> None:
    assert code_of(FsOp(K.MOVE, str(tmp_path / "missing"), target=str(tmp_path / "t"))) == "FS006"
    (tmp_path / "src").write_text("s")
    (tmp_path / "exists").write_text("e")
    assert code_of(FsOp(K.MOVE, str(tmp_path / "src"), target=str(tmp_path / "exists"))) == "FS008"
    assert (tmp_path / "exists").read_text() == "e"  # never overwritten
    assert (
        code_of(FsOp(K.MOVE, str(tmp_path / "src"), target=str(tmp_path / "no" / "t"))) == "FS008"
    )
    (tmp_path / "a1").write_text("")
    (tmp_path / "a2").write_text("")
    assert code_of(FsOp(K.MOVE, f"{tmp_path}/a*", target=str(tmp_path / "single"))) == "FS012"
    (tmp_path / "dir").mkdir()
    assert (
        code_of(FsOp(K.MOVE, str(tmp_path / "dir"), target=str(tmp_path / "dir" / "inside")))
        == "FS008"
    )
    assert (tmp_path / "src").read_text() == "s"


def test_move_glob_into_directory(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    for n in ("a1", "a2", "b1"):
        (tmp_path / n).write_text(n)
    run(FsOp(K.MOVE, f"{tmp_path}/a?", target=str(tmp_path / "out")))
    assert sorted(os.listdir(tmp_path / "out")) == ["a1", "a2"]


def test_move_reapplied_after_a_crash_is_idempotent_only_in_recovery(tmp_path: Path) -> None:
    (tmp_path / "in").write_text("x")
    (tmp_path / "archive").mkdir()
    action = (
        FsOp(K.MKDIR, str(tmp_path / "m")),
        FsOp(K.MOVE, str(tmp_path / "in"), target=str(tmp_path / "archive")),
    )
    run(*action)
    # The engine died after the move but before recording success: it applies the node again.
    run(*action, recovery=True)
    assert (tmp_path / "archive" / "in").read_text() == "x"
    # Outside recovery, a missing source is an error even if the destination exists
    # (yesterday's output is not today's input).
    assert code_of(*action) == "FS006"
    # And recovery does not invent success when nothing was moved.
    assert (
        code_of(FsOp(K.MOVE, str(tmp_path / "never"), target=str(tmp_path / "t")), recovery=True)
        == "FS006"
    )
    run(FsOp(K.MOVE, f"{tmp_path}/nomatch*", target=str(tmp_path / "archive")), recovery=True)


def test_move_across_file_systems(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if (
        not shm.is_dir()
        or not os.access(shm, os.W_OK)
        or shm.stat().st_dev == tmp_path.stat().st_dev
    ):
        pytest.skip("needs a second file system")
    with tempfile.TemporaryDirectory(dir=shm) as other:
        src = Path(other) / "tree"
        (src / "sub").mkdir(parents=True)
        (src / "sub" / "f").write_text("deep")
        (src / "link").symlink_to("sub/f")
        dest = tmp_path / "tree"
        (tmp_path / ".tree.bundletui-move").mkdir()  # leftover of a crashed earlier attempt
        run(FsOp(K.MOVE, str(src), target=str(dest)))
        assert not src.exists()
        assert (dest / "sub" / "f").read_text() == "deep"
        assert os.readlink(dest / "link") == "sub/f"
        assert sorted(os.listdir(tmp_path)) == ["tree"]


# --------------------------------------------------------------------------- chmod


@pytest.mark.parametrize(
    ("mask", "bits"),
    [
        ("755", 0o755),
        ("000", 0),
        ("-rwxrw-rw-", 0o766),
        ("drwxr-x---", 0o750),
        ("-rwxr-xr-t", 0o1755),
        ("-rw-r--r-T", 0o1644),
        ("-rwsr-Sr--", 0o744),  # Hadoop has no setuid: s = x, S = no x
    ],
)
def test_parse_permissions(mask: str, bits: int) -> None:
    assert parse_permissions(mask) == bits


@pytest.mark.parametrize(
    "mask",
    ["", "75", "7555", "789", "abc", "rwxr-xr-x", "-rwxr-xr-xx", "-rwzr-xr-x", "xrwxr-xr-x", None],
)
def test_bad_masks_are_fs010(mask: str | None) -> None:
    with pytest.raises(EngineError) as err:
        parse_permissions(mask, "/p")
    assert err.value.code == "FS010"
    assert "/p" in err.value.message


def make_tree(root: Path) -> None:
    (root / "sub" / "deeper").mkdir(parents=True, exist_ok=True)
    (root / "f").write_text("")
    (root / "sub" / "g").write_text("")
    (root / "sub" / "deeper" / "h").write_text("")
    for p in (root, root / "sub", root / "sub" / "deeper"):
        p.chmod(0o700)
    for p in (root / "f", root / "sub" / "g", root / "sub" / "deeper" / "h"):
        p.chmod(0o600)


def test_chmod_dir_files_recursive_and_not(tmp_path: Path) -> None:
    root = tmp_path / "t"
    make_tree(root)
    run(FsOp(K.CHMOD, uri(root), permissions="755", dir_files=False))
    assert mode(root) == 0o755 and mode(root / "f") == 0o600 and mode(root / "sub") == 0o700

    make_tree(root)
    run(FsOp(K.CHMOD, str(root), permissions="-rwxr-x---"))  # dir-files default: one level
    assert mode(root) == 0o750 and mode(root / "f") == 0o750 and mode(root / "sub") == 0o750
    assert mode(root / "sub" / "g") == 0o600

    make_tree(root)
    run(FsOp(K.CHMOD, str(root), permissions="751", recursive=True))
    for p in (
        root,
        root / "f",
        root / "sub",
        root / "sub" / "g",
        root / "sub" / "deeper",
        root / "sub" / "deeper" / "h",
    ):
        assert mode(p) == 0o751, p


def test_chmod_recursive_to_a_mask_that_locks_directories(tmp_path: Path) -> None:
    # Each directory is listed before its own mode changes, so 000 reaches every level.
    root = tmp_path / "t"
    make_tree(root)
    run(FsOp(K.CHMOD, str(root), permissions="000", recursive=True))
    for p in (root / "sub" / "deeper" / "h", root / "sub" / "deeper", root / "sub", root):
        assert mode(p) == 0, p
    for p in (root, root / "sub", root / "sub" / "deeper"):
        p.chmod(0o700)


def test_chmod_skips_symlinks_inside_a_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("")
    outside.chmod(0o600)
    root = tmp_path / "t"
    root.mkdir()
    (root / "link").symlink_to(outside)
    run(FsOp(K.CHMOD, str(root), permissions="777", recursive=True))
    assert mode(outside) == 0o600


def test_chmod_missing_path_fs009_and_glob(tmp_path: Path) -> None:
    assert code_of(FsOp(K.CHMOD, str(tmp_path / "missing"), permissions="755")) == "FS009"
    assert code_of(FsOp(K.CHMOD, f"{tmp_path}/none-*", permissions="755")) == "FS009"
    for n in ("x1", "x2", "y"):
        (tmp_path / n).write_text("")
        (tmp_path / n).chmod(0o600)
    run(FsOp(K.CHMOD, f"{tmp_path}/x*", permissions="640"))
    assert [mode(tmp_path / n) for n in ("x1", "x2", "y")] == [0o640, 0o640, 0o600]


# --------------------------------------------------------------------------- touchz


def test_touchz_creates_and_touches(tmp_path: Path) -> None:
    f = tmp_path / "a" / "b" / "_SUCCESS"
    run(FsOp(K.TOUCHZ, uri(f)))  # parents created, as Hadoop's create does
    assert f.read_bytes() == b""
    os.utime(f, (1_000_000, 1_000_000))
    run(FsOp(K.TOUCHZ, str(f)))
    assert f.stat().st_mtime > 1_000_000 and f.read_bytes() == b""


def test_touchz_never_truncates(tmp_path: Path) -> None:
    f = tmp_path / "data"
    f.write_text("important")
    assert code_of(FsOp(K.TOUCHZ, str(f))) == TOUCHZ_NOT_EMPTY
    assert f.read_text() == "important"
    assert code_of(FsOp(K.TOUCHZ, str(tmp_path))) == TOUCHZ_NOT_EMPTY


# --------------------------------------------------------------------------- sequences


def test_ops_run_in_order_and_stop_at_the_first_failure(tmp_path: Path) -> None:
    ops = (
        FsOp(K.MKDIR, str(tmp_path / "out")),
        FsOp(K.TOUCHZ, str(tmp_path / "out" / "f")),
        FsOp(K.MOVE, str(tmp_path / "missing"), target=str(tmp_path / "out")),
        FsOp(K.TOUCHZ, str(tmp_path / "after")),
    )
    with pytest.raises(EngineError) as err:
        run_fs_ops(ops)
    assert err.value.code == "FS006"
    assert (tmp_path / "out" / "f").exists()  # no rollback, as Oozie
    assert not (tmp_path / "after").exists()


def pipeline(root: Path) -> tuple[FsOp, ...]:
    """A typical Oozie pattern that is not idempotent as a whole: clear, stage, move, seal."""
    return (
        FsOp(K.DELETE, str(root / "stage")),
        FsOp(K.MKDIR, str(root / "stage" / "tmp")),
        FsOp(K.MOVE, str(root / "incoming"), target=str(root / "stage")),
        FsOp(K.CHMOD, str(root / "stage"), permissions="750", recursive=True),
        FsOp(K.TOUCHZ, str(root / "stage" / "_SUCCESS")),
    )


def snapshot(root: Path) -> list[tuple[str, int, str]]:
    return sorted(
        (str(p.relative_to(root)), mode(p), p.read_text() if p.is_file() else "")
        for p in root.rglob("*")
        if not p.name.startswith("journal")
    )


# Runs the pipeline in a child process that dies (as under kill -9) at its Nth journal
# write: after operation N has been applied, before it was recorded.
CRASHING = """
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from test_fs_ops import pipeline
from bundletui.engine.fs_ops import run_fs_ops
real_replace, calls = os.replace, 0
def replace(a, b):
    global calls
    calls += 1
    if calls == int(sys.argv[2]):
        os._exit(137)
    real_replace(a, b)
os.replace = replace
root = Path(sys.argv[1])
run_fs_ops(pipeline(root), journal=root / "journal")
"""


def test_the_pipeline_and_the_hazard_of_starting_over(tmp_path: Path) -> None:
    (tmp_path / "incoming").write_text("rows")
    run_fs_ops(pipeline(tmp_path))
    assert snapshot(tmp_path) == [
        ("stage", 0o750, ""),
        ("stage/_SUCCESS", 0o644 & ~_umask(), ""),
        ("stage/incoming", 0o750, "rows"),
        ("stage/tmp", 0o750, ""),
    ]
    # Applied again from the first operation, the delete destroys what the move produced
    # and the move then finds nothing: this is why the engine passes a journal.
    assert code_of(*pipeline(tmp_path), recovery=True) == "FS006"
    assert not (tmp_path / "stage" / "incoming").exists()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("crash_at", [1, 2, 3, 4, 5])
def test_recovery_with_a_journal_resumes_where_a_crash_interrupted(
    tmp_path: Path, crash_at: int
) -> None:
    import subprocess
    import sys

    reference = tmp_path / "reference"
    reference.mkdir()
    (reference / "incoming").write_text("rows")
    run_fs_ops(pipeline(reference), journal=reference / "journal")

    root = tmp_path / "crashed"
    root.mkdir()
    (root / "incoming").write_text("rows")
    child = subprocess.run(
        [sys.executable, "-c", CRASHING, str(root), str(crash_at), str(Path(__file__).parent)],
        capture_output=True,
        text=True,
    )
    assert child.returncode == 137, child.stderr
    run_fs_ops(pipeline(root), recovery=True, journal=root / "journal")
    assert snapshot(root) == snapshot(reference)
    # And once complete, applying it yet again changes nothing.
    run_fs_ops(pipeline(root), recovery=True, journal=root / "journal")
    assert snapshot(root) == snapshot(reference)


def test_a_journal_of_other_operations_is_ignored(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.write_text("2 0123456789abcdef\n")
    ops = (FsOp(K.TOUCHZ, str(tmp_path / "a")), FsOp(K.TOUCHZ, str(tmp_path / "b")))
    run_fs_ops(ops, recovery=True, journal=journal)
    assert (tmp_path / "a").exists() and (tmp_path / "b").exists()
