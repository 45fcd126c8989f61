"""Hosted games in SQLite (WAL): each game is its seed, options and seats plus its move log.

A move is acknowledged only after its transaction commits (synchronous=FULL), so a process killed at any point
loses nothing it acknowledged; a restarted server rebuilds every game by replaying its log.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/atoll/games.sqlite3`` (``~/.local/share`` by default), in a directory only its user reads."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    folder = base / "atoll"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder / "games.sqlite3"


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    game: str
    players: int
    seed: int
    options: dict
    seats: list[dict]  # per seat: {"is_bot": bool, "bot": {...BotSettings fields that differ from the defaults}}
    token_hashes: list[str]  # sha256 of each human seat's token; "" for bot seats (they have none)
    seed_scheme: int = 2  # 1: games stored before search.play's seed derivation (new_game got the seed itself)


class MovedOnError(RuntimeError):
    """A move number the store holds already: the game moved on from the position a move was computed at."""


class NotOwnerError(RuntimeError):
    """A bot's move from a replica that no longer plays the game's bots (another took the game over)."""


def seed_text(seed: int) -> str:
    """A seed as the store keeps it: hex with an ``x`` prefix, so SQLite's INTEGER affinity cannot turn a 64-bit
    seed into a rounded REAL (it converts numeric-looking text above 2**63)."""
    return f"x{seed:x}"


def seed_value(stored: str | int | float) -> int:
    if isinstance(stored, str) and stored.startswith("x"):
        return int(stored[1:], 16)
    return int(stored)


class GameStore:
    shared = False  # one server owns it (``server.app.StoreLock``); a shared store has replicas

    def __init__(self, path: str | Path):
        self.path = Path(path)
        # Seeds and true move logs are secrets of every game: only the server's user may read them. SQLite gives its
        # -wal and -shm files the database file's permissions.
        if not self.path.parent.exists():
            self.path.parent.mkdir(mode=0o700, parents=True)
        os.close(os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(self.path, 0o600)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,"
                " seed INTEGER NOT NULL, options TEXT NOT NULL, seats TEXT NOT NULL, token_hashes TEXT NOT NULL,"
                " created REAL NOT NULL, seed_scheme INTEGER NOT NULL DEFAULT 1)"
            )
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            if "seed_scheme" not in columns:
                self._db.execute("ALTER TABLE games ADD COLUMN seed_scheme INTEGER NOT NULL DEFAULT 1")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS moves (game_id TEXT NOT NULL, n INTEGER NOT NULL, action INTEGER NOT NULL,"
                " PRIMARY KEY (game_id, n))"
            )

    def create(self, record: GameRecord, moves: list[int], owner: str | None = None, bots_due: bool = False) -> None:
        """A new game with its first moves (``owner`` and ``bots_due`` matter to a shared store only)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO games (id, game, players, seed, options, seats, token_hashes, created, seed_scheme)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.game_id,
                        record.game,
                        record.players,
                        seed_text(record.seed),
                        json.dumps(record.options),
                        json.dumps(record.seats),
                        json.dumps(record.token_hashes),
                        time.time(),
                        record.seed_scheme,
                    ),
                )
                self._insert_moves(record.game_id, 0, moves)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def append(
        self, game_id: str, first: int, moves: list[int], owner: str | None = None, bots_due: bool = False
    ) -> None:
        """Store ``moves`` as moves ``first, first + 1, ...``; all or nothing; ``MovedOnError`` if a number is taken.
        (One server owns an embedded store: ``owner`` and ``bots_due`` matter to a shared store only.)"""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._insert_moves(game_id, first, moves)
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError:
                self._db.execute("ROLLBACK")
                raise MovedOnError(f"game {game_id} holds a move {first} or later already") from None
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _insert_moves(self, game_id: str, first: int, moves: list[int]) -> None:
        self._db.executemany(
            "INSERT INTO moves VALUES (?, ?, ?)", [(game_id, first + k, action) for k, action in enumerate(moves)]
        )

    def load(self, game_id: str) -> tuple[GameRecord, list[int]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, players, seed, options, seats, token_hashes, seed_scheme FROM games WHERE id=?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            moves = [a for (a,) in self._db.execute("SELECT action FROM moves WHERE game_id=? ORDER BY n", (game_id,))]
        record = GameRecord(
            row[0],
            row[1],
            row[2],
            seed_value(row[3]),
            json.loads(row[4]),
            json.loads(row[5]),
            json.loads(row[6]),
            row[7],
        )
        return record, moves

    def game_ids(self) -> list[str]:
        """Every stored game, oldest first (``atoll store copy``)."""
        with self._lock:
            return [i for (i,) in self._db.execute("SELECT id FROM games ORDER BY created, id")]

    def close(self) -> None:
        with self._lock:
            self._db.close()
