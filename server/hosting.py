"""Hosted games: seats and tokens, moves validated and stored before they count, and the bots' turns played as jobs of
their own, off the request path.

A hosted game is its *committed position* (``_Hosted.position``): replaced, never changed, each time moves are
stored. Every read (a seat's view, a watcher's moves, the observation behind a hosted Suggest) is served from the
committed position as it stands, so no read waits for a thinking bot. Moves are committed one decision at a time
(with the chance outcomes that follow it): a human's by ``act``, a bot's by the game's *job* (``_drive``), an asyncio
task that runs while a bot or chance is to act; the job's searches queue for the cores like everyone's
(``SearchQueue``, class ``"bots"``). A commit is checked against the move number it was computed from, so two
requests that race on one game cannot both play.

Everything a seat gets from here is computed from ``state.observation(seat)`` alone: its view's board is the game's
``draw(observation)``, its legal moves and their labels come from ``from_observation(observation)``, each move it sees
is ``observed_action(action, seat)`` written out in such an observer's position, and refusals list moves from that
same position. The true state never reaches a string a seat receives.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import logging
import secrets
import sqlite3
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

import engine_ext
import search
from search import play
from search.play import BotSettings, Position, Step
from server import pg_store, replicas
from server.budget import Margin, plan
from server.errors import RequestError, short
from server.scheduler import SearchQueue
from server.store import GameRecord, GameStore, MovedOnError, NotOwnerError

log = logging.getLogger("atoll.server")
T = TypeVar("T")
MAX_TOKEN_CHARS = 256  # tokens are 32 characters; a longer one is nobody's
STORE_ERRORS = (sqlite3.Error, OSError, *pg_store.store_errors())


class SeatMove(NamedTuple):
    """One move as a seat saw it: its number, who took it, the observed action id and its text."""

    number: int
    actor: int
    action: int
    text: str


@dataclass(frozen=True)
class SeatView:
    """A seat's view of a hosted game at one move."""

    game_id: str
    seat: int
    move_number: int
    current_player: int
    game_over: bool
    observation: dict
    board: str
    legal: list[tuple[int, str]]
    returns: list[float]
    scores: list[int]
    seed: int | None  # the game's seed, once the game is over


@dataclass(frozen=True)
class Created:
    game_id: str
    tokens: list[str | None]  # one per seat; None for bot seats (nobody may read a bot's hand)
    bots: list[bool]
    move_number: int
    bots_thinking: bool  # the reply came before the bots' opening moves were done (the call's deadline was near)


@dataclass(frozen=True)
class Played:
    """The move a seat made (or had its bot make), the moves that followed until a human seat is to act, and the
    seat's view after them; ``bots_thinking`` when the reply came first (the call's deadline was near)."""

    played: SeatMove
    followed: list[SeatMove]
    view: SeatView
    bots_thinking: bool


Steps = list[tuple[Step, list[SeatMove]]]  # moves with how each seat saw them


@dataclass(eq=False)
class _Hosted:
    record: GameRecord
    position: Position  # the last committed position: replaced on each commit, never changed
    # Per seat: every committed move as that seat saw it (append-only), each a plain tuple of SeatMove's fields: tuples
    # of numbers and strings leave the garbage collector's view, which a server holding every game's log in memory
    # needs (hundreds of thousands of objects otherwise, each scanned by every full collection).
    logs: list[list[tuple]]
    # Per bot seat, its kept search trees (settings with ``reuse`` or ``beliefs``), kept between decisions as the
    # arena's game loop keeps them, so a hosted bot plays as the configuration measured there (bounded over all games
    # by ``GameHost.kept_bytes``). Only the game's job and its commits touch them.
    keepers: dict[int, search.TreeKeeper] = field(default_factory=dict)
    actions: list[int] = field(default_factory=list)  # every committed move's action id (to replay the searches)
    # The keepers missed moves (a restart, a release to free memory, a failed job): rebuilt before the next search.
    trees_stale: bool = False
    commit_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # set (and replaced) at every commit
    job: asyncio.Task | None = None
    job_control: search.Control = field(default_factory=search.Control)
    job_error: RequestError | None = None
    job_failures: int = 0  # failed commits of the job so far (a waiter hears of those that happen while it waits)
    retry_now: asyncio.Event = field(default_factory=asyncio.Event)  # a caller came: the job retries at once
    views: dict[int, SeatView] = field(default_factory=dict)  # per seat, its view of ``position`` once computed
    # On a shared store: reading the moves another replica committed; whether this replica plays the game's bots (it
    # hears every commit then); how many callers here wait on the game's moves (watchers, Acts waiting for the bots:
    # it hears every commit for them too). A game nobody follows here reads its new moves at its next call.
    refreshing: asyncio.Task | None = None
    refresh_again: bool = False
    owned: bool = False
    followers: int = 0

    @functools.cached_property
    def bots(self) -> list[BotSettings | None]:
        """Each seat's bot settings (None: a human seat), read once from the record."""
        return [BotSettings.from_dict(s["bot"]) if s["is_bot"] else None for s in self.record.seats]

    def busy(self) -> bool:
        """Its job or a commit may be using the keepers right now."""
        return (self.job is not None and not self.job.done()) or self.commit_lock.locked()

    def waiting_on_bots(self) -> bool:
        """A bot seat or chance is to act: the game's job has moves to play."""
        state = self.position.state
        if state.is_terminal():
            return False
        actor = state.current_player()
        return actor == engine_ext.CHANCE or self.bots[actor] is not None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def observer(state: engine_ext.State, seat: int) -> engine_ext.State:
    """A position built from ``seat``'s observation alone: what every string for that seat is computed from."""
    return engine_ext.from_observation(state.game_name, state.observation(seat))


def seen_by(state: engine_ext.State, step_action: int, number: int, seat: int) -> SeatMove:
    """How ``seat`` sees ``step_action`` about to be taken in ``state`` (move ``number``)."""
    observed = state.observed_action(step_action, seat)
    return SeatMove(number, state.current_player(), observed, observer(state, seat).action_to_string(observed))


def seat_view(game_id: str, state: engine_ext.State, seat: int, move_number: int, seed: int | None) -> SeatView:
    obs = state.observation(seat)
    info = engine_ext.game_info(state.game_name)
    mine = info.from_observation(obs)
    legal = [(a, mine.action_to_string(a)) for a in mine.legal_actions()] if mine.current_player() == seat else []
    over = state.is_terminal()
    return SeatView(
        game_id=game_id,
        seat=seat,
        move_number=move_number,
        current_player=state.current_player(),
        game_over=over,
        observation=obs,
        board=info.draw(obs),
        legal=legal,
        returns=state.returns() if over else [],  # at the end every seat's treasure is shown (rulebook, "End")
        scores=state.scores() if over else [],
        seed=seed if over else None,
    )


# Kept trees (and belief filters' worlds, ``search.TreeKeeper.bytes``) of hosted bot seats, over all games: beyond
# this, the least recently played games' are released (and rebuilt by replay when the game goes on).
KEPT_BYTES = 256 * 2**20
# A game whose bot seats' trees were lost rebuilds them by replaying those seats' searches from the opening (the same
# seeds give the same trees), when the searches have iteration budgets (time budgets do not repeat) and add up to at
# most this many iterations; otherwise the seats' next searches start afresh.
REPLAY_ITERATIONS = 1_000_000
# A job whose commit failed (the store refused it) tries again after this long, doubling up to the last.
JOB_RETRY_S = (0.5, 1.0, 2.0, 5.0, 10.0)


def observes_only(game: str, players: int, settings: BotSettings) -> bool:
    """Whether a bot seat's kept state is beliefs from what the moves show alone (``beliefs`` in a game with
    ``GameInfo.key_evidence`` or ``GameInfo.belief_filter``, no ``reuse``): rebuilt by showing its keeper the moves
    again, with no search."""
    info = engine_ext.game_info(game)
    config = settings.resolved(info, players)
    return search.deals_by_evidence(config, info) and not (config.algorithm == "ismcts" and config.reuse)


def needs_trees(game: str, players: int, settings: BotSettings) -> bool:
    """Whether a bot seat with ``settings`` carries trees from one decision to the next (``reuse``, ``beliefs``), or
    beliefs from what the moves show (``search.deals_by_evidence``: PIMC and flat Monte Carlo too), in a game of
    ``players`` seats (a game's defaults may differ by seat count)."""
    info = engine_ext.game_info(game)
    config = settings.resolved(info, players)
    trees = config.algorithm == "ismcts" and bool(config.reuse or config.beliefs)
    return trees or search.deals_by_evidence(config, info)


def _setup(record: GameRecord) -> engine_ext.State:
    if record.seed_scheme == 1:  # games stored before the seed derivation was unified
        return engine_ext.new_game(record.game, record.players, record.seed, **record.options)
    return play.new_game(record.game, record.players, record.seed, record.options)


def _seen(position: Position, action: int, seats: list[dict]) -> list[SeatMove]:
    """How each seat sees ``action``; a bot seat's move has no text (nobody holds a bot seat's token to read it)."""
    state = position.state
    number, actor = position.moves, state.current_player()
    return [
        SeatMove(number, actor, state.observed_action(action, seat), "")
        if seats[seat]["is_bot"]
        else seen_by(state, action, number, seat)
        for seat in range(state.num_players())
    ]


def option_field(err: ValueError, options: dict) -> str:
    """The field a set-up's refusal is about: the option its message names (the engines start it with the name), or
    ``options`` as a whole."""
    text = str(err)
    named = [name for name in options if text.startswith(name) or f"'{name}'" in text]
    return f"options.{short(named[0])}" if len(named) == 1 else "options"


def store_failed(err: Exception) -> RequestError:
    return RequestError(
        "UNAVAILABLE", f"the game store could not save the move ({type(err).__name__}); nothing was played, retry"
    )


class GameHost:
    """The hosted games of one server. Its coroutines run on the server's event loop; engine work runs in ``work``
    threads, store calls in the store's one thread, searches in ``searches``' threads."""

    def __init__(
        self,
        store: GameStore,
        searches: SearchQueue,
        kept_bytes: int = KEPT_BYTES,
        margin: Margin | None = None,
        work_threads: int = 2,
    ):
        self.store = store
        self.searches = searches
        self.margin = margin or Margin()
        self.kept_bytes = kept_bytes
        self._work = ThreadPoolExecutor(max_workers=work_threads, thread_name_prefix="work")
        store_threads = getattr(store, "pool_size", 1) if store.shared else 1
        self._store_thread = ThreadPoolExecutor(max_workers=store_threads, thread_name_prefix="store")
        # On a shared store (``share``): this replica's name among the others, its listener and its sweeper.
        self.replica: str | None = None
        self.lease_s = 0.0
        self._listener = None
        self._sweeper: asyncio.Task | None = None
        self._games: dict[str, _Hosted] = {}
        self._loading: dict[str, asyncio.Future] = {}
        self._kept: OrderedDict[str, _Hosted] = OrderedDict()  # games holding trees, least recently played first
        self._closed = False

    async def call(self, function: Callable[..., T], *args) -> T:
        """``function(*args)`` in a work thread: engine work never holds the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._work, function, *args)

    async def _stored(self, function: Callable[..., T], *args) -> T:
        """A store call in the store's thread; a failing store is UNAVAILABLE, not a traceback."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._store_thread, function, *args)
        except STORE_ERRORS as err:
            log.error('{"event": "store_error", "error": %s}', _quoted(err))
            raise store_failed(err) from None

    # -- lifecycle -------------------------------------------------------------------------------------------------
    async def create(
        self,
        game: str,
        players: int,
        seed: int | None,
        options: dict[str, str],
        seats: list[BotSettings | None],
        deadline: float | None = None,
    ) -> Created:
        """A new hosted game, stored at once; its job plays the opening chance and bot moves, and the reply waits for
        them until ``deadline`` is near. Without a ``seed`` the game gets a secret one from ``secrets``."""
        try:
            info = engine_ext.game_info(game)
        except KeyError:
            raise RequestError(
                "INVALID_ARGUMENT", f"unknown game {short(game)!r}; ListGames lists them", "game"
            ) from None
        try:
            info.check_players(players)
            typed = info.parse_options(options)
        except engine_ext.InvalidOption as err:
            raise RequestError("INVALID_ARGUMENT", str(err), f"options.{short(err.option)}") from None
        except ValueError as err:
            raise RequestError("INVALID_ARGUMENT", str(err), "players") from None
        if len(seats) > players:
            raise RequestError("INVALID_ARGUMENT", f"{len(seats)} seat configs for {players} seats", "seats")
        seats = list(seats) + [None] * (players - len(seats))
        seed = secrets.randbits(64) if seed is None else seed
        tokens = [None if bot else secrets.token_urlsafe(24) for bot in seats]
        record = GameRecord(
            game_id=secrets.token_hex(8),
            game=game,
            players=players,
            seed=seed,
            options={k: v for k, v in typed.items() if k in options},
            seats=[{"is_bot": bot is not None, "bot": bot.to_dict() if bot else {}} for bot in seats],
            token_hashes=[hash_token(t) if t else "" for t in tokens],
        )
        try:
            state = await self.call(_setup, record)
        except ValueError as err:  # an option checked at set-up (Survive's layout, Leduc's starting_player's range)
            raise RequestError("INVALID_ARGUMENT", str(err), option_field(err, options)) from None
        hosted = _Hosted(record, Position(state), [[] for _ in range(players)], owned=True)
        await self._stored(self.store.create, record, [], self.replica, hosted.waiting_on_bots())
        self._games[record.game_id] = hosted
        self._kick(hosted)
        thinking = await self._until_humans(hosted, deadline)
        return Created(record.game_id, tokens, [bot is not None for bot in seats], hosted.position.moves, thinking)

    async def _get(self, game_id: str) -> _Hosted:
        hosted = self._games.get(game_id)
        if hosted is not None and self.replica is not None:
            await self._refresh(hosted)  # another replica may have moved: every call reads the game as stored
        if hosted is None:
            loading = self._loading.get(game_id)
            if loading is None:  # one load per game, whoever asks meanwhile shares it
                loading = self._loading[game_id] = asyncio.ensure_future(self._load(game_id))
                loading.add_done_callback(lambda _: self._loading.pop(game_id, None))
            hosted = await asyncio.shield(loading)
        self._kick(hosted)  # a game loaded after a restart, or whose job failed, goes on
        return hosted

    async def _load(self, game_id: str) -> _Hosted:
        loaded = await self._stored(self.store.load, game_id)
        if loaded is None:
            raise RequestError("NOT_FOUND", f"no game {short(game_id)!r} on this server", "game_id")
        record, moves = loaded
        hosted = await self.call(self._replayed, record, moves)
        return self._games.setdefault(game_id, hosted)

    @staticmethod
    def _replayed(record: GameRecord, moves: list[int]) -> _Hosted:
        hosted = _Hosted(record, Position(_setup(record)), [[] for _ in range(record.players)])
        for action in moves:
            seen = _seen(hosted.position, action, record.seats)
            hosted.position.apply(action)
            hosted.actions.append(action)
            for seat, move in enumerate(seen):
                hosted.logs[seat].append(tuple(move))
        hosted.trees_stale = bool(moves)  # its bots' trees did not survive the restart
        return hosted

    async def close(self) -> None:
        """Stop every game's job (a bot turn in progress is not stored) and the host's threads; a replica hands its
        games to the others at once."""
        self._closed = True
        jobs = [h.job for h in self._games.values() if h.job is not None and not h.job.done()]
        for hosted in self._games.values():
            hosted.job_control.cancel()
        for job in jobs:
            job.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
            jobs.append(self._sweeper)
        await asyncio.gather(*jobs, return_exceptions=True)
        if self._listener is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._listener.stop)
            try:
                await self._stored(self.store.leave, self.replica)
            except RequestError:  # the store is gone: the others take the games over when the lease runs out
                pass
        self._work.shutdown(wait=False, cancel_futures=True)
        self._store_thread.shutdown(wait=True)

    # -- replicas (a shared store) -----------------------------------------------------------------------------------
    async def share(self, replica: str, address: str, lease_s: float = replicas.LEASE_S) -> None:
        """Serve as ``replica``, one of several on the shared store: hear the moves the others commit, beat this
        replica's heart, and take over the bots of games whose owner is gone."""
        self.replica = replica
        self.lease_s = lease_s
        self._listener = replicas.Listener(
            self.store, replica, address, self._heard, self._heard_again, beat_s=min(replicas.BEAT_S, lease_s / 5)
        )
        await asyncio.get_running_loop().run_in_executor(None, self._listener.start, asyncio.get_running_loop())
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    def _heard(self, game_id: str, moves: int) -> None:
        """A commit on the store (maybe this replica's own): a game held here that is behind reads its new moves."""
        hosted = self._games.get(game_id)
        if hosted is not None and hosted.position.moves < moves and (hosted.owned or hosted.followers):
            self._refresh_soon(hosted)

    def _heard_again(self) -> None:
        """The listener connected again after a loss: every game held here reads what it may have missed."""
        for hosted in self._games.values():
            self._refresh_soon(hosted)

    def _refresh_soon(self, hosted: _Hosted) -> None:
        """Read the game's new moves, once at a time: a commit heard during a read is read by one more."""
        if self._closed:
            return
        if hosted.refreshing is not None and not hosted.refreshing.done():
            hosted.refresh_again = True  # that read may have left the store before this commit
            return

        async def refresh() -> None:
            hosted.refresh_again = True
            while hosted.refresh_again and not self._closed:
                hosted.refresh_again = False
                try:
                    await self._refresh(hosted)
                except RequestError as err:
                    game_id = hosted.record.game_id
                    log.warning('{"event": "refresh_failed", "game_id": "%s", "code": "%s"}', game_id, err.code)

        hosted.refreshing = asyncio.get_running_loop().create_task(refresh())

    async def _refresh(self, hosted: _Hosted) -> None:
        """Read and apply the moves other replicas committed since this replica's position."""
        first = hosted.position.moves
        actions = await self._stored(self.store.tail, hosted.record.game_id, first)
        if actions:
            await self._absorb(hosted, first, actions)
            self._kick(hosted)

    async def _absorb(self, hosted: _Hosted, first: int, actions: list[int]) -> None:
        """Make moves ``first, first + 1, ...`` that another replica stored count here, as this replica's own
        commits do (the logs, the keepers, the watchers); the ones this position has already are skipped."""
        async with hosted.commit_lock:
            skip = hosted.position.moves - first
            if skip < 0 or skip >= len(actions):
                return
            base = hosted.position
            steps, after = await self.call(self._absorbed, hosted, base, actions[skip:])
            self._install(hosted, steps, after, {})
        self._keep_trees(hosted)

    @classmethod
    def _absorbed(cls, hosted: _Hosted, base: Position, actions: list[int]) -> tuple[Steps, Position]:
        """Moves another replica stored, as steps with how each seat sees them, and the position after them (its
        views made when a seat asks: another replica's moves may be read here by nobody)."""
        trial = Position(base.state.clone(), base.moves, base.chance_events)
        steps = []
        for action in actions:
            seen = _seen(trial, action, hosted.record.seats)
            steps.append((trial.apply(action), seen))
        return steps, cls._applied(hosted, base, steps, views=False)[0]

    async def _sweep(self) -> None:
        """Twice a second (at most a tenth of a lease): take over a few of the games whose bots are to act and whose
        owner is gone (a replica killed, or stopped), and start their jobs here; the other replicas' sweeps take the
        others, so a dead replica's games are shared out rather than queued behind one replica's search slots."""
        while not self._closed:
            await asyncio.sleep(min(replicas.SWEEP_S, self.lease_s / 10))
            try:
                claimed = await self._stored(
                    self.store.claim_orphans, self.replica, self.lease_s, replicas.TAKE_AT_ONCE
                )
            except RequestError:
                continue
            await asyncio.gather(*(self._take_over(game_id) for game_id in claimed))

    async def _take_over(self, game_id: str) -> None:
        """A game this replica's sweep claimed: loaded (or read again) and its job started or woken."""
        log.info('{"event": "took_over", "game_id": "%s"}', game_id)
        try:
            hosted = await self._get(game_id)
        except RequestError:
            return
        hosted.owned = True
        hosted.retry_now.set()  # its job may be waiting for the owner that is gone

    # -- access ----------------------------------------------------------------------------------------------------
    async def _authorized(self, game_id: str, seat: int, token: str | None) -> _Hosted:
        hosted = await self._get(game_id)
        players = hosted.record.players
        if not 0 <= seat < players:
            raise RequestError("INVALID_ARGUMENT", f"seat must be 0..{players - 1}", "seat")
        if not token:
            raise RequestError("UNAUTHENTICATED", "send the seat's token as 'authorization: Bearer <token>'")
        if len(token) > MAX_TOKEN_CHARS:
            raise RequestError("UNAUTHENTICATED", f"a token of {len(token)} characters: tokens are 32")
        digest = hash_token(token)
        if hosted.record.token_hashes[seat] and hmac.compare_digest(digest, hosted.record.token_hashes[seat]):
            return hosted
        if any(h and hmac.compare_digest(digest, h) for h in hosted.record.token_hashes):
            raise RequestError("PERMISSION_DENIED", f"this token belongs to another seat, not seat {seat}")
        if not hosted.record.token_hashes[seat]:
            raise RequestError("PERMISSION_DENIED", f"seat {seat} is a bot seat: nobody holds its token")
        raise RequestError("UNAUTHENTICATED", "unknown token for this game")

    async def view(self, game_id: str, seat: int, token: str | None) -> SeatView:
        """The seat's view of the committed position (computed once per seat and move)."""
        return await self._view(await self._authorized(game_id, seat, token), seat)

    async def observation(self, game_id: str, seat: int, token: str | None) -> dict:
        """The seat's observation of the committed position (what a search for that seat may read)."""
        hosted = await self._authorized(game_id, seat, token)
        return (await self._view(hosted, seat)).observation

    async def _view(self, hosted: _Hosted, seat: int, position: Position | None = None) -> SeatView:
        """The seat's view at ``position`` (default: the committed one)."""
        position = position or hosted.position
        cached = hosted.views.get(seat)
        if cached is not None and cached.move_number == position.moves:
            return cached
        view = await self.call(
            seat_view, hosted.record.game_id, position.state, seat, position.moves, hosted.record.seed
        )
        if hosted.position is position:
            hosted.views[seat] = view
        return view

    async def moves(
        self, game_id: str, seat: int, token: str | None, start: int
    ) -> AsyncIterator[tuple[list[SeatMove], SeatView, bool]]:
        """A seat's moves from ``start`` as they are committed: batches of (moves, the view after them, whether the
        game is over and every move was sent), waiting without a thread while nothing happens."""
        hosted = await self._authorized(game_id, seat, token)
        sent = max(0, start)
        hosted.followers += 1
        try:
            if self.replica is not None:  # what was committed before this replica heard the game's moves for us
                await self._refresh(hosted)
            while True:
                changed = hosted.changed
                position = hosted.position
                over = position.state.is_terminal()
                if sent < position.moves or (over and sent >= position.moves):
                    batch = [SeatMove(*move) for move in hosted.logs[seat][sent : position.moves]]
                    view = await self._view(hosted, seat, position)
                    sent = max(sent, position.moves)
                    yield batch, view, over
                    if over:
                        return
                await changed.wait()
        finally:
            hosted.followers -= 1

    # -- moves -----------------------------------------------------------------------------------------------------
    async def act(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        action: int | str,
        expected_move: int | None,
        deadline: float | None = None,
    ) -> Played:
        """Validate and commit ``seat``'s move (with the chance outcomes that follow it), then wait for the bots'
        replies, which their job plays, until a human seat is to act or ``deadline`` is near. Nothing changes on any
        error; a caller that goes away after the commit leaves the game going on."""
        hosted = await self._authorized(game_id, seat, token)
        position = hosted.position
        self._check_turn(hosted, position, seat, expected_move)
        steps = await self.call(self._human_steps, hosted, position, seat, action)
        await self._commit(hosted, position, steps)
        return await self._reply(hosted, seat, position.moves, deadline)

    def _human_steps(self, hosted: _Hosted, position: Position, seat: int, action: int | str) -> Steps:
        mine = observer(position.state, seat)
        if isinstance(action, str):
            text, field_name = action, "action_text"
            try:
                action = mine.string_to_action(action)
            except engine_ext.InvalidMoveText as err:
                raise RequestError(
                    "INVALID_ARGUMENT",
                    f"{short(text)!r} is not a move of {engine_ext.game_info(position.state.game_name).title} "
                    f"({short(err.reason, 120)}); {self._legal_listed(mine, position)}",
                    field_name,
                ) from None
            shown = repr(short(text))
        else:
            field_name, shown = "action_id", f"action {action}"
        if action not in mine.legal_actions():
            raise RequestError(
                "INVALID_ARGUMENT",
                f"{shown} is not legal for seat {seat}; {self._legal_listed(mine, position)}",
                field_name,
            )
        return self._steps_from(hosted, position, action)

    @staticmethod
    def _legal_listed(mine: engine_ext.State, position: Position) -> str:
        legal = mine.legal_actions()
        listed = ", ".join(mine.action_to_string(a) for a in legal[:12])
        more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
        return f"legal at move {position.moves}: {listed}{more} (GetView lists them with their ids)"

    @staticmethod
    def _steps_from(hosted: _Hosted, position: Position, action: int) -> Steps:
        """``action`` at ``position`` and the chance outcomes that follow it, each with how every seat sees it."""
        trial = Position(position.state.clone(), position.moves, position.chance_events)
        steps = []
        while True:
            seen = _seen(trial, action, hosted.record.seats)
            steps.append((trial.apply(action), seen))
            if trial.state.is_terminal() or trial.state.current_player() != engine_ext.CHANCE:
                return steps
            action = play.chance_action(trial, hosted.record.seed)

    async def bot_move(self, game_id: str, seat: int, token: str | None, deadline: float | None = None) -> Played:
        """The server's bot plays ``seat``'s turn (with the seat's bot settings, or the defaults), searching from the
        seat's observation as a hosted Suggest does; the move is committed only if nobody moved meanwhile."""
        hosted = await self._authorized(game_id, seat, token)
        position = hosted.position
        self._check_turn(hosted, position, seat, None)
        settings = hosted.bots[seat] or BotSettings()
        control = search.Control()
        observation = (await self._view(hosted, seat, position)).observation

        def work() -> search.SearchResult:
            planned = plan(settings, deadline, self.margin.ms()).settings  # the time left once a slot is free
            return play.bot_search(observation, seat, planned, hosted.record.seed, position.moves, control)

        caller = "token:" + hash_token(token or "")[:16]
        try:
            result = await self.searches.run(caller, work, control, width=settings.threads or 1, deadline=deadline)
        except asyncio.CancelledError:
            control.cancel()
            raise
        steps = await self.call(self._steps_from, hosted, position, result.best.action)
        await self._commit(hosted, position, steps)
        return await self._reply(hosted, seat, position.moves, deadline)

    @staticmethod
    def _check_turn(hosted: _Hosted, position: Position, seat: int, expected_move: int | None) -> None:
        if expected_move is not None and expected_move != position.moves:
            raise RequestError(
                "FAILED_PRECONDITION",
                f"the game is at move {position.moves}, not {expected_move}: somebody moved first; GetView shows the "
                "position",
                "expected_move_number",
            )
        state = position.state
        if state.is_terminal():
            raise RequestError("FAILED_PRECONDITION", "the game is over")
        if state.current_player() != seat:
            who = "chance" if state.current_player() == engine_ext.CHANCE else f"seat {state.current_player()}"
            thinking = " (its bot is thinking)" if hosted.waiting_on_bots() else ""
            raise RequestError("FAILED_PRECONDITION", f"it is not seat {seat}'s turn ({who} is to act{thinking})")

    async def _reply(self, hosted: _Hosted, seat: int, first: int, deadline: float | None) -> Played:
        self._kick(hosted)
        thinking = await self._until_humans(hosted, deadline)
        waited = time.monotonic()
        view = await self._view(hosted, seat)
        moves = [SeatMove(*move) for move in hosted.logs[seat][first : view.move_number]]
        if thinking:  # what the reply cost after the wait ended: a share of the deadline's margin
            self.margin.observe((time.monotonic() - waited) * 1000.0)
        return Played(moves[0], moves[1:], view, thinking)

    async def _until_humans(self, hosted: _Hosted, deadline: float | None) -> bool:
        """Wait until a human seat is to act or the game is over (True if the deadline's margin came first). A job
        that failed (its store refused a commit) is reported to the waiting caller."""
        failures = hosted.job_failures
        hosted.retry_now.set()
        # The reply after the wait (a view computed and encoded in a work thread) queues behind other games' work
        # when the server is loaded: the margin is the measured one, but at least a twentieth of the call's time
        # (at most 1 s), so that a long deadline is never met by a hair.
        margin_s = 0.0
        if deadline is not None:
            margin_s = max(self.margin.ms() / 1000.0, min(1.0, (deadline - time.monotonic()) / 20.0))
        hosted.followers += 1
        try:
            return await self._bots_done(hosted, deadline, margin_s, failures)
        finally:
            hosted.followers -= 1

    async def _bots_done(self, hosted: _Hosted, deadline: float | None, margin_s: float, failures: int) -> bool:
        while hosted.waiting_on_bots():
            if hosted.job_failures > failures:
                raise hosted.job_error
            changed = hosted.changed
            job = hosted.job
            waits = [asyncio.ensure_future(changed.wait())]
            if job is not None and not job.done():
                waits.append(job)
            timeout = None
            if deadline is not None:
                timeout = deadline - time.monotonic() - margin_s
                if timeout <= 0:
                    waits[0].cancel()
                    return True
            try:
                await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waits[0].cancel()
            if job is not None and job.done() and hosted.waiting_on_bots() and hosted.job_failures == failures:
                self._kick(hosted)
        return False

    # -- the bots' job ---------------------------------------------------------------------------------------------
    def _kick(self, hosted: _Hosted) -> None:
        """Start the game's job if a bot or chance is to act and none runs."""
        if self._closed or not hosted.waiting_on_bots():
            return
        if hosted.job is None or hosted.job.done():
            hosted.job_error = None
            hosted.job = asyncio.get_running_loop().create_task(self._drive(hosted))

    async def _drive(self, hosted: _Hosted) -> None:
        """Play the bots' and chance's moves, committing each decision as it is made, until a human is to act."""
        control = hosted.job_control
        failures = 0
        while hosted.waiting_on_bots() and not self._closed:
            position = hosted.position
            try:
                if self.replica is not None and not await self._owned(hosted):
                    continue
                actor = position.state.current_player()
                if actor == engine_ext.CHANCE:
                    action = play.chance_action(position, hosted.record.seed)
                else:
                    await self._ensure_trees(hosted, control)
                    action = await self._bot_action(hosted, position, actor, hosted.bots[actor], control)
                steps = await self.call(self._steps_from, hosted, position, action)
                await self._commit(hosted, position, steps, bots=True)
                failures = 0
            except asyncio.CancelledError:
                self._forget_trees(hosted)
                raise
            except NotOwnerError:  # another replica took the game over (this one was thought gone): it plays on
                hosted.owned = False
                log.warning('{"event": "lost_game", "game_id": "%s"}', hosted.record.game_id)
                self._forget_trees(hosted)
            except RequestError as err:
                self._forget_trees(hosted)
                if err.code != "UNAVAILABLE" or self._closed:  # cancelled at shutdown, or somebody moved first
                    return
                # The store failed: callers waiting on this game hear it; the job tries again.
                hosted.job_error = RequestError(
                    "UNAVAILABLE",
                    f"the game store could not save the bots' move at move {position.moves}; the moves before it "
                    "are kept and the server tries again",
                )
                hosted.job_failures += 1
                hosted.retry_now.clear()
                self._wake(hosted)
                try:
                    await asyncio.wait_for(hosted.retry_now.wait(), JOB_RETRY_S[min(failures, len(JOB_RETRY_S) - 1)])
                except TimeoutError:
                    pass
                failures += 1
            except Exception as err:  # a bug: logged, reported to the waiting callers, the game left as committed
                log.exception('{"event": "job_failed", "game_id": "%s"}', hosted.record.game_id)
                self._forget_trees(hosted)
                hosted.job_error = RequestError("INTERNAL", f"the bots' job failed ({type(err).__name__})")
                hosted.job_failures += 1
                self._wake(hosted)
                return

    async def _owned(self, hosted: _Hosted) -> bool:
        """On a shared store: whether this replica plays the game's bots (it owns the game, or takes over one whose
        owner is gone). If another plays them, wait until the game changes (its moves arrive by notification), a
        caller comes, or the sweeper hands the game to this replica; False then."""
        changed = hosted.changed
        hosted.retry_now.clear()
        hosted.owned = await self._stored(self.store.claim, hosted.record.game_id, self.replica, self.lease_s)
        if hosted.owned:
            return True
        waits = [asyncio.ensure_future(changed.wait()), asyncio.ensure_future(hosted.retry_now.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        return False

    async def _bot_action(
        self, hosted: _Hosted, position: Position, seat: int, settings: BotSettings, control: search.Control
    ) -> int:
        keeper = hosted.keepers.setdefault(seat, search.TreeKeeper(seat))

        def work() -> search.SearchResult:
            return play.bot_search(
                position.state.observation(seat),
                seat,
                settings,
                hosted.record.seed,
                position.moves,
                control,
                keeper=keeper,
            )

        result = await self.searches.run(
            "game:" + hosted.record.game_id, work, control, kind="bots", width=settings.threads or 1
        )
        if control.cancelled:
            raise RequestError("CANCELLED", "the server is shutting down; the bot's move was not played")
        return result.best.action

    async def _commit(self, hosted: _Hosted, base: Position, steps: Steps, bots: bool = False) -> None:
        """Store ``steps`` (computed at ``base``), then make them count: the committed position moves on, each
        seat's log grows, the keepers see the moves, watchers wake. Refused if the game moved on from ``base`` (here,
        or on the shared store: another replica's move); ``bots``: the game's job's moves, stored on a shared store
        only while this replica owns the game (``NotOwnerError`` otherwise)."""
        moved_on = False
        async with hosted.commit_lock:
            if hosted.position is base:
                # The human seats' next views are made now where they will be read here: on one server always; a
                # replica, when someone here waits on the game (others may read it through other replicas).
                eager = self.replica is None or hosted.followers > 0
                after, views, due = await self.call(self._applied, hosted, base, steps, eager)
                actions = [s.action for s, _ in steps]
                owner = self.replica if bots else None
                try:
                    await self._stored(self.store.append, hosted.record.game_id, base.moves, actions, owner, due)
                except MovedOnError:
                    self._forget_trees(hosted)
                    moved_on = True
                except BaseException:
                    self._forget_trees(hosted)  # they may have seen moves that were not kept
                    raise
                else:
                    self._install(hosted, steps, after, views)
            else:
                moved_on = True
        if moved_on:
            if self.replica is not None:
                await self._refresh(hosted)
            raise RequestError(
                "FAILED_PRECONDITION",
                f"the game moved on to move {hosted.position.moves} while this move was prepared at move "
                f"{base.moves}; GetView shows the position",
            )
        self._keep_trees(hosted)

    def _install(self, hosted: _Hosted, steps: Steps, after: Position, views: dict[int, SeatView]) -> None:
        """Stored moves count from now on: the logs grow, the committed position is replaced, watchers wake."""
        for step, seen in steps:
            hosted.actions.append(step.action)
            for seat, move in enumerate(seen):
                hosted.logs[seat].append(tuple(move))
        hosted.position = after
        hosted.views = views
        self._wake(hosted)

    @staticmethod
    def _wake(hosted: _Hosted) -> None:
        changed, hosted.changed = hosted.changed, asyncio.Event()
        changed.set()

    @staticmethod
    def _applied(
        hosted: _Hosted, base: Position, steps: Steps, views: bool = True
    ) -> tuple[Position, dict[int, SeatView], bool]:
        """The position after ``steps``, the human seats' views of it (what their players and watchers read next,
        made here so that no read after a move waits for a work thread; not with ``views=False``), and whether bots
        or chance are to act then; the bots' keepers see each move as their seat observes it."""
        after = Position(base.state.clone(), base.moves, base.chance_events, hosted.keepers)
        for step, _ in steps:
            after.apply(step.action)
        position = Position(after.state, after.moves, after.chance_events)
        record = hosted.record
        made = {
            seat: seat_view(record.game_id, position.state, seat, position.moves, record.seed)
            for seat, bot in enumerate(hosted.bots)
            if bot is None and views
        }
        state = position.state
        due = not state.is_terminal() and (
            state.current_player() == engine_ext.CHANCE or hosted.bots[state.current_player()] is not None
        )
        return position, made, due

    @staticmethod
    def _forget_trees(hosted: _Hosted) -> None:
        """Release the kept trees; the game's next search rebuilds them (they missed moves or saw unkept ones)."""
        for keeper in hosted.keepers.values():
            keeper.reset()
        hosted.keepers.clear()
        hosted.trees_stale = bool(hosted.actions)

    async def _ensure_trees(self, hosted: _Hosted, control: search.Control) -> None:
        """Rebuild lost trees by replaying the bot seats' searches over the committed moves (``REPLAY_ITERATIONS``),
        so the seats go on as if the trees had been kept; where that cannot be done they start afresh. Beliefs from
        what the moves show (``observes_only``) are rebuilt by showing the moves again, whatever the budget."""
        if not hosted.trees_stale:
            return
        record = hosted.record
        seats = {
            s: b for s, b in enumerate(hosted.bots) if b is not None and needs_trees(record.game, record.players, b)
        }
        info = engine_ext.game_info(record.game)
        # Seats whose keepers hold beliefs from the moves alone see the moves again (their evidence turned on at their
        # first decision, as their first search did); the others replay their searches, where those repeat.
        observers = {s for s, b in seats.items() if observes_only(record.game, record.players, b)}
        actors = [SeatMove(*move).actor for move in hosted.logs[0]]
        searches = [seats[a].resolved(info, record.players) for a in actors if a in seats and a not in observers]
        # A time budget does not repeat; iteration budgets repeat up to REPLAY_ITERATIONS in all. A replica that took
        # the game over does not replay searches at all: it may have taken many games at once, and each waits.
        if (
            self.replica is not None
            or any(b.time_ms is not None for b in searches)
            or sum(b.iterations or 0 for b in searches) > REPLAY_ITERATIONS
        ):
            seats = {s: b for s, b in seats.items() if s in observers}
        actions = list(hosted.actions)

        def replay() -> dict[int, search.TreeKeeper]:
            position = Position(_setup(record), keepers={s: search.TreeKeeper(s) for s in seats})
            for action in actions:
                actor = position.state.current_player()
                if actor in observers:  # as its first search did: from its observation, with that seed
                    view = engine_ext.from_observation(record.game, position.state.observation(actor))
                    seed = play.search_seed(seats[actor], record.seed, position.moves)
                    position.keepers[actor].start_evidence(info, view, seed)
                elif actor in seats:
                    play.bot_search(
                        position.state.observation(actor),
                        actor,
                        seats[actor],
                        record.seed,
                        position.moves,
                        control,
                        keeper=position.keepers[actor],
                    )
                    if control.cancelled:
                        raise RequestError("CANCELLED", "the server is shutting down")
                position.apply(action)
            return position.keepers

        if seats:
            hosted.keepers.update(await self.searches.run("game:" + record.game_id, replay, control, kind="bots"))
        hosted.trees_stale = False

    def _keep_trees(self, hosted: _Hosted) -> None:
        """After a commit: a finished game drops its trees; the others stay, the least recently played games'
        released (to be rebuilt when they go on) while all games together hold more than ``kept_bytes``."""
        game_id = hosted.record.game_id
        if hosted.position.state.is_terminal():
            for keeper in hosted.keepers.values():
                keeper.reset()
            hosted.keepers.clear()
            self._kept.pop(game_id, None)
            return
        if not any(keeper.bytes for keeper in hosted.keepers.values()):  # nothing held (yet): nothing to account
            self._kept.pop(game_id, None)
            return
        self._kept[game_id] = hosted
        self._kept.move_to_end(game_id)
        total = sum(k.bytes for h in self._kept.values() for k in h.keepers.values())
        for other_id, other in list(self._kept.items()):
            if total <= self.kept_bytes:
                break
            if other is hosted or other.busy():  # its job is searching with them
                continue
            total -= sum(keeper.bytes for keeper in other.keepers.values())
            self._forget_trees(other)
            del self._kept[other_id]
        if total > self.kept_bytes:  # this game alone holds more: its seats start afresh at their next search,
            for keeper in hosted.keepers.values():  # or, with beliefs from the moves alone, see the moves again
                keeper.reset()
            hosted.keepers.clear()
            del self._kept[game_id]
            record = hosted.record
            hosted.trees_stale = bool(hosted.actions) and all(
                observes_only(record.game, record.players, bot)
                for bot in hosted.bots
                if bot is not None and needs_trees(record.game, record.players, bot)
            )


def _quoted(err: Exception) -> str:
    import json

    return json.dumps(short(f"{type(err).__name__}: {err}", 200))
