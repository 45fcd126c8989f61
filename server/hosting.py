"""Hosted games: seats and tokens, moves validated and persisted before they count, bots and chance played by the
server, watchers woken on every move. Also the search budget policy shared by every RPC that searches."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
from dataclasses import dataclass, field

import engine_ext
import search
from engine_ext import core
from server.store import GameRecord, GameStore

MAX_ITERATIONS = 500_000
MAX_TIME_MS = 60_000
NO_DEADLINE_S = 86_400.0  # grpc reports "no deadline" as an enormous time remaining
DEFAULT_BOT = {"algorithm": "ismcts", "iterations": 1000}
CLIENT_ALGORITHMS = ("ismcts", "pimc", "flat", "greedy", "random")


class RequestError(Exception):
    """A request the server refuses; ``code`` is a grpc.StatusCode name, ``field`` the offending field if any."""

    def __init__(self, code: str, message: str, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.field = field


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Budget:
    algorithm: str
    iterations: int | None
    time_ms: float | None
    threads: int
    seed: int
    top_k: int


def checked_budget(settings: dict, remaining_s: float | None = None, margin_ms: float = 25.0) -> Budget:
    """Validate a client's bot settings against the server's caps; a call deadline caps the time budget."""
    algorithm = settings.get("algorithm") or "ismcts"
    if algorithm not in CLIENT_ALGORITHMS:
        raise RequestError(
            "INVALID_ARGUMENT", f"algorithm must be one of {', '.join(CLIENT_ALGORITHMS)}", "settings.algorithm"
        )
    iterations = settings.get("iterations") or None
    time_ms = settings.get("time_ms") or None
    threads = settings.get("threads") or 1
    top_k = settings.get("top_k") or 5
    for name, value, cap in (
        ("iterations", iterations, MAX_ITERATIONS),
        ("time_ms", time_ms, MAX_TIME_MS),
        ("threads", threads, os.cpu_count() or 1),
        ("top_k", top_k, 64),
    ):
        if value is not None and value < 0:
            raise RequestError("INVALID_ARGUMENT", f"{name} cannot be negative", f"settings.{name}")
        if value is not None and value > cap:
            raise RequestError(
                "RESOURCE_EXHAUSTED", f"{name} {value} is above this server's cap of {cap}", f"settings.{name}"
            )
    if iterations is None and time_ms is None:
        iterations = DEFAULT_BOT["iterations"]
    if remaining_s is not None and remaining_s < NO_DEADLINE_S:
        # Answer before the caller's deadline with the best move found by then.
        allowed = max(1.0, remaining_s * 1000.0 - margin_ms)
        time_ms = allowed if time_ms is None else min(time_ms, allowed)
    return Budget(algorithm, iterations, time_ms, threads, int(settings.get("seed") or 0), top_k)


class SearchSlots:
    """A cap on searches running at once: clients get RESOURCE_EXHAUSTED beyond it, the server's bots wait."""

    def __init__(self, limit: int):
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    def try_acquire(self) -> bool:
        return self._slots.acquire(blocking=False)

    def acquire(self) -> None:
        self._slots.acquire()

    def release(self) -> None:
        self._slots.release()


def run_search(state, seat: int, budget: Budget, control: search.Control | None = None) -> search.SearchResult:
    return search.suggest(
        state,
        seat,
        algorithm=budget.algorithm,
        iterations=budget.iterations,
        time_ms=budget.time_ms,
        threads=budget.threads,
        seed=budget.seed,
        top_k=budget.top_k,
        control=control,
    )


@dataclass
class HostedGame:
    record: GameRecord
    state: engine_ext.State
    moves: list[int]
    lock: threading.RLock = field(default_factory=threading.RLock)
    changed: threading.Condition = field(default=None)

    def __post_init__(self):
        self.changed = threading.Condition(self.lock)

    @property
    def game_id(self) -> str:
        return self.record.game_id


def replay(record: GameRecord, moves: list[int]) -> engine_ext.State:
    state = engine_ext.new_game(record.game, record.players, record.seed, **record.options)
    for action in moves:
        state.apply(action)
    return state


def history(record: GameRecord, moves: list[int], seat: int, start: int = 0) -> list[tuple[int, int, int, str]]:
    """(move number, actor, observed action id, text) for each move from ``start``, as ``seat`` saw it."""
    state = engine_ext.new_game(record.game, record.players, record.seed, **record.options)
    out = []
    for n, action in enumerate(moves):
        if n >= start:
            observed = state.observed_action(action, seat)
            out.append((n, state.current_player(), observed, state.action_to_string(observed)))
        state.apply(action)
    return out


class GameHost:
    def __init__(self, store: GameStore, slots: SearchSlots):
        self.store = store
        self.slots = slots
        self._games: dict[str, HostedGame] = {}
        self._lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------------------------------
    def create(self, game: str, players: int, seed: int, options: dict, seats: list[dict]) -> tuple[HostedGame, list]:
        if game not in engine_ext.GAMES:
            raise RequestError("INVALID_ARGUMENT", f"unknown game {game!r}; ListGames lists them", "game")
        try:
            state = engine_ext.new_game(game, players, seed, **options)
        except (TypeError, ValueError) as err:
            raise RequestError(
                "INVALID_ARGUMENT", str(err), "players" if "players" in str(err) else "options"
            ) from None
        if len(seats) > players:
            raise RequestError("INVALID_ARGUMENT", f"{len(seats)} seat configs for {players} seats", "seats")
        seats = seats + [{"is_bot": False, "bot": {}}] * (players - len(seats))
        for k, seat in enumerate(seats):
            if seat["is_bot"]:
                try:
                    checked_budget(seat["bot"])
                except RequestError as err:
                    field = err.field.replace("settings.", f"seats[{k}].bot.") if err.field else None
                    raise RequestError(err.code, str(err), field) from None
                if not seat["bot"].get("algorithm"):
                    seat["bot"] = {**DEFAULT_BOT, **{k2: v for k2, v in seat["bot"].items() if v}}
            seats[k] = seat
        tokens = [secrets.token_urlsafe(24) for _ in range(players)]
        record = GameRecord(secrets.token_hex(8), game, players, seed, options, seats, [hash_token(t) for t in tokens])
        hosted = HostedGame(record, state, [])
        followed = self._advance_plan(hosted)  # plays the opening chance and bot moves on hosted.state
        self.store.create(record, followed)
        hosted.moves.extend(followed)
        with self._lock:
            self._games[record.game_id] = hosted
        return hosted, tokens

    def get(self, game_id: str) -> HostedGame:
        with self._lock:
            hosted = self._games.get(game_id)
        if hosted is not None:
            return hosted
        loaded = self.store.load(game_id)
        if loaded is None:
            raise RequestError("NOT_FOUND", f"no game {game_id!r} on this server", "game_id")
        record, moves = loaded
        hosted = HostedGame(record, replay(record, moves), moves)
        with self._lock:
            return self._games.setdefault(game_id, hosted)

    # -- access ----------------------------------------------------------------------------------------------------
    def authorize(self, hosted: HostedGame, seat: int, token: str | None) -> None:
        if not 0 <= seat < hosted.record.players:
            raise RequestError("INVALID_ARGUMENT", f"seat must be 0..{hosted.record.players - 1}", "seat")
        if not token:
            raise RequestError("UNAUTHENTICATED", "send the seat's token as 'authorization: Bearer <token>'")
        digest = hash_token(token)
        if hmac.compare_digest(digest, hosted.record.token_hashes[seat]):
            return
        if any(hmac.compare_digest(digest, h) for h in hosted.record.token_hashes):
            raise RequestError("PERMISSION_DENIED", f"this token belongs to another seat, not seat {seat}")
        raise RequestError("UNAUTHENTICATED", "unknown token for this game")

    # -- moves -----------------------------------------------------------------------------------------------------
    def act(self, hosted: HostedGame, seat: int, action: int | str, expected_move: int | None) -> tuple[int, list]:
        """Validate and play ``seat``'s move, then chance and bot moves until a human seat is to act.

        Returns the move number of the played move and the moves that followed. Nothing changes on any error."""
        with hosted.lock:
            state = hosted.state
            if expected_move is not None and expected_move != len(hosted.moves):
                raise RequestError(
                    "FAILED_PRECONDITION",
                    f"the game is at move {len(hosted.moves)}, not "
                    f"{expected_move}: somebody moved first; GetView shows the position",
                    "expected_move_number",
                )
            if state.is_terminal():
                raise RequestError("FAILED_PRECONDITION", "the game is over")
            if state.current_player() != seat:
                raise RequestError(
                    "FAILED_PRECONDITION", f"it is not seat {seat}'s turn (seat {state.current_player()} is to act)"
                )
            if isinstance(action, str):
                try:
                    action = state.string_to_action(action)
                except engine_ext.IllegalAction as err:
                    raise RequestError(
                        "INVALID_ARGUMENT", f"{err}; GetView lists the legal actions", "action_text"
                    ) from None
            if action not in state.legal_actions():
                raise RequestError(
                    "INVALID_ARGUMENT",
                    f"action {action} is not legal for seat {seat} here; "
                    "GetView lists the legal actions with their ids and text",
                    "action_id",
                )
            trial = state.clone()
            trial.apply(action)
            probe = HostedGame(hosted.record, trial, hosted.moves + [action])
            followed = self._advance_plan(probe)
            number = len(hosted.moves)
            self.store.append(hosted.game_id, number, [action] + followed)
            hosted.state = probe.state
            hosted.moves.extend([action] + followed)
            hosted.changed.notify_all()
            return number, followed

    def _advance_plan(self, hosted: HostedGame) -> list[int]:
        """Chance draws and bot moves from ``hosted.state`` (played on it) until a human seat acts or the end."""
        played = []
        state = hosted.state
        while not state.is_terminal():
            player = state.current_player()
            number = len(hosted.moves) + len(played)
            if player == engine_ext.CHANCE:
                action = core.sample_chance(state, chance_seed(hosted.record.seed, number))
            elif hosted.record.seats[player]["is_bot"]:
                action = self.bot_action(hosted.record, state, player, number)
            else:
                break
            state.apply(action)
            played.append(action)
        return played

    def bot_action(self, record: GameRecord, state, seat: int, number: int) -> int:
        settings = dict(record.seats[seat]["bot"] or DEFAULT_BOT)
        settings["seed"] = (int(settings.get("seed") or 0) + chance_seed(record.seed, number)) % 2**63
        budget = checked_budget(settings)
        self.slots.acquire()
        try:
            return run_search(state, seat, budget).best.action
        finally:
            self.slots.release()

    def bot_move(self, hosted: HostedGame, seat: int) -> tuple[int, list]:
        """The server's bot plays ``seat``'s turn (with the seat's bot settings, or the defaults)."""
        with hosted.lock:
            if hosted.state.is_terminal():
                raise RequestError("FAILED_PRECONDITION", "the game is over")
            if hosted.state.current_player() != seat:
                raise RequestError("FAILED_PRECONDITION", f"it is not seat {seat}'s turn")
            action = self.bot_action(hosted.record, hosted.state, seat, len(hosted.moves))
            return self.act(hosted, seat, action, None)


def chance_seed(game_seed: int, move_number: int) -> int:
    return (game_seed * 6364136223846793005 + move_number * 1442695040888963407 + 1) % 2**64
