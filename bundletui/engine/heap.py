"""The engine's heap of due times: retries, timeouts, kick-offs, materializations, pauses.

One entry per (kind, key); pushing a key again replaces its time (older entries are skipped
lazily when popped). Rebuilt from the store at start, so it holds nothing the store does not.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Due:
    time_ms: int
    kind: str
    key: str


class DueHeap:
    def __init__(self) -> None:
        self._heap: list[tuple[int, int, str, str]] = []
        self._current: dict[tuple[str, str], int] = {}
        self._seq = itertools.count()

    def push(self, time_ms: int, kind: str, key: str) -> None:
        """Schedule (kind, key) at ``time_ms``; an existing schedule for it is replaced."""
        if self._current.get((kind, key)) == time_ms:
            return
        self._current[(kind, key)] = time_ms
        heapq.heappush(self._heap, (time_ms, next(self._seq), kind, key))

    def push_earlier(self, time_ms: int, kind: str, key: str) -> None:
        """Schedule unless it is already scheduled sooner."""
        existing = self._current.get((kind, key))
        if existing is None or time_ms < existing:
            self.push(time_ms, kind, key)

    def cancel(self, kind: str, key: str) -> None:
        self._current.pop((kind, key), None)

    def _clean(self) -> None:
        while self._heap:
            time_ms, _, kind, key = self._heap[0]
            if self._current.get((kind, key)) == time_ms:
                return
            heapq.heappop(self._heap)

    def peek_time(self) -> int | None:
        self._clean()
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now_ms: int, limit: int = 10_000) -> list[Due]:
        out: list[Due] = []
        while len(out) < limit:
            self._clean()
            if not self._heap or self._heap[0][0] > now_ms:
                break
            time_ms, _, kind, key = heapq.heappop(self._heap)
            del self._current[(kind, key)]
            out.append(Due(time_ms, kind, key))
        return out

    def scheduled(self, kind: str, key: str) -> int | None:
        return self._current.get((kind, key))

    def __len__(self) -> int:
        return len(self._current)
