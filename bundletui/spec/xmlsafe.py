"""Safe XML parsing and XSD validation for application files.

Parsing uses lxml with entity resolution, DTD loading and network access off; a DOCTYPE that
declares entities (XXE, "billion laughs") is refused outright. The document's root namespace
picks the schema from a registry (one XSD per namespace version, written by this project and
shipped in ``spec/xsd``); each schema is built once, from local files only, and cached.
Every problem is a :class:`SpecError` with code E0701, the file and the line.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lxml import etree

from bundletui.errors import SpecError

if TYPE_CHECKING:
    import xmlschema

XSD_DIR = Path(__file__).with_name("xsd")

# lxml's element type; lxml ships no type stubs here, so this is Any to mypy.
Element = Any


class AppKind(StrEnum):
    BUNDLE = "bundle"
    COORDINATOR = "coordinator"
    WORKFLOW = "workflow"


@dataclass(frozen=True, slots=True)
class SchemaSpec:
    """One namespace version: which XSD checks it and which roots it may have."""

    namespace: str
    xsd: str  # file name under XSD_DIR, or an absolute path (extensions)
    kind: AppKind
    roots: tuple[str, ...]

    @property
    def version(self) -> str:
        return self.namespace.rsplit(":", 1)[-1]

    @property
    def xsd_path(self) -> Path:
        p = Path(self.xsd)
        return p if p.is_absolute() else XSD_DIR / p


_REGISTRY: dict[str, SchemaSpec] = {}
_SCHEMAS: dict[str, xmlschema.XMLSchema10] = {}  # built lazily, once per namespace
_SCHEMA_LOCK = threading.Lock()


def register_schema(spec: SchemaSpec) -> None:
    """Add (or replace) a namespace. Extensions such as ``uri:bundletui:coordinator:1.0``
    register here with their own XSD; nothing else needs to change."""
    _REGISTRY[spec.namespace] = spec
    _SCHEMAS.pop(spec.namespace, None)


def _builtin() -> None:
    for v in ("0.1", "0.2"):
        register_schema(
            SchemaSpec(f"uri:oozie:bundle:{v}", f"bundle-{v}.xsd", AppKind.BUNDLE, ("bundle-app",))
        )
    for v in ("0.1", "0.2", "0.3", "0.4", "0.5"):
        register_schema(
            SchemaSpec(
                f"uri:oozie:coordinator:{v}",
                f"coordinator-{v}.xsd",
                AppKind.COORDINATOR,
                ("coordinator-app", "datasets"),
            )
        )
    for v in ("0.5", "1.0"):
        register_schema(
            SchemaSpec(
                f"uri:oozie:workflow:{v}", f"workflow-{v}.xsd", AppKind.WORKFLOW, ("workflow-app",)
            )
        )
    register_schema(
        SchemaSpec(DAG_NAMESPACE, "dag-1.0.xsd", AppKind.WORKFLOW, ("dag-app",)),
    )
    register_schema(
        SchemaSpec(
            EVENTS_NAMESPACE,
            "bundletui-coordinator-1.0.xsd",
            AppKind.COORDINATOR,
            ("coordinator-app",),
        )
    )


DAG_NAMESPACE = "uri:bundletui:dag:1.0"
EVENTS_NAMESPACE = "uri:bundletui:coordinator:1.0"
SHELL_NAMESPACES = ("uri:oozie:shell-action:0.3", "uri:oozie:shell-action:1.0")
_builtin()


def supported_namespaces(kind: AppKind | None = None) -> list[str]:
    return sorted(ns for ns, s in _REGISTRY.items() if kind is None or s.kind is kind)


def schema_for(namespace: str) -> SchemaSpec | None:
    return _REGISTRY.get(namespace)


# --------------------------------------------------------------------------- parsing

_local = threading.local()


def _parser() -> Any:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.XMLParser(
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            dtd_validation=False,
            huge_tree=False,
            remove_comments=True,
            remove_pis=True,
        )
        _local.parser = parser
    return parser


def _xml_error(file: str, reason: str, line: int | None, hint: str | None = None) -> SpecError:
    return SpecError(
        "E0701", f"XML schema error, {file}, {reason}", hint=hint, file=file, line=line
    )


MAX_APP_FILE = 16 * 1024 * 1024  # an application or configuration file is a few KiB


APP_FILES = ("bundle.xml", "coordinator.xml", "workflow.xml")


def read_bytes(path: str | Path, *, expected: Iterable[str] = APP_FILES) -> bytes:
    """The file's bytes, or E0702 naming it. Only a regular file of at most MAX_APP_FILE is
    read: /dev/zero would fill the memory and a named pipe would wait for ever. ``expected``:
    the files a directory given instead is looked in for (named in the error's hint)."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):  # a directory: E0702 below
            raise SpecError(
                "E0702",
                f"IO error, {path} is not a regular file",
                hint="name the XML or properties file itself (not a device or a pipe)",
                file=str(path),
            )
        with open(path, "rb") as f:
            data = f.read(MAX_APP_FILE + 1)
        if len(data) > MAX_APP_FILE:
            raise SpecError(
                "E0702",
                f"IO error, {path} is larger than {MAX_APP_FILE // (1024 * 1024)} MiB",
                hint="an application or configuration file is a few KiB: is this the right file?",
                file=str(path),
            )
        return data
    except FileNotFoundError:
        raise SpecError(
            "E0702", f"IO error, file not found: {path}", hint="check the path", file=str(path)
        ) from None
    except IsADirectoryError:
        raise directory_error(path, expected) from None
    except PermissionError as exc:
        raise SpecError(
            "E0702",
            f"IO error, {path}: {exc.strerror}",
            hint="the user running bundletui needs read permission on the file and search "
            "permission on its directories (ls -l, chmod)",
            file=str(path),
        ) from None
    except OSError as exc:
        raise SpecError("E0702", f"IO error, {path}: {exc.strerror}", file=str(path)) from None


def directory_error(path: str | Path, expected: Iterable[str] = APP_FILES) -> SpecError:
    """E0702 for a directory given where a file is read; the hint names the ``expected`` files
    the directory holds (or says it holds none of them)."""
    names = list(expected)
    found = [str(Path(path) / n) for n in names if (Path(path) / n).is_file()]
    if found:
        hint = f"name the file itself: {' or '.join(found)}"
    else:
        hint = f"name the file itself ({', '.join(names)}); {path} holds none of them"
    return SpecError("E0702", f"IO error, {path} is a directory", hint=hint, file=str(path))


def reread(file: str) -> Element | None:
    """``file`` parsed again, to find an element's line for an error (models keep no lines),
    or None when it cannot be read now."""
    try:
        return parse_xml(read_bytes(file), file)
    except SpecError:
        return None


def parse_xml(
    data: bytes, file: str, *, syntax_hint: Callable[[bytes, str], str] | None = None
) -> Element:
    """Parse ``data`` safely; return the root element. No schema check here.
    ``syntax_hint(data, file)``: the hint of a syntax error, when ``data`` is not an
    application's XML (a Hadoop configuration's says how one is written)."""
    declared = _declares_entities(data)
    if declared is not None:
        raise _entity_error(file, ", ".join(declared[1][:5]), declared[0])
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        line, col = exc.position if exc.position else (exc.lineno, 0)
        reason = exc.msg or str(exc)
        reason = re.sub(r",? ?\(<string>, line \d+\)$", "", reason)
        reason = re.sub(r", line \d+, column \d+$", "", reason)
        hint = "fix the XML syntax at that place (unclosed or mismatched tag, stray '&' or '<')"
        if syntax_hint is not None:
            hint = syntax_hint(data, file)
        elif not data.strip(b"\xef\xbb\xbf \t\r\n"):
            hint = "the file is empty: write the application's XML into it"
        elif "encoding" in reason:  # a Latin-1 byte in a file read as UTF-8
            hint = (
                "the file is not in the encoding it declares (UTF-8 when it declares none):"
                " convert it (iconv -f latin1 -t utf-8) or declare its encoding"
                ' (<?xml version="1.0" encoding="ISO-8859-1"?>)'
            )
        elif file.endswith(".properties") or not data.lstrip().startswith(b"<"):
            hint = "this is not XML: a job.properties goes with --config (or as submit's argument)"
        raise _xml_error(
            file, f"malformed XML: {reason} (line {line}, column {col})", line or None, hint=hint
        ) from None
    if root is None:  # pragma: no cover - lxml raises for empty input
        raise _xml_error(file, "empty document", None)
    _refuse_entities(root, file, data)
    _fix_start_lines(root, data)
    return root


def _fix_start_lines(root: Element, data: bytes) -> None:
    """libxml2 reports the line where a start tag *ends*; errors should point at the line
    where it begins (``<coordinator-app`` with attributes on the next lines)."""
    encoding = root.getroottree().docinfo.encoding or "utf-8"
    try:
        lines = data.decode(encoding, errors="replace").split("\n")
    except LookupError:  # pragma: no cover - an encoding lxml knows but Python does not
        return
    for el in root.iter():
        if not isinstance(el.tag, str) or el.sourceline is None:
            continue
        line = el.sourceline
        token = "<" + (f"{el.prefix}:" if el.prefix else "") + local_name(el)
        if line > len(lines) or _has_tag(lines[line - 1], token):
            continue
        for earlier in range(line - 1, max(0, line - 200), -1):
            if _has_tag(lines[earlier - 1], token):
                el.sourceline = earlier
                break


def _has_tag(text: str, token: str) -> bool:
    start = text.find(token)
    while start != -1:
        after = text[start + len(token) : start + len(token) + 1]
        if after in ("", " ", "\t", "\r", ">", "/"):
            return True
        start = text.find(token, start + 1)
    return False


def _refuse_entities(root: Element, file: str, data: bytes) -> None:
    tree = root.getroottree()
    info = tree.docinfo
    dtd = info.internalDTD
    declared = [e.name for e in dtd.iterentities()] if dtd is not None else []
    used = next(root.iter(etree.Entity), None) if info.doctype else None
    if declared:
        at = data.find(b"<!ENTITY")
        line = data.count(b"\n", 0, at) + 1 if at >= 0 else None
        raise _entity_error(file, ", ".join(declared[:5]), line)
    if used is not None:  # declared by an external DTD: point at the reference
        raise _xml_error(
            file,
            f"&{used.name}; refers to an entity of an external DTD; entities are not allowed",
            used.sourceline,
            hint="remove the <!DOCTYPE …> block and write the value itself",
        )


_ENTITY_DECLARATION = re.compile(r"<!ENTITY\s+(?:%\s*)?([^\s>\"']+)")


def _declares_entities(data: bytes) -> tuple[int, list[str]] | None:
    """A cheap look before parsing, so that an entity bomb never reaches the parser (libxml2
    expands entities in attribute values even with resolve_entities off): the line of the
    first ``<!ENTITY`` and the names declared, or None when no DOCTYPE declares entities."""
    for enc, codec in (("ascii", "utf-8"), ("utf-16-le", "utf-16-le"), ("utf-16-be", "utf-16-be")):
        if "<!DOCTYPE".encode(enc) in data and "<!ENTITY".encode(enc) in data:
            start = data.find("<!ENTITY".encode(enc))
            before = data[: start - start % 2] if codec != "utf-8" else data[:start]
            line = before.decode(codec, errors="replace").count("\n") + 1
            text = data.decode(codec, errors="replace")
            return line, list(dict.fromkeys(_ENTITY_DECLARATION.findall(text)))
    return None


def _entity_error(file: str, names: str, line: int | None) -> SpecError:
    listed = f" ({names})" if names else ""
    return _xml_error(
        file,
        f"DOCTYPE declares entities{listed}; entity declarations are not allowed",
        line,
        hint="remove the <!DOCTYPE …> block; application files need no DTD or entities",
    )


# --------------------------------------------------------------------------- validation


def _schema(spec: SchemaSpec) -> xmlschema.XMLSchema10:
    schema = _SCHEMAS.get(spec.namespace)
    if schema is None:
        with _SCHEMA_LOCK:
            schema = _SCHEMAS.get(spec.namespace)
            if schema is None:
                schema = _cached_schema(spec)
                _SCHEMAS[spec.namespace] = schema
    return schema


def warm(kinds: Iterable[AppKind] = (AppKind.WORKFLOW,)) -> None:
    """Import xmlschema and load the validators of ``kinds`` now, while nothing waits (the
    engine calls this when idle: the first launch of a coordinator herd must not pay it)."""
    wanted = tuple(kinds)
    for spec in list(_REGISTRY.values()):
        if spec.kind in wanted:
            _schema(spec)


def _build_schema(spec: SchemaSpec) -> xmlschema.XMLSchema10:
    import xmlschema  # ~0.3 s to import: only when a file is actually validated

    # sandbox: imports only from the XSD's own directory; defuse: no entities.
    return xmlschema.XMLSchema10(str(spec.xsd_path), allow="sandbox", defuse="always", timeout=1)


def _cached_schema(spec: SchemaSpec) -> xmlschema.XMLSchema10:
    """Building a validator costs ~0.35 s, loading a pickled one ~0.03 s: every CLI call pays
    the former unless the built validator is kept in the user's cache directory. The cache is
    only trusted when it is the user's own (0700 directory, file owned by them, not writable by
    others), and its name holds a digest of every XSD plus the xmlschema and Python versions."""
    import xmlschema

    directory = _cache_dir()
    if directory is None:
        return _build_schema(spec)
    digest = hashlib.sha256()
    digest.update(f"{xmlschema.__version__}|{sys.version}|{spec.namespace}".encode())
    for xsd in sorted(spec.xsd_path.parent.glob("*.xsd")):
        digest.update(xsd.name.encode() + xsd.read_bytes())
    path = directory / f"schema-{digest.hexdigest()[:32]}.pickle"
    try:
        st = path.stat()
        if st.st_uid == os.getuid() and not st.st_mode & 0o022:
            with path.open("rb") as f:
                loaded = pickle.load(f)
            if isinstance(loaded, xmlschema.XMLSchema10):
                return loaded
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError):
        pass
    schema = _build_schema(spec)
    try:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            pickle.dump(schema, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except (OSError, pickle.PickleError, TypeError, AttributeError):
        pass
    return schema


def _cache_dir() -> Path | None:
    if os.environ.get("BUNDLETUI_NO_SCHEMA_CACHE"):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bundletui"
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = base.stat()
        if st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
    except OSError:
        return None
    return base


# the job property that names an application of each kind (Oozie's)
_PATH_KEYS = {
    AppKind.BUNDLE: "oozie.bundle.application.path",
    AppKind.COORDINATOR: "oozie.coord.application.path",
    AppKind.WORKFLOW: "oozie.wf.application.path",
}


def local_name(el: Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def namespace_of(el: Element) -> str:
    tag = el.tag
    return tag[1:].split("}", 1)[0] if isinstance(tag, str) and tag.startswith("{") else ""


def validate(root: Element, file: str, kinds: Iterable[AppKind] | None = None) -> SchemaSpec:
    """Check ``root`` against the XSD its namespace names; return that namespace's spec."""
    ns = namespace_of(root)
    name = local_name(root)
    wanted = tuple(kinds) if kinds is not None else tuple(AppKind)
    spec = _REGISTRY.get(ns)
    if spec is None or spec.kind not in wanted:
        supported = [n for k in wanted for n in supported_namespaces(k)]
        found = f"namespace '{ns}'" if ns else "no namespace"
        hint = f'declare one of them on the root element, e.g. xmlns="{supported[-1]}"'
        if spec is not None:  # a whole application of another kind: named by the wrong key
            hint = (
                f"this file is a {spec.kind} application, not a {' or '.join(wanted)}: a job"
                f" names a {spec.kind} with {_PATH_KEYS[spec.kind]}"
            )
        raise _xml_error(
            file,
            f"root element <{name}> has {found}; supported namespaces: {', '.join(supported)}",
            root.sourceline,
            hint=hint,
        )
    if name not in spec.roots:
        raise _xml_error(
            file,
            f"root element <{name}> is not allowed in {ns}; expected <{'> or <'.join(spec.roots)}>",
            root.sourceline,
            hint=f"a {spec.kind} file starts with <{spec.roots[0]}>",
        )
    # The tree is already parsed: the resource must never load anything (no location hints).
    import xmlschema

    resource = xmlschema.XMLResource(root, allow="none", defuse="always")
    errors = _schema(spec).iter_errors(resource, use_location_hints=False)
    error = next(iter(errors), None)
    if error is not None:
        raise _schema_error(error, spec, file, root)
    return spec


def _schema_error(error: Any, spec: SchemaSpec, file: str, root: Element) -> SpecError:
    child = getattr(error, "invalid_child", None)
    line = getattr(child, "sourceline", None) or getattr(error, "sourceline", None)
    if line is None:
        elem = getattr(error, "elem", None)
        line = getattr(elem, "sourceline", None) or root.sourceline
    reason = str(getattr(error, "reason", None) or getattr(error, "message", "invalid"))
    reason = reason.replace("{" + spec.namespace + "}", "")
    reason = re.sub(r"'[a-z]:([\w.-]+)'", r"'\1'", reason)  # our XSDs' one-letter prefixes
    path = getattr(error, "path", None)
    if path:
        reason = f"{reason.rstrip('.')} (at {_plain_path(path, spec.namespace)})"
    return _xml_error(
        file,
        reason,
        line,
        hint=f"compare the element with the {spec.namespace} schema "
        f"(bundletui/spec/xsd/{spec.xsd_path.name})",
    )


def _plain_path(path: str, ns: str) -> str:
    return path.replace("{" + ns + "}", "")


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True, slots=True)
class XmlDocument:
    """A parsed and validated application file."""

    root: Element
    file: str
    schema: SchemaSpec

    @property
    def namespace(self) -> str:
        return self.schema.namespace

    @property
    def kind(self) -> AppKind:
        return self.schema.kind

    @property
    def version(self) -> str:
        return self.schema.version


def load_document(
    path: str | Path,
    *,
    data: bytes | None = None,
    kinds: Iterable[AppKind] | None = None,
) -> XmlDocument:
    """Read, parse and validate one application file (``data`` overrides reading ``path``)."""
    file = str(path)
    raw = read_bytes(path) if data is None else data
    root = parse_xml(raw, file)
    spec = validate(root, file, kinds)
    return XmlDocument(root, file, spec)


# --------------------------------------------------------------------------- helpers for decoders


def children(el: Element, name: str | None = None) -> Iterator[Element]:
    """Element children (optionally only those with local name ``name``), any namespace."""
    for c in el:
        if isinstance(c.tag, str) and (name is None or local_name(c) == name):
            yield c


def child(el: Element, name: str) -> Element | None:
    return next(children(el, name), None)


def property_value(prop: Element) -> str | None:
    """A configuration ``<property>``'s ``<value>`` as written, or None when it sets nothing:
    Hadoop's ``Configuration`` and Oozie's ``XConfiguration`` set a property only when its
    ``<value>`` has content, so ``<value></value>``, ``<value/>`` and no ``<value>`` leave the
    name undefined (a required parameter is then asked for, not taken as "")."""
    el = child(prop, "value")
    if el is None or (not el.text and len(el) == 0):
        return None
    return text(el, strip=False)


def text(el: Element | None, *, strip: bool = True) -> str:
    """All text inside ``el`` ("" when absent), trimmed like Oozie's getTextTrim."""
    if el is None:
        return ""
    value = "".join(el.itertext())
    return value.strip() if strip else value
