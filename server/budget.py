"""What the server lets a search cost: bot settings checked against caps, the documented default budget, and a
caller's deadline turned into a time limit that only ever shortens a search (with a measured margin)."""

from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass, replace

import search
from atoll.v1 import atoll_pb2 as pb
from search.play import BotSettings, level_settings
from server.errors import RequestError

MAX_ITERATIONS = 500_000
MAX_TIME_MS = 60_000
MAX_TOP_K = 64
MAX_THREADS = os.cpu_count() or 1  # read once: os.cpu_count() reads sysfs on every call
NO_DEADLINE_S = 86_400.0  # grpc reports "no deadline" as an enormous time remaining
CLIENT_ALGORITHMS = ("ismcts", "pimc", "flat", "greedy", "random")
DEFAULT_BOT = BotSettings(algorithm="ismcts")


def bot_settings(msg: pb.BotSettings, field: str, game: str) -> BotSettings:
    """A client's ``BotSettings`` message checked against this server's caps; errors name ``field`` + the setting.

    Zero means "unset": the game's defaults apply, and without iterations or a time the search runs
    ``search.DEFAULT_ITERATIONS``. A ``level`` (1-5) stands for its calibrated configuration."""
    if msg.level:
        if msg.algorithm or msg.iterations or msg.time_ms:
            raise RequestError(
                "INVALID_ARGUMENT", "a level sets the algorithm and budget: leave them unset", f"{field}.level"
            )
        try:
            chosen = level_settings(game, msg.level)
        except ValueError as err:
            raise RequestError("INVALID_ARGUMENT", str(err), f"{field}.level") from None
        except KeyError:
            raise RequestError("INVALID_ARGUMENT", "unknown game; ListGames lists them", "game") from None
        base = bot_settings(pb.BotSettings(threads=msg.threads, seed=msg.seed, top_k=msg.top_k), field, game)
        return replace(chosen, threads=base.threads, seed=base.seed, top_k=base.top_k)
    algorithm = msg.algorithm or "ismcts"
    if algorithm not in CLIENT_ALGORITHMS:
        raise RequestError(
            "INVALID_ARGUMENT", f"algorithm must be one of {', '.join(CLIENT_ALGORITHMS)}", f"{field}.algorithm"
        )
    for name, cap in (
        ("iterations", MAX_ITERATIONS),
        ("time_ms", MAX_TIME_MS),
        ("threads", MAX_THREADS),
        ("top_k", MAX_TOP_K),
    ):
        value = getattr(msg, name)
        if value < 0:
            raise RequestError("INVALID_ARGUMENT", f"{name} cannot be negative", f"{field}.{name}")
        if value > cap:
            raise RequestError(
                "RESOURCE_EXHAUSTED", f"{name} {value} is above this server's cap of {cap}", f"{field}.{name}"
            )
    return BotSettings(
        algorithm=algorithm,
        iterations=msg.iterations or None,
        time_ms=float(msg.time_ms) if msg.time_ms else None,
        threads=msg.threads or 1,
        seed=msg.seed,
        top_k=msg.top_k or 5,
    )


@dataclass(frozen=True)
class Plan:
    """What a search runs and what was asked of it: ``settings`` may carry a time cut from the caller's deadline
    (``cut_ms``), never more work than asked."""

    settings: BotSettings
    asked_iterations: int | None
    asked_time_ms: float | None
    cut_ms: float | None = None  # the time limit the deadline imposed, where it is below what was asked

    def stopped_early(self, stats: dict) -> bool:
        """Whether the search did less than it was asked: cancelled, fewer iterations than asked, or stopped by the
        deadline's cut before its asked iterations (or its asked time) were done."""
        if stats.get("cancelled"):
            return True
        if self.asked_iterations is not None and stats["iterations"] < self.asked_iterations:
            return True
        return self.cut_ms is not None and self.asked_iterations is None


def with_default_budget(settings: BotSettings) -> BotSettings:
    """Settings with neither iterations nor a time run ``search.DEFAULT_ITERATIONS`` (greedy and random have budgets
    of their own): a caller's deadline never becomes a budget."""
    if settings.iterations is None and settings.time_ms is None and settings.algorithm not in ("greedy", "random"):
        return replace(settings, iterations=search.DEFAULT_ITERATIONS)
    return settings


class Margin:
    """How long before a caller's deadline a search must stop so that its answer (the search's stop, the principal
    line, the belief summary, encoding, the event loop's turn) arrives in time: a floor plus twice the 99th percentile
    of the recent cost of that tail, as measured on this server (``observe``)."""

    FLOOR_MS = 40.0
    WINDOW = 256

    def __init__(self) -> None:
        self._samples: deque[float] = deque(maxlen=self.WINDOW)

    def observe(self, tail_ms: float) -> None:
        self._samples.append(tail_ms)

    def ms(self) -> float:
        if not self._samples:
            return self.FLOOR_MS * 2
        ordered = sorted(self._samples)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return self.FLOOR_MS + 2.0 * p99


def plan(settings: BotSettings, deadline: float | None, margin_ms: float) -> Plan:
    """The search to run for ``settings`` when the answer is due at ``deadline`` (``time.monotonic()``; None: no
    deadline): the documented default budget where none was given, and a time limit ending ``margin_ms`` before the
    deadline where the budget could run past it. A deadline only ever shortens a search."""
    settings = with_default_budget(settings)
    asked = Plan(settings, settings.iterations, settings.time_ms)
    if deadline is None:
        return asked
    remaining_ms = (deadline - time.monotonic()) * 1000.0
    # The measured margin, but at least a fifth of the time left (at most 1 s): the event loop of a loaded server
    # can be late by more than the recent answers were (hosting_load.py: a deadline of 0.5 s missed once in 61
    # calls with the measured margin alone).
    margin_ms = max(margin_ms, min(1000.0, remaining_ms / 5.0))
    allowed = max(1.0, remaining_ms - margin_ms)
    if settings.time_ms is not None and settings.time_ms <= allowed:
        return asked
    return replace(asked, settings=replace(settings, time_ms=allowed), cut_ms=allowed)


def deadline_of(remaining_s: float | None) -> float | None:
    """A call's deadline as ``time.monotonic()``, from grpc's time remaining (None or enormous: no deadline)."""
    if remaining_s is None or remaining_s >= NO_DEADLINE_S:
        return None
    return time.monotonic() + remaining_s
