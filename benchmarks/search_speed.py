"""ISMCTS iterations per second from each game's first decision, default settings. Prints JSON.

Usage: python benchmarks/search_speed.py [--seconds 2] [--threads 1]
       python benchmarks/search_speed.py --midgame [--iterations 3000] [--games survive ...] [--players 2]
                                            [--algorithms ismcts pimc ...] [--bot NAME=ALGORITHM[,KEY=VALUE...] ...]

``--midgame``: the speed a bot plays at, rather than at the opening: decisions at 10, 30, 50, 70 and 85 % of a greedy
game (two seeds, ``search_profile.position``), each searched for ``--iterations`` with the game's defaults, timed in
CPU seconds (so another process on the machine changes the figure less than it changes wall time); prints iterations
per CPU second over all of them, and per position. Both modes time the search itself where the defaults hand a
set-up decision to another algorithm (``setup_algorithm="same"``: Survive's placements, which greedy plays).
``--algorithms``: the tree searches to time at the same positions and iterations (default: ISMCTS alone), each with
its own figures and its CPU per iteration relative to the first named: what equal iterations cost each in time.
``--bot``: configurations to time instead, written as ``atoll bench strength --bot`` takes them (e.g.
``o21k=ismcts,iterations=21000,playout_to=own_turn``), each at its own iterations; besides ``cpu_relative`` each row
has ``decision_cpu_relative``, its CPU per decision relative to the first bot's: how to size a head to head at equal
time. ``searched``: the iterations the searches reported doing, over every position and repeat.
"""

import argparse
import json
import time
from dataclasses import replace

import engine_ext
import search
from search import arena, bench


def midgame_speed(game: str, players: int, config: search.SearchConfig, repeats: int) -> dict:
    from search_profile import position  # benchmarks/ is on the path when this file runs as a script

    if config.iterations is None:
        raise ValueError(f"{config.algorithm}: a budget in iterations is needed to time iterations per CPU second")
    if config.setup_algorithm is None:
        config = replace(config, setup_algorithm="same")
    positions = [position(game, players, f, seed)[0] for f in (0.1, 0.3, 0.5, 0.7, 0.85) for seed in (3, 4)]
    per_position = []
    algorithms = set()
    total = 0.0
    searched = 0  # the iterations the searches report, not the ones asked for
    for state in positions:
        seat = state.current_player()
        here = 0
        start = time.process_time()
        for rep in range(repeats):
            result = search.suggest(state, seat, replace(config, seed=rep), allow_cheat=config.algorithm == "cheat")
            algorithms.add(result.stats["algorithm"])
            here += result.stats.get("iterations", config.iterations)
        spent = time.process_time() - start
        total += spent
        searched += here
        per_position.append(round(here / spent))
    return {
        "players": players,
        "iterations": config.iterations,
        "searched": searched,  # over every position and repeat, as the searches report them
        "iterations_per_cpu_second": round(searched / total),
        "per_position": per_position,
        "algorithms": sorted(algorithms),
        "cpu_seconds": round(total, 3),
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
    parser.add_argument("--algorithms", nargs="+", default=None, choices=search.SEARCHES)
    parser.add_argument("--bot", action="append", default=None, metavar="NAME=ALGORITHM[,KEY=VALUE...]")
    args = parser.parse_args()
    games = args.games or engine_ext.GAMES
    if args.bot and (args.algorithms or not args.midgame):
        parser.error("--bot times configurations at the midgame positions: give it with --midgame, not --algorithms")
    if args.midgame:
        report = {}
        for name in games:
            players = args.players or bench.default_players(name)
            if args.bot:
                try:
                    configs = dict(arena.parse_config(text, name) for text in args.bot)
                except ValueError as err:
                    parser.error(f"--bot {err}")
                timeless = [label for label, config in configs.items() if config.iterations is None]
                if timeless:
                    names = ", ".join(timeless)
                    parser.error(f"--bot {names}: give iterations= (this times iterations, not a budget in time)")
            else:
                configs = {a: search.SearchConfig(a, iterations=args.iterations) for a in args.algorithms or ["ismcts"]}
            rows = {label: midgame_speed(name, players, config, args.repeats) for label, config in configs.items()}
            if len(rows) == 1:
                report[name] = next(iter(rows.values()))
                continue
            first = next(iter(rows.values()))
            for row in rows.values():
                row["cpu_relative"] = round(first["iterations_per_cpu_second"] / row["iterations_per_cpu_second"], 3)
                if args.bot:
                    row["decision_cpu_relative"] = round(row["cpu_seconds"] / first["cpu_seconds"], 3)
            report[name] = rows
    else:
        report = {
            name: bench.search_speed(name, args.players or bench.default_players(name), args.seconds, args.threads)
            for name in games
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
