"""ISMCTS iterations per second: every registered game at its opening decision (Survive with 4 players).

Usage: python benchmarks/search_speed.py [--seconds 2] [--threads 1]
Prints JSON: per game, iterations/s, nodes and node memory for a time-budgeted search from the first decision.
"""

import argparse
import json
import random

import engine_ext
import search
from search import mcts

PLAYERS = {"survive": 4}


def opening_decision(name: str) -> engine_ext.State:
    state = engine_ext.new_game(name, PLAYERS.get(name, 2), seed=1)
    rng = random.Random(0)
    while state.current_player() == engine_ext.CHANCE:
        outcomes = state.chance_outcomes()
        state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    report = {}
    for name in engine_ext.GAMES:
        state = opening_decision(name)
        seat = state.current_player()
        search.suggest(state, seat, iterations=200)  # warm-up
        stats = search.suggest(state, seat, time_ms=args.seconds * 1000, threads=args.threads).stats
        report[name] = {
            "players": state.num_players(),
            "threads": args.threads,
            "iterations_per_s": stats["iterations_per_s"],
            "iterations": stats["iterations"],
            "nodes": stats["nodes"],
            "node_bytes": stats["nodes"] * mcts.NODE_BYTES,
            "playout_depth": stats["playout_depth"],
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
