"""OpenSkill ratings pooled over several arena result files.

Usage: python benchmarks/pooled_ratings.py RUN.jsonl [RUN.jsonl ...]

Each 4-player standing-table row is its own run (one bot in one seat against three copies of a field bot), and each
run's summary rates its bots from its own games only, so ratings from different rows do not compare. Pooling every
row's games into one Plackett-Luce fit rates all row bots and the shared field on one scale; the field, seen in every
game, gets the smallest sigma. OpenSkill rates online, so one order of the games gives other ratings than another;
``search.arena.openskill_ratings`` averages over seeded random orders and reports how far one order strays
(``order_sd``). Rows of unequal length still do not compare as well by mu as by their win shares (or use
``benchmarks/rows.py``, which gives both). Prints one JSON object: configuration name -> mu, sigma, ordinal
(mu - 3 sigma), order_sd, highest ordinal first. Configurations are identified by name, so give the field bot the
same name in every run.
"""

import argparse
import json

from search import arena


def pooled_ratings(paths: list[str]) -> dict:
    results = []
    for path in paths:
        with open(path) as lines:
            results.extend(json.loads(line) for line in lines if line.strip())
    return arena.openskill_ratings(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="arena JSONL files (atoll bench strength --out)")
    print(json.dumps(pooled_ratings(parser.parse_args().paths), indent=2))


if __name__ == "__main__":
    main()
