"""Hosted games: seats and tokens, moves validated and persisted before they count, chance and bots played by the
one game loop (``search.play``), and each seat's view of the game kept as it happens.

Everything a seat gets from here is computed from ``state.observation(seat)`` alone: its view's board is the game's
``draw(observation)``, its legal moves and their labels come from ``from_observation(observation)``, each move it sees
is ``observed_action(action, seat)`` written out in such an observer's position, and refusals list moves from that
same position. The true state never reaches a string a seat receives.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import engine_ext
import search
from search import play
from search.play import BotSettings, Position, Step
from server.budget import Limits
from server.errors import RequestError, short
from server.store import GameRecord, GameStore


@dataclass(frozen=True)
class SeatMove:
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


@dataclass(frozen=True)
class Played:
    """The move a seat made (or had its bot make), the moves that followed until a human seat is to act, and the
    seat's view after them."""

    played: SeatMove
    followed: list[SeatMove]
    view: SeatView


@dataclass
class _Hosted:
    record: GameRecord
    position: Position
    logs: list[list[SeatMove]]  # per seat: every move as that seat saw it
    lock: threading.RLock = field(default_factory=threading.RLock)
    # Per bot seat, its kept search trees (settings with ``reuse`` or ``beliefs``), kept between requests as the game
    # loop of the arena keeps them, so a hosted bot plays as the configuration measured there (bounded over all games
    # by ``GameHost.kept_bytes``).
    keepers: dict[int, search.TreeKeeper] = field(default_factory=dict)
    actions: list[int] = field(default_factory=list)  # every committed move's action id (to replay the searches)
    # The keepers missed moves (a restart, a release to free memory, a failed request): rebuilt before the next move.
    trees_stale: bool = False
    changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    @property
    def bots(self) -> list[BotSettings | None]:
        return [BotSettings.from_dict(s["bot"]) if s["is_bot"] else None for s in self.record.seats]


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


class GameHost:
    def __init__(self, store: GameStore, limits: Limits, kept_bytes: int = KEPT_BYTES):
        self.store = store
        self.limits = limits
        self.kept_bytes = kept_bytes
        self._games: dict[str, _Hosted] = {}
        self._kept: OrderedDict[str, _Hosted] = OrderedDict()  # games holding trees, least recently played first
        self._lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------------------------------
    def create(
        self,
        game: str,
        players: int,
        seed: int | None,
        options: dict[str, str],
        seats: list[BotSettings | None],
        control: search.Control,
    ) -> Created:
        """A new hosted game; its opening chance and bot moves are played before it is stored. Without a ``seed``
        the game gets a secret one from ``secrets``."""
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
            state = _setup(record)
        except ValueError as err:  # an option whose range depends on the players (Leduc's starting_player)
            raise RequestError("INVALID_ARGUMENT", str(err), "options") from None
        hosted = _Hosted(record, Position(state), [[] for _ in range(players)])
        followed = self._advance(hosted, Position(state.clone(), keepers=hosted.keepers), control)
        self.store.create(record, [s.action for s, _ in followed])
        with hosted.lock:
            self._commit(hosted, followed)
        with self._lock:
            self._games[record.game_id] = hosted
        return Created(record.game_id, tokens, [bot is not None for bot in seats], hosted.position.moves)

    def _get(self, game_id: str) -> _Hosted:
        with self._lock:
            hosted = self._games.get(game_id)
        if hosted is not None:
            return hosted
        loaded = self.store.load(game_id)
        if loaded is None:
            raise RequestError("NOT_FOUND", f"no game {short(game_id)!r} on this server", "game_id")
        record, moves = loaded
        hosted = _Hosted(record, Position(_setup(record)), [[] for _ in range(record.players)])
        for action in moves:
            seen = self._seen(hosted.position, action)
            hosted.position.apply(action)
            hosted.actions.append(action)
            for seat, move in enumerate(seen):
                hosted.logs[seat].append(move)
        hosted.trees_stale = bool(moves)  # its bots' trees did not survive the restart
        with self._lock:
            return self._games.setdefault(game_id, hosted)

    # -- access ----------------------------------------------------------------------------------------------------
    def _authorized(self, game_id: str, seat: int, token: str | None) -> _Hosted:
        hosted = self._get(game_id)
        players = hosted.record.players
        if not 0 <= seat < players:
            raise RequestError("INVALID_ARGUMENT", f"seat must be 0..{players - 1}", "seat")
        if not token:
            raise RequestError("UNAUTHENTICATED", "send the seat's token as 'authorization: Bearer <token>'")
        digest = hash_token(token)
        if hosted.record.token_hashes[seat] and hmac.compare_digest(digest, hosted.record.token_hashes[seat]):
            return hosted
        if any(h and hmac.compare_digest(digest, h) for h in hosted.record.token_hashes):
            raise RequestError("PERMISSION_DENIED", f"this token belongs to another seat, not seat {seat}")
        if not hosted.record.token_hashes[seat]:
            raise RequestError("PERMISSION_DENIED", f"seat {seat} is a bot seat: nobody holds its token")
        raise RequestError("UNAUTHENTICATED", "unknown token for this game")

    def view(self, game_id: str, seat: int, token: str | None) -> SeatView:
        hosted = self._authorized(game_id, seat, token)
        with hosted.lock:
            return self._view(hosted, seat)

    def observation(self, game_id: str, seat: int, token: str | None) -> dict:
        """The seat's observation (what a search for that seat may read)."""
        hosted = self._authorized(game_id, seat, token)
        with hosted.lock:
            return hosted.position.state.observation(seat)

    def watch(self, game_id: str, seat: int, token: str | None) -> _Watch:
        return _Watch(self, self._authorized(game_id, seat, token), seat)

    def _view(self, hosted: _Hosted, seat: int) -> SeatView:
        state = hosted.position.state
        return seat_view(hosted.record.game_id, state, seat, hosted.position.moves, hosted.record.seed)

    # -- moves -----------------------------------------------------------------------------------------------------
    def act(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        action: int | str,
        expected_move: int | None,
        control: search.Control,
    ) -> Played:
        """Validate and play ``seat``'s move, then chance and bot moves until a human seat is to act.

        Nothing changes on any error, nor when ``control`` is cancelled (the caller went away) while bots think."""
        hosted = self._authorized(game_id, seat, token)
        with hosted.lock:
            self._check_turn(hosted, seat, expected_move)
            mine = observer(hosted.position.state, seat)
            if isinstance(action, str):
                try:
                    action = mine.string_to_action(action)
                except engine_ext.InvalidMoveText as err:
                    raise RequestError("INVALID_ARGUMENT", str(err), "action_text") from None
                field_name = "action_text"
            else:
                field_name = "action_id"
            legal = mine.legal_actions()
            if action not in legal:
                listed = ", ".join(mine.action_to_string(a) for a in legal[:12])
                more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
                raise RequestError(
                    "INVALID_ARGUMENT",
                    f"action {action} is not legal for seat {seat} at move {hosted.position.moves}; "
                    f"legal: {listed}{more} (GetView lists them with their ids)",
                    field_name,
                )
            return self._play_from(hosted, seat, action, control)

    def bot_move(self, game_id: str, seat: int, token: str | None, control: search.Control) -> Played:
        """The server's bot plays ``seat``'s turn (with the seat's bot settings, or the defaults)."""
        hosted = self._authorized(game_id, seat, token)
        with hosted.lock:
            self._check_turn(hosted, seat, None)
            settings = hosted.bots[seat] or BotSettings()
            self._ensure_trees(hosted, control)
            try:
                action = self._bot_action(hosted, hosted.position, seat, settings, control)
            except BaseException:
                self._forget_trees(hosted)
                raise
            return self._play_from(hosted, seat, action, control)

    def _check_turn(self, hosted: _Hosted, seat: int, expected_move: int | None) -> None:
        moves = hosted.position.moves
        if expected_move is not None and expected_move != moves:
            raise RequestError(
                "FAILED_PRECONDITION",
                f"the game is at move {moves}, not {expected_move}: somebody moved first; GetView shows the position",
                "expected_move_number",
            )
        state = hosted.position.state
        if state.is_terminal():
            raise RequestError("FAILED_PRECONDITION", "the game is over")
        if state.current_player() != seat:
            raise RequestError(
                "FAILED_PRECONDITION", f"it is not seat {seat}'s turn (seat {state.current_player()} is to act)"
            )

    def _play_from(self, hosted: _Hosted, seat: int, action: int, control: search.Control) -> Played:
        self._ensure_trees(hosted, control)
        trial = Position(
            hosted.position.state.clone(), hosted.position.moves, hosted.position.chance_events, hosted.keepers
        )
        first = (Step(trial.moves, seat, action), self._seen(trial, action))
        try:
            trial.apply(action)
            steps = [first] + self._advance(hosted, trial, control)
        except BaseException:
            self._forget_trees(hosted)  # they saw moves that were not kept
            raise
        self.store.append(hosted.record.game_id, first[0].number, [s.action for s, _ in steps])
        self._commit(hosted, steps)
        moves = hosted.logs[seat][first[0].number :]
        return Played(moves[0], moves[1:], self._view(hosted, seat))

    def _advance(self, hosted: _Hosted, trial: Position, control: search.Control) -> list[tuple[Step, list]]:
        """Chance and bot moves on ``trial`` until a human seat acts or the end, each with how every seat saw it.
        A cancelled ``control`` raises CANCELLED: the caller is gone, and nothing is kept."""

        def choose(state: engine_ext.State, seat: int, settings: BotSettings, number: int) -> int:
            return self._bot_action(hosted, trial, seat, settings, control)

        steps = []
        before = Position(trial.state.clone(), trial.moves, trial.chance_events)
        for step in play.play(trial, hosted.record.seed, hosted.bots, control=control, choose=choose):
            steps.append((step, self._seen(before, step.action)))
            before = Position(trial.state.clone(), trial.moves, trial.chance_events)
        if control.cancelled:
            raise RequestError("CANCELLED", "the caller went away; nothing was played")
        return steps

    def _bot_action(
        self, hosted: _Hosted, position: Position, seat: int, settings: BotSettings, control: search.Control
    ) -> int:
        keeper = hosted.keepers.setdefault(seat, search.TreeKeeper(seat))  # trial positions show it their moves
        with self.limits.search_slot(control, wait=True):
            result = play.bot_search(
                position.state.observation(seat),
                seat,
                settings,
                hosted.record.seed,
                position.moves,
                control,
                keeper=keeper,
            )
        if control.cancelled:
            raise RequestError("CANCELLED", "the caller went away; nothing was played")
        return result.best.action

    @staticmethod
    def _forget_trees(hosted: _Hosted) -> None:
        """Release the kept trees; the game's next request rebuilds them (they missed moves or saw unkept ones)."""
        for keeper in hosted.keepers.values():
            keeper.reset()
        hosted.keepers.clear()
        hosted.trees_stale = bool(hosted.actions)

    def _ensure_trees(self, hosted: _Hosted, control: search.Control) -> None:
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
        actors = [move.actor for move in hosted.logs[0]]
        searches = [seats[a].resolved(info, record.players) for a in actors if a in seats and a not in observers]
        # A time budget does not repeat; iteration budgets repeat up to REPLAY_ITERATIONS in all.
        if any(b.time_ms is not None for b in searches) or sum(b.iterations or 0 for b in searches) > REPLAY_ITERATIONS:
            seats = {s: b for s, b in seats.items() if s in observers}
        if seats:
            position = Position(_setup(record), keepers={s: search.TreeKeeper(s) for s in seats})
            with self.limits.search_slot(control, wait=True):
                for action in hosted.actions:
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
                            for keeper in position.keepers.values():
                                keeper.reset()
                            raise RequestError("CANCELLED", "the caller went away; nothing was played")
                    position.apply(action)
            hosted.keepers.update(position.keepers)
        hosted.trees_stale = False

    def _keep_trees(self, hosted: _Hosted) -> None:
        """After a commit: a finished game drops its trees; the others stay, the least recently played games'
        released (to be rebuilt when they go on) while all games together hold more than ``kept_bytes``."""
        game_id = hosted.record.game_id
        if hosted.position.state.is_terminal():
            for keeper in hosted.keepers.values():
                keeper.reset()
            hosted.keepers.clear()
            with self._lock:
                self._kept.pop(game_id, None)
            return
        if not any(keeper.bytes for keeper in hosted.keepers.values()):  # nothing held (yet): nothing to account
            with self._lock:
                self._kept.pop(game_id, None)
            return
        with self._lock:
            self._kept[game_id] = hosted
            self._kept.move_to_end(game_id)
            total = sum(k.bytes for h in self._kept.values() for k in h.keepers.values())
            for other_id, other in list(self._kept.items()):
                if total <= self.kept_bytes:
                    break
                if other is hosted or not other.lock.acquire(blocking=False):  # busy: its request holds it
                    continue
                try:
                    total -= sum(keeper.bytes for keeper in other.keepers.values())
                    self._forget_trees(other)
                finally:
                    other.lock.release()
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

    def _seen(self, position: Position, action: int) -> list[SeatMove]:
        state = position.state
        return [seen_by(state, action, position.moves, seat) for seat in range(state.num_players())]

    def _commit(self, hosted: _Hosted, steps: list[tuple[Step, list]]) -> None:
        """Make stored moves count: the position moves on, each seat's log grows, watchers wake; the bots' kept
        trees stay (within ``kept_bytes``) for their next decisions."""
        for step, seen in steps:
            hosted.position.apply(step.action)
            hosted.actions.append(step.action)
            for seat, move in enumerate(seen):
                hosted.logs[seat].append(move)
        hosted.changed.notify_all()
        self._keep_trees(hosted)


class _Watch:
    """A seat's stream of moves: ``next(timeout)`` waits for moves after the ones already sent."""

    def __init__(self, host: GameHost, hosted: _Hosted, seat: int):
        self.host = host
        self.hosted = hosted
        self.seat = seat
        self.game_id = hosted.record.game_id

    def since(self, start: int, timeout: float) -> tuple[list[SeatMove], SeatView | None, bool]:
        """Moves from ``start`` (waiting up to ``timeout`` s for one), the seat's view after them, and whether the
        game is over and every move was returned."""
        hosted = self.hosted
        with hosted.lock:
            if start >= hosted.position.moves and not hosted.position.state.is_terminal():
                hosted.changed.wait(timeout=timeout)
            moves = hosted.logs[self.seat][start:]
            view = self.host._view(hosted, self.seat) if moves else None
            over = hosted.position.state.is_terminal() and start + len(moves) >= hosted.position.moves
            return moves, view, over
