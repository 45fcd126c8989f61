"""Building and running the gRPC server: an asyncio server (``grpc.aio``) with the servicer, health checking,
reflection and keepalive; one owner per port and per embedded store (a PostgreSQL store has replicas); a prompt,
graceful shutdown."""

from __future__ import annotations

import asyncio
import fcntl
import gc
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from atoll.v1 import atoll_pb2
from server import pg_store
from server.budget import Margin
from server.hosting import KEPT_BYTES, GameHost
from server.replicas import LEASE_S, replica_id
from server.scheduler import SearchQueue, StreamQuota
from server.service import AtollService, handler
from server.store import GameStore

log = logging.getLogger("atoll.server")
SWITCH_INTERVAL_S = 0.001
SERVICE_NAME = atoll_pb2.DESCRIPTOR.services_by_name["Atoll"].full_name
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # A port has one owner: without this, gRPC lets a second server share a busy port (SO_REUSEPORT) and the
    # kernel splits the connections between the two processes.
    ("grpc.so_reuseport", 0),
    # Headers up to 64 KB, so that an absurd token gets UNAUTHENTICATED from us rather than gRPC's header limit.
    ("grpc.max_metadata_size", 64 * 1024),
    # Keepalive that does not kick clients: accept their pings every 10 s even without calls in flight.
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
]


# Full garbage collections scan every tracked object, and a server holding every game's positions, views and keepers
# has many: each such pause (tens of ms, measured by benchmarks/hosting_load.py) lands on whichever call is running.
# What survived a full collection is frozen (out of the collector's sight: later full collections scan only what is
# newer), and once every FULL_COLLECT_S everything is thawed and collected, so that cycles among old objects that have
# since died are still freed: one long pause every ten minutes instead of one every few seconds.
FULL_COLLECT_S = 600.0


def _freeze_after_full_collection(phase: str, info: dict) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


async def quiet_collector() -> None:
    gc.freeze()  # what start-up made (modules, the engines' tables) lives as long as the server
    gc.callbacks.append(_freeze_after_full_collection)
    try:
        while True:
            await asyncio.sleep(FULL_COLLECT_S)
            gc.unfreeze()
            gc.collect()
            gc.freeze()
    finally:
        gc.callbacks.remove(_freeze_after_full_collection)


class StoreInUseError(RuntimeError):
    """Another live server owns this store."""


class StoreLock:
    """An exclusive lock on ``<store>.lock`` held for the server's life: a second server on the same store refuses to
    start (the kernel drops the lock when its holder dies, even by kill -9)."""

    def __init__(self, store: Path):
        self.path = store.with_name(store.name + ".lock")
        self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 32, 0).decode(errors="replace").strip() or "another process"
            os.close(self._fd)
            raise StoreInUseError(f"the store {store} is in use by another server (pid {holder})") from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, str(os.getpid()).encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def port_is_free(host: str, port: int) -> None:
    """OSError unless ``host:port`` can be bound (as gRPC binds it: with SO_REUSEADDR, without SO_REUSEPORT)."""
    with socket.socket(socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as err:
            raise OSError(f"cannot listen on {host}:{port}: {err.strerror.lower()}") from None


class AtollServer:
    """One server: its store (locked against other servers), its search queue and stream quotas, and, once
    ``start``ed on the running event loop, the gRPC server."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 50051,
        db: str | Path | None = None,
        max_searches: int | None = None,
        kept_trees_mb: float | None = None,
        searches_per_caller: int | None = None,
        queue_wait_s: float = 10.0,
        max_streams: int = 10_000,
        streams_per_caller: int = 100,
        streams_per_game: int = 64,
        web_port: int | None = None,
        lease_s: float = LEASE_S,
    ):
        from server.store import default_db_path

        kept = KEPT_BYTES if kept_trees_mb is None else kept_trees_mb * 2**20
        if not 0 <= kept < float("inf"):
            raise ValueError(f"kept_trees_mb: expected a size in MB, 0 or more, got {kept_trees_mb}")
        self.bind = f"{host}:{port}"
        if not 0.5 <= lease_s <= 600:
            raise ValueError(f"lease: expected 0.5 to 600 seconds, got {lease_s}")
        self.lease_s = lease_s
        if db is not None and pg_store.is_postgres(str(db)):
            # A shared store: this server is one replica of any number (``GameHost.share`` once it listens).
            self.store = pg_store.PostgresStore(str(db))
            self.db_path = self.store.name  # the DSN without its password
            self.lock = None
        else:
            self.db_path = Path(db) if db else default_db_path()
            self.lock = StoreLock(self.db_path)
            try:
                self.store = GameStore(self.db_path)
            except BaseException:
                self.lock.release()
                raise
        self.searches = SearchQueue(
            max_searches or (os.cpu_count() or 1), per_caller=searches_per_caller, max_wait_s=queue_wait_s
        )
        self.streams = StreamQuota(max_streams, streams_per_caller, streams_per_game)
        self.margin = Margin()
        self.host = GameHost(self.store, self.searches, kept_bytes=int(kept), margin=self.margin)
        self.server: grpc.aio.Server | None = None
        self.address: str | None = None
        self.port: int | None = None
        self.web_port = web_port  # the page and the Connect protocol (server/web.py); None: no page
        self.web = None

    async def start(self) -> None:
        """Listen and serve on the running loop; OSError if the port is taken."""
        host, port = self.bind.rsplit(":", 1)
        if int(port):
            port_is_free(host, int(port))  # our own words for a busy port, before gRPC logs its own
        if self.web_port:
            port_is_free(host, self.web_port)
        self.server = grpc.aio.server(options=SERVER_OPTIONS)
        service = AtollService(self.host, self.searches, self.streams, self.margin)
        self.server.add_generic_rpc_handlers((handler(service),))
        if self.web_port is not None:
            from server.web import WebServer

            self.web = WebServer(service, host, self.web_port)
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
            self.server,
        )
        try:
            self.port = self.server.add_insecure_port(self.bind)
        except RuntimeError:
            self.port = 0
        if not self.port:
            raise OSError(f"cannot listen on {self.bind}: the port is in use or the address is not this machine's")
        self.address = f"{self.bind.rsplit(':', 1)[0]}:{self.port}"
        await self.server.start()
        if self.store.shared:
            await self.host.share(replica_id(self.port), self.address, self.lease_s)
        if self.web is not None:
            await self.web.start()
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float = 5.0) -> None:
        """Stop taking calls; running searches are cut at once and answer with their best move so far; a bot turn in
        progress is abandoned (not stored); other running calls get ``grace`` seconds; the store closes."""
        started = time.monotonic()
        if self.server is not None:
            for name in ("", SERVICE_NAME):
                await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        self.searches.shutdown()
        if self.web is not None:
            await self.web.stop()
        await self.host.close()
        if self.server is not None:
            await self.server.stop(grace)
        self.close()
        log.info('{"event": "stopped", "ms": %.1f}', (time.monotonic() - started) * 1000.0)

    def close(self) -> None:
        """Release the store and its lock (for a server that never started, or after ``stop``)."""
        self.store.close()
        if self.lock is not None:
            self.lock.release()

    def serve_forever(self, on_ready: Callable[[AtollServer], None] | None = None) -> None:
        """Run until SIGTERM or SIGINT, then ``stop``."""

        async def main() -> None:
            # The event loop shares the interpreter with the work threads and the Python ends of the searches; a
            # thread waiting for it waits up to one switch interval per holder (5 ms by default): the loop gets it
            # sooner, at a cost of a little throughput in the threads.
            sys.setswitchinterval(SWITCH_INTERVAL_S)
            loop = asyncio.get_running_loop()
            done = asyncio.Event()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, done.set)
            try:
                await self.start()
            except BaseException:
                await self.host.close()
                self.searches.shutdown()
                self.close()
                raise
            collector = asyncio.ensure_future(quiet_collector())
            if on_ready is not None:
                on_ready(self)
            await done.wait()
            collector.cancel()
            log.info('{"event": "shutdown"}')
            await self.stop()

        asyncio.run(main())
