"""Service overhead and throughput, against a real `atoll serve` process on loopback.

Usage: python benchmarks/service.py [--calls 300] [--clients 8] [--time-ms 5] [--stages]
Prints JSON: per game, the time a Suggest call takes beyond the search the server reports (p50, p90: the RPC, the
observation codec, rebuilding the state, ranking and the belief summary) and, of it, the server's handler (from its log;
the rest is the RPC), at 200 iterations and at a fixed search time (``--time-ms``), and the throughput of concurrent
small searches. ``--stages``: no server; the Suggest handler called in
this process at 200 iterations, and the median ms of each part of it beyond the search (what the RPC adds is the
difference between the two reports).
"""

import argparse
import asyncio
import functools
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import engine_ext
import search
from atoll.client import AtollClient
from atoll.v1 import atoll_pb2 as pb
from server import codec
from server import service as servicer
from server.budget import Margin
from server.hosting import GameHost
from server.scheduler import SearchQueue, StreamQuota
from server.store import GameStore

ROOT = Path(__file__).resolve().parents[1]


# (players, random steps from the opening): a position a fifth to a third of the way through a random game.
POSITIONS = {
    "kuhn_poker": (2, 2),
    "leduc_poker": (2, 2),
    "survive": (4, 80),
    "islet": (4, 80),
    "small_islands": (4, 60),
}


def position(name: str) -> engine_ext.State:
    players, steps = POSITIONS[name]
    state = engine_ext.new_game(name, players, seed=2)
    rng = random.Random(2)
    for _ in range(steps):
        if state.current_player() == engine_ext.CHANCE:
            state.apply(state.chance_outcomes()[0][0])
        else:
            state.apply(rng.choice(state.legal_actions()))
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    return state


def handler_times(log, count: int) -> list[float]:
    """The next ``count`` Suggest calls' handler times (ms, search included) from the server's log: one JSON line a
    call, written before the reply leaves, so the lines of a client's calls in turn are all there and in order."""
    found = []
    while len(found) < count:
        line = log.readline()
        if not line:
            raise RuntimeError(f"the server logged {len(found)} of {count} Suggest calls")
        if '"method": "Suggest"' in line:
            found.append(json.loads(line[line.index("{") :])["ms"])
    return found


def overhead(client: AtollClient, log, name: str, calls: int, iterations: int, time_ms: int) -> dict:
    state = position(name)
    observation = codec.observation_to_proto(state.observation(state.current_player()))
    row = {"calls": calls, "players": state.num_players()}
    # The same calls at a fixed iteration count (the searches' length differs by game) and at a fixed search time:
    # what the server adds grows with the search's length (the search leaves the caches cold for the Python around
    # it), so only the second compares games.
    for key, settings in (
        (f"{iterations}_iterations", pb.BotSettings(iterations=iterations)),
        (f"{time_ms}_ms", pb.BotSettings(time_ms=time_ms)),
    ):
        extra, searched = [], []
        for _ in range(calls):
            started = time.perf_counter()
            reply = client.suggest(observation=observation, settings=settings)
            extra.append((time.perf_counter() - started) * 1000 - reply.stats.elapsed_ms)
            searched.append(reply.stats.elapsed_ms)
        handled = [ms - search_ms for ms, search_ms in zip(handler_times(log, calls), searched, strict=True)]
        extra.sort()
        row[key] = {
            "search_ms_p50": round(statistics.median(searched), 3),
            "overhead_ms_p50": round(statistics.median(extra), 3),
            "overhead_ms_p90": round(extra[int(0.9 * len(extra))], 3),
            # of it, the server's handler (decoding, rebuilding, ranking, the reply); the rest is the RPC
            "handler_ms_p50": round(statistics.median(handled), 3),
        }
    return row


def throughput(address: str, clients: int, calls_each: int, iterations: int) -> dict:
    state = position("survive")
    observation = codec.observation_to_proto(state.observation(state.current_player()))
    codes: list[str] = []

    def work():
        with AtollClient(address, own_connection=True) as c:  # a caller each: quotas count per connection
            for _ in range(calls_each):
                try:
                    c.suggest(observation=observation, settings=pb.BotSettings(iterations=iterations))
                    codes.append("OK")
                except Exception as err:  # noqa: BLE001 - counted, reported
                    codes.append(type(err).__name__)

    started = time.perf_counter()
    threads = [threading.Thread(target=work) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    return {
        "game": "survive",
        "clients": clients,
        "calls": len(codes),
        "iterations_per_call": iterations,
        "ok": codes.count("OK"),
        "calls_per_s": round(codes.count("OK") / elapsed, 1),
    }


class _Context:
    """The little of a gRPC context that the Suggest handler reads: no deadline, no metadata, one caller."""

    def time_remaining(self):
        return None

    def invocation_metadata(self) -> tuple:
        return ()

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"


# The parts of a Suggest call beyond the search: (module, function, name in the report).
STAGES = (
    (codec, "observation_from_proto", "decode_ms"),
    (engine_ext, "from_observation", "rebuild_state_ms"),
    (servicer, "bot_settings", "settings_ms"),
    (search, "_rank", "rank_ms"),
    (search, "belief_summary", "belief_summary_ms"),
    (servicer, "search_response", "response_ms"),
    (servicer, "_log", "log_ms"),
)


def stages(calls: int, iterations: int) -> dict:
    """The Suggest handler called in this process; each part beyond the search timed by wrapping its function."""
    times: dict[str, list[float]] = {}
    originals = [(module, name, getattr(module, name)) for module, name, _ in STAGES]

    def timed(function, key):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                times[key].append((time.perf_counter() - started) * 1000)

        return wrapper

    for module, name, key in STAGES:
        setattr(module, name, timed(getattr(module, name), key))
    report = {}
    tmp = tempfile.TemporaryDirectory()
    searches = SearchQueue(2)
    host = GameHost(GameStore(Path(tmp.name) / "stages.sqlite3"), searches)
    loop = asyncio.new_event_loop()
    try:
        handler = servicer.AtollService(host, searches, StreamQuota(2, 2, 2), Margin())
        for game in POSITIONS:
            state = position(game)
            raw = pb.SuggestRequest(
                observation=codec.observation_to_proto(state.observation(state.current_player())),
                settings=pb.BotSettings(iterations=iterations),
            ).SerializeToString()
            times.clear()
            times.update({key: [] for *_, key in STAGES} | {"beyond_search_ms": [], "search_ms": []})
            for _ in range(calls):
                started = time.perf_counter()
                reply = loop.run_until_complete(handler.Suggest(raw, _Context()))
                times["beyond_search_ms"].append((time.perf_counter() - started) * 1000 - reply.stats.elapsed_ms)
                times["search_ms"].append(reply.stats.elapsed_ms)
            report[game] = {key: round(statistics.median(values), 3) for key, values in times.items() if values}
    finally:
        for module, name, original in originals:
            setattr(module, name, original)
        loop.run_until_complete(host.close())
        searches.shutdown()
        loop.close()
        tmp.cleanup()
    return {"calls": calls, "iterations": iterations, "p50": report}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--time-ms", type=int, default=5, help="the search time of the equal-time calls")
    parser.add_argument("--stages", action="store_true", help="time each part of Suggest in this process instead")
    args = parser.parse_args()
    for name in ("calls", "clients", "time_ms"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}: expected at least 1, got {getattr(args, name)}")
    if args.stages:
        print(json.dumps({"suggest_stages": stages(args.calls, 200)}, indent=2))
        return
    with (
        tempfile.TemporaryDirectory() as tmp,
        open(Path(tmp) / "server.log", "w") as written,  # the server's stderr: its log, a line a call
        open(Path(tmp) / "server.log") as log,  # read from an offset of its own as the server writes
    ):
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "serve",
                "--port",
                "0",
                "--db",
                str(Path(tmp) / "bench.sqlite3"),
                "--max-searches",
                str(args.clients),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=written,
            text=True,
        )
        address = proc.stdout.readline().split()[3]
        try:
            with AtollClient(address) as client:
                client.list_games()
                report = {
                    "suggest_overhead": {
                        name: overhead(client, log, name, args.calls, 200, args.time_ms) for name in POSITIONS
                    },
                    "throughput": throughput(address, args.clients, 25, 300),
                }
        finally:
            proc.terminate()
            proc.wait()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
