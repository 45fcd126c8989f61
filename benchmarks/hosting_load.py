"""Hosting under load, against a real `atoll serve` process: games with thinking bots, players, idle watchers, a stream
of stateless Suggests and a flooding client, with a kill -9 of the server half way and a restart on the same store.

Usage: python benchmarks/hosting_load.py [--games 200] [--watchers 500] [--seconds 60] [--seed 1]

Prints JSON: Health and GetView p99 (GetView on games whose bots are thinking), timed from a probe process of its own
so that the load generator's own work does not count; Act latency beyond the bots' own search time (on the games
whose bots have time budgets, where that time is known); calls per client and how many were refused; deadline misses
(DEADLINE_EXCEEDED) of calls whose deadline exceeds their budget, and of calls whose deadline cuts their budget; moves
lost (acknowledged before the kill, missing after the restart); and each target with whether it is met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import grpc

from atoll.v1 import atoll_pb2 as pb
from atoll.v1 import atoll_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
OWN = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own: a caller of its own for the server's quotas

# (game, players); each hosted game's seat 0 is a player, the other seats bots with one of BUDGETS.
GAMES = [
    ("survive", 2),
    ("survive", 4),
    ("islet", 2),
    ("islet", 3),
    ("small_islands", 2),
    ("small_islands", 4),
    ("leduc_poker", 3),
    ("kuhn_poker", 2),
]
BUDGETS = [
    pb.BotSettings(iterations=100),
    pb.BotSettings(iterations=300),
    pb.BotSettings(iterations=1000),
    pb.BotSettings(time_ms=50),
    pb.BotSettings(time_ms=200),
    pb.BotSettings(level=2),
]
TARGET_P99_MS = 50.0
START_NICENESS = os.nice(0)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def at_start_niceness(command: list[str]) -> list[str]:
    """``command`` run at the niceness this benchmark started with, whatever the load generator's is now."""
    return ["nice", "-n", str(START_NICENESS - os.nice(0)), *command]


class Server:
    def __init__(self, db: Path, log: Path):
        self.db, self.log = db, log
        self.proc: subprocess.Popen | None = None
        self.address = ""

    def start(self) -> Server:
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                at_start_niceness([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(self.db)]),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        line = self.proc.stdout.readline()
        if not line.startswith("Atoll listening on "):
            raise RuntimeError(f"the server did not start: {line!r}")
        self.address = line.split()[3]
        return self

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> float:
        """SIGTERM; the seconds until the process is gone."""
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return float("inf")
        return time.monotonic() - started


def auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


class Load:
    """The load generator's state: the games, what each player was acknowledged, and every call's outcome."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.games: list[dict] = []
        self.acknowledged: dict[str, int] = {}  # game id -> the highest move number a reply acknowledged
        self.calls: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # client -> status -> count
        self.misses = {"within_budget": 0, "within_budget_calls": 0, "cut_by_deadline": 0, "cut_calls": 0}
        self.act_extra_ms: list[float] = []
        self.stop = asyncio.Event()

    def count(self, client: str, code: str) -> None:
        self.calls[client][code] += 1


async def create_games(stub, load: Load, count: int) -> None:
    for k in range(count):
        game, players = GAMES[k % len(GAMES)]
        budget = BUDGETS[(k // len(GAMES)) % len(BUDGETS)]
        seats = [pb.SeatConfig()] + [pb.SeatConfig(is_bot=True, bot=budget)] * (players - 1)
        reply = await stub.CreateGame(pb.CreateGameRequest(game=game, players=players, seed=k, seats=seats), timeout=60)
        load.games.append({"id": reply.game_id, "token": reply.seats[0].token, "budget": budget, "game": game})
        load.acknowledged[reply.game_id] = reply.move_number


async def player(stub, load: Load, game: dict) -> None:
    """Seat 0 of one game: looks at its view, thinks a little, plays a random legal move; acknowledged moves noted."""
    metadata = auth(game["token"])
    view = None
    while not load.stop.is_set():
        try:
            if view is None:  # the first look, or the bots were still thinking when the Act answered
                view = await stub.GetView(pb.GetViewRequest(game_id=game["id"], seat=0), timeout=10, metadata=metadata)
                load.count("players", "OK")
            if view.game_over:
                return
            if view.current_player != 0:
                view = None
                await asyncio.sleep(1.0)
                continue
            await asyncio.sleep(load.rng.uniform(0.2, 1.0))  # the player thinks
            action = load.rng.choice(view.legal_actions)
            started = time.monotonic()
            reply = await stub.Act(
                pb.ActRequest(game_id=game["id"], seat=0, action_id=action.id, expected_move_number=view.move_number),
                timeout=30,
                metadata=metadata,
            )
            elapsed_ms = (time.monotonic() - started) * 1000.0
            load.count("players", "OK")
            load.acknowledged[game["id"]] = max(load.acknowledged[game["id"]], reply.view.move_number)
            view = None if reply.bots_thinking else reply.view
            bot_moves = sum(1 for m in reply.followed if m.actor > 0)
            if game["budget"].time_ms and not reply.bots_thinking:
                load.act_extra_ms.append(elapsed_ms - bot_moves * game["budget"].time_ms)
        except grpc.aio.AioRpcError as err:
            load.count("players", err.code().name)
            view = None
            await asyncio.sleep(0.5)


async def watchers(channels, load: Load, count: int) -> list:
    """``count`` watchers of games nobody plays (idle streams), spread over the channels."""
    streams = []
    for k in range(count // 10):
        stub = atoll_pb2_grpc.AtollStub(channels[k % len(channels)])
        reply = await stub.CreateGame(pb.CreateGameRequest(game="kuhn_poker", players=2), timeout=30)
        for j in range(10):
            token = reply.seats[j % 2].token
            call = stub.WatchGame(pb.WatchGameRequest(game_id=reply.game_id, seat=j % 2), metadata=auth(token))
            streams.append(call)
    opened = 0
    for call in streams:
        try:
            await asyncio.wait_for(call.read(), 30)  # the deals: the stream is open
            opened += 1
        except (grpc.aio.AioRpcError, TimeoutError):
            load.count("watchers", "refused")
    load.calls["watchers"]["OK"] += opened
    return streams


async def suggester(stub, load: Load, observation: pb.Observation) -> None:
    """A steady client: a small search with a deadline above its budget, then one whose deadline cuts it."""
    while not load.stop.is_set():
        for settings, timeout, kind in (
            (pb.BotSettings(time_ms=100), 5.0, "within_budget"),
            (pb.BotSettings(iterations=300), 5.0, "within_budget"),
            (pb.BotSettings(iterations=500_000), 0.5, "cut_by_deadline"),
        ):
            load.misses["within_budget_calls" if kind == "within_budget" else "cut_calls"] += 1
            try:
                await stub.Suggest(pb.SuggestRequest(observation=observation, settings=settings), timeout=timeout)
                load.count("suggester", "OK")
            except grpc.aio.AioRpcError as err:
                load.count("suggester", err.code().name)
                if err.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                    load.misses[kind] += 1
            await asyncio.sleep(0.1)


async def flooder(stub, load: Load, observation: pb.Observation) -> None:
    """One client firing 64 searches at once, again and again."""

    async def one() -> None:
        try:
            await stub.Suggest(
                pb.SuggestRequest(observation=observation, settings=pb.BotSettings(time_ms=500)), timeout=30
            )
            load.count("flooder", "OK")
        except grpc.aio.AioRpcError as err:
            load.count("flooder", err.code().name)

    while not load.stop.is_set():
        await asyncio.gather(*(one() for _ in range(64)))


PROBE = """
import json, sys, time
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from atoll.v1 import atoll_pb2 as pb, atoll_pb2_grpc
address, seconds = sys.argv[1], float(sys.argv[2])
channel = grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
health, atoll = health_pb2_grpc.HealthStub(channel), atoll_pb2_grpc.AtollStub(channel)
slow = pb.SeatConfig(is_bot=True, bot=pb.BotSettings(time_ms=3000))
thinking = []
for seed in range(2):  # games whose bot thinks 3 s a move: the GetViews below land while it thinks
    game = atoll.CreateGame(pb.CreateGameRequest(game="islet", players=2, seed=seed, seats=[pb.SeatConfig(), slow]))
    md = [("authorization", "Bearer " + game.seats[0].token)]
    view = atoll.GetView(pb.GetViewRequest(game_id=game.game_id, seat=0), metadata=md)
    while True:
        try:
            reply = atoll.Act(pb.ActRequest(game_id=game.game_id, seat=0, action_id=view.legal_actions[0].id),
                              metadata=md, timeout=2.0)
        except grpc.RpcError:  # a loaded machine: look again
            view = atoll.GetView(pb.GetViewRequest(game_id=game.game_id, seat=0), metadata=md)
            continue
        view = reply.view
        if reply.bots_thinking:
            break
    thinking.append((game.game_id, md))
health_ms, view_ms, thinking_views, failures = [], [], 0, 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    try:
        started = time.perf_counter()
        health.Check(health_pb2.HealthCheckRequest(), timeout=5)
        health_ms.append((time.perf_counter() - started) * 1000)
        for game_id, md in thinking:
            started = time.perf_counter()
            view = atoll.GetView(pb.GetViewRequest(game_id=game_id, seat=0), metadata=md, timeout=5)
            view_ms.append((time.perf_counter() - started) * 1000)
            thinking_views += view.current_player != 0
            if view.current_player == 0 and not view.game_over:  # its turn again: play, the bot thinks again
                try:
                    atoll.Act(pb.ActRequest(game_id=game_id, seat=0, action_id=view.legal_actions[0].id),
                              metadata=md, timeout=0.5)
                except grpc.RpcError:
                    pass
    except grpc.RpcError:
        failures += 1
    time.sleep(0.02)
print(json.dumps({"health_ms": health_ms, "view_ms": view_ms, "thinking_views": thinking_views,
                  "failures": failures}))
"""


def probe(address: str, seconds: float) -> subprocess.Popen:
    """The measuring process, at the niceness the benchmark started with (the load generator's is raised)."""
    return subprocess.Popen(
        at_start_niceness([sys.executable, "-c", PROBE, address, str(seconds)]),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


async def phase(address: str, load: Load, seconds: float, first: bool, args) -> list:
    """Run the load against ``address`` for ``seconds``; the games are created in the first phase."""
    channels = [grpc.aio.insecure_channel(address, options=OWN) for _ in range(8)]
    stub = atoll_pb2_grpc.AtollStub(channels[0])
    if first:
        await create_games(stub, load, args.games)
    asked = await stub.CreateGame(pb.CreateGameRequest(game="survive", players=4, seed=7), timeout=30)
    view = await stub.GetView(
        pb.GetViewRequest(game_id=asked.game_id, seat=0), metadata=auth(asked.seats[0].token), timeout=30
    )
    streams = await watchers(channels[1:5], load, args.watchers)
    load.stop.clear()
    measuring = probe(address, seconds)
    tasks = [
        asyncio.ensure_future(player(atoll_pb2_grpc.AtollStub(channels[k % 8]), load, g))
        for k, g in enumerate(load.games)
    ]
    tasks.append(asyncio.ensure_future(suggester(atoll_pb2_grpc.AtollStub(channels[5]), load, view.observation)))
    tasks.append(asyncio.ensure_future(flooder(atoll_pb2_grpc.AtollStub(channels[6]), load, view.observation)))
    await asyncio.sleep(seconds)
    load.stop.set()
    out, _ = await asyncio.get_running_loop().run_in_executor(None, measuring.communicate)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for call in streams:
        call.cancel()
    for channel in channels:
        await channel.close()
    return [json.loads(out)]


async def lost_moves(address: str, load: Load) -> tuple[int, int]:
    """Games whose restarted position is behind what a reply acknowledged before the kill, and the moves missing."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = atoll_pb2_grpc.AtollStub(channel)
        games, moves = 0, 0
        for game in load.games:
            view = await stub.GetView(
                pb.GetViewRequest(game_id=game["id"], seat=0), metadata=auth(game["token"]), timeout=60
            )
            behind = load.acknowledged[game["id"]] - view.move_number
            if behind > 0:
                games, moves = games + 1, moves + behind
        return games, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--watchers", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0, help="in all: half before the kill -9, half after")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server-log", default=None, help="keep the server's log (a JSON line a call) in this file")
    parser.add_argument(
        "--client-nice",
        type=int,
        default=5,
        help="niceness of this load generator (its players, watchers, flooder and suggester; not the probe, not the "
        "server): clients that on one machine stand for clients on others, as they would be in production (0: share "
        "the cores evenly with the server)",
    )
    args = parser.parse_args()
    for name in ("games", "watchers", "seconds"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name}: expected more than 0")
    load = Load(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "games.sqlite3", Path(args.server_log or Path(tmp) / "server.log")
        server = Server(db, log).start()
        try:
            os.nice(args.client_nice)  # after the server started (it keeps its niceness); the probe resets its own
            measured = asyncio.run(phase(server.address, load, args.seconds / 2, True, args))
            server.kill()
            server = Server(db, log).start()
            lost = asyncio.run(lost_moves(server.address, load))
            load.stop = asyncio.Event()
            measured += asyncio.run(phase(server.address, load, args.seconds / 2, False, args))
            shutdown_s = server.stop()
        finally:
            if server.proc.poll() is None:  # the run failed: no server is left behind
                server.kill()
    health = [ms for m in measured for ms in m["health_ms"]]
    views = [ms for m in measured for ms in m["view_ms"]]
    refused = {client: {code: n for code, n in codes.items() if code != "OK"} for client, codes in load.calls.items()}
    report = {
        "games": args.games,
        "watchers": args.watchers,
        "seconds": args.seconds,
        "cpus": os.cpu_count(),
        "client_nice": args.client_nice,
        "health_ms": {"p50": percentile(health, 0.5), "p99": percentile(health, 0.99), "n": len(health)},
        "thinking_get_view_ms": {
            "p50": percentile(views, 0.5),
            "p99": percentile(views, 0.99),
            "n": len(views),
            "while_thinking": sum(m["thinking_views"] for m in measured),
        },
        "probe_failures": sum(m["failures"] for m in measured),
        "act_beyond_bots_ms": {
            "p50": percentile(load.act_extra_ms, 0.5),
            "p99": percentile(load.act_extra_ms, 0.99),
            "n": len(load.act_extra_ms),
        },
        "calls": {client: dict(codes) for client, codes in load.calls.items()},
        "refused": refused,
        "deadline_misses": load.misses,
        "lost_after_kill": {"games": lost[0], "moves": lost[1], "acknowledged_games": len(load.games)},
        "shutdown_s": round(shutdown_s, 2),
    }
    suggested = load.calls["suggester"]
    report["targets"] = {
        "health_p99_under_50_ms": (report["health_ms"]["p99"] or 0) < TARGET_P99_MS,
        "thinking_get_view_p99_under_50_ms": (report["thinking_get_view_ms"]["p99"] or 0) < TARGET_P99_MS,
        "no_deadline_miss_within_budget": load.misses["within_budget"] == 0,
        "cut_calls_in_time_99_percent": load.misses["cut_by_deadline"] <= 0.01 * max(1, load.misses["cut_calls"]),
        "no_acknowledged_move_lost": lost[1] == 0,
        "suggester_not_starved": suggested["OK"] > 0 and sum(refused.get("suggester", {}).values()) == 0,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
