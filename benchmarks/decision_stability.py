"""Decision stability: how often a search configuration makes the same choice at one position under other seeds,
and how often that choice is a long reference search's. A cheap screen for settings (minutes, not hours of games);
only arena matches accept a setting.

Usage: python benchmarks/decision_stability.py [--game survive] [--players 4] [--positions 40] [--seeds 4]
    [--iterations 3000] [--configs '{"base": {}, "c10": {"exploration": 0.1}}'] [--reference-iterations 60000]
    [--seed 5]

Positions: decisions of games that greedy bots play (chance from the seed), outside set-up, with more than three legal
moves, up to three a game. At each, every configuration (``search.SearchConfig`` fields over the game's defaults; the
name ``pimc`` or any entry with ``"algorithm"`` sets its algorithm; one with ``"iterations"`` its own budget) searches
``--iterations`` under ``--seeds`` seeds, and two reference searches (ISMCTS and PIMC at ``--reference-iterations``
on 2 threads) name a move each. Prints one JSON object: per configuration, ``stability`` (the mean share of seeds
that pick the configuration's most frequent move at a position) and ``agrees_ismcts`` / ``agrees_pimc`` (the mean
share of picks equal to each reference's move; none with ``--reference-iterations 0``), ``top_visit_share`` (the
mean share of the root's visits its chosen move held) and ``agreement`` (per pair of configurations, the share of
their picks at a position, every seed of one against every seed of the other, that are the same move; a configuration
with itself: every pair of its seeds). A noisier search is less stable; agreement with a reference is only as good as
the reference. A search that settles on whichever move led early holds most visits on its choice and still
disagrees with itself across seeds.
"""

import argparse
import collections
import itertools
import json
import random
import statistics

import engine_ext
import search
from search import bench


def positions(game: str, players: int, count: int, seed: int) -> list[engine_ext.State]:
    rng = random.Random(seed)
    found: list[engine_ext.State] = []
    info = engine_ext.game_info(game)
    games = 0
    while len(found) < count:
        games += 1
        if games > 20 and not found:
            raise SystemExit(f"{game}: no decisions with more than three legal moves outside set-up in 20 games")
        state = engine_ext.new_game(game, players, seed=rng.randrange(1 << 30))
        candidates = []
        while not state.is_terminal():
            player = state.current_player()
            if player == engine_ext.CHANCE:
                bench.random_step(state, rng)
                continue
            in_setup = info.in_setup is not None and info.in_setup(state)
            if not in_setup and len(state.legal_actions()) > 3:
                candidates.append(state.clone())
            state.apply(search.suggest(state, player, algorithm="greedy", seed=rng.randrange(1 << 30)).best.action)
        found += rng.sample(candidates, min(3, len(candidates)))
    return found[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="survive")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--configs", default='{"default": {}, "pimc": {"algorithm": "pimc"}}')
    parser.add_argument("--reference-iterations", type=int, default=60_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    try:
        configs = json.loads(args.configs)
    except json.JSONDecodeError as err:
        parser.error(f"--configs: not JSON ({err})")
    if not isinstance(configs, dict) or not all(isinstance(v, dict) for v in configs.values()):
        parser.error('--configs: expected a JSON object of name -> settings, e.g. {"c10": {"exploration": 0.1}}')
    if args.seeds < 2:
        parser.error("--seeds: expected at least 2 (stability compares seeds)")
    if args.reference_iterations < 0:
        parser.error("--reference-iterations: expected 0 (no references) or more")
    stability = collections.defaultdict(list)
    top_share = collections.defaultdict(list)
    agreement = collections.defaultdict(list)
    references = ("ismcts", "pimc") if args.reference_iterations else ()
    agrees = {algorithm: collections.defaultdict(list) for algorithm in references}
    for state in positions(args.game, args.players, args.positions, args.seed):
        seat = state.current_player()
        reference = {
            algorithm: search.suggest(
                state, seat, algorithm=algorithm, iterations=args.reference_iterations, threads=2, seed=99
            ).best.action
            for algorithm in agrees
        }
        picks = {}
        for name, settings in configs.items():
            settings = {"algorithm": "pimc" if name == "pimc" else "ismcts", "iterations": args.iterations, **settings}
            results = [search.suggest(state, seat, seed=s, **settings) for s in range(args.seeds)]
            picks[name] = [result.best.action for result in results]
            stability[name].append(collections.Counter(picks[name]).most_common(1)[0][1] / args.seeds)
            top_share[name].append(statistics.fmean(r.best.visits / max(1, r.stats["iterations"]) for r in results))
            for algorithm, move in reference.items():
                agrees[algorithm][name].append(sum(p == move for p in picks[name]) / args.seeds)
        for a, b in itertools.combinations_with_replacement(configs, 2):
            pairs = itertools.combinations(picks[a], 2) if a == b else itertools.product(picks[a], picks[b])
            agreement[f"{a}~{b}"].append(statistics.fmean(x == y for x, y in pairs))
    mean = lambda values: round(sum(values) / len(values), 3)  # noqa: E731
    report = {
        "game": args.game,
        "players": args.players,
        "positions": args.positions,
        "seeds": args.seeds,
        "iterations": args.iterations,
        "reference_iterations": args.reference_iterations,
        "configs": {
            name: {
                "settings": configs[name],
                "stability": mean(stability[name]),
                "top_visit_share": mean(top_share[name]),
                **{f"agrees_{algorithm}": mean(agrees[algorithm][name]) for algorithm in agrees},
            }
            for name in configs
        },
        "agreement": {pair: mean(values) for pair, values in agreement.items()},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
