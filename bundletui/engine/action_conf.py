"""An action's Hadoop configuration, built when the action starts, as Oozie builds it.

Oozie reads an action's ``<job-xml>`` files at action start, from the application directory,
not at submit: a file edited before the action runs is the one it gets, and a file that is
missing or not a configuration fails the action (JA008 / JA009, Oozie's codes for the
FileNotFoundException / IOException its JavaActionExecutor meets there). The layers, later
winning: ``<global>``'s job-xml files in order, ``<global>``'s ``<configuration>``, the action's
job-xml files in order, its own ``<configuration>``. Only ``<configuration>`` values are EL;
a job-xml's values are a Hadoop file's, taken as written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bundletui.errors import EngineError, SpecError
from bundletui.model.apps import Conf
from bundletui.model.paths import PathProblem
from bundletui.spec.config import (
    JOB_XML_MISSING,
    JOB_XML_UNREADABLE,
    job_xml_path,
    not_a_file,
    read_hadoop_xml_file,
)

Layer = tuple[Conf, bool]  # (properties, whether their values are EL to render)

# A job-xml the action could not read is a failed attempt, retried under ``retry-max`` as
# Oozie's user retry takes JA008/JA009: the file may be there at the next attempt. An EL
# error in the definition is final, as no attempt would change it.
RETRIED_AT_START = frozenset({JOB_XML_MISSING, JOB_XML_UNREADABLE})


def read_job_xmls(paths: Iterable[str], app_dir: str) -> Conf:
    """The properties of the ``<job-xml>`` files ``paths`` (EL already rendered), in order:
    a later file's value wins."""
    props: dict[str, str] = {}
    for raw in paths:
        props.update(read_job_xml(raw, app_dir))
    return tuple(props.items())


def read_job_xml(raw: str, app_dir: str) -> dict[str, str]:
    """One ``<job-xml>``: its file is parsed by the project's safe XML parser (no entities, no
    DTD, no network). Any problem is the action's error, naming the path as written and where
    it led."""
    located = job_xml_path(raw, app_dir)
    if isinstance(located, PathProblem):
        raise EngineError(located.code, f"{located.message}, in <job-xml>")
    if not located.is_file():
        code, state = not_a_file(located)
        raise EngineError(code, f"job-xml [{raw}]: {located} {state}")
    try:
        return read_hadoop_xml_file(located)
    except SpecError as exc:
        raise EngineError(JOB_XML_UNREADABLE, f"job-xml [{raw}]: {exc.message}") from None


def layered(layers: Iterable[Layer], render: Callable[[str], str]) -> Conf:
    """``layers`` laid over each other in order (as :func:`bundletui.model.apps.overlay`, pair
    by pair); an EL value is rendered only if it survives: one a later layer overrides may not
    work in this action."""
    merged: dict[str, tuple[str, bool]] = {}
    for conf, templated in layers:
        top = dict(conf)
        for name in top:
            merged.pop(name, None)
        merged.update((name, (value, templated)) for name, value in top.items())
    return tuple(
        (name, render(value) if templated else value) for name, (value, templated) in merged.items()
    )
