"""Speed of every registered game's core: in-core and Python-API random playouts, clone, call overhead.

Usage: python benchmarks/speed.py [--games NAME ...] [--players N] [--seconds S]
Prints one JSON object: {game: {core_steps_per_s, python_steps_per_s, clone_ns, call_overhead_ns, ...}}.
"""

import argparse
import json
import platform
import random
import time

import engine_ext
from engine_ext import core


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def core_playouts(state, seconds: float) -> dict:
    playouts = 1
    while timed(core.playout_steps, state, playouts, 1) < seconds / 4:
        playouts *= 2
    start = time.perf_counter()
    steps = core.playout_steps(state, playouts, 7)
    elapsed = time.perf_counter() - start
    return {
        "core_steps_per_s": round(steps / elapsed),
        "core_playouts": playouts,
        "mean_game_length": steps / playouts,
    }


def python_playouts(state, seconds: float) -> dict:
    rng = random.Random(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = state.clone()
        while not s.is_terminal():
            if s.current_player() == engine_ext.CHANCE:
                outcomes = s.chance_outcomes()
                s.apply(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
            else:
                s.apply(rng.choice(s.legal_actions()))
            steps += 1
        games += 1
    return {"python_steps_per_s": round(steps / (time.perf_counter() - start)), "python_playouts": games}


def per_call_ns(fn, calls: int) -> float:
    best = float("inf")
    for _ in range(5):
        best = min(best, timed(fn, calls))
    return best / calls * 1e9


def call_overhead_ns(state, calls: int = 200_000) -> float:
    """Cost of the cheapest Python -> core call (``current_player``) minus an empty loop's iteration."""

    def calls_loop(n):
        f = state.current_player
        for _ in range(n):
            f()

    def empty_loop(n):
        for _ in range(n):
            pass

    return per_call_ns(calls_loop, calls) - per_call_ns(empty_loop, calls)


def midgame(state, steps: int = 150) -> tuple:
    """A position about a third into a random game (or the last decision node before the end), for determinize."""
    rng = random.Random(3)
    s = state.clone()
    taken = 0
    while taken < steps:
        nxt = s.clone()
        if nxt.current_player() == engine_ext.CHANCE:
            outcomes = nxt.chance_outcomes()
            nxt.apply(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
        else:
            nxt.apply(rng.choice(nxt.legal_actions()))
        if nxt.is_terminal():
            break
        s = nxt
        taken += 1
    return s, taken


def measure(name: str, players: int, seconds: float) -> dict:
    state = engine_ext.new_game(name, players, seed=1)
    result = {"players": players}
    result.update(core_playouts(state, seconds))
    result.update(python_playouts(state, seconds))
    result["clone_ns"] = round(per_call_ns(lambda n: core.clone_many(state, n), 200_000), 1)
    result["call_overhead_ns"] = round(call_overhead_ns(state), 1)
    mid = midgame(state)
    result["determinize_at"] = f"step {mid[1]}"
    result["determinize_ns"] = round(per_call_ns(lambda n: [mid[0].determinize(0, i) for i in range(n)], 50_000), 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(engine_ext.GAMES))
    parser.add_argument("--players", type=int, default=None, help="seats (default: 4 where allowed, else 2)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args()
    report = {
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "games": {},
    }
    for name in args.games:
        players = args.players or (4 if name == "survive" else 2)
        report["games"][name] = measure(name, players, args.seconds)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
