"""Event schedules that fire each other in a loop, through ``<program>`` triggers.

A ``<program coordinator="b">`` leaf fires its schedule when one of b's actions ends. If b's
own trigger fires, by itself, on the end of a's actions, each run of one starts a run of the
other, for ever (QA: two schedules, each ``<or><cron/><program/></or>`` on the other, ran
without end once either fired). A schedule naming itself is refused when it is decoded
(``decode_events._check_not_itself``); this finds the longer loops, across the schedules of a
bundle or the standalone schedules of a store.

An edge a → b is a ``<program coordinator="b">`` leaf of a's trigger that alone suffices to
fire a: between the root and the leaf only ``<or>`` nodes, or ``<and>`` nodes whose other
branches are time alone (``<wait>``: it only delays the firing, it cannot stop it). An
``<and>`` with a feed, a cron or another program needs something else too, so the loop is not
certain and is allowed. Any status counts: a run may end SUCCEEDED, FAILED or KILLED alike.
Pure: no store, no files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping

from bundletui.errors import SpecError
from bundletui.model.events import AllOf, AnyOf, Program, TriggerNode, Wait
from bundletui.spec.decode_events import program_lines


def firing_programs(trigger: TriggerNode) -> Iterator[tuple[int, Program]]:
    """The ``<program>`` leaves that fire ``trigger`` by themselves, each with its index among
    all the trigger's program leaves in document order (as ``decode_events.programs`` and
    ``program_lines`` count them)."""
    index = 0

    def walk(node: TriggerNode, alone: bool) -> Iterator[tuple[int, Program]]:
        nonlocal index
        if isinstance(node, Program):
            if alone:
                yield index, node
            index += 1
        elif isinstance(node, AnyOf):
            for child in node.children:
                yield from walk(child, alone)
        elif isinstance(node, AllOf):
            for i, child in enumerate(node.children):
                others = node.children[:i] + node.children[i + 1 :]
                yield from walk(child, alone and all(_time_only(o) for o in others))

    yield from walk(trigger, True)


def _time_only(node: TriggerNode) -> bool:
    """Holds some time after any event, whatever else arrives (a wait, or waits combined)."""
    if isinstance(node, Wait):
        return True
    if isinstance(node, AnyOf):
        return any(_time_only(c) for c in node.children)
    if isinstance(node, AllOf):
        return all(_time_only(c) for c in node.children)
    return False


def program_loop(
    triggers: Mapping[str, TriggerNode],
    through: str | Iterable[str] | None = None,
    hears: Callable[[str, str], Iterable[str]] | None = None,
) -> list[str] | None:
    """A loop of schedules each of which fires by itself when a run of the next ends (name →
    trigger; an edge a → b when a's trigger fires on b's end alone), as names in order with
    the first repeated at the end (``["a", "b", "a"]``), or None. With ``through``, only a
    loop through that schedule (or one of those), starting at it: new schedules among ones
    already accepted. Names outside ``triggers`` end a path: no schedule of this set listens
    there. ``hears(schedule, name)``: the schedules a ``<program coordinator=name>`` of that
    schedule's trigger hears, when keys are not plain names (a store's schedules, in and out
    of bundles). Deterministic: schedules and programs in the mapping's and document's order."""
    edges = {
        name: list(
            dict.fromkeys(
                target
                for _, p in firing_programs(trigger)
                for target in (hears(name, p.coordinator) if hears else (p.coordinator,))
            )
        )
        for name, trigger in triggers.items()
    }
    if isinstance(through, str):
        through = [through]
    for start in triggers if through is None else through:
        found = _loop_from(edges, start, through is not None)
        if found is not None:
            return found
    return None


def _loop_from(edges: Mapping[str, list[str]], start: str, back_to_start: bool) -> list[str] | None:
    """The first loop found from ``start`` (only one back to it, if ``back_to_start``)."""
    done: set[str] = set()  # explored: no loop (back to ``start``) is reachable from it

    def visit(name: str, path: list[str]) -> list[str] | None:
        path.append(name)
        for nxt in edges[name]:
            if nxt == start or (not back_to_start and nxt in path):
                return [*path[path.index(nxt) :], nxt]
            if nxt in edges and nxt not in done and nxt not in path:
                found = visit(nxt, path)
                if found is not None:
                    return found
        path.pop()
        done.add(name)
        return None

    return visit(start, []) if start in edges else None


def add_trigger(
    triggers: MutableMapping[str, TriggerNode], name: str, trigger: TriggerNode
) -> None:
    """``name``'s trigger into the set :func:`program_loop` reads; two schedules of one name
    (two bundle entries of one file, or two submissions) fire on either trigger."""
    before = triggers.get(name)
    triggers[name] = trigger if before is None else AnyOf((before, trigger))


def program_index(trigger: TriggerNode, target: str) -> int | None:
    """The document-order index of the first ``<program coordinator=target>`` leaf that fires
    ``trigger`` by itself (for its line, through ``decode_events.program_lines``)."""
    return next((i for i, p in firing_programs(trigger) if p.coordinator == target), None)


LOOP_HINT = (
    "put one of these <program> triggers in an <and> with another condition (a "
    '<partitions feed="…"/> or a <cron …/>), so that a run\'s end alone no longer fires the '
    "next, or drop one of them"
)


def loop_error(
    loop: list[str],
    trigger: TriggerNode,
    file: str | None,
    ids: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
) -> SpecError:
    """One error for a loop, at the line of the ``<program>`` in ``trigger`` (the first
    schedule's, in ``file``) that names the next schedule (``ids``: the store's id of a
    schedule already submitted; ``names``: a schedule's name, when the loop's keys are not)."""
    index = program_index(trigger, (names or {}).get(loop[1], loop[1]))
    lines = program_lines(file) if file else []
    line = lines[index] if index is not None and index < len(lines) else None
    shown = " → ".join(loop)
    known = [
        f"[{n}] is the unfinished coordinator {ids[n]}"
        for n in dict.fromkeys(loop)
        if ids and n in ids
    ]
    return SpecError(
        "E1003",
        "Invalid coordinator application attributes, <program> triggers make a loop: "
        f"{shown} (each coordinator fires, by that alone, when a run of the next one ends)"
        + (f"; {', '.join(known)}" if known else "")
        + ": each run would start another, for ever",
        hint=LOOP_HINT,
        file=file,
        line=line,
    )
