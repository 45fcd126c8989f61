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
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "atoll" / "games.sqlite3"


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    game: str
    players: int
    seed: int
    options: dict
    seats: list[dict]  # per seat: {"is_bot": bool, "bot": {...BotSettings fields}}
    token_hashes: list[str]


class GameStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,"
                " seed INTEGER NOT NULL, options TEXT NOT NULL, seats TEXT NOT NULL, token_hashes TEXT NOT NULL,"
                " created REAL NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS moves (game_id TEXT NOT NULL, n INTEGER NOT NULL, action INTEGER NOT NULL,"
                " PRIMARY KEY (game_id, n))"
            )

    def create(self, record: GameRecord, moves: list[int]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.game_id,
                        record.game,
                        record.players,
                        str(record.seed),
                        json.dumps(record.options),
                        json.dumps(record.seats),
                        json.dumps(record.token_hashes),
                        time.time(),
                    ),
                )
                self._insert_moves(record.game_id, 0, moves)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def append(self, game_id: str, first: int, moves: list[int]) -> None:
        """Store ``moves`` as moves ``first, first + 1, ...``; all or nothing."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._insert_moves(game_id, first, moves)
                self._db.execute("COMMIT")
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
                "SELECT id, game, players, seed, options, seats, token_hashes FROM games WHERE id=?", (game_id,)
            ).fetchone()
            if row is None:
                return None
            moves = [a for (a,) in self._db.execute("SELECT action FROM moves WHERE game_id=? ORDER BY n", (game_id,))]
        record = GameRecord(
            row[0], row[1], row[2], int(row[3]), json.loads(row[4]), json.loads(row[5]), json.loads(row[6])
        )
        return record, moves

    def close(self) -> None:
        with self._lock:
            self._db.close()
