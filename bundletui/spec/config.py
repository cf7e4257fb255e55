"""Job configuration: Java ``.properties`` and Hadoop XML files, ``-D`` overrides, the app path.

A submission names its application through exactly one of the app-path properties; the path
is a file or a directory holding ``bundle.xml`` / ``coordinator.xml`` / ``workflow.xml``, given
as a plain path (relative to the configuration file) or a ``file://`` URI. Values are kept as
written: Hadoop-style ``${var}`` expansion (:func:`expand_variables`) and EL are the caller's
choice, except for the app-path value itself, which is expanded so that
``${appBase}/coordinator.xml`` works as it does with Oozie.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from urllib.parse import unquote, urlsplit
from xml.sax.saxutils import escape as _xml_escape

from bundletui._host import os_user
from bundletui.errors import TEMPLATES, SpecError
from bundletui.model.localized import (
    CacheEntry,
    archive_format,
    archive_suffixes,
    link_problem,
    parse_entry,
)
from bundletui.model.paths import PathProblem, parse_local_path
from bundletui.spec import xmlsafe
from bundletui.spec.xmlsafe import AppKind, XmlDocument

# The property that names the application, and the kind it implies. The second bundle
# spelling is the one the bundle design document (seed 000) uses.
APP_PATH_PROPERTIES: dict[str, AppKind] = {
    "oozie.bundle.application.path": AppKind.BUNDLE,
    "oozie.application.bundle.path": AppKind.BUNDLE,
    "oozie.coord.application.path": AppKind.COORDINATOR,
    "oozie.wf.application.path": AppKind.WORKFLOW,
}

DEFAULT_FILE: dict[AppKind, str] = {
    AppKind.BUNDLE: "bundle.xml",
    AppKind.COORDINATOR: "coordinator.xml",
    AppKind.WORKFLOW: "workflow.xml",
}

# Oozie's "could not read the definition" and "invalid application URI" codes per kind.
_READ_CODE = {AppKind.WORKFLOW: "E0710", AppKind.COORDINATOR: "E1001", AppKind.BUNDLE: "E1301"}
_URI_CODE = {AppKind.WORKFLOW: "E0711", AppKind.COORDINATOR: "E1002", AppKind.BUNDLE: "E1302"}
_READ_TEXT = {
    "E0710": "Could not read the workflow definition, {0}",
    "E1001": "Could not read the coordinator job definition, {0}",
    "E1301": "Could not read the bundle job definition, [{0}]",
}
_URI_TEXT = {
    "E0711": "Invalid application URI [{0}], {1}",
    "E1002": "Invalid coordinator application URI [{0}], {1}",
    "E1302": "Invalid bundle application URI [{0}], {1}",
}

# Our own code for a syntax error in a .properties file (Java throws IllegalArgumentException).
PROPERTIES_SYNTAX = "EB0201"


# --------------------------------------------------------------------------- .properties

_WS = " \t\f"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def parse_properties(text: str, file: str = "") -> dict[str, str]:
    """Java ``Properties.load`` rules; later duplicates win, first position is kept."""
    return _parse_properties(text, file)[0]


def _parse_properties(text: str, file: str) -> tuple[dict[str, str], dict[str, int]]:
    """The properties and the line each is (last) defined on."""
    props: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    lines = _LINE_BREAK.split(text)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    i = 0
    while i < len(lines):
        lineno = i + 1
        logical = lines[i].lstrip(_WS)
        i += 1
        if not logical or logical[0] in "#!":
            continue  # comment lines never continue
        while _continues(logical):
            logical = logical[:-1]
            if i >= len(lines):
                break
            logical += lines[i].lstrip(_WS)
            i += 1
        key, value = _split_key_value(logical)
        name = _unescape(key, file, lineno)
        props[name] = _unescape(value, file, lineno)
        lines_of[name] = lineno
    return props, lines_of


def _continues(line: str) -> bool:
    n = len(line) - len(line.rstrip("\\"))
    return n % 2 == 1


def _split_key_value(line: str) -> tuple[str, str]:
    key_end = len(line)
    value_start = len(line)
    has_sep = False
    backslash = False
    for idx, c in enumerate(line):
        if not backslash and c in "=:":
            key_end, value_start, has_sep = idx, idx + 1, True
            break
        if not backslash and c in _WS:
            key_end, value_start = idx, idx + 1
            break
        backslash = (not backslash) if c == "\\" else False
    while value_start < len(line):
        c = line[value_start]
        if c not in _WS:
            if not has_sep and c in "=:":
                has_sep = True
            else:
                break
        value_start += 1
    return line[:key_end], line[value_start:]


def _unescape(s: str, file: str, line: int) -> str:
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        i += 1
        if c != "\\":
            out.append(c)
            continue
        if i >= len(s):
            break  # a lone trailing backslash is dropped, as Java does
        c = s[i]
        i += 1
        if c == "u":
            digits = s[i : i + 4]
            if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise SpecError(
                    PROPERTIES_SYNTAX,
                    f"Malformed \\uxxxx encoding in {file or 'properties'} line {line}",
                    hint="write \\u followed by exactly four hex digits, or \\\\u for a literal",
                    file=file or None,
                    line=line,
                )
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_ESCAPES.get(c, c))
    text = "".join(out)
    if any("\ud800" <= ch <= "\udfff" for ch in text):  # \uD83D\uDE00 pairs -> one character
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


# --------------------------------------------------------------------------- Hadoop XML


# an application file given where its job configuration goes: the property that names it
_APP_PROPERTY = {
    "workflow-app": "oozie.wf.application.path",
    "dag-app": "oozie.wf.application.path",
    "coordinator-app": "oozie.coord.application.path",
    "bundle-app": "oozie.bundle.application.path",
}


def configuration_xml(conf: Mapping[str, object], newline: str = "\n") -> str:
    """``conf`` as Hadoop's ``<configuration>`` text, the shape Oozie prints (a property's name
    and value each on a line of their own): one writer for the API's job configuration (with
    Java's ``\r\n``), EL's ``toConfigurationStr`` and the action configuration file."""
    lines = ["<configuration>"]
    for key, value in conf.items():
        lines.append("  <property>")
        lines.append(f"    <name>{_xml_escape(str(key))}</name>")
        lines.append(f"    <value>{_xml_escape(str(value))}</value>")
        lines.append("  </property>")
    lines.append("</configuration>")
    return newline.join(lines)


_HADOOP_SHAPE = (
    "<configuration><property><name>…</name><value>…</value></property>…</configuration>"
)


def _configuration_syntax_hint(data: bytes, file: str, *, properties_too: bool) -> str:
    """How to fix a Hadoop configuration that does not parse as XML (not the hint of an
    application's XML: a configuration named .xml is no job.properties given in error)."""
    also = (
        ", or key=value lines into a job.properties (a file whose name ends in .properties)"
        if properties_too
        else ""
    )
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head:
        return f"the file is empty: write a Hadoop configuration into it, {_HADOOP_SHAPE}{also}"
    if not head.startswith(b"<"):
        named = ", its name ending in .xml," if file.endswith(".xml") else ""
        return (
            f"{file} is read as a Hadoop configuration{named} and it is not XML: write"
            f" {_HADOOP_SHAPE} into it{also}"
        )
    return (
        "fix the XML syntax at that place (unclosed or mismatched tag, stray '&' or '<');"
        f" a Hadoop configuration is {_HADOOP_SHAPE}"
    )


def parse_hadoop_xml(
    data: bytes, file: str = "", *, keep_empty: bool = False, properties_too: bool = False
) -> dict[str, str]:
    """``<configuration><property><name/><value/></property>…</configuration>``. A property
    with no content in its ``<value>`` sets nothing, as in Hadoop, unless ``keep_empty`` (our
    own serialization of a stored configuration, where ``-D name=`` was an empty value).
    ``properties_too``: a job.properties would do as well (said in a syntax error's hint)."""

    def syntax_hint(data: bytes, file: str) -> str:
        return _configuration_syntax_hint(data, file, properties_too=properties_too)

    root = xmlsafe.parse_xml(data, file, syntax_hint=syntax_hint)
    name = xmlsafe.local_name(root)
    if name != "configuration":
        app = _APP_PROPERTY.get(name)
        raise SpecError(
            "E0701",
            f"XML schema error, {file}, root element <{name}> is not <configuration>",
            hint=(
                f"this is an application, not a job configuration: submit a job.properties"
                f" (or a Hadoop XML configuration) with {app}={file}"
                if app is not None
                else f"a Hadoop configuration file is {_HADOOP_SHAPE}"
            ),
            file=file,
            line=root.sourceline,
        )
    props: dict[str, str] = {}
    for prop in xmlsafe.children(root, "property"):
        name_el = xmlsafe.child(prop, "name")
        name = xmlsafe.text(name_el)
        if not name:
            raise SpecError(
                "E0701",
                f"XML schema error, {file}, <property> without a <name>",
                hint="give every <property> a non-empty <name>",
                file=file,
                line=prop.sourceline,
            )
        value = xmlsafe.property_value(prop)
        if value is not None or keep_empty:
            props[name] = value or ""
    return props


def read_hadoop_xml_file(path: str | Path) -> dict[str, str]:
    """A Hadoop configuration XML file and nothing else (a workflow's ``<job-xml>``): unlike
    :func:`read_conf_file`, text that is not XML is an error, not a ``.properties`` file."""
    return parse_hadoop_xml(xmlsafe.read_bytes(path, expected=()), str(path))


# Oozie's codes for a <job-xml> it cannot use when the action starts (JavaActionExecutor):
# FileNotFoundException (no file there) and IOException (unreadable, or not a configuration).
JOB_XML_MISSING = "JA008"
JOB_XML_UNREADABLE = "JA009"


def not_a_file(located: Path) -> tuple[str, str]:
    """Why a path that should name a configuration file does not: (code, what it is).
    JA008 when nothing (or a directory) is there; JA009 when something is that cannot be read
    as one (a FIFO, a device: QA, which was told it "does not exist")."""
    if located.is_dir():
        return JOB_XML_MISSING, "is a directory"
    if located.exists():
        return JOB_XML_UNREADABLE, "is not a regular file (a FIFO, a device), which is not read"
    return JOB_XML_MISSING, "does not exist"


def job_xml_path(raw: str, app_dir: str | Path) -> Path | PathProblem:
    """The file a ``<job-xml>`` (or a ``<file>``, an ``<archive>``) names: as in Oozie, a
    relative path is under the workflow's application directory; an absolute one is a plain
    path or a local ``file:`` URI. Another
    file system (``hdfs://…``) is a :class:`PathProblem` (FS002), as for fs paths."""
    text = raw.strip()
    if _SCHEME.match(text):
        local = parse_local_path(text)
        if isinstance(local, PathProblem):
            return local
        return Path(local)
    return Path(os.path.normpath(Path(app_dir) / text))


def locate_cache_entry(
    raw: str, kind: str, app_dir: str | Path
) -> tuple[CacheEntry, Path] | PathProblem:
    """A shell action's ``<file>`` or ``<archive>`` (``kind``) entry: its link name and the
    path it names (resolved as a ``<job-xml>`` path is), or what is wrong with it. Submit
    checks a literal entry with this, and the engine every entry when the action starts."""
    entry = parse_entry(raw)
    problem = link_problem(entry.link)
    if problem:
        return PathProblem(
            "EB0720",
            f"<{kind}> [{raw}]: {problem}",
            f"write path#name, where name is what the job sees in its working directory,"
            f" e.g. <{kind}>lib/tool.sh#tool.sh</{kind}>",
        )
    if kind == "archive" and archive_format(entry.path) is None:
        return PathProblem(
            "EB0720",
            f"<archive> [{raw}] is not an archive bundletui unpacks",
            f"an archive ends in one of {archive_suffixes()}; a plain file is a <file>",
        )
    located = job_xml_path(entry.path, app_dir)
    if isinstance(located, PathProblem):
        return PathProblem(
            located.code,
            f"{located.message}, in <{kind}>",
            f"a <{kind}> is on the local file system: a path relative to the workflow's "
            "directory, or an absolute one",
        )
    if not located.exists():
        return PathProblem(
            JOB_XML_MISSING,
            f"<{kind}> [{raw}]: {located} does not exist",
            f"a relative path is under the workflow's directory ({app_dir})",
        )
    return entry, located


def _utf16_without_bom(data: bytes) -> bool:
    """ASCII text saved as UTF-16 with no byte-order mark: a NUL in every other byte."""
    head = data[:64]
    return len(head) >= 4 and (
        head[1::2].count(0) == len(head[1::2]) or head[0::2].count(0) == len(head[0::2])
    )


def read_conf_file(path: str | Path, *, keep_empty: bool = False) -> dict[str, str]:
    """A ``.properties`` or Hadoop XML configuration file (XML when it starts with ``<``).
    ``keep_empty``: an empty ``<value>`` is an empty value (a rerun's configuration, where
    ``oozie.wf.rerun.skip.nodes`` empty means every node), not an unset one."""
    file = str(path)
    data = xmlsafe.read_bytes(path, expected=_config_files(path))
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<") or file.endswith(".xml"):
        # a .xml that is not XML says so, at its line
        return parse_hadoop_xml(data, file, keep_empty=keep_empty, properties_too=True)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or _utf16_without_bom(data):
        raise SpecError(
            PROPERTIES_SYNTAX,
            "not a properties file as Java reads one: it is UTF-16 text (an editor's"
            ' "Unicode"), whose every other byte is NUL',
            hint=f"convert it to UTF-8: iconv -f UTF-16 -t UTF-8 {file} > {file}.utf8"
            f" && mv {file}.utf8 {file}",
            file=file,
        )
    if b"\x00" in data:  # a binary file (an archive, a jar) read as properties is nonsense
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise SpecError(
            PROPERTIES_SYNTAX,
            "not a properties file: it holds a NUL byte (a binary file?)",
            hint="give --config a job.properties (key=value lines) or a Hadoop XML"
            " <configuration> file",
            file=file,
            line=line,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # Java's own default for Properties.load(InputStream)
    return parse_properties(text, file)


def _config_files(path: str | Path) -> list[str]:
    """What a directory given as the job configuration may hold instead: job.properties, and
    its other .properties files (for the hint of the error; empty unless it is a directory)."""
    folder = Path(path)
    if not folder.is_dir():
        return []
    try:
        others = sorted(p.name for p in folder.glob("*.properties") if p.name != "job.properties")
    except OSError:
        others = []
    return ["job.properties", *others[:3]]


def parse_overrides(items: Iterable[str]) -> dict[str, str]:
    """``-D name=value`` arguments (split at the first ``=``)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise SpecError(
                "E0302",
                TEMPLATES["E0302"].format(item),
                hint="write -D name=value (the value may be empty: -D name=)",
            )
        out[name] = value
    return out


# --------------------------------------------------------------------------- variables

_VAR = re.compile(r"\$\{[^}$ ]+\}")
_MAX_SUBST = 20


def expand_variables(value: str, conf: Mapping[str, str]) -> str:
    """Hadoop ``Configuration`` substitution: ``${name}`` from ``conf``, up to 20 rounds,
    stopping at the first name that is not defined (EL such as ``${coord:…}`` stays)."""
    result = value
    for _ in range(_MAX_SUBST):
        m = _VAR.search(result)
        if m is None:
            return result
        found = conf.get(m.group()[2:-1])
        if found is None:
            return result
        result = result[: m.start()] + found + result[m.end() :]
    raise SpecError(
        "E0302",
        f"Variable substitution depth too large: {_MAX_SUBST} {_clipped(value)}",
        hint="a property refers to itself, directly or through others",
    )


def _clipped(value: str, keep: int = 200) -> str:
    """A value as an error quotes it: its start, and how long it is (QA: a 10 MB value was
    printed whole)."""
    return value if len(value) <= keep else f"{value[:keep]}… ({len(value):,} characters)"


def expand_conf(conf: Mapping[str, str], *, source: str = "") -> dict[str, str]:
    """Every value through :func:`expand_variables` (what Oozie's server sees). ``source``, the
    configuration file the values were read from, is named in an error with the line of the
    property (a property that refers to itself, directly or through others)."""
    return {key: expand_property(key, conf, source=source) for key in conf}


def expand_property(key: str, conf: Mapping[str, str], *, source: str = "") -> str:
    """``conf[key]`` through :func:`expand_variables`; an error names the property, the
    properties it goes round through, and its file and line when ``source`` defines it."""
    try:
        return expand_variables(conf[key], conf)
    except SpecError as exc:
        cycle = _reference_cycle(key, conf)
        names = list(dict.fromkeys(cycle))
        if len(names) == 1:
            detail = f"property [{names[0]}] refers to itself: ${{{names[0]}}}"
            hint = f"give {names[0]} a value that does not refer to ${{{names[0]}}}"
        elif names:
            chain = " -> ".join("${" + n + "}" for n in cycle)
            detail = f"properties {', '.join(names)} refer to each other: {chain}"
            hint = f"give one of {', '.join(names)} a value that does not refer back to it"
        else:
            names = [key]
            detail = f"property [{key}] refers to more than {_MAX_SUBST} properties in a row"
            hint = f"Hadoop expands at most {_MAX_SUBST} ${{…}} references in one value"
        file: str | None = None
        line: int | None = None
        for name in names:  # the first of them the file defines (not a -D override)
            file, line = _defined_at(source, name, conf[name])
            if file:
                break
        given = " (given with -D)" if source and not file else ""
        raise SpecError(
            exc.code, f"{exc.message} ({detail}){given}", hint=hint, file=file, line=line
        ) from None


def _reference_cycle(key: str, conf: Mapping[str, str]) -> list[str]:
    """``[key, b, …, key]`` when expanding ``key`` comes back to a property it went through
    (each step: the first defined ``${name}`` of the value, as :func:`expand_variables`
    expands them), else ``[]``."""
    path = [key]
    seen = {key}
    current = key
    while True:
        nxt = next(
            (m.group()[2:-1] for m in _VAR.finditer(conf[current]) if m.group()[2:-1] in conf),
            None,
        )
        if nxt is None or len(path) > _MAX_SUBST:
            return []
        path.append(nxt)
        if nxt in seen:
            return path[path.index(nxt) :]
        seen.add(nxt)
        current = nxt


def _defined_at(source: str, key: str, value: str) -> tuple[str | None, int | None]:
    """(file, line) where ``source`` defines ``key`` with ``value`` (a -D override is not in
    the file: (None, None))."""
    if not source:
        return None, None
    try:
        data = xmlsafe.read_bytes(source)
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
            root = xmlsafe.parse_xml(data, source)
            for prop in xmlsafe.children(root, "property"):
                name_el = xmlsafe.child(prop, "name")
                found = xmlsafe.property_value(prop)
                if xmlsafe.text(name_el) == key and found is not None:
                    line = prop.sourceline if name_el is None else name_el.sourceline
                    return (source, line) if found == value else (None, None)
            return None, None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        props, lines = _parse_properties(text, source)
    except SpecError:
        return source, None
    if props.get(key) != value:
        return None, None
    return source, lines.get(key)


# --------------------------------------------------------------------------- app path

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")


def resolve_app_path(
    value: str,
    kind: AppKind,
    base_dir: str | Path | None = None,
    *,
    source: str = "",
) -> Path:
    """The application XML file ``value`` names: a file, or a directory holding the kind's
    default file; ``file://`` URIs and plain paths; relative paths against ``base_dir``."""
    raw = value.strip()
    uri_code = _URI_CODE[kind]
    if not raw:
        raise SpecError(
            uri_code,
            _URI_TEXT[uri_code].format(raw, "the path is empty"),
            hint="name the application file or its directory",
            file=source or None,
        )
    m = _SCHEME.match(raw)
    if m and m.group(1).lower() == "file":
        parts = urlsplit(raw)
        if parts.netloc not in ("", "localhost"):
            raise SpecError(
                uri_code,
                _URI_TEXT[uri_code].format(raw, f"host '{parts.netloc}' is not this machine"),
                hint="use file:///absolute/path (three slashes) or a plain path",
                file=source or None,
            )
        path = Path(unquote(parts.path))
    elif m and len(m.group(1)) > 1:
        raise SpecError(
            uri_code,
            _URI_TEXT[uri_code].format(raw, f"scheme '{m.group(1)}' is not supported"),
            hint="bundletui runs on the local file system: use a plain path or file:///…",
            file=source or None,
        )
    else:
        path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path(base_dir if base_dir is not None else os.getcwd()) / path
    path = Path(os.path.normpath(path))
    read_code = _READ_CODE[kind]

    def refuse(what: str, hint: str) -> SpecError:
        return SpecError(
            read_code, _READ_TEXT[read_code].format(what), hint=hint, file=source or None
        )

    found, why = _file_kind(path)
    if found == "dir":
        candidate = path / DEFAULT_FILE[kind]
        found, why = _file_kind(candidate)
        if found == "file":
            return candidate
        if why is not None:
            raise refuse(f"{candidate}: {why}", _UNREADABLE_HINT)
        if found == "dir":
            raise refuse(
                f"{candidate} is a directory, not a file",
                f"the application's {DEFAULT_FILE[kind]} must be a file: name the file itself",
            )
        raise refuse(
            f"{path} holds no {DEFAULT_FILE[kind]}",
            f"put a {DEFAULT_FILE[kind]} in that directory or name the file itself",
        )
    if found == "file":
        return path
    if why is not None:  # a permission, a loop of links: not "does not exist"
        raise refuse(f"{path}: {why}", _UNREADABLE_HINT)
    if found == "other":  # a pipe or a device: it exists, and is not a file to read
        raise refuse(
            f"{path} is not a regular file", "name the XML file itself (not a device or a pipe)"
        )
    raise refuse(
        f"{path} does not exist",
        "check the application path (relative paths start at the config file's directory)",
    )


_UNREADABLE_HINT = (
    "check the permissions of the path and of each directory above it, and that no symbolic"
    " link on it points back at itself"
)


def _file_kind(path: Path) -> tuple[str, str | None]:
    """What is at ``path`` ("file", "dir", "other", "missing"), and why it cannot be looked
    at (a permission, a loop of links: kept apart from "missing", which Path.is_file()'s
    silence would not)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing", None
    except OSError as exc:
        return "missing", exc.strerror or str(exc)
    if stat.S_ISDIR(st.st_mode):
        return "dir", None
    return ("file" if stat.S_ISREG(st.st_mode) else "other"), None


@dataclass(frozen=True, slots=True)
class JobConfig:
    """A submission's configuration: what to run and with which properties."""

    kind: AppKind
    app_path: Path  # the application XML file
    app_property: str  # the property that named it
    conf: Mapping[str, str]  # read-only; file order, -D overrides applied
    source: str = ""  # the configuration file, "" when only -D was given


def find_app_property(conf: Mapping[str, str], source: str = "") -> tuple[str, AppKind]:
    """Which app-path property is set; exactly one (the two bundle spellings count once
    when they agree)."""
    present = [k for k in APP_PATH_PROPERTIES if conf.get(k, "").strip()]
    alias, canonical = "oozie.application.bundle.path", "oozie.bundle.application.path"
    if alias in present and canonical in present and conf[alias].strip() == conf[canonical].strip():
        present.remove(alias)
    names = ", ".join(APP_PATH_PROPERTIES)
    if not present:
        raise SpecError(
            "E0405",  # Oozie's, for a submission without any app path
            TEMPLATES["E0405"],
            hint=f"set one of {names}",
            file=source or None,
        )
    if len(present) > 1:
        found = ", ".join(present)
        raise SpecError(
            "E0302",
            TEMPLATES["E0302"].format(f"more than one application path: {found}"),
            hint="keep exactly one app-path property; it decides whether a bundle, coordinator "
            "or workflow is submitted",
            file=source or None,
        )
    return present[0], APP_PATH_PROPERTIES[present[0]]


def with_user(conf: Mapping[str, str], user: str | None = None) -> dict[str, str]:
    """``conf`` with ``user.name`` set (to ``user``, else this process's user) unless it has
    a non-blank one: Oozie's client puts it into every job's configuration, so
    ``${user.name}`` in a property (``/user/${user.name}/app``) expands as it does there."""
    if conf.get("user.name", "").strip():
        return dict(conf)
    return {**conf, "user.name": user if user is not None else os_user()}


def load_job_config(
    path: str | Path | None,
    overrides: Mapping[str, str] | Iterable[str] = (),
    *,
    base_dir: str | Path | None = None,
    user: str | None = None,
    defaults: Mapping[str, str] | None = None,
) -> JobConfig:
    """Read the configuration file (if any), apply ``-D`` overrides, find the application.
    ``user``: who submits (``${user.name}`` in the app path), this process's user if None;
    ``defaults``: what a submission gives when the job does not (``${landing}``)."""
    source = str(path) if path is not None else ""
    conf = read_conf_file(path) if path is not None else {}
    extra = dict(overrides) if isinstance(overrides, Mapping) else parse_overrides(overrides)
    conf.update(extra)
    prop, kind = find_app_property(conf, source)
    if base_dir is None:
        base_dir = Path(path).resolve().parent if path is not None else Path.cwd()
    app = resolve_app_path(
        expand_property(prop, with_user({**(defaults or {}), **conf}, user), source=source),
        kind,
        base_dir,
        source=source,
    )
    return JobConfig(kind, app, prop, MappingProxyType(conf), source)


# --------------------------------------------------------------------------- <parameters>


@dataclass(frozen=True, slots=True)
class FormalParameter:
    """One ``<parameters>/<property>``: ``default`` is None when no ``<value>`` was given."""

    name: str
    default: str | None
    line: int | None = None


def read_parameters(doc: XmlDocument) -> tuple[FormalParameter, ...]:
    """The formal parameters of a workflow (>=0.4), coordinator (>=0.4) or bundle (0.2)."""
    params = xmlsafe.child(doc.root, "parameters")
    if params is None:
        return ()
    out: list[FormalParameter] = []
    for prop in xmlsafe.children(params, "property"):
        name = xmlsafe.text(xmlsafe.child(prop, "name"))
        if not name:
            raise SpecError(
                "E0739",
                "Parameter name cannot be empty",
                hint="give every <parameters>/<property> a <name>",
                file=doc.file,
                line=prop.sourceline,
            )
        value_el = xmlsafe.child(prop, "value")
        default = None if value_el is None else xmlsafe.text(value_el)
        out.append(FormalParameter(name, default, prop.sourceline))
    return tuple(out)


def apply_parameters(
    parameters: Iterable[FormalParameter],
    conf: Mapping[str, str],
    *,
    file: str = "",
) -> dict[str, str]:
    """``conf`` plus the defaults of undefined parameters; E0738 lists those with neither.
    A default may name other properties (``${base}/out``): it is expanded as the job's
    properties are, as Oozie's submit resolves the configuration after adding the defaults."""
    merged = dict(conf)
    missing: list[str] = []
    defaulted: list[str] = []
    line: int | None = None  # the first missing one's, in <parameters>
    for p in parameters:
        if p.name in merged:
            continue
        if p.default is None:
            missing.append(p.name)
            line = line or p.line
        else:
            merged[p.name] = p.default
            defaulted.append(p.name)
    if missing:
        raise SpecError(
            "E0738",
            TEMPLATES["E0738"].format(len(missing), ", ".join(missing)),
            hint="define them in the job properties or with -D name=value, or give each a "
            "<value> default in <parameters>",
            file=file or None,
            line=line if file else None,
        )
    return with_defaults(conf, {name: merged[name] for name in defaulted})


def with_defaults(conf: Mapping[str, str], defaults: Mapping[str, str]) -> dict[str, str]:
    """``conf`` with ``defaults`` (values for names it leaves undefined), each default expanded
    against the whole (``${base}/out``), as Oozie resolves the configuration after adding
    defaults. Keep the defaults unexpanded to apply them to another conf."""
    merged = {**defaults, **conf}
    return merged | {k: expand_property(k, merged) for k, v in defaults.items() if "${" in v}
