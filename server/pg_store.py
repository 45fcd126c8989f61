"""Hosted games in PostgreSQL (``atoll serve --store postgresql://...``): the same store as the embedded SQLite one
(a game is its seed, options and seats plus its move log; a move is acknowledged only after its transaction
commits), shared by any number of server replicas.

Writes are serialised per game by the database: a commit locks its game's row and appends its moves at the numbers
they were computed for (``moves``' primary key refuses a taken number: ``MovedOnError``, optimistic concurrency). A
game's bots are played by one replica, its ``owner``: a bot's move is stored only while its replica still owns the
game (checked under the row lock: ``NotOwnerError``), and a game whose owner stopped beating its heart
(``replicas.seen``) for longer than the lease is taken over by another (``claim``, ``claim_orphans``). Every commit
notifies the channel ``atoll_moves`` with ``"<game_id> <moves after it>"`` (delivered when the transaction commits).

The schema is created and migrated by the server (``atoll_schema`` holds its version; a newer schema than this server
knows refuses to start it). The DSN's password never appears in a log or an error: ``redacted``."""

from __future__ import annotations

import json
import re
import time

from server.store import GameRecord, MovedOnError, NotOwnerError, seed_text, seed_value

SCHEMA_VERSION = 2
MIGRATION_LOCK = 0x41746F6C6D  # the advisory lock key of "one server migrates the schema at a time"
CHANNEL = "atoll_moves"
MIGRATIONS = {
    1: [
        "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL, seed TEXT NOT NULL,"
        " options JSONB NOT NULL, seats JSONB NOT NULL, token_hashes JSONB NOT NULL, created DOUBLE PRECISION NOT NULL,"
        " seed_scheme INTEGER NOT NULL)",
        "CREATE TABLE moves (game_id TEXT NOT NULL REFERENCES games (id), n INTEGER NOT NULL, action INTEGER NOT NULL,"
        " PRIMARY KEY (game_id, n))",
    ],
    2: [  # replicas: the owner of a game's bots, whether its bots are to act, and the replicas' heartbeats
        "ALTER TABLE games ADD COLUMN owner TEXT, ADD COLUMN bots_due BOOLEAN NOT NULL DEFAULT false",
        "CREATE INDEX games_bots_due ON games (owner) WHERE bots_due",
        "CREATE TABLE replicas (id TEXT PRIMARY KEY, address TEXT NOT NULL, started TIMESTAMPTZ NOT NULL DEFAULT now(),"
        " seen TIMESTAMPTZ NOT NULL DEFAULT now())",
    ],
}
# A game's owner is gone when it is no replica that beat its heart within the lease (``%(lease)s`` seconds).
OWNER_GONE = (
    "(owner IS NULL OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = games.owner"
    " AND r.seen > now() - make_interval(secs => %(lease)s)))"
)


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
    """``GameStore``'s interface over PostgreSQL (``create``, ``append``, ``load``, ``game_ids``, ``close``), and what
    replicas share: ``tail``, ``claim``, ``claim_orphans``, ``beat``, ``leave``."""

    shared = True

    def __init__(self, dsn: str, pool_size: int = 4):
        psycopg, connection_pool = _psycopg()
        self.dsn = dsn
        self.name = redacted(dsn)
        self.pool_size = pool_size
        try:
            with psycopg.connect(dsn, autocommit=True) as con:
                self._migrate(con)
        except psycopg.Error as err:
            raise ConnectionError(f"cannot reach the store {self.name}: {_reason(err, dsn)}") from None
        # Statements are prepared on the server at their first use (prepare_threshold 0), once per connection.
        self._pool = connection_pool(
            dsn, min_size=1, max_size=pool_size, kwargs={"prepare_threshold": 0}, open=True, name="atoll-store"
        )

    def _migrate(self, con) -> None:
        with con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))  # one migrator at a time
            con.execute("CREATE TABLE IF NOT EXISTS atoll_schema (version INTEGER NOT NULL)")
            row = con.execute("SELECT max(version) FROM atoll_schema").fetchone()
            version = row[0] or 0
            if version > SCHEMA_VERSION:
                raise StoreVersionError(
                    f"the store {self.name} has schema version {version}, newer than this server's {SCHEMA_VERSION}: "
                    "run a newer atoll"
                )
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[step]:
                    con.execute(statement)
                con.execute("INSERT INTO atoll_schema (version) VALUES (%s)", (step,))

    def create(self, record: GameRecord, moves: list[int], owner: str | None = None, bots_due: bool = False) -> None:
        """A new game with its first moves; ``owner`` plays its bots (None: the first replica to claim it)."""
        with self._pool.connection() as con, con.transaction():
            con.execute(
                "INSERT INTO games (id, game, players, seed, options, seats, token_hashes, created, seed_scheme,"
                " owner, bots_due) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (record.game_id, record.game, record.players, seed_text(record.seed), json.dumps(record.options),
                 json.dumps(record.seats), json.dumps(record.token_hashes), time.time(), record.seed_scheme, owner,
                 bots_due),
            )  # fmt: skip
            self._insert_moves(con, record.game_id, 0, moves)
            con.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{record.game_id} {len(moves)}"))

    def append(
        self, game_id: str, first: int, moves: list[int], owner: str | None = None, bots_due: bool = False
    ) -> None:
        """Store ``moves`` as moves ``first, first + 1, ...``, all or nothing, under the game's row lock:
        ``MovedOnError`` if a number is taken (the game moved on), ``NotOwnerError`` if ``owner`` is given (a bot's
        move) and that replica no longer owns the game. ``bots_due``: whether bots or chance are to act after them."""
        psycopg = _psycopg()[0]
        with self._pool.connection() as con, con.transaction():
            row = con.execute("SELECT owner FROM games WHERE id = %s FOR UPDATE", (game_id,)).fetchone()
            if row is None:
                raise KeyError(game_id)
            if owner is not None and row[0] != owner:
                raise NotOwnerError(f"game {game_id} is played by {row[0] or 'no replica'} now, not {owner}")
            try:
                self._insert_moves(con, game_id, first, moves)
            except psycopg.errors.UniqueViolation:
                raise MovedOnError(f"game {game_id} holds a move {first} or later already") from None
            con.execute("UPDATE games SET bots_due = %s WHERE id = %s", (bots_due, game_id))
            con.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{game_id} {first + len(moves)}"))

    def tail(self, game_id: str, first: int) -> list[int]:
        """The game's moves from number ``first`` on (what another replica committed since)."""
        with self._pool.connection() as con:
            rows = con.execute("SELECT action FROM moves WHERE game_id = %s AND n >= %s ORDER BY n", (game_id, first))
            return [a for (a,) in rows]

    def claim(self, game_id: str, replica: str, lease_s: float) -> bool:
        """Whether ``replica`` owns the game now: it did, or the game had no live owner and it takes it over."""
        with self._pool.connection() as con:
            row = con.execute(
                "UPDATE games SET owner = %(me)s WHERE id = %(game)s AND (owner = %(me)s OR " + OWNER_GONE + ")"
                " RETURNING 1",
                {"me": replica, "game": game_id, "lease": lease_s},
            ).fetchone()
            return row is not None

    def claim_orphans(self, replica: str, lease_s: float, limit: int = 50) -> list[str]:
        """Take over up to ``limit`` games whose bots are to act and whose owner is gone; their ids."""
        with self._pool.connection() as con:
            rows = con.execute(
                "UPDATE games SET owner = %(me)s WHERE id IN (SELECT id FROM games WHERE bots_due AND "
                + OWNER_GONE
                + " ORDER BY created LIMIT %(limit)s FOR UPDATE SKIP LOCKED) RETURNING id",
                {"me": replica, "lease": lease_s, "limit": limit},
            )
            return [i for (i,) in rows]

    @staticmethod
    def beat(con, replica: str, address: str) -> None:
        """``replica`` is alive (on ``con``, the replica's listening connection: one that cannot hear cannot beat)."""
        con.execute(
            "INSERT INTO replicas (id, address) VALUES (%s, %s) ON CONFLICT (id) DO UPDATE SET seen = now()",
            (replica, address),
        )

    @staticmethod
    def forget_gone(con, older_s: float = 86400.0) -> None:
        """Drop the heartbeat rows of replicas silent for a day (each restart is a new replica; nothing refers to a
        row that old: its games were taken over long since)."""
        con.execute("DELETE FROM replicas WHERE seen < now() - make_interval(secs => %s)", (older_s,))

    def leave(self, replica: str) -> None:
        """A replica stopping: its games are anyone's at once, its heartbeat row goes."""
        with self._pool.connection() as con, con.transaction():
            con.execute("UPDATE games SET owner = NULL WHERE owner = %s", (replica,))
            con.execute("DELETE FROM replicas WHERE id = %s", (replica,))

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


def _reason(err: BaseException, dsn: str) -> str:
    """A connection error's first line, the password taken out wherever it was echoed."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    password = re.search(r"://[^:/@]*:([^@]*)@", dsn) or re.search(r"password=(\S+)", dsn)
    return text.replace(password.group(1), "***") if password and password.group(1) else text
