"""ISMCTS iterations per second from each game's first decision, default settings. Prints JSON.

Usage: python benchmarks/search_speed.py [--seconds 2] [--threads 1]
"""

import argparse
import json

import engine_ext
from search import bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    report = {
        name: bench.search_speed(name, bench.default_players(name), args.seconds, args.threads)
        for name in engine_ext.GAMES
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
