"""Engine speed of every registered game: in-core random playouts, Python-API playouts, clone, call overhead and
determinize. Prints JSON. The same report with the search speed and OpenSpiel's is ``atoll bench speed``.

Usage: python benchmarks/speed.py [--seconds 1] [--games survive ...] [--players N]
"""

import argparse
import json
import platform

import engine_ext
from search import bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(engine_ext.GAMES))
    parser.add_argument("--players", type=int, default=None, help="seats (default: the game's benchmark count)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args()
    report = {"machine": platform.processor() or platform.machine(), "python": platform.python_version(), "games": {}}
    for name in args.games:
        players = args.players or bench.default_players(name)
        report["games"][name] = bench.engine_speed(name, players, args.seconds)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
