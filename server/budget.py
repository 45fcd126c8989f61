"""What the server lets a search cost: bot settings checked against caps, searches and streams counted against
limits, and every running search cancellable (caller gone, deadline, shutdown)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import search
from atoll.v1 import atoll_pb2 as pb
from search.play import BotSettings, level_settings
from server.errors import RequestError

MAX_ITERATIONS = 500_000
MAX_TIME_MS = 60_000
MAX_TOP_K = 64
MAX_THREADS = os.cpu_count() or 1  # read once: os.cpu_count() reads sysfs on every call
NO_DEADLINE_S = 86_400.0  # grpc reports "no deadline" as an enormous time remaining
DEADLINE_MARGIN_MS = 25.0
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


def within_deadline(settings: BotSettings, remaining_s: float | None) -> BotSettings:
    """Settings whose time budget ends before the caller's deadline, so the answer arrives in time."""
    if remaining_s is None or remaining_s >= NO_DEADLINE_S:
        return settings
    allowed = max(1.0, remaining_s * 1000.0 - DEADLINE_MARGIN_MS)
    return replace(settings, time_ms=allowed if settings.time_ms is None else min(settings.time_ms, allowed))


class Limits:
    """Caps on work in flight: searches (clients get RESOURCE_EXHAUSTED beyond; the server's own bots wait, but
    give up when their caller goes away) and streams (WatchGame and PlayGame each hold a worker thread, so they are
    capped overall and per game, leaving workers for unary calls and health checks). ``shutdown()`` cancels every
    running search: each returns its best move so far."""

    def __init__(self, searches: int, streams: int, streams_per_game: int):
        self.searches = searches
        self.streams = streams
        self.streams_per_game = streams_per_game
        self._lock = threading.Condition()
        self._running = 0
        self._stream_count = 0
        self._per_game: dict[str, int] = {}
        self._controls: set[search.Control] = set()

    @contextmanager
    def search_slot(self, control: search.Control, wait: bool = False) -> Iterator[None]:
        """Hold one search slot while the block runs. Without ``wait`` a full server answers RESOURCE_EXHAUSTED;
        with it, wait until a slot frees or ``control`` is cancelled (then RequestError CANCELLED)."""
        with self._lock:
            while self._running >= self.searches:
                if not wait:
                    raise RequestError("RESOURCE_EXHAUSTED", f"{self.searches} searches are running; retry later")
                if control.cancelled:
                    raise RequestError("CANCELLED", "the caller went away before a search slot was free")
                self._lock.wait(timeout=0.02)
            self._running += 1
            self._controls.add(control)
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                self._controls.discard(control)
                self._lock.notify_all()

    @contextmanager
    def stream(self, game_id: str | None = None) -> Iterator[None]:
        """Hold one stream place (and one of ``game_id``'s) while the stream runs, or RESOURCE_EXHAUSTED."""
        with self._lock:
            if self._stream_count >= self.streams:
                raise RequestError("RESOURCE_EXHAUSTED", f"{self.streams} streams are open on this server; retry later")
            if game_id is not None and self._per_game.get(game_id, 0) >= self.streams_per_game:
                raise RequestError(
                    "RESOURCE_EXHAUSTED", f"{self.streams_per_game} streams already watch this game", "game_id"
                )
            self._stream_count += 1
            if game_id is not None:
                self._per_game[game_id] = self._per_game.get(game_id, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._stream_count -= 1
                if game_id is not None:
                    self._per_game[game_id] -= 1
                    if not self._per_game[game_id]:
                        del self._per_game[game_id]

    def shutdown(self) -> None:
        with self._lock:
            for control in self._controls:
                control.cancel()
