"""Hosted games in PostgreSQL (``atoll serve --store postgresql://...``): the same store as the embedded SQLite one
(a game is its seed, options and seats plus its move log; a move is acknowledged only after its transaction
commits), for a store that lives outside the server's machine.

The schema is created and migrated by the server (``atoll_schema`` holds its version; a newer schema than this server
knows refuses to start it). One server owns a store at a time, by an advisory lock its own connection holds for its life
(PostgreSQL drops it when that connection ends, a kill -9 included); several replicas on one store need per-game leases,
which this store does not take yet. The DSN's password never appears in a log or an error: ``redacted``."""

from __future__ import annotations

import json
import re
import threading
import time

from server.store import GameRecord, seed_text, seed_value

SCHEMA_VERSION = 1
OWNER_LOCK = 0x41746F6C6C  # the advisory lock key of "one server owns this store" ("Atoll")
MIGRATIONS = {
    1: [
        "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL, seed TEXT NOT NULL,"
        " options JSONB NOT NULL, seats JSONB NOT NULL, token_hashes JSONB NOT NULL, created DOUBLE PRECISION NOT NULL,"
        " seed_scheme INTEGER NOT NULL)",
        "CREATE TABLE moves (game_id TEXT NOT NULL REFERENCES games (id), n INTEGER NOT NULL, action INTEGER NOT NULL,"
        " PRIMARY KEY (game_id, n))",
    ],
}


class StoreVersionError(RuntimeError):
    """The store's schema is newer than this server knows."""


def is_postgres(store: str) -> bool:
    return store.startswith(("postgresql://", "postgres://"))


def redacted(dsn: str) -> str:
    """The DSN without its password (``postgresql://user:***@host/db``; ``password=***``)."""
    dsn = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", dsn)
    return re.sub(r"(password=)\S+", r"\1***", dsn)


def _psycopg():
    try:
        import psycopg
        from psycopg_pool import ConnectionPool
    except ImportError:
        raise RuntimeError(
            "a PostgreSQL store needs psycopg 3: pip install 'atoll[postgres]' (in a checkout: make test installs it)"
        ) from None
    return psycopg, ConnectionPool


def store_errors() -> tuple[type[BaseException], ...]:
    """The exceptions a failing PostgreSQL store raises (the host retries a commit on them, or answers UNAVAILABLE)."""
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        return ()
    return (psycopg.Error, psycopg_pool.PoolTimeout)


class PostgresStore:
    """``GameStore``'s interface over PostgreSQL: ``create``, ``append``, ``load``, ``game_ids``, ``close``."""

    def __init__(self, dsn: str, pool_size: int = 4):
        psycopg, connection_pool = _psycopg()
        self.dsn = dsn
        self.name = redacted(dsn)
        try:
            # The owner's own connection: the advisory lock lives as long as it does.
            self._owner = psycopg.connect(dsn, autocommit=True)
        except psycopg.Error as err:
            raise ConnectionError(f"cannot reach the store {self.name}: {_reason(err, dsn)}") from None
        self._migrate()
        # Statements are prepared on the server at their first use (prepare_threshold 0), once per connection.
        self._pool = connection_pool(
            dsn, min_size=1, max_size=pool_size, kwargs={"prepare_threshold": 0}, open=True, name="atoll-store"
        )
        self._lock = threading.Lock()

    def acquire_ownership(self) -> bool:
        """True if this server now owns the store (no other live server does)."""
        return bool(self._owner.execute("SELECT pg_try_advisory_lock(%s)", (OWNER_LOCK,)).fetchone()[0])

    def _migrate(self) -> None:
        with self._owner.transaction():
            self._owner.execute("SELECT pg_advisory_xact_lock(%s)", (OWNER_LOCK + 1,))  # one migrator at a time
            self._owner.execute("CREATE TABLE IF NOT EXISTS atoll_schema (version INTEGER NOT NULL)")
            row = self._owner.execute("SELECT max(version) FROM atoll_schema").fetchone()
            version = row[0] or 0
            if version > SCHEMA_VERSION:
                raise StoreVersionError(
                    f"the store {self.name} has schema version {version}, newer than this server's {SCHEMA_VERSION}: "
                    "run a newer atoll"
                )
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[step]:
                    self._owner.execute(statement)
                self._owner.execute("INSERT INTO atoll_schema (version) VALUES (%s)", (step,))

    def create(self, record: GameRecord, moves: list[int]) -> None:
        with self._pool.connection() as con, con.transaction():
            con.execute(
                "INSERT INTO games (id, game, players, seed, options, seats, token_hashes, created, seed_scheme)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (record.game_id, record.game, record.players, seed_text(record.seed), json.dumps(record.options),
                 json.dumps(record.seats), json.dumps(record.token_hashes), time.time(), record.seed_scheme),
            )  # fmt: skip
            self._insert_moves(con, record.game_id, 0, moves)

    def append(self, game_id: str, first: int, moves: list[int]) -> None:
        """Store ``moves`` as moves ``first, first + 1, ...``; all or nothing (a move number taken: an error)."""
        with self._pool.connection() as con, con.transaction():
            self._insert_moves(con, game_id, first, moves)

    @staticmethod
    def _insert_moves(con, game_id: str, first: int, moves: list[int]) -> None:
        if moves:
            with con.cursor() as cur:
                cur.executemany(
                    "INSERT INTO moves (game_id, n, action) VALUES (%s, %s, %s)",
                    [(game_id, first + k, action) for k, action in enumerate(moves)],
                )

    def load(self, game_id: str) -> tuple[GameRecord, list[int]] | None:
        with self._pool.connection() as con:
            row = con.execute(
                "SELECT id, game, players, seed, options, seats, token_hashes, seed_scheme FROM games WHERE id = %s",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            moves = [a for (a,) in con.execute("SELECT action FROM moves WHERE game_id = %s ORDER BY n", (game_id,))]
        return GameRecord(row[0], row[1], row[2], seed_value(row[3]), row[4], row[5], row[6], row[7]), moves

    def game_ids(self) -> list[str]:
        with self._pool.connection() as con:
            return [i for (i,) in con.execute("SELECT id FROM games ORDER BY created, id")]

    def close(self) -> None:
        self._pool.close()
        self._owner.close()


def _reason(err: BaseException, dsn: str) -> str:
    """A connection error's first line, the password taken out wherever it was echoed."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    password = re.search(r"://[^:/@]*:([^@]*)@", dsn) or re.search(r"password=(\S+)", dsn)
    return text.replace(password.group(1), "***") if password and password.group(1) else text
