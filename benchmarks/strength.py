"""Strength of a bot against a field of another bot (default: ISMCTS, 1,000 iterations, against random).

Usage: python benchmarks/strength.py [--game survive] [--players 2] [--games 200] [--iterations 1000]
       [--field-algorithm random] [--workers 2] [--seed 0]
Prints the match result as JSON (wins, ties, losses, mean win share with a 95% interval, mean scores).
"""

import argparse
import json
import time

from search.arena import run_match
from search.play import BotSettings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="survive")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--algorithm", default="ismcts")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--playout-depth", type=int, default=None)
    parser.add_argument("--exploration", type=float, default=None, help="UCB constant (default: per game)")
    parser.add_argument("--field-algorithm", default="random")
    parser.add_argument("--field-iterations", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    result = run_match(
        args.game,
        args.players,
        BotSettings(
            args.algorithm, iterations=args.iterations, playout_depth=args.playout_depth, exploration=args.exploration
        ),
        BotSettings(args.field_algorithm, iterations=args.field_iterations),
        args.games,
        seed=args.seed,
        workers=args.workers,
    )
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
