"""One server as a replica of several on a shared PostgreSQL store: its heartbeat, and the moves other replicas commit.

A thread of its own holds one connection that ``LISTEN``s on the store's channel and beats the replica's heart on it
every ``beat_s`` (a replica that cannot hear the others' moves is not alive to them either). Each notification
(``"<game_id> <moves after the commit>"``) is handed to the event loop (``on_moves``); after a lost connection the
thread connects again and the loop re-reads every game it holds (``on_reconnect``), so a notification sent while
nobody listened loses no move.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable

from server.pg_store import CHANNEL, PostgresStore, _psycopg

log = logging.getLogger("atoll.server")
LEASE_S = 5.0  # a replica whose heart did not beat for this long is gone: its games' bots are taken over
BEAT_S = 1.0  # how often a replica's heart beats
SWEEP_S = 0.5  # how often a replica looks for games whose owner is gone
TAKE_AT_ONCE = 8  # games a replica takes over in one sweep
RECONNECT_S = (0.5, 1.0, 2.0, 5.0)  # the listener's waits before connecting again, the last repeated


def replica_id(port: int) -> str:
    """This process among the replicas: host, port, pid and a random tail (a restarted server is a new replica)."""
    return f"{socket.gethostname()}:{port}/{os.getpid()}/{secrets.token_hex(3)}"


class Listener:
    """The replica's heartbeat and its ear on the channel, in a thread; ``stop`` ends both."""

    def __init__(
        self,
        store: PostgresStore,
        replica: str,
        address: str,
        on_moves: Callable[[str, int], None],
        on_reconnect: Callable[[], None],
        beat_s: float = BEAT_S,
    ):
        self.store = store
        self.replica = replica
        self.address = address
        self.on_moves = on_moves
        self.on_reconnect = on_reconnect
        self.beat_s = beat_s
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._connection = None
        self.connected = threading.Event()  # set while listening (tests and the start wait on it)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="listen", daemon=True)
        self._thread.start()
        if not self.connected.wait(10.0):
            raise ConnectionError(f"cannot listen on the store {self.store.name}")

    def stop(self) -> None:
        self._stop.set()
        connection = self._connection
        if connection is not None:
            try:
                connection.cancel_safe(timeout=1.0)  # wakes the thread out of its wait for notifications
            except Exception:  # noqa: BLE001 - the connection may be gone already
                pass
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _run(self) -> None:
        psycopg = _psycopg()[0]
        failures = 0
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.store.dsn, autocommit=True, application_name="atoll-listen") as con:
                    self._connection = con
                    con.execute(f"LISTEN {CHANNEL}")
                    self.store.forget_gone(con)
                    self.store.beat(con, self.replica, self.address)
                    if failures:  # moves may have been committed while nobody listened: read every game again
                        log.warning('{"event": "store_listening_again"}')
                        self._loop.call_soon_threadsafe(self.on_reconnect)
                    failures = 0
                    self.connected.set()
                    while not self._stop.is_set():
                        for note in con.notifies(timeout=self.beat_s):
                            game_id, _, moves = note.payload.partition(" ")
                            self._loop.call_soon_threadsafe(self.on_moves, game_id, int(moves or 0))
                        if not self._stop.is_set():
                            self.store.beat(con, self.replica, self.address)
            except psycopg.Error as err:
                self.connected.clear()
                if self._stop.is_set():
                    return
                log.warning('{"event": "store_listener_lost", "error": "%s"}', type(err).__name__)
                self._stop.wait(RECONNECT_S[min(failures, len(RECONNECT_S) - 1)])
                failures += 1
            finally:
                self._connection = None
