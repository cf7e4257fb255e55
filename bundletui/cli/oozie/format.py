"""OozieCLI prints through its own helpers (maskIfNull, maskDate, ``String.format`` widths);
these copy them, so that scripts reading its columns read ours the same."""

from __future__ import annotations

import re
import sys
from datetime import datetime, tzinfo
from typing import Any

from bundletui.cli._common import printable
from bundletui.model.timeutil import in_zone, parse_rfc822

RULER = "-" * 132


TAB = "\t"


# Oozie's fixed-width formats (OozieCLI: WORKFLOW_JOBS_FORMATTER, COORD_ACTION_FORMATTER, …),
# as column widths. Java's %-Ns pads and never truncates; extra arguments are ignored, which is
# why the coordinator action table has no "Last Mod" column although a value is passed for it.
WF_JOBS = (41, 13, 10, 10, 10, 24, 24)


COORD_JOBS = (41, 15, 10, 5, 13, 24, 24)


BUNDLE_JOBS = (41, 15, 10, 20, 20, 13, 13)


BUNDLE_COORDS = (41, 15, 5, 13, 24, 24)


WF_ACTIONS = (78, 10, 23, 11, 10)


COORD_ACTIONS = (43, 10, 37, 10, 21, 21)


WFS_OF_ACTION = (41, 10, 24, 24)


_GMT_OFFSET = re.compile(r"(.* )GMT([-+]\d{2}:\d{2})")


def mask(value: Any) -> str:
    """OozieCLI.maskIfNull: ``-`` for null or empty."""
    return "-" if value is None or value == "" else str(value)


def mask_date(rfc: str | None, zone: tzinfo | None, verbose: bool = False) -> str:
    """OozieCLI.maskDate: ``yyyy-MM-dd HH:mm zzz`` (``:ss`` when verbose), ``-`` for null; a
    ``GMT-07:00`` zone name is shortened to ``-07:00``."""
    if not rfc:
        return "-"
    local, years = _local(rfc, zone)
    text = f"{local.year + years:04d}-" + local.strftime(
        "%m-%d %H:%M:%S" if verbose else "%m-%d %H:%M"
    )
    text += f" {local.tzname() or 'GMT'}"
    m = _GMT_OFFSET.fullmatch(text)
    return m.group(1) + m.group(2) if m else text


def java_date(rfc: str | None, zone: tzinfo | None) -> str:
    """Java's Date.toString(): ``Mon Jan 01 00:00:00 GMT 2024`` (``null`` for null)."""
    if not rfc:
        return "null"
    local, years = _local(rfc, zone)
    return f"{local:%a %b %d %H:%M:%S} {local.tzname() or 'GMT'} {local.year + years}"


def _local(rfc: str, zone: tzinfo | None) -> tuple[datetime, int]:
    return in_zone(parse_rfc822(rfc), zone)


def cols(widths: tuple[int, ...], *values: Any) -> str:
    """Java's ``String.format("%-As%-Bs…", values…)``: pad, never cut, extra values ignored.
    One departure: a value as wide as its column still gets a space before the next one (Java
    runs them together, ``…-C@100WAITING``, and ``awk '{print $1}'`` would read both)."""
    out = []
    n = min(len(widths), len(values))
    for i, (w, v) in enumerate(zip(widths, values, strict=False)):
        text = mask_none(v)
        out.append(f"{text:<{w}}" if len(text) < w or i == n - 1 else text + " ")
    return "".join(out)


def freq_unit(coord: dict[str, Any]) -> tuple[str, str]:
    """A coordinator's Freq and Unit columns. An event-triggered one has no frequency: ``-``
    (OozieCLI's mark for none) and the unit ``EVENT`` (its JSON keeps Oozie's ``NONE``, the
    only unit of Oozie's enum that fits, which its Java client can read, and says
    ``"schedule": "event"``)."""
    if coord.get("schedule") == "event":
        return "-", "EVENT"
    return mask_none(coord["frequency"]), mask_none(coord["timeUnit"])


def mask_none(value: Any) -> str:
    return "null" if value is None else str(value)


def say(text: str = "") -> None:
    sys.stdout.write(printable(text) + "\n")
