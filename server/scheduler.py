"""Who gets the cores: searches queue fairly for a fixed number of search slots, and every caller has quotas.

The server runs on an asyncio event loop (``grpc.aio``); a search runs in a thread of its own (the core releases the
GIL) once ``SearchQueue`` admits it. Admission is fair rather than first come, first served:

- Searches belong to a *class*: ``"requests"`` (Suggest, Analyze, BotMove and PlayGame, on behalf of a caller) or
  ``"bots"`` (a hosted game's bot turns, on behalf of that game). Each class has ``slots`` search threads of its own
  (one per core by default), so a thousand thinking bots cannot keep a player's hint waiting for a core, nor a flood
  of hints the bots: when both classes search, the kernel shares the cores between their threads (each search runs
  slower, and a search with a deadline stops on time); when one is idle, the other has the whole machine. A search is
  never interrupted for another, so without classes a long bot search would hold a core for its whole length.
- Within a class, callers are served round robin: each caller's searches queue in order, and a freed slot goes to
  the next caller that has one waiting. One caller holds at most ``per_caller`` slots while others wait (one search
  of any width when it runs alone); a caller with ``queue_per_caller`` searches waiting is refused at once.
- A request waits at most ``max_wait_s`` (and never past its deadline's margin) for a slot; then it is refused with
  RESOURCE_EXHAUSTED (or DEADLINE_EXCEEDED when the caller's deadline is what ran out). A bot turn waits as long as
  it takes: it is a game's own job, not a caller's.

A caller is identified by the seat token it sends (hosted calls) or else by its connection (gRPC's peer address and
port), as ``caller_key`` makes it; each has at most ``streams_per_caller`` streams open (WatchGame, PlayGame, Analyze).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import search
from server.errors import RequestError

T = TypeVar("T")
DEADLINE_ANSWER_S = 0.25  # a wait for a slot ends this long before the caller's deadline, to say why in time
CLASSES = ("requests", "bots")


def caller_key(token: str | None, peer: str) -> str:
    """A caller: the hash of its seat token if it sent one, else its connection (address and port)."""
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:16]
    return "peer:" + peer


@dataclass
class _Waiter:
    caller: str
    kind: str
    width: int
    granted: bool = False  # holds its slots
    admitted: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class SearchQueue:
    """``slots`` search threads shared fairly (see the module's docstring); ``run`` queues, then runs a search."""

    def __init__(
        self,
        slots: int,
        per_caller: int | None = None,
        queue_per_caller: int = 8,
        max_wait_s: float = 10.0,
    ):
        if slots < 1:
            raise ValueError(f"max_searches: expected 1 or more, got {slots}")
        self.slots = slots
        self.per_caller = per_caller or max(1, slots // 2)
        self.queue_per_caller = queue_per_caller
        self.max_wait_s = max_wait_s
        self.executor = ThreadPoolExecutor(
            max_workers=slots * len(CLASSES), thread_name_prefix="search", initializer=_lower_priority
        )
        self._busy = dict.fromkeys(CLASSES, 0)
        self._running: dict[str, int] = {}
        # Per class, the callers with searches waiting, in the order they are next served.
        self._waiting: dict[str, OrderedDict[str, deque[_Waiter]]] = {kind: OrderedDict() for kind in CLASSES}
        self._controls: set[search.Control] = set()
        self._closed = False

    # -- admission ---------------------------------------------------------------------------------------------------
    def waiting(self, caller: str | None = None) -> int:
        if caller is None:
            return sum(len(q) for callers in self._waiting.values() for q in callers.values())
        return sum(len(callers.get(caller, ())) for callers in self._waiting.values())

    def _admissible(self, waiter: _Waiter) -> bool:
        if self._busy[waiter.kind] + waiter.width > self.slots:
            return False
        running = self._running.get(waiter.caller, 0)
        return running == 0 or running + waiter.width <= self.per_caller

    def _dispatch(self) -> None:
        """Admit waiting searches while their class has slots free, callers round robin within a class."""
        for kind in CLASSES:
            callers = self._waiting[kind]
            progressed = True
            while progressed and self._busy[kind] < self.slots:
                progressed = False
                for caller in list(callers):
                    queue = callers[caller]
                    if not self._admissible(queue[0]):
                        continue
                    waiter = queue.popleft()
                    del callers[caller]
                    if queue:  # the caller's next search waits at the back of the round
                        callers[caller] = queue
                    self._busy[kind] += waiter.width
                    self._running[caller] = self._running.get(caller, 0) + waiter.width
                    waiter.granted = True
                    waiter.admitted.set_result(None)
                    progressed = True
                    break

    def _release(self, waiter: _Waiter) -> None:
        self._busy[waiter.kind] -= waiter.width
        left = self._running[waiter.caller] - waiter.width
        if left:
            self._running[waiter.caller] = left
        else:
            del self._running[waiter.caller]
        self._dispatch()

    def _withdraw(self, waiter: _Waiter) -> None:
        callers = self._waiting[waiter.kind]
        queue = callers.get(waiter.caller)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del callers[waiter.caller]

    def check_quota(self, caller: str) -> None:
        """RESOURCE_EXHAUSTED at once if ``caller`` already has its quota of searches waiting: checked before a request
        is decoded, so that a flood beyond the quota costs the server next to nothing."""
        if self.waiting(caller) >= self.queue_per_caller:
            raise RequestError(
                "RESOURCE_EXHAUSTED",
                f"this caller already has {self.queue_per_caller} searches waiting for a slot; wait for their answers",
            )

    @asynccontextmanager
    async def slot(
        self, caller: str, kind: str = "requests", width: int = 1, deadline: float | None = None
    ) -> AsyncIterator[None]:
        """Hold ``width`` slots (a search's threads) while the block runs. ``deadline``: ``time.monotonic()`` by which
        the caller must have its answer; the wait for a slot ends before it (see ``SearchQueue``)."""
        if self._closed:
            raise RequestError("UNAVAILABLE", "the server is shutting down")
        width = max(1, min(width, self.slots))
        if kind == "requests":
            self.check_quota(caller)
        waiter = _Waiter(caller, kind, width)
        self._waiting[kind].setdefault(caller, deque()).append(waiter)
        self._dispatch()
        try:
            if not waiter.admitted.done():
                await asyncio.wait_for(asyncio.shield(waiter.admitted), self._wait_limit(kind, deadline))
        except TimeoutError:
            self._withdraw(waiter)
            if waiter.granted:  # admitted in the same instant: give the slot back
                self._release(waiter)
            if deadline is not None and deadline - time.monotonic() < DEADLINE_ANSWER_S * 2:
                raise RequestError(
                    "DEADLINE_EXCEEDED", "the call's deadline came before a search slot was free"
                ) from None
            raise RequestError(
                "RESOURCE_EXHAUSTED",
                f"no search slot was free within {self.max_wait_s:g} s ({self._busy[kind]} of {self.slots} busy, "
                f"{self.waiting()} waiting); retry later",
            ) from None
        except BaseException:
            self._withdraw(waiter)
            if waiter.granted:
                self._release(waiter)
            raise
        try:
            yield
        finally:
            self._release(waiter)

    def _wait_limit(self, kind: str, deadline: float | None) -> float | None:
        if kind == "bots":
            return None
        limit = self.max_wait_s
        if deadline is not None:  # our answer must reach the caller before its own deadline does
            limit = min(limit, deadline - time.monotonic() - DEADLINE_ANSWER_S)
        return max(0.0, limit)

    async def run(
        self,
        caller: str,
        work: Callable[[], T],
        control: search.Control,
        kind: str = "requests",
        width: int = 1,
        deadline: float | None = None,
        before: Callable[[], Any] | None = None,
    ) -> T:
        """Queue for a slot, then run ``work`` in a search thread; ``control`` is cancelled at shutdown.
        ``before()``, called once the slot is held, may prepare ``work`` (a budget cut to the time left)."""
        async with self.slot(caller, kind, width, deadline):
            if before is not None:
                before()
            self._controls.add(control)
            try:
                return await asyncio.get_running_loop().run_in_executor(self.executor, work)
            finally:
                self._controls.discard(control)

    def shutdown(self) -> None:
        """Refuse new searches and cancel every running one (each returns its best move so far)."""
        self._closed = True
        for control in list(self._controls):
            control.cancel()
        for callers in self._waiting.values():
            for queue in callers.values():
                for waiter in queue:
                    if not waiter.admitted.done():
                        waiter.admitted.set_exception(RequestError("UNAVAILABLE", "the server is shutting down"))
            callers.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)


# Search threads run at a lower CPU priority than the event loop and the work threads (Linux gives each thread its own
# nice value): when a call arrives, the thread that answers it takes a core from a search at once instead of waiting
# for the kernel to share time fairly among every busy thread, which under load put tens of milliseconds on a read.
SEARCH_NICENESS = 10


def _lower_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SEARCH_NICENESS)
    except (AttributeError, OSError):  # a platform without per-thread priorities: searches share time evenly
        pass


class StreamQuota:
    """Open streams counted overall, per caller and per hosted game; beyond a cap, RESOURCE_EXHAUSTED naming it.
    An idle stream costs no thread (it awaits on the event loop), so the caps are about fairness, not workers."""

    def __init__(self, total: int, per_caller: int, per_game: int):
        self.total = total
        self.per_caller = per_caller
        self.per_game = per_game
        self._open = 0
        self._callers: dict[str, int] = {}
        self._games: dict[str, int] = {}

    def open(self) -> int:
        return self._open

    @asynccontextmanager
    async def stream(self, caller: str, game_id: str | None = None) -> AsyncIterator[None]:
        if self._open >= self.total:
            raise RequestError("RESOURCE_EXHAUSTED", f"{self.total} streams are open on this server; retry later")
        if self._callers.get(caller, 0) >= self.per_caller:
            raise RequestError("RESOURCE_EXHAUSTED", f"this caller already has {self.per_caller} streams open")
        if game_id is not None and self._games.get(game_id, 0) >= self.per_game:
            raise RequestError("RESOURCE_EXHAUSTED", f"{self.per_game} streams already watch this game", "game_id")
        self._open += 1
        self._callers[caller] = self._callers.get(caller, 0) + 1
        if game_id is not None:
            self._games[game_id] = self._games.get(game_id, 0) + 1
        try:
            yield
        finally:
            self._open -= 1
            _decrement(self._callers, caller)
            if game_id is not None:
                _decrement(self._games, game_id)


def _decrement(counts: dict[str, int], key: str) -> None:
    counts[key] -= 1
    if not counts[key]:
        del counts[key]
