"""ISMCTS iterations per second from each game's first decision, default settings. Prints JSON.

Usage: python benchmarks/search_speed.py [--seconds 2] [--threads 1]
       python benchmarks/search_speed.py --midgame [--iterations 3000] [--games survive ...] [--players 2]
                                            [--algorithms ismcts pimc ...]

``--midgame``: the speed a bot plays at, rather than at the opening: decisions at 10, 30, 50, 70 and 85 % of a greedy
game (two seeds, ``search_profile.position``), each searched for ``--iterations`` with the game's defaults, timed in
CPU seconds (so another process on the machine changes the figure less than it changes wall time); prints iterations
per CPU second over all of them, and per position. Both modes time the search itself where the defaults hand a
set-up decision to another algorithm (``setup_algorithm="same"``: Survive's placements, which greedy plays).
``--algorithms``: the tree searches to time at the same positions and iterations (default: ISMCTS alone), each with
its own figures and its CPU per iteration relative to the first named: what equal iterations cost each in time.
"""

import argparse
import json
import time

import engine_ext
import search
from search import bench


def midgame_speed(game: str, players: int, iterations: int, repeats: int, algorithm: str = "ismcts") -> dict:
    from search_profile import position  # benchmarks/ is on the path when this file runs as a script

    positions = [position(game, players, f, seed)[0] for f in (0.1, 0.3, 0.5, 0.7, 0.85) for seed in (3, 4)]
    per_position = []
    algorithms = set()
    total = 0.0
    for state in positions:
        seat = state.current_player()
        start = time.process_time()
        for rep in range(repeats):
            result = search.suggest(
                state,
                seat,
                algorithm=algorithm,
                iterations=iterations,
                seed=rep,
                setup_algorithm="same",
                allow_cheat=algorithm == "cheat",
            )
            algorithms.add(result.stats["algorithm"])
        spent = time.process_time() - start
        total += spent
        per_position.append(round(iterations * repeats / spent))
    return {
        "players": players,
        "iterations_per_cpu_second": round(iterations * repeats * len(positions) / total),
        "per_position": per_position,
        "algorithms": sorted(algorithms),
        "cpu_seconds": round(total, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--midgame", action="store_true")
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", nargs="*", default=None)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--algorithms", nargs="+", default=["ismcts"], choices=search.SEARCHES)
    args = parser.parse_args()
    games = args.games or engine_ext.GAMES
    if args.midgame:
        report = {}
        for name in games:
            players = args.players or bench.default_players(name)
            rows = {alg: midgame_speed(name, players, args.iterations, args.repeats, alg) for alg in args.algorithms}
            if len(rows) == 1:
                report[name] = rows[args.algorithms[0]]
                continue
            first = rows[args.algorithms[0]]["iterations_per_cpu_second"]
            for row in rows.values():
                row["cpu_relative"] = round(first / row["iterations_per_cpu_second"], 3)
            report[name] = rows
    else:
        report = {
            name: bench.search_speed(name, args.players or bench.default_players(name), args.seconds, args.threads)
            for name in games
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
