"""Hosted games across server replicas on one PostgreSQL store, with replicas killed: `atoll serve` processes on a
database of their own, hosted games with bot seats whose human seat is played by clients that pick a replica at random
for every call, a watcher per game on a random replica (reconnecting elsewhere from its next move when its replica
dies), and a replica killed with kill -9 and started again on its port every ``--kill-every`` seconds.

Usage: python benchmarks/replicas.py [--replicas 3] [--games 100] [--seconds 180] [--kill-every 20] [--lease 5]
       [--throughput-games 60] [--dsn postgresql://postgres@127.0.0.1:5432/test]

Prints JSON: moves committed; moves lost (acknowledged to a player, missing from the store afterwards: must be 0);
moves played twice or out of turn (every stored log replayed by the engine, each move legal where it stands, and each
acknowledged move stored at its number as acknowledged: must be 0); the longest stall of a game whose bots were to
act, overall and after a kill (target < 2 x the lease + one bot search, where one bot search is the longest a game's
bots took away from any kill: the search and its wait behind the other games' bots on a loaded machine); watch gaps
(a watcher given a move number other than the next one: must be 0); then hosted moves per second with 1, 2, ...
replicas and no kills (the same games, players without thinking time, so the servers are the limit), with the
replicas' CPU seconds per move.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import psycopg

from atoll.v1 import atoll_pb2 as pb
from atoll.v1 import atoll_pb2_grpc
from server.hosting import _setup
from server.pg_store import PostgresStore

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("survive", 2), ("survive", 3), ("islet", 2), ("islet", 3), ("small_islands", 2), ("leduc_poker", 3)]
BUDGETS = [100, 300, 1000]  # bot seats' iterations: a takeover replays the same searches
# A player's thinking time a move in the kill run: 100 games then keep two cores busy but not saturated (with 0.2-1 s
# they are: a dead replica's 40 games' bots then queue behind each other for 12-16 s after a takeover).
THINK_S = (1.0, 3.0)
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 200), ("grpc.max_reconnect_backoff_ms", 1000)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Replica:
    def __init__(self, dsn: str, lease: float, log: Path):
        self.dsn, self.lease, self.log = dsn, lease, log
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.cpu = 0.0  # CPU seconds of earlier processes on this port

    def start(self) -> Replica:
        command = [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port), "--store", self.dsn]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                [*command, "--lease", str(self.lease)], cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True
            )
        line = self.proc.stdout.readline()
        if not line.startswith("Atoll listening on "):
            raise RuntimeError(f"the replica did not start: {line!r}")
        return self

    def cpu_now(self) -> float:
        return self.cpu + (cpu_seconds(self.proc.pid) if self.proc else 0.0)

    def kill(self) -> None:
        self.cpu += cpu_seconds(self.proc.pid)
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        self.cpu += cpu_seconds(self.proc.pid)
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Run:
    """One load: players and watchers of ``games`` games on ``stubs`` (one per replica)."""

    def __init__(self, stubs: list, rng: random.Random, think: tuple[float, float], watch: bool):
        self.stubs, self.rng, self.think, self.watch = stubs, rng, think, watch
        self.acknowledged: list[tuple[str, int, int]] = []  # (game, move number, action id) a reply acknowledged
        self.games: list[str] = []
        self.gaps = 0
        self.watched = 0
        self.refused: dict[str, int] = {}
        self.stop = asyncio.Event()

    def stub(self):
        return self.rng.choice(self.stubs)

    def count(self, err: grpc.RpcError) -> None:
        self.refused[err.code().name] = self.refused.get(err.code().name, 0) + 1

    async def create(self, k: int, seed: int | None = None) -> tuple[str, str]:
        game, players = GAMES[k % len(GAMES)]  # each slot its game and budget: the same work for every run
        budget = BUDGETS[(k // len(GAMES)) % len(BUDGETS)]
        seats = [pb.SeatConfig()] + [pb.SeatConfig(is_bot=True, bot=pb.BotSettings(iterations=budget))] * (players - 1)
        while True:
            try:
                request = pb.CreateGameRequest(game=game, players=players, seats=seats)
                if seed is not None:
                    request.seed = seed
                reply = await self.stub().CreateGame(request, timeout=30)
                return reply.game_id, reply.seats[0].token
            except grpc.RpcError as err:
                self.count(err)
                await asyncio.sleep(0.2)

    async def player(self, k: int, once: bool = False) -> None:
        """One game slot: a game played to its end by seat 0, then another, until the run stops; ``once``: one game,
        its seed and seat 0's choices fixed by ``k`` (the same game whatever the replicas)."""
        rng = random.Random(k) if once else self.rng
        while not self.stop.is_set():
            game_id, token = await self.create(k, k if once else None)
            self.games.append(game_id)
            metadata = [("authorization", f"Bearer {token}")]
            watcher = asyncio.ensure_future(self.watcher(game_id, metadata)) if self.watch else None
            over = False
            while not over and not self.stop.is_set():
                await asyncio.sleep(rng.uniform(*self.think))
                try:
                    view = await self.stub().GetView(pb.GetViewRequest(game_id=game_id, seat=0), metadata=metadata,
                                                     timeout=10)  # fmt: skip
                    over = view.game_over
                    if over or view.current_player != 0:
                        await asyncio.sleep(0.1)
                        continue
                    action = rng.choice(view.legal_actions).id
                    reply = await self.stub().Act(
                        pb.ActRequest(game_id=game_id, seat=0, action_id=action, expected_move_number=view.move_number),
                        metadata=metadata,
                        timeout=30,
                    )
                    self.acknowledged.append((game_id, reply.played.move_number, action))
                    over = reply.view.game_over
                except grpc.RpcError as err:
                    self.count(err)
            if watcher is not None:
                try:
                    await asyncio.wait_for(watcher, 30)
                except TimeoutError:
                    pass
            if once:
                return

    async def watcher(self, game_id: str, metadata) -> None:
        """Seat 0's moves on a random replica; when it dies, on another from the next move. A move number other
        than the next one is a gap."""
        expected = 0
        while not self.stop.is_set():
            call = self.stub().WatchGame(pb.WatchGameRequest(game_id=game_id, seat=0, from_move=expected),
                                         metadata=metadata)  # fmt: skip
            try:
                async for event in call:
                    if event.HasField("move"):
                        if event.move.move_number != expected:
                            self.gaps += 1
                        expected = event.move.move_number + 1
                        self.watched += 1
                    if event.final:
                        return
            except grpc.RpcError:
                await asyncio.sleep(0.2)
            finally:
                call.cancel()


async def monitor(dsn: str, stop: asyncio.Event, stalls: list[tuple[float, float, str]]) -> None:
    """Every 0.2 s: each game's stored moves; a stretch in which a game's bots were to act and nothing was stored is
    a stall, noted as (its start, its length) when it ends or the run does."""
    since: dict[str, tuple[int, float]] = {}
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as con:
        while not stop.is_set():
            now = time.monotonic()
            rows = await (
                await con.execute(
                    "SELECT g.id, g.bots_due, (SELECT count(*) FROM moves m WHERE m.game_id = g.id) FROM games g"
                )
            ).fetchall()
            for game_id, due, count in rows:
                last = since.get(game_id)
                if last is not None and (last[0] != count or not due):
                    stalls.append((last[1], now - last[1], game_id))
                    since.pop(game_id)
                if due and game_id not in since:
                    since[game_id] = (count, now)
            await asyncio.sleep(0.2)
    stalls += [(start, time.monotonic() - start, game_id) for game_id, (_, start) in since.items()]


def checked(dsn: str, acknowledged: list[tuple[str, int, int]]) -> dict:
    """Every stored log replayed by the engine (each move legal where it stands), and each acknowledged move found
    at its number as acknowledged."""
    store = PostgresStore(dsn)
    try:
        logs = {}
        illegal = 0
        for game_id in store.game_ids():
            record, moves = store.load(game_id)
            logs[game_id] = moves
            state = _setup(record)
            for action in moves:
                legal = [a for a, _ in state.chance_outcomes()] if state.current_player() < 0 else state.legal_actions()
                if state.is_terminal() or action not in legal:
                    illegal += 1
                    break
                state.apply(action)
        lost = sum(1 for g, n, _ in acknowledged if n >= len(logs.get(g, [])))
        changed = sum(1 for g, n, a in acknowledged if n < len(logs.get(g, [])) and logs[g][n] != a)
        return {"committed": sum(len(m) for m in logs.values()), "lost": lost, "illegal": illegal, "changed": changed}
    finally:
        store.close()


async def kill_run(args, dsn: str, workdir: Path) -> dict:
    replicas = [Replica(dsn, args.lease, workdir / f"replica-{k}.log").start() for k in range(args.replicas)]
    channels = [grpc.aio.insecure_channel(r.address, options=CHANNEL_OPTIONS) for r in replicas]
    run = Run([atoll_pb2_grpc.AtollStub(c) for c in channels], random.Random(args.seed), THINK_S, watch=True)
    stalls: list[tuple[float, float, str]] = []
    stop_monitor = asyncio.Event()
    watching = asyncio.ensure_future(monitor(dsn, stop_monitor, stalls))
    players = [asyncio.ensure_future(run.player(k)) for k in range(args.games)]
    kills: list[float] = []
    started = time.monotonic()
    rng = random.Random(args.seed + 1)
    while time.monotonic() - started < args.seconds:
        await asyncio.sleep(min(args.kill_every, args.seconds - (time.monotonic() - started)))
        if time.monotonic() - started >= args.seconds - 1:
            break
        victim = rng.choice(replicas)
        victim.kill()
        kills.append(time.monotonic())
        print(f"killed {victim.address} at {kills[-1] - started:.0f} s", file=sys.stderr, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, victim.start)
    run.stop.set()
    await asyncio.wait(players, timeout=60)
    stop_monitor.set()
    await watching
    for channel in channels:
        await channel.close()
    for replica in replicas:
        replica.stop()
    near = [any(k - 1 <= start + length and start <= k + args.lease * 3 for k in kills) for start, length, _ in stalls]
    after_kill = sorted(length for (_, length, _), hit in zip(stalls, near, strict=True) if hit)
    away = max((length for (_, length, _), hit in zip(stalls, near, strict=True) if not hit), default=0.0)
    longest = sorted(stalls, key=lambda stall: -stall[1])[:5]
    result = checked(dsn, run.acknowledged)
    return {
        "replicas": args.replicas,
        "games_played": len(run.games),
        "seconds": args.seconds,
        "kills": len(kills),
        "moves_committed": result["committed"],
        "moves_acknowledged": len(run.acknowledged),
        "moves_lost": result["lost"],
        "moves_played_twice_or_out_of_turn": result["illegal"] + result["changed"],
        "longest_stall_s": round(max((length for _, length, _ in stalls), default=0.0), 2),
        "longest_stalls": [
            {
                "game_id": g,
                "from_s": round(start - started, 1),
                "s": round(length, 2),
                "after_kill_s": [round(start - k, 1) for k in kills if k - 1 <= start + length and start <= k + 30],
            }
            for start, length, g in longest
        ],  # fmt: skip
        "longest_stall_after_kill_s": round(max(after_kill, default=0.0), 2),
        "stalls_after_kill_s": {
            "count": len(after_kill),
            "p50": round(after_kill[len(after_kill) // 2], 2) if after_kill else None,
            "p90": round(after_kill[int(0.9 * len(after_kill))], 2) if after_kill else None,
        },
        # One bot search under this load: the longest a game's bots took to move away from any kill (queueing
        # behind the other games' bots included).
        "longest_bot_turn_without_kill_s": round(away, 2),
        "stall_target_s": round(2 * args.lease + away, 2),
        "watch_events": run.watched,
        "watch_gaps": run.gaps,
        "refused_calls": run.refused,
    }


async def throughput(args, dsn: str, workdir: Path, count: int) -> dict:
    """``args.throughput_games`` games with fixed seeds and fixed human choices played to their ends on ``count``
    replicas, the players without thinking time: the same moves whatever the count, so the CPU per move compares."""
    replicas = [Replica(dsn, args.lease, workdir / f"throughput-{count}-{k}.log").start() for k in range(count)]
    channels = [grpc.aio.insecure_channel(r.address, options=CHANNEL_OPTIONS) for r in replicas]
    run = Run([atoll_pb2_grpc.AtollStub(c) for c in channels], random.Random(args.seed), (0.0, 0.0), watch=False)
    cpu0, t0 = sum(r.cpu_now() for r in replicas), time.monotonic()
    await asyncio.gather(*(run.player(k, once=True) for k in range(args.throughput_games)))
    cpu1, t1 = sum(r.cpu_now() for r in replicas), time.monotonic()
    for channel in channels:
        await channel.close()
    for replica in replicas:
        replica.stop()
    moves = checked(dsn, run.acknowledged)["committed"]
    return {
        "replicas": count,
        "moves_per_s": round(moves / (t1 - t0), 1),
        "cpu_ms_per_move": round(1000.0 * (cpu1 - cpu0) / max(1, moves), 2),
        "moves": moves,
        "seconds": round(t1 - t0, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--kill-every", type=float, default=20.0)
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--throughput-games", type=int, default=60, help="games per replica count; 0: no such runs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--logs", default=None, help="keep the replicas' logs in this folder")
    parser.add_argument(
        "--dsn", default="postgresql://postgres@127.0.0.1:5432/test", help="a database to create others"
    )
    args = parser.parse_args()
    report: dict = {"date": time.strftime("%Y-%m-%d"), "commit": commit(), "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="atoll-replicas-") as tmp:
        tmp = args.logs or tmp
        Path(tmp).mkdir(parents=True, exist_ok=True)
        with database(args.dsn) as dsn:
            report["kill_run"] = asyncio.run(kill_run(args, dsn, Path(tmp)))
        if args.throughput_games > 0:
            report["throughput"] = []
            for count in range(1, args.replicas + 1):
                with database(args.dsn) as dsn:
                    report["throughput"].append(asyncio.run(throughput(args, dsn, Path(tmp), count)))
    run = report["kill_run"]
    report["targets"] = {
        "moves_lost_0": run["moves_lost"] == 0,
        "moves_played_twice_0": run["moves_played_twice_or_out_of_turn"] == 0,
        "stall_after_kill_below_target": run["longest_stall_after_kill_s"] < run["stall_target_s"],
        "watch_gaps_0": run["watch_gaps"] == 0,
    }
    print(json.dumps(report, indent=2))


class database:  # noqa: N801 - a context manager used as a function
    """A database of its own on the server of ``admin`` (dropped after)."""

    def __init__(self, admin: str):
        self.admin = admin
        self.name = f"atoll_bench_{secrets.token_hex(4)}"

    def __enter__(self) -> str:
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f"CREATE DATABASE {self.name}")
        return self.admin.rsplit("/", 1)[0] + "/" + self.name

    def __exit__(self, *exc) -> None:
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip()


if __name__ == "__main__":
    main()
