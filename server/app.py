"""Building and running the gRPC server: servicer, health checking, reflection, keepalive, graceful shutdown."""

from __future__ import annotations

import logging
import os
import signal
import threading
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from atoll.v1 import atoll_pb2
from server.budget import Limits
from server.hosting import KEPT_BYTES, GameHost
from server.service import AtollService, handler
from server.store import GameStore

SERVICE_NAME = atoll_pb2.DESCRIPTOR.services_by_name["Atoll"].full_name
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # Keepalive that does not kick clients: accept their pings every 10 s even without calls in flight.
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
]


class AtollServer:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 50051,
        db: str | Path | None = None,
        max_searches: int | None = None,
        workers: int = 64,
        max_streams: int = 32,
        streams_per_game: int = 8,
        kept_trees_mb: float | None = None,
    ):
        from server.store import default_db_path

        kept = KEPT_BYTES if kept_trees_mb is None else kept_trees_mb * 2**20
        if not 0 <= kept < float("inf"):
            raise ValueError(f"kept_trees_mb: expected a size in MB, 0 or more, got {kept_trees_mb}")
        kept = int(kept)
        self.db_path = Path(db) if db else default_db_path()
        self.store = GameStore(self.db_path)
        # Streams and searches each hold a worker thread; their caps leave at least a quarter of the workers for
        # unary calls and health checks, whatever clients do.
        searches = max_searches or 2 * (os.cpu_count() or 1)
        if searches + max_streams > workers * 3 // 4:
            raise ValueError(f"{searches} searches + {max_streams} streams leave too few of {workers} workers free")
        self.limits = Limits(searches, max_streams, streams_per_game)
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers), options=SERVER_OPTIONS)
        self.host = GameHost(self.store, self.limits, kept_bytes=kept)
        self.server.add_generic_rpc_handlers((handler(AtollService(self.host, self.limits)),))
        self.health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
            self.server,
        )
        self.port = self.server.add_insecure_port(f"{host}:{port}")
        if self.port == 0:
            raise OSError(f"cannot listen on {host}:{port}")
        self.address = f"{host}:{self.port}"

    def start(self) -> None:
        self.server.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float = 5.0) -> None:
        """Stop taking calls, finish the running ones within ``grace`` seconds, close the store. Running searches
        are cut at once and answer with their best move so far; a bot turn in progress is abandoned (not stored)."""
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        stopped = self.server.stop(grace)
        self.limits.shutdown()
        stopped.wait()
        self.store.close()

    def serve_forever(self) -> None:
        done = threading.Event()

        def on_signal(signum, frame):
            done.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        self.start()
        done.wait()
        logging.getLogger("atoll.server").info('{"event": "shutdown"}')
        self.stop()
