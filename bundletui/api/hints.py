"""Hints for an HTTP client: the command layer's hints, told in HTTP terms.

The commands the API runs are the CLI's, and so are the hints of their errors: they name the
CLI's options (``--filter '…'``, ``-value '…'``, ``--action 1,3-4``) and commands
(``bundletui jobs --type coordinator``). An HTTP client has neither, so :func:`api_hint`
rewrites them into the parameters and endpoints that do the same over HTTP (``filter=…``,
``?action=change&value=…``, ``type=action&scope=1,3-4``, ``GET /oozie/v2/jobs?jobtype=…``).
A hint still naming the command line after that (one only the command line can act on, such as
``--home``, or one this table does not know yet) is dropped: the error's code and message
remain, and a wrong hint is worse than none.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_JOBS = "GET /oozie/v2/jobs?jobtype="
_JOBTYPE = {"workflow": "wf", "wf": "wf", "coordinator": "coordinator", "bundle": "bundle"}
_ANY_JOBTYPE = "wf|coordinator|bundle"

Rule = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]


def _jobs_listing(m: re.Match[str]) -> str:
    return _JOBS + _JOBTYPE.get(m.group(1) or "", _ANY_JOBTYPE)


def _rule(pattern: str, repl: str | Callable[[re.Match[str]], str]) -> Rule:
    return re.compile(pattern), repl


# In order: whole phrases first, then single commands, then single options.
_RULES: tuple[Rule, ...] = (
    # --- phrases
    _rule(
        r"bundletui oozie admin -systemmode (\w+)",
        r"PUT /oozie/v2/admin/status?systemmode=\1",
    ),
    _rule(
        r"start a workflow with `bundletui submit FILE --start`",
        "start a workflow with PUT /oozie/v2/job/<id>?action=start",
    ),
    _rule(r"\s*\(with `bundletui eval`[^)]*\)", ""),
    _rule(
        r"\(bundletui info shows its id\)",
        "(GET /oozie/v2/job/<action id> shows it as externalId)",
    ),
    _rule(
        r"a coordinator \(--action/--date\)",
        "a coordinator (action=coord-rerun&type=action|date&scope=…)",
    ),
    _rule(
        r"a bundle \(--coordinator/--date\)",
        "a bundle (action=bundle-rerun&coord-scope=…|date-scope=…)",
    ),
    _rule(r"\Arerun a workflow, ", "rerun a workflow (action=rerun), "),
    _rule(r"--action/--date", "type=action|date&scope=…"),
    _rule(r"--coordinator (\S+) --date (\S+)", r"coord-scope=\1&date-scope=\2"),
    _rule(
        r"\A-D ([\w.]+=true) runs the failed nodes again; -D ([\w.]+=\S*) all but",
        r"PUT a <configuration> body (Content-Type: application/xml) with the property \1 "
        r"to run the failed nodes again, or \2 for all but",
    ),
    _rule(
        r"in the job properties or with -D name=value",
        "as <property> elements of the <configuration> body",
    ),
    _rule(  # a body has no file: its relative paths are the home's (decision 0006)
        r"relative paths start at the config file's directory",
        "a relative path over HTTP starts at the server's home directory; give an absolute one",
    ),
    # --- commands
    _rule(r"bundletui jobs(?: --type (\w+|…))?", _jobs_listing),
    _rule(r"bundletui info (<coordinator id>|\S+-C)(?![\w@-])", r"GET /oozie/v2/job/\1?len=1000"),
    _rule(r"bundletui info (\S+)", r"GET /oozie/v2/job/\1"),
    # --- options
    _rule(r"--filter '([^']*)'", r"filter=\1"),
    _rule(r"(?<![\w-])--?value '([^']*)'", r"?action=change&value=\1"),
    _rule(r"\Ae\.g\. '((?:endtime|pausetime)=[^']*)'\Z", r"e.g. ?action=change&value=\1"),
    _rule(r"--action (\S+)", r"type=action&scope=\1"),
    _rule(r"--date (\S+)", r"type=date&scope=\1"),
    _rule(r"--skip-nodes (\S+)", r"oozie.wf.rerun.skip.nodes=\1"),
    _rule(r"--failed-nodes", "oozie.wf.rerun.failnodes=true"),
    _rule(r"--(len|offset|order) (\S+)", r"\1=\2"),
)

# What only the command line understands: a long option (``--home``), an Oozie-CLI option
# (``-value``, ``-systemmode``; not an id suffix such as ``-W@node`` or a relative time such
# as ``-2d``), ``-D name=value``, or a bundletui command.
CLI_ONLY = re.compile(
    r"(?<![\w-])--[A-Za-z]"
    r"|(?<![\w-])-[a-z]{2,}\b"
    r"|(?<![\w-])-D\s*[\w.]+="
    r"|\bbundletui (?:version|validate|eval|dryrun|submit|start|suspend|resume|kill|rerun"
    r"|change|ignore|info|jobs|definition|log|run|console|oozie)\b"
)


def api_hint(hint: str | None) -> str | None:
    """``hint`` in HTTP terms; None when it can only be followed on the command line."""
    if not hint:
        return hint
    text = hint
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    if CLI_ONLY.search(text):
        return None
    return text
