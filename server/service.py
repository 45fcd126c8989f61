"""The atoll.v1.Atoll servicer: requests in, plain results of ``GameHost`` and the search out, errors as statuses.

Every RPC goes through ``rpc``: the request bytes are parsed here (garbage is INVALID_ARGUMENT, not INTERNAL), the
call is logged as one JSON line whatever its outcome, and a ``RequestError`` becomes its status with the field named.
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import grpc
from google.protobuf import message as protobuf_message
from google.protobuf import struct_pb2

import engine_ext
import search
from atoll.v1 import atoll_pb2 as pb
from search import play
from search.play import BotSettings, Position
from server import codec
from server.budget import Limits, bot_settings, within_deadline
from server.errors import RequestError, abort, short
from server.hosting import GameHost, SeatMove, SeatView

log = logging.getLogger("atoll.server")

ANALYZE_FIRST_ITERATIONS = 500
# No request of this API comes near this size (the largest real one, a Survive observation, is a few KB): anything
# bigger is refused before it is parsed, so that parsing a huge message cannot hold the interpreter for long.
MAX_REQUEST_BYTES = 65_536
WATCH_POLL_S = 1.0


def bearer_token(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata():
        if key == "authorization" and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None


def caller_control(context: grpc.ServicerContext) -> search.Control:
    """A search control cancelled when the caller goes away (cancel, deadline, disconnect)."""
    control = search.Control()
    context.add_callback(control.cancel)
    return control


def _log(method: str, started: float, fields: dict) -> None:
    entry = {"method": method, "ms": round((time.perf_counter() - started) * 1000, 2), **fields}
    log.info(json.dumps(entry, sort_keys=True, default=str))


@contextmanager
def logged_call(name: str, context: grpc.ServicerContext) -> Iterator[dict]:
    """One log line for the call whatever happens (the block fills in ``fields``); a ``RequestError`` becomes the
    call's status."""
    started, fields = time.perf_counter(), {}
    try:
        yield fields
    except RequestError as err:
        fields.update(error=err.code, field=err.field)
        _log(name, started, fields)
        abort(context, err)
    except BaseException as exc:  # noqa: BLE001 - logged, then re-raised: a closed stream is GeneratorExit
        fields["error"] = "INTERNAL" if isinstance(exc, Exception) else "CANCELLED"
        _log(name, started, fields)
        raise
    _log(name, started, fields)


def rpc(request_type: type, streaming: bool = False) -> Callable:
    """Wrap a servicer method ``(self, request, context, fields) -> response`` (or an iterator of responses):
    parse the request bytes, map ``RequestError`` to its status, and log the call once with ``fields``."""

    def wrap(method: Callable) -> Callable:
        name = method.__name__

        def parse(raw: bytes, context: grpc.ServicerContext, fields: dict):
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

        if streaming:

            @functools.wraps(method)
            def stream(self, raw: bytes, context: grpc.ServicerContext) -> Iterator:
                with logged_call(name, context) as fields:
                    yield from method(self, parse(raw, context, fields), context, fields)
                    fields.setdefault("cancelled", not context.is_active())

            return stream

        @functools.wraps(method)
        def unary(self, raw: bytes, context: grpc.ServicerContext):
            with logged_call(name, context) as fields:
                return method(self, parse(raw, context, fields), context, fields)

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


def search_response(
    result: search.SearchResult, requested: int | None, final: bool, stopped: bool | None = None
) -> pb.SuggestResponse:
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
            stopped_early=stopped_early(result, requested) if stopped is None else stopped,
        ),
        belief=belief,
        final=final,
    )


def stopped_early(result: search.SearchResult, requested: int | None) -> bool:
    """Cancelled, or cut by a time limit (the caller's deadline included) before its iterations were done."""
    stats = result.stats
    return bool(stats["cancelled"]) or (requested is not None and stats["iterations"] < requested)


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
    """The servicer; ``handler()`` registers it with raw-bytes request parsing (see ``rpc``)."""

    def __init__(self, host: GameHost, limits: Limits):
        self.host = host
        self.limits = limits

    # -- discovery -----------------------------------------------------------------------------------------------
    @rpc(pb.ListGamesRequest)
    def ListGames(self, request, context, fields):
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

    # -- hosted games --------------------------------------------------------------------------------------------
    @rpc(pb.CreateGameRequest)
    def CreateGame(self, request, context, fields):
        fields.update(game=short(request.game), players=request.players)
        seats = []
        for k, seat in enumerate(request.seats):
            seats.append(bot_settings(seat.bot, f"seats[{k}].bot", request.game) if seat.is_bot else None)
        seed = request.seed if request.HasField("seed") else None
        created = self.host.create(
            request.game, request.players, seed, dict(request.options), seats, caller_control(context)
        )
        fields["game_id"] = created.game_id
        return pb.CreateGameResponse(
            game_id=created.game_id,
            move_number=created.move_number,
            seats=[
                pb.SeatToken(seat=k, token=token or "", is_bot=bot)
                for k, (token, bot) in enumerate(zip(created.tokens, created.bots, strict=True))
            ],
        )

    @rpc(pb.GetViewRequest)
    def GetView(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat)
        return view_message(self.host.view(request.game_id, request.seat, bearer_token(context)))

    @rpc(pb.ActRequest)
    def Act(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat)
        which = request.WhichOneof("move")
        if which is None:
            raise RequestError("INVALID_ARGUMENT", "send action_id or action_text", "move")
        action = request.action_id if which == "action_id" else request.action_text
        expected = request.expected_move_number if request.HasField("expected_move_number") else None
        played = self.host.act(
            request.game_id, request.seat, bearer_token(context), action, expected, caller_control(context)
        )
        return pb.ActResponse(
            played=move_record(played.played),
            followed=[move_record(m) for m in played.followed],
            view=view_message(played.view),
        )

    @rpc(pb.BotMoveRequest)
    def BotMove(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat)
        played = self.host.bot_move(request.game_id, request.seat, bearer_token(context), caller_control(context))
        return pb.ActResponse(
            played=move_record(played.played),
            followed=[move_record(m) for m in played.followed],
            view=view_message(played.view),
        )

    @rpc(pb.WatchGameRequest, streaming=True)
    def WatchGame(self, request, context, fields):
        fields.update(game_id=short(request.game_id), seat=request.seat, from_move=request.from_move)
        watch = self.host.watch(request.game_id, request.seat, bearer_token(context))
        with self.limits.stream(watch.game_id):
            sent = max(0, request.from_move)
            while context.is_active():
                moves, view, over = watch.since(sent, WATCH_POLL_S)
                for k, move in enumerate(moves):
                    last = k == len(moves) - 1
                    event = pb.GameEvent(move=move_record(move), final=over and last)
                    if last:
                        event.view.CopyFrom(view_message(view))
                        if over:
                            event.returns.extend(view.returns)
                            event.scores.extend(view.scores)
                    yield event
                sent += len(moves)
                if over:
                    return

    # -- searches ------------------------------------------------------------------------------------------------
    def _position(self, request, context) -> tuple[engine_ext.State, int]:
        """A state built from the searching seat's observation: a hosted seat's (token checked) or the client's own.
        The search never sees a hosted game's true state."""
        which = request.WhichOneof("position")
        if which == "hosted":
            seat = request.hosted.seat
            obs = self.host.observation(request.hosted.game_id, seat, bearer_token(context))
            return engine_ext.from_observation(obs["game"], obs), seat
        if which == "observation":
            try:
                obs = codec.observation_from_proto(request.observation)
                return engine_ext.from_observation(obs.get("game"), obs), obs["seat"]
            except codec.CodecError as err:
                raise RequestError("INVALID_ARGUMENT", str(err), err.field) from None
            except engine_ext.InvalidObservation as err:
                raise RequestError("INVALID_ARGUMENT", short(err, 300), f"observation.{err.field}") from None
            except (KeyError, ValueError, TypeError) as err:
                raise RequestError(
                    "INVALID_ARGUMENT", f"not a valid observation: {short(err, 300)}", "observation"
                ) from None
        raise RequestError("INVALID_ARGUMENT", "send hosted (game id and seat) or an observation", "position")

    def _searchable(self, request, context) -> tuple[engine_ext.State, int, BotSettings]:
        state, seat = self._position(request, context)
        if state.current_player() != seat:
            raise RequestError(
                "FAILED_PRECONDITION", f"seat {seat} is not to act (current player {state.current_player()})"
            )
        settings = within_deadline(
            bot_settings(request.settings, "settings", state.game_name), context.time_remaining()
        )
        return state, seat, settings

    @rpc(pb.SuggestRequest)
    def Suggest(self, request, context, fields):
        control = caller_control(context)
        # The slot is taken before the observation is decoded: validation work counts against the same limit.
        with self.limits.search_slot(control):
            state, seat, settings = self._searchable(request, context)
            fields.update(game=state.game_name, seat=seat, iterations=settings.iterations, time_ms=settings.time_ms)
            result = search.suggest(state, seat, settings, control=control)
        fields["done"] = result.stats["iterations"]
        return search_response(result, settings.iterations, True)

    @rpc(pb.SuggestRequest, streaming=True)
    def Analyze(self, request, context, fields):
        """Searches of doubling size, each streamed; the final message is the strongest search done (the full
        budget, or the largest one finished before a deadline or a cancel)."""
        control = caller_control(context)
        with self.limits.search_slot(control):
            state, seat, settings = self._searchable(request, context)
            fields.update(game=state.game_name, seat=seat)
            deadline = time.monotonic() + settings.time_ms / 1000.0 if settings.time_ms else None
            total = settings.iterations or (None if deadline else search.DEFAULT_ITERATIONS)
            base = settings
            step = min(ANALYZE_FIRST_ITERATIONS, total) if total else ANALYZE_FIRST_ITERATIONS
            best: search.SearchResult | None = None
            while True:
                left_ms = (deadline - time.monotonic()) * 1000.0 if deadline else None
                requested = min(step, total) if total else step
                config = replace(base, iterations=requested, time_ms=None if left_ms is None else max(1.0, left_ms))
                result = search.suggest(state, seat, config, control=control)
                if best is None or result.stats["iterations"] >= best.stats["iterations"]:
                    best = result
                cut = stopped_early(result, requested)
                if not context.is_active():
                    return
                if cut or (total is not None and step >= total):
                    yield search_response(best, None, True, stopped=cut)
                    return
                yield search_response(result, requested, False)
                step *= 2

    @rpc(pb.PlayGameRequest, streaming=True)
    def PlayGame(self, request, context, fields):
        """A whole game between the server's bots, streamed move by move. It is nobody's seat, so events show the
        full board (every bot's secrets); a game with a human seat is a hosted game."""
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
        seed = request.seed if request.HasField("seed") else None
        control = caller_control(context)
        with self.limits.stream():
            seed = seed if seed is not None else secrets.randbits(64)
            try:
                position = Position(play.new_game(request.game, request.players, seed, options))
            except ValueError as err:
                raise RequestError("INVALID_ARGUMENT", str(err), "options") from None

            def choose(state: engine_ext.State, seat: int, settings: BotSettings, number: int) -> int:
                keeper = position.keepers.setdefault(seat, search.TreeKeeper(seat))  # for settings with reuse
                with self.limits.search_slot(control, wait=True):
                    return play.bot_search(state, seat, settings, seed, number, control, keeper=keeper).best.action

            state = position.state
            before = state.clone()
            for step in play.play(position, seed, bots, control=control, choose=choose):
                text = before.action_to_string(step.action)
                event = pb.GameEvent(
                    move=pb.MoveRecord(
                        move_number=step.number, actor=step.actor, action=pb.Action(id=step.action, text=text)
                    ),
                    view=pb.View(
                        move_number=position.moves,
                        current_player=state.current_player(),
                        game_over=state.is_terminal(),
                        board=str(state),
                    ),
                    final=state.is_terminal(),
                )
                if state.is_terminal():
                    event.returns.extend(state.returns())
                    event.scores.extend(state.scores())
                    event.view.seed = seed
                yield event
                before = state.clone()
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
