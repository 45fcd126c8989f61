"""The atoll.v1.Atoll servicer: request checking, views, searches and streams over the hosted games."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time

import grpc
from google.protobuf import struct_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

import engine_ext
import search
from atoll.v1 import atoll_pb2 as pb
from atoll.v1 import atoll_pb2_grpc
from engine_ext import core
from server import codec
from server.hosting import DEFAULT_BOT, GameHost, HostedGame, RequestError, checked_budget, history, run_search

log = logging.getLogger("atoll.server")

GAME_INFO = {
    "survive": (
        2,
        5,
        "Survive The Island (Asmodee 2024 rulebook) with the rulings of docs/rules/survive.md",
        [
            (
                "hourglass",
                "beach_forest",
                "beach_forest: beach and forest tiles carry the hourglass; beach: only beaches",
            )
        ],
    ),
    "kuhn_poker": (2, 10, "Kuhn poker exactly as OpenSpiel's kuhn_poker", []),
    "leduc_poker": (
        2,
        10,
        "Leduc poker exactly as OpenSpiel's leduc_poker (default options)",
        [("starting_player", "0", "the seat that opens both betting rounds")],
    ),
}
INT_OPTIONS = {"starting_player"}
ANALYZE_FIRST_ITERATIONS = 500


def abort(context: grpc.ServicerContext, err: RequestError) -> None:
    """Fail the call with a rich status: the code, a message, and a BadRequest naming the field when there is one."""
    status = status_pb2.Status(code=getattr(code_pb2, err.code), message=str(err))
    if err.field:
        detail = error_details_pb2.BadRequest(
            field_violations=[error_details_pb2.BadRequest.FieldViolation(field=err.field, description=str(err))]
        )
        status.details.add().Pack(detail)
    context.abort_with_status(rpc_status.to_status(status))


def bearer_token(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata():
        if key == "authorization" and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None


def settings_dict(settings: pb.BotSettings) -> dict:
    return {
        "algorithm": settings.algorithm,
        "iterations": settings.iterations,
        "time_ms": settings.time_ms,
        "threads": settings.threads,
        "seed": settings.seed,
        "top_k": settings.top_k,
    }


def board_text(state: engine_ext.State, seat: int) -> str:
    """A drawing that shows only what ``seat`` may see (Survive's board holds no secret; poker shows the view)."""
    if state.game_name == "survive":
        return str(state)
    obs = state.observation(seat)
    return " | ".join(f"{k} {v}" for k, v in obs.items() if k not in ("game", "players"))


class AtollService(atoll_pb2_grpc.AtollServicer):
    def __init__(self, host: GameHost):
        self.host = host

    # -- helpers -------------------------------------------------------------------------------------------------------
    def _logged(self, method: str, context, started: float, **fields) -> None:
        entry = {"method": method, "ms": round((time.perf_counter() - started) * 1000, 2), **fields}
        log.info(json.dumps(entry, sort_keys=True))

    def _view(self, hosted: HostedGame, seat: int) -> pb.View:
        state = hosted.state
        view = pb.View(
            game_id=hosted.game_id,
            seat=seat,
            move_number=len(hosted.moves),
            current_player=state.current_player(),
            game_over=state.is_terminal(),
            observation=codec.observation_to_proto(state.observation(seat)),
            board=board_text(state, seat),
        )
        if state.current_player() == seat:
            view.legal_actions.extend(pb.Action(id=a, text=state.action_to_string(a)) for a in state.legal_actions())
        if state.is_terminal():
            view.returns.extend(state.returns())
            view.scores.extend(state.scores())
        return view

    def _records(self, hosted: HostedGame, seat: int, start: int) -> list[pb.MoveRecord]:
        return [
            pb.MoveRecord(move_number=n, actor=actor, action=pb.Action(id=obs, text=text))
            for n, actor, obs, text in history(hosted.record, hosted.moves, seat, start)
        ]

    def _authorized(self, game_id: str, seat: int, context) -> HostedGame:
        hosted = self.host.get(game_id)
        self.host.authorize(hosted, seat, bearer_token(context))
        return hosted

    # -- RPCs ---------------------------------------------------------------------------------------------------------
    def ListGames(self, request, context):
        self._logged("ListGames", context, time.perf_counter())
        games = []
        for name in engine_ext.GAMES:
            low, high, text, options = GAME_INFO[name]
            games.append(
                pb.GameInfo(
                    name=name,
                    min_players=low,
                    max_players=high,
                    description=text,
                    options=[pb.GameOption(name=o, default_value=d, description=t) for o, d, t in options],
                )
            )
        return pb.ListGamesResponse(games=games)

    def CreateGame(self, request, context):
        started = time.perf_counter()
        try:
            options = {}
            for key, value in request.options.items():
                if key not in {o for o, _, _ in GAME_INFO.get(request.game, (0, 0, "", []))[3]}:
                    raise RequestError(
                        "INVALID_ARGUMENT", f"unknown option {key!r} for {request.game!r}", f"options.{key}"
                    )
                options[key] = int(value) if key in INT_OPTIONS and value.lstrip("-").isdigit() else value
            seats = [{"is_bot": s.is_bot, "bot": settings_dict(s.bot)} for s in request.seats]
            hosted, tokens = self.host.create(request.game, request.players, request.seed, options, seats)
        except RequestError as err:
            abort(context, err)
        self._logged("CreateGame", context, started, game=request.game, players=request.players, game_id=hosted.game_id)
        return pb.CreateGameResponse(
            game_id=hosted.game_id,
            move_number=len(hosted.moves),
            seats=[
                pb.SeatToken(seat=k, token=t, is_bot=hosted.record.seats[k]["is_bot"]) for k, t in enumerate(tokens)
            ],
        )

    def GetView(self, request, context):
        started = time.perf_counter()
        try:
            hosted = self._authorized(request.game_id, request.seat, context)
            with hosted.lock:
                view = self._view(hosted, request.seat)
        except RequestError as err:
            self._logged("GetView", context, started, game_id=request.game_id, seat=request.seat, error=err.code)
            abort(context, err)
        self._logged("GetView", context, started, game_id=request.game_id, seat=request.seat)
        return view

    def Act(self, request, context):
        started = time.perf_counter()
        try:
            hosted = self._authorized(request.game_id, request.seat, context)
            which = request.WhichOneof("move")
            if which is None:
                raise RequestError("INVALID_ARGUMENT", "send action_id or action_text", "move")
            action = request.action_id if which == "action_id" else request.action_text
            expected = request.expected_move_number if request.HasField("expected_move_number") else None
            number, _ = self.host.act(hosted, request.seat, action, expected)
            response = self._act_response(hosted, request.seat, number)
        except RequestError as err:
            self._logged("Act", context, started, game_id=request.game_id, seat=request.seat, error=err.code)
            abort(context, err)
        self._logged("Act", context, started, game_id=request.game_id, seat=request.seat)
        return response

    def _act_response(self, hosted: HostedGame, seat: int, number: int) -> pb.ActResponse:
        with hosted.lock:
            records = self._records(hosted, seat, number)
            return pb.ActResponse(played=records[0], followed=records[1:], view=self._view(hosted, seat))

    def BotMove(self, request, context):
        started = time.perf_counter()
        try:
            hosted = self._authorized(request.game_id, request.seat, context)
            number, _ = self.host.bot_move(hosted, request.seat)
            response = self._act_response(hosted, request.seat, number)
        except RequestError as err:
            self._logged("BotMove", context, started, game_id=request.game_id, seat=request.seat, error=err.code)
            abort(context, err)
        self._logged("BotMove", context, started, game_id=request.game_id, seat=request.seat)
        return response

    def _position(self, request, context) -> tuple[engine_ext.State, int]:
        which = request.WhichOneof("position")
        if which == "hosted":
            hosted = self._authorized(request.hosted.game_id, request.hosted.seat, context)
            with hosted.lock:
                return hosted.state.clone(), request.hosted.seat
        if which == "observation":
            try:
                obs = codec.observation_from_proto(request.observation)
                state = engine_ext.from_observation(obs.get("game"), obs)
            except codec.CodecError as err:
                raise RequestError("INVALID_ARGUMENT", str(err), err.field) from None
            except engine_ext.InvalidObservation as err:
                raise RequestError("INVALID_ARGUMENT", str(err), f"observation.{err.field}") from None
            except (KeyError, ValueError, TypeError) as err:
                raise RequestError("INVALID_ARGUMENT", f"not a valid observation: {err}", "observation") from None
            return state, obs["seat"]
        raise RequestError("INVALID_ARGUMENT", "send hosted (game id and seat) or an observation", "position")

    def _search_response(self, state, seat: int, result: search.SearchResult, final: bool) -> pb.SuggestResponse:
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
                stopped_early=stats["cancelled"],
            ),
            belief=belief,
            final=final,
        )

    def _prepare_search(self, request, context):
        state, seat = self._position(request, context)
        if state.current_player() != seat:
            raise RequestError(
                "FAILED_PRECONDITION", f"seat {seat} is not to act (current player {state.current_player()})"
            )
        budget = checked_budget(settings_dict(request.settings), context.time_remaining())
        if not self.host.slots.try_acquire():
            raise RequestError("RESOURCE_EXHAUSTED", f"{self.host.slots.limit} searches are running; retry later")
        return state, seat, budget

    def Suggest(self, request, context):
        started = time.perf_counter()
        try:
            state, seat, budget = self._prepare_search(request, context)
        except RequestError as err:
            self._logged("Suggest", context, started, error=err.code, field=err.field)
            abort(context, err)
        control = search.Control()
        context.add_callback(control.cancel)
        try:
            result = run_search(state, seat, budget, control)
        finally:
            self.host.slots.release()
        self._logged(
            "Suggest",
            context,
            started,
            game=state.game_name,
            seat=seat,
            iterations=budget.iterations,
            time_ms=budget.time_ms,
            done=result.stats["iterations"],
        )
        return self._search_response(state, seat, result, True)

    def Analyze(self, request, context):
        """Searches of doubling size, each streamed; the last (the full budget, a deadline or a cancel) is final."""
        started = time.perf_counter()
        try:
            state, seat, budget = self._prepare_search(request, context)
        except RequestError as err:
            abort(context, err)
        control = search.Control()
        context.add_callback(control.cancel)
        deadline = time.monotonic() + budget.time_ms / 1000.0 if budget.time_ms else None
        total = budget.iterations
        step = min(ANALYZE_FIRST_ITERATIONS, total) if total else ANALYZE_FIRST_ITERATIONS
        try:
            while True:
                left_ms = (deadline - time.monotonic()) * 1000.0 if deadline else None
                last = (total is not None and step >= total) or (left_ms is not None and left_ms <= 0)
                result = search.suggest(
                    state,
                    seat,
                    algorithm=budget.algorithm,
                    iterations=min(step, total or step),
                    time_ms=max(1.0, left_ms) if left_ms is not None else None,
                    threads=budget.threads,
                    seed=budget.seed,
                    top_k=budget.top_k,
                    control=control,
                )
                last = last or control.cancelled or (deadline is not None and time.monotonic() >= deadline)
                if not context.is_active():
                    return
                yield self._search_response(state, seat, result, last)
                if last:
                    break
                step *= 2
        finally:
            self.host.slots.release()
            self._logged("Analyze", context, started, game=state.game_name, seat=seat)

    def PlayGame(self, request, context):
        self._logged(
            "PlayGame",
            context,
            time.perf_counter(),
            game=request.game,
            players=request.players,
            bots=[settings_dict(b) for b in request.bots],
        )
        try:
            if request.game not in engine_ext.GAMES:
                raise RequestError("INVALID_ARGUMENT", f"unknown game {request.game!r}", "game")
            options = {
                k: int(v) if k in INT_OPTIONS and v.lstrip("-").isdigit() else v for k, v in request.options.items()
            }
            try:
                state = engine_ext.new_game(request.game, request.players, request.seed, **options)
            except (TypeError, ValueError) as err:
                raise RequestError("INVALID_ARGUMENT", str(err), "players") from None
            bots = [settings_dict(b) for b in request.bots] + [dict(DEFAULT_BOT)] * request.players
            budgets = [checked_budget(b) for b in bots[: request.players]]
        except RequestError as err:
            abort(context, err)
        number = 0
        while not state.is_terminal() and context.is_active():
            actor = state.current_player()
            if actor == engine_ext.CHANCE:
                action = core.sample_chance(state, (request.seed * 1_000_003 + number) % 2**64)
            else:
                self.host.slots.acquire()
                try:
                    budget = budgets[actor]
                    seeded = dataclasses.replace(budget, seed=(budget.seed + number) % 2**63)
                    action = run_search(state, actor, seeded).best.action
                finally:
                    self.host.slots.release()
            text = state.action_to_string(action)
            state.apply(action)
            event = pb.GameEvent(
                move=pb.MoveRecord(move_number=number, actor=actor, action=pb.Action(id=action, text=text)),
                view=pb.View(
                    move_number=number + 1,
                    current_player=state.current_player(),
                    game_over=state.is_terminal(),
                    board=str(state),
                ),
                final=state.is_terminal(),
            )
            if state.is_terminal():
                event.returns.extend(state.returns())
                event.scores.extend(state.scores())
            number += 1
            yield event

    def WatchGame(self, request, context):
        self._logged(
            "WatchGame",
            context,
            time.perf_counter(),
            game_id=request.game_id,
            seat=request.seat,
            from_move=request.from_move,
        )
        try:
            hosted = self._authorized(request.game_id, request.seat, context)
        except RequestError as err:
            abort(context, err)
        sent = max(0, request.from_move)
        stop = threading.Event()
        context.add_callback(stop.set)
        while context.is_active() and not stop.is_set():
            with hosted.lock:
                if sent >= len(hosted.moves) and not hosted.state.is_terminal():
                    hosted.changed.wait(timeout=1.0)
                records = self._records(hosted, request.seat, sent) if sent < len(hosted.moves) else []
                view = self._view(hosted, request.seat)
                over = hosted.state.is_terminal()
            for k, record in enumerate(records):
                final = over and k == len(records) - 1
                event = pb.GameEvent(move=record, final=final)
                if k == len(records) - 1:
                    event.view.CopyFrom(view)
                if final:
                    event.returns.extend(view.returns)
                    event.scores.extend(view.scores)
                yield event
            sent += len(records)
            if over and sent >= len(hosted.moves):
                return
