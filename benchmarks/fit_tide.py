"""Fit the weights of Survive's ``tide`` evaluation to game outcomes (a Texel-style fit: the weights that make its
win shares predict who wins best).

Usage: python benchmarks/fit_tide.py [--players 2 4] [--games 100] [--seed 5] [--cache runs/tide_positions.jsonl]
    [--rounds 6] [--weights points] [--given '{"points": 2.2}']

Games: greedy bots (the game's default greedy) play ``--games`` games per seat count from seeds drawn from
``--seed``, chance at random; every decision after set-up is a position, and each seat's outcome is its win share
(1/k among k tied winners). Positions are kept in ``--cache`` (one JSON line a game: the states and the outcome) so a
second fit reads them instead of playing again. Even-numbered games train, odd-numbered games test. The loss is the
mean cross-entropy of the evaluation's shares against the outcomes (lower is better; an evaluation that knows nothing
scores log(seats)). The fit is a pattern search over ``TideWeights`` (``survive.tide_shares``; ``--weights``: only
these, the others stay ``tide``'s): each weight in turn is moved up and down by its step and kept where the training
loss falls; the steps halve after each round. ``--given``: no fit, the losses of these weights (``tide``'s for the
others) instead.
Prints one JSON object: the fitted weights, and the training and test loss of ``tide`` and of the fit per seat count.
"""

import argparse
import json
import math
import os
import random

import engine_ext
import search
from engine_ext import survive
from search import bench

# Each weight's first step and the bounds it is kept in.
STEPS = {
    "base": (0.03, 0.5, 0.99),
    "raft_steps": (0.1, 0.0, 2.0),
    "eat": (0.1, 0.0, 1.0),
    "sink": (0.1, 0.0, 1.0),
    "capsize": (0.1, 0.0, 1.0),
    "removal": (0.1, 0.0, 1.0),
    "floor": (0.1, 0.0, 1.0),
    "raft_cost": (0.1, 0.1, 2.0),
    "points": (0.5, 0.5, 20.0),
    "horizon": (0.25, 0.0, 2.0),
}


def play(players: int, seed: int) -> dict:
    """One greedy game: its positions after set-up (as JSON) and every seat's outcome."""
    rng = random.Random(seed)
    state = engine_ext.new_game("survive", players, seed=seed)
    positions = []
    while not state.is_terminal():
        player = state.current_player()
        if player == engine_ext.CHANCE:
            bench.random_step(state, rng)
            continue
        if not json.loads(state.to_json())["control"]["phase"].startswith("setup"):
            positions.append(state.to_json())
        state.apply(search.suggest(state, player, algorithm="greedy", seed=rng.randrange(1 << 30)).best.action)
    returns = state.returns()
    best = max(returns)
    winners = sum(r == best for r in returns)
    return {
        "players": players,
        "seed": seed,
        "positions": positions,
        "outcome": [1.0 / winners if r == best else 0.0 for r in returns],
    }


def games(players: int, count: int, seed: int, cache: str | None) -> list[dict]:
    """``count`` games for ``players`` seats: from the cache where it has them, played (and cached) otherwise."""
    rng = random.Random(seed * 1000 + players)
    seeds = [rng.randrange(1 << 30) for _ in range(count)]
    held = {}
    if cache and os.path.exists(cache):
        with open(cache) as f:
            for line in f:
                game = json.loads(line)
                held[(game["players"], game["seed"])] = game
    out = []
    for s in seeds:
        game = held.get((players, s))
        if game is None:
            game = play(players, s)
            if cache:
                with open(cache, "a") as f:
                    f.write(json.dumps(game) + "\n")
        out.append(game)
    return out


def loss(samples: list, weights: dict) -> float:
    """Mean cross-entropy of ``tide_shares`` with ``weights`` against the outcomes."""
    total = 0.0
    for state, outcome in samples:
        shares = survive.tide_shares(state, weights)
        total -= sum(o * math.log(max(p, 1e-9)) for p, o in zip(shares, outcome, strict=True) if o)
    return total / len(samples)


def fit(samples: list, start: dict, rounds: int, names: list[str]) -> dict:
    weights = dict(start)
    best = loss(samples, weights)
    steps = {name: step for name, (step, _, _) in STEPS.items()}
    for _ in range(rounds):
        for name in names:
            lo, hi = STEPS[name][1:]
            improved = True
            while improved:
                improved = False
                for sign in (1, -1):
                    trial = dict(weights)
                    trial[name] = min(hi, max(lo, weights[name] + sign * steps[name]))
                    if trial[name] == weights[name]:
                        continue
                    value = loss(samples, trial)
                    if value < best - 1e-7:
                        weights, best, improved = trial, value, True
                        break
        steps = {name: step / 2 for name, step in steps.items()}
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--cache", default=None)
    parser.add_argument("--rounds", type=int, default=6)
    # ``horizon`` only when named: the default stays the nine weights the earlier fits (docs/benchmarks.md) fitted.
    parser.add_argument("--weights", nargs="+", default=[w for w in STEPS if w != "horizon"], choices=list(STEPS))
    parser.add_argument("--given", type=json.loads, default=None)
    args = parser.parse_args()
    start = survive.tide_weights()
    if args.given is not None and (not isinstance(args.given, dict) or set(args.given) - set(start)):
        parser.error(f"--given: a JSON object of tide's weights, some of {sorted(start)}")
    info = engine_ext.game_info("survive")
    for players in args.players:
        info.check_players(players)
    train, test = {}, {}
    for players in args.players:
        for index, game in enumerate(games(players, args.games, args.seed, args.cache)):
            side = train if index % 2 == 0 else test
            side.setdefault(players, []).extend(
                (engine_ext.from_json(text), game["outcome"]) for text in game["positions"]
            )
    pooled = [sample for rows in train.values() for sample in rows]
    fitted = start | args.given if args.given is not None else fit(pooled, start, args.rounds, args.weights)
    report = {
        "games_per_seat_count": args.games,
        "seed": args.seed,
        "weights_fitted": args.weights,
        "tide": start,
        "fitted": {k: round(v, 4) for k, v in fitted.items()},
        "loss": {},
    }
    for players in args.players:
        report["loss"][players] = {
            "positions": {"train": len(train[players]), "test": len(test[players])},
            "uninformed": round(math.log(players), 4),
            "tide": {"train": round(loss(train[players], start), 4), "test": round(loss(test[players], start), 4)},
            "fitted": {"train": round(loss(train[players], fitted), 4), "test": round(loss(test[players], fitted), 4)},
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
