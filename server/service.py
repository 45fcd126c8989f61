"""The atoll.v1.Atoll servicer: requests in, plain results of ``GameHost`` and the search out, errors as statuses.

Every RPC goes through ``rpc``: the request bytes are parsed here (garbage is INVALID_ARGUMENT, not INTERNAL), the
call is logged as one JSON line whatever its outcome, and a ``RequestError`` becomes its status with the field named.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
import time
import traceback
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import grpc
from google.protobuf import message as protobuf_message
from google.protobuf import struct_pb2

import engine_ext
import search
from atoll.v1 import atoll_pb2 as pb
from engine_ext import render
from search import play
from search.play import BotSettings, Position
from server import codec
from server.budget import Margin, Plan, bot_settings, deadline_of, plan, with_default_budget
from server.errors import RequestError, set_status, short
from server.hosting import GameHost, Played, SeatMove, SeatView, option_field
from server.scheduler import SearchQueue, StreamQuota, caller_key

log = logging.getLogger("atoll.server")

ANALYZE_FIRST_ITERATIONS = 500
# No request of this API comes near this size (the largest real one, a Survive observation, is a few KB): anything
# bigger is refused before it is parsed, so that parsing a huge message cannot hold the interpreter for long.
MAX_REQUEST_BYTES = 65_536
ENCODED_VIEWS = 4096
DRAWN_VIEWS = 512  # views with their SVG board, kept for the pages that ask again


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None


def caller(context: grpc.aio.ServicerContext) -> str:
    """Whom quotas count this call against: its seat token, else its connection (``scheduler.caller_key``)."""
    return caller_key(bearer_token(context), context.peer())


def _log(method: str, started: float, fields: dict) -> None:
    entry = {"method": method, "ms": round((time.perf_counter() - started) * 1000, 2), **fields}
    log.info(json.dumps(entry, sort_keys=True, default=str))


def rpc(request_type: type, streaming: bool = False) -> Callable:
    """Wrap an async servicer method ``(self, request, context, fields) -> response`` (or an async generator of
    responses): parse the request bytes, map ``RequestError`` to its status, and log the call once with ``fields``."""

    def wrap(method: Callable) -> Callable:
        name = method.__name__

        def parse(raw: bytes, fields: dict):
            if len(raw) > MAX_REQUEST_BYTES:
                fields["bytes"] = len(raw)
                raise RequestError(
                    "INVALID_ARGUMENT",
                    f"a {request_type.__name__} of {len(raw)} bytes: requests are at most {MAX_REQUEST_BYTES} bytes",
                )
            try:
                return request_type.FromString(raw)
            except protobuf_message.DecodeError:
                raise RequestError("INVALID_ARGUMENT", f"the request is not a valid {request_type.__name__}") from None

        def failed(context, started: float, fields: dict, exc: BaseException) -> bool:
            """Log the failed call; True if it is a refusal whose status is now set (the handler returns nothing)."""
            if isinstance(exc, RequestError):
                fields.update(error=exc.code, field=exc.field)
                _log(name, started, fields)
                set_status(context, exc)
                return True
            fields["error"] = "INTERNAL" if isinstance(exc, Exception) else "CANCELLED"
            _log(name, started, fields)
            if isinstance(exc, Exception):
                log.error("%s", json.dumps({"method": name, "traceback": traceback.format_exc(limit=8)}))
            return False

        if streaming:

            @functools.wraps(method)
            async def stream(self, raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator:
                started, fields = time.perf_counter(), {}
                try:
                    async for response in method(self, parse(raw, fields), context, fields):
                        yield response
                except BaseException as exc:  # noqa: BLE001 - logged, then the status (or re-raised: a cancel)
                    if failed(context, started, fields, exc):
                        return
                    raise
                _log(name, started, fields)

            return stream

        @functools.wraps(method)
        async def unary(self, raw: bytes, context: grpc.aio.ServicerContext):
            started, fields = time.perf_counter(), {}
            try:
                response = await method(self, parse(raw, fields), context, fields)
            except BaseException as exc:  # noqa: BLE001 - logged, then the status (or re-raised: a cancel)
                if failed(context, started, fields, exc):
                    return None
                raise
            _log(name, started, fields)
            return response

        return unary

    return wrap


# -- plain results -> messages -------------------------------------------------------------------------------------
def move_record(move: SeatMove) -> pb.MoveRecord:
    return pb.MoveRecord(move_number=move.number, actor=move.actor, action=pb.Action(id=move.action, text=move.text))


def view_message(view: SeatView) -> pb.View:
    msg = pb.View(
        game_id=view.game_id,
        seat=view.seat,
        move_number=view.move_number,
        current_player=view.current_player,
        game_over=view.game_over,
        observation=codec.observation_to_proto(view.observation),
        board=view.board,
        legal_actions=[pb.Action(id=a, text=t) for a, t in view.legal],
        returns=view.returns,
        scores=view.scores,
    )
    if view.seed is not None:
        msg.seed = view.seed
    return msg


def search_response(result: search.SearchResult, stopped: bool, final: bool) -> pb.SuggestResponse:
    belief = struct_pb2.Struct()
    belief.update(result.belief)
    stats = result.stats
    return pb.SuggestResponse(
        moves=[
            pb.Candidate(
                action=pb.Action(id=m.action, text=m.text),
                visits=m.visits,
                value=m.value,
                values=m.values,
                win_prob=m.win_prob,
                pv=m.pv,
                pv_actors=m.pv_actors,
            )
            for m in result.moves
        ],
        stats=pb.SearchStats(
            algorithm=stats["algorithm"],
            iterations=stats["iterations"],
            worlds_sampled=stats["worlds_sampled"],
            nodes=stats["nodes"],
            elapsed_ms=stats["elapsed_ms"],
            iterations_per_s=stats["iterations_per_s"],
            threads=stats["threads"],
            stopped_early=stopped,
        ),
        belief=belief,
        final=final,
    )


def typed_options(game: str, options: dict[str, str]) -> tuple[engine_ext.GameInfo, dict]:
    try:
        info = engine_ext.game_info(game)
    except KeyError:
        raise RequestError("INVALID_ARGUMENT", f"unknown game {short(game)!r}; ListGames lists them", "game") from None
    try:
        return info, info.parse_options(options)
    except engine_ext.InvalidOption as err:
        raise RequestError("INVALID_ARGUMENT", str(err), f"options.{short(err.option)}") from None


class AtollService:
    """The servicer; ``handler()`` registers it with raw-bytes request parsing (see ``rpc``). Its methods are
    coroutines on the server's event loop: what costs CPU runs in threads (the host's work threads, the search queue's
    search threads), so the loop stays free for every other call."""

    def __init__(self, host: GameHost, searches: SearchQueue, streams: StreamQuota, margin: Margin):
        self.host = host
        self.searches = searches
        self.streams = streams
        self.margin = margin
        self._games = self._list_games()
        # Encoded views by the SeatView they encode (the host computes one per seat and move): a view read by many
        # calls, or by every watcher of a game, is encoded once (on the loop: a fraction of a millisecond, less than a
        # turn in the work threads' queue would cost a read under load).
        self._encoded: OrderedDict[int, tuple[SeatView, pb.View]] = OrderedDict()
        self._drawn: OrderedDict[int, tuple[SeatView, pb.View]] = OrderedDict()

    async def _message(self, view: SeatView) -> pb.View:
        cached = self._encoded.get(id(view))
        if cached is not None and cached[0] is view:
            self._encoded.move_to_end(id(view))
            return cached[1]
        message = view_message(view)
        self._encoded[id(view)] = (view, message)
        if len(self._encoded) > ENCODED_VIEWS:
            self._encoded.popitem(last=False)
        return message

    async def _played(self, played: Played) -> pb.ActResponse:
        return pb.ActResponse(
            played=move_record(played.played),
            followed=[move_record(m) for m in played.followed],
            view=await self._message(played.view),
            bots_thinking=played.bots_thinking,
        )

    # -- discovery -----------------------------------------------------------------------------------------------
    @staticmethod
    def _list_games() -> pb.ListGamesResponse:
        games = []
        for name in engine_ext.GAMES:
            info = engine_ext.game_info(name)
            games.append(
                pb.GameInfo(
                    name=name,
                    title=info.title,
                    min_players=info.min_players,
                    max_players=info.max_players,
                    description=info.description,
                    options=[
                        pb.GameOption(
                            name=o.name,
                            default_value="" if o.default is None else str(o.default),
                            description=o.describe(),
                            type=o.type.__name__,
                            choices=[str(c) for c in o.choices],
                            **({"min": o.low} if o.low is not None else {}),
                            **({"max": o.high} if o.high is not None else {}),
                        )
                        for o in info.options
                    ],
                )
            )
        return pb.ListGamesResponse(games=games)

    @rpc(pb.ListGamesRequest)
    async def ListGames(self, request, context, fields):
        return self._games

    # -- hosted games --------------------------------------------------------------------------------------------
    @rpc(pb.CreateGameRequest)
    async def CreateGame(self, request, context, fields):
        fields.update(game=short(request.game), players=request.players)
        seats = []
        for k, seat in enumerate(request.seats):
            seats.append(bot_settings(seat.bot, f"seats[{k}].bot", request.game) if seat.is_bot else None)
        seed = request.seed if request.HasField("seed") else None
        created = await self.host.create(
            request.game, request.players, seed, dict(request.options), seats, deadline_of(context.time_remaining())
        )
        fields["game_id"] = created.game_id
        return pb.CreateGameResponse(
            game_id=created.game_id,
            move_number=created.move_number,
            seats=[
                pb.SeatToken(seat=k, token=token or "", is_bot=bot)
                for k, (token, bot) in enumerate(zip(created.tokens, created.bots, strict=True))
            ],
            bots_thinking=created.bots_thinking,
        )

    @rpc(pb.GetViewRequest)
    async def GetView(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat)
        view = await self.host.view(request.game_id, request.seat, bearer_token(context))
        message = await self._message(view)
        if not request.svg or view.observation.get("game") not in render.GAMES:
            return message
        drawn = self._drawn.get(id(view))
        if drawn is None or drawn[0] is not view:
            # Drawn from the seat's observation alone, in a work thread (a board is milliseconds of Python).
            with_svg = pb.View()
            with_svg.CopyFrom(message)
            with_svg.board_svg = await self.host.call(render.svg, view.observation)
            drawn = self._drawn[id(view)] = (view, with_svg)
            if len(self._drawn) > DRAWN_VIEWS:
                self._drawn.popitem(last=False)
        return drawn[1]

    @rpc(pb.ActRequest)
    async def Act(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat)
        which = request.WhichOneof("move")
        if which is None:
            raise RequestError("INVALID_ARGUMENT", "send action_id or action_text", "move")
        action = request.action_id if which == "action_id" else request.action_text
        expected = request.expected_move_number if request.HasField("expected_move_number") else None
        played = await self.host.act(
            request.game_id,
            request.seat,
            bearer_token(context),
            action,
            expected,
            deadline_of(context.time_remaining()),
        )
        return await self._played(played)

    @rpc(pb.BotMoveRequest)
    async def BotMove(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat)
        played = await self.host.bot_move(
            request.game_id, request.seat, bearer_token(context), deadline_of(context.time_remaining())
        )
        return await self._played(played)

    @rpc(pb.WatchGameRequest, streaming=True)
    async def WatchGame(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat, from_move=request.from_move)
        token = bearer_token(context)
        moves = self.host.moves(request.game_id, request.seat, token, request.from_move)
        first = await anext(moves)  # refusals (token, seat, game) come before the stream counts against a quota
        async with self.streams.stream(caller(context), request.game_id):
            batch = first
            while True:
                batch_moves, view, over = batch
                for k, move in enumerate(batch_moves):
                    last = k == len(batch_moves) - 1
                    event = pb.GameEvent(move=move_record(move), final=over and last)
                    if last:
                        event.view.CopyFrom(await self._message(view))
                        if over:
                            event.returns.extend(view.returns)
                            event.scores.extend(view.scores)
                    yield event
                if over:
                    return
                batch = await anext(moves)

    # -- searches ------------------------------------------------------------------------------------------------
    async def _position(self, request, context) -> tuple[engine_ext.State, int]:
        """A state built from the searching seat's observation: a hosted seat's (token checked) or the client's own.
        The search never sees a hosted game's true state."""
        which = request.WhichOneof("position")
        if which == "hosted":
            seat = request.hosted.seat
            obs = await self.host.observation(request.hosted.game_id, seat, bearer_token(context))
            return engine_ext.from_observation(obs["game"], obs), seat
        if which == "observation":
            # On the loop: a bounded request (64 KB, the codec's limits) decodes in about 0.1 ms, less than a hand-off
            # to a work thread and back costs a Suggest (benchmarks/service.py).
            return self._client_position(request.observation)
        raise RequestError("INVALID_ARGUMENT", "send hosted (game id and seat) or an observation", "position")

    @staticmethod
    def _client_position(message: pb.Observation) -> tuple[engine_ext.State, int]:
        try:
            obs = codec.observation_from_proto(message)
            return engine_ext.from_observation(obs.get("game"), obs), obs["seat"]
        except codec.CodecError as err:
            raise RequestError("INVALID_ARGUMENT", str(err), err.field) from None
        except engine_ext.InvalidObservation as err:
            raise RequestError("INVALID_ARGUMENT", short(err, 300), f"observation.{err.field}") from None
        except (KeyError, ValueError, TypeError) as err:
            raise RequestError(
                "INVALID_ARGUMENT", f"not a valid observation: {short(err, 300)}", "observation"
            ) from None

    async def _searchable(self, request, context) -> tuple[engine_ext.State, int, BotSettings]:
        self.searches.check_quota(caller(context))
        state, seat = await self._position(request, context)
        if state.current_player() != seat:
            raise RequestError(
                "FAILED_PRECONDITION", f"seat {seat} is not to act (current player {state.current_player()})"
            )
        return state, seat, bot_settings(request.settings, "settings", state.game_name)

    async def _search(
        self, context, state: engine_ext.State, seat: int, settings: BotSettings, deadline: float | None
    ) -> tuple[search.SearchResult, Plan]:
        """One search for a caller: queued for a slot, its budget cut to the deadline once the slot is held, and
        cancelled if the caller goes away. Returns the result and the plan it ran (for ``stopped_early``)."""
        control = search.Control()
        planned: list[Plan] = []
        started: list[float] = []

        def prepare() -> None:
            planned.append(plan(settings, deadline, self.margin.ms()))

        def work() -> search.SearchResult:
            started.append(time.monotonic())
            return search.suggest(state, seat, planned[0].settings, control=control)

        try:
            result = await self.searches.run(
                caller(context), work, control, width=settings.threads or 1, deadline=deadline, before=prepare
            )
        except asyncio.CancelledError:
            control.cancel()
            raise
        ran = planned[0]
        if ran.settings.time_ms is not None and started:
            # How far past its time limit the answer is ready (the search's stop, its principal line and belief
            # summary): what the deadline's margin must cover. Encoding and the send are measured by the benchmark.
            limit = started[0] + ran.settings.time_ms / 1000.0
            self.margin.observe(max(0.0, (time.monotonic() - limit) * 1000.0))
        return result, ran

    @rpc(pb.SuggestRequest)
    async def Suggest(self, request, context, fields):
        deadline = deadline_of(context.time_remaining())
        state, seat, settings = await self._searchable(request, context)
        fields.update(game=state.game_name, seat=seat)
        result, ran = await self._search(context, state, seat, settings, deadline)
        fields.update(iterations=ran.settings.iterations, time_ms=ran.settings.time_ms, done=result.stats["iterations"])
        return search_response(result, ran.stopped_early(result.stats), True)

    @rpc(pb.SuggestRequest, streaming=True)
    async def Analyze(self, request, context, fields):
        """Searches of doubling size, each streamed; the final message is the strongest search done (the full
        budget, or the largest one finished before a deadline or a cancel)."""
        deadline = deadline_of(context.time_remaining())
        state, seat, settings = await self._searchable(request, context)
        fields.update(game=state.game_name, seat=seat)
        async with self.streams.stream(caller(context)):
            settings = with_default_budget(settings)
            time_limit = time.monotonic() + settings.time_ms / 1000.0 if settings.time_ms else None
            total = settings.iterations
            step = min(ANALYZE_FIRST_ITERATIONS, total) if total else ANALYZE_FIRST_ITERATIONS
            best: search.SearchResult | None = None
            while True:
                left_ms = (time_limit - time.monotonic()) * 1000.0 if time_limit else None
                requested = min(step, total) if total else step
                config = replace(settings, iterations=requested, time_ms=None if left_ms is None else max(1.0, left_ms))
                result, ran = await self._search(context, state, seat, config, deadline)
                if best is None or result.stats["iterations"] >= best.stats["iterations"]:
                    best = result
                cut = ran.stopped_early(result.stats) or result.stats["iterations"] < requested
                if cut or (total is not None and step >= total):
                    yield search_response(best, cut, True)
                    return
                yield search_response(result, False, False)
                step *= 2

    @rpc(pb.PlayGameRequest, streaming=True)
    async def PlayGame(self, request, context, fields):
        """A whole game between the server's bots, streamed move by move. It is nobody's seat, so events show the
        full board (every bot's secrets); a game with a human seat is a hosted game. It counts as one of the
        caller's streams, and its bots' searches queue as the caller's."""
        fields.update(game=short(request.game), players=request.players)
        info, options = typed_options(request.game, dict(request.options))
        try:
            info.check_players(request.players)
        except ValueError as err:
            raise RequestError("INVALID_ARGUMENT", str(err), "players") from None
        if len(request.bots) > request.players:
            raise RequestError("INVALID_ARGUMENT", f"{len(request.bots)} bots for {request.players} seats", "bots")
        bots = [bot_settings(b, f"bots[{k}]", request.game) for k, b in enumerate(request.bots)]
        bots += [BotSettings()] * (request.players - len(bots))
        seed = request.seed if request.HasField("seed") else secrets.randbits(64)
        try:
            position = Position(play.new_game(request.game, request.players, seed, options))
        except ValueError as err:
            raise RequestError("INVALID_ARGUMENT", str(err), option_field(err, options)) from None
        drawn_seat = request.svg_seat if request.HasField("svg_seat") else None
        if drawn_seat is not None and (request.game not in render.GAMES or not 0 <= drawn_seat < request.players):
            raise RequestError(
                "INVALID_ARGUMENT", f"svg_seat {drawn_seat}: boards are drawn for a seat of a board game", "svg_seat"
            )
        who = caller(context)
        control = search.Control()
        async with self.streams.stream(who):
            state = position.state
            try:
                while not state.is_terminal():
                    actor = state.current_player()
                    if actor == engine_ext.CHANCE:
                        action = play.chance_action(position, seed)
                    else:
                        keeper = position.keepers.setdefault(actor, search.TreeKeeper(actor))
                        settings, number = bots[actor], position.moves

                        def work(settings=settings, number=number, keeper=keeper, actor=actor) -> int:
                            found = play.bot_search(state, actor, settings, seed, number, control, keeper=keeper)
                            return found.best.action

                        action = await self.searches.run(who, work, control, width=settings.threads or 1)
                    text = state.action_to_string(action)
                    step = position.apply(action)
                    event = pb.GameEvent(
                        move=pb.MoveRecord(
                            move_number=step.number, actor=step.actor, action=pb.Action(id=action, text=text)
                        ),
                        view=pb.View(
                            move_number=position.moves,
                            current_player=state.current_player(),
                            game_over=state.is_terminal(),
                            board=str(state),
                        ),
                        final=state.is_terminal(),
                    )
                    if drawn_seat is not None:
                        event.view.seat = drawn_seat
                        event.view.board_svg = await self.host.call(render.svg, state.observation(drawn_seat))
                    if state.is_terminal():
                        event.returns.extend(state.returns())
                        event.scores.extend(state.scores())
                        event.view.seed = seed
                    yield event
            finally:
                control.cancel()
            fields["moves"] = position.moves


def handler(service: AtollService) -> grpc.GenericRpcHandler:
    """The service's method handlers, taking request bytes so that ``rpc`` parses them (and answers garbage)."""
    descriptor = pb.DESCRIPTOR.services_by_name["Atoll"]
    handlers = {}
    for method in descriptor.methods:
        response = getattr(pb, method.output_type.name)
        function = getattr(service, method.name)
        make = grpc.unary_stream_rpc_method_handler if method.server_streaming else grpc.unary_unary_rpc_method_handler
        handlers[method.name] = make(
            function, request_deserializer=None, response_serializer=response.SerializeToString
        )
    return grpc.method_handlers_generic_handler(descriptor.full_name, handlers)
