"""Our ISMCTS against OpenSpiel's C++ ISMCTSBot on identical games (needs the ``compare`` extra: open_spiel).

Usage: python benchmarks/openspiel_compare.py [--simulations 500] [--hands 2000] [--seed 0] [--equal-time]
       python benchmarks/openspiel_compare.py --islands islet [--players 2] [--pairs 30] [--simulations 1000]
           [--heuristic heights] [--workers 2] [--out runs/islet-openspiel.jsonl]
Prints one JSON object:
- ``speed``: iterations per second of both bots on Leduc poker at equal simulations per decision (one thread each,
  wall clock around ``suggest`` and ``bot.step``), and OpenSpiel's on 4-player Hearts (``search.bench``);
- ``head_to_head``: Leduc poker hands between the two, seats swapped every hand, our mean chips per hand with a 95%
  confidence interval; with ``--equal-time`` also ``head_to_head_equal_time``: the same, but our bot searches for as
  long as OpenSpiel's took on average over its decisions so far in the same match (time, not iterations, is equal;
  both bots run interleaved on one thread, so a busy machine slows them alike);
- ``exploitability``: of each bot's policy on Kuhn poker (normalised visit counts at every information state),
  computed by OpenSpiel.
With ``--islands GAME`` instead: seat-swapped pairs of games of Survive, Islet or Small Islands between our bot at the
game's defaults and OpenSpiel's ISMCTS (one random rollout a leaf, UCT 2), both at ``--simulations`` a decision,
through the wrapper of ``benchmarks/spiel_islands.py``; our mean result with its interval over pairs, the games tied
on score, each bot's time per decision. Finished games go to ``--out`` (a rerun resumes).
"""

import argparse
import json
import math
import random
import statistics
import time

import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability

import engine_ext
import search
from search import bench

OPENSPIEL_UCT_C = 2.0  # OpenSpiel's examples; its rewards are raw chips


def openspiel_bot(game, simulations: int, seed: int, final=pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT):
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.ISMCTSBot(seed, evaluator, OPENSPIEL_UCT_C, simulations, -1, final, False, False)


def head_to_head(simulations: int, hands: int, seed: int, equal_time: bool = False) -> dict:
    """Our bot at ``simulations`` iterations a decision, or (``equal_time``) at the mean time OpenSpiel's bot has
    taken per decision so far in this match."""
    game = pyspiel.load_game("leduc_poker")
    rng = random.Random(seed)
    theirs_bot = openspiel_bot(game, simulations, seed)
    results = []
    their_seconds, their_decisions, our_iterations, our_decisions = 0.0, 0, 0, 0
    for hand in range(hands):
        our_seat = hand % 2
        theirs = game.new_initial_state()
        ours = engine_ext.new_game("leduc_poker", 2)
        while not theirs.is_terminal():
            if theirs.is_chance_node():
                outcomes = theirs.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            elif theirs.current_player() == our_seat:
                if equal_time and their_decisions:
                    budget = {"time_ms": 1000.0 * their_seconds / their_decisions, "iterations": 10**9}
                else:
                    budget = {"iterations": simulations}
                result = search.suggest(ours, our_seat, seed=rng.getrandbits(32), **budget)
                our_iterations += result.stats["iterations"]
                our_decisions += 1
                action = result.best.action
            else:
                started = time.perf_counter()
                action = theirs_bot.step(theirs)
                their_seconds += time.perf_counter() - started
                their_decisions += 1
            theirs.apply_action(action)
            ours.apply(action)
        results.append(theirs.returns()[our_seat])
    mean = statistics.fmean(results)
    half_width = 1.96 * statistics.stdev(results) / math.sqrt(len(results))
    return {
        "game": "leduc_poker",
        "hands": hands,
        "simulations_per_decision": simulations,
        "budget": "equal time" if equal_time else "equal iterations",
        "openspiel_ms_per_decision": round(1000.0 * their_seconds / max(their_decisions, 1), 3),
        "ours_iterations_per_decision": round(our_iterations / max(our_decisions, 1)),
        "ours_mean_chips_per_hand": round(mean, 4),
        "ci95": [round(mean - half_width, 4), round(mean + half_width, 4)],
        "verdict": "ours better" if mean - half_width > 0 else "ours worse" if mean + half_width < 0 else "tied at 95%",
    }


def kuhn_policies(simulations: int, seed: int):
    """Tabular policies of both bots: normalised visit counts at every Kuhn information state."""
    game = pyspiel.load_game("kuhn_poker")
    ours_policy = os_policy.TabularPolicy(game)
    theirs_policy = os_policy.TabularPolicy(game)
    theirs_bot = openspiel_bot(game, simulations, seed, pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT)
    seen = set()

    def visit(theirs, ours):
        if theirs.is_terminal():
            return
        if theirs.is_chance_node():
            for action, _ in theirs.chance_outcomes():
                child_ours = ours.clone()
                child_ours.apply(action)
                visit(theirs.child(action), child_ours)
            return
        key = theirs.information_state_string()
        if key not in seen:
            seen.add(key)
            player = theirs.current_player()
            result = search.suggest(ours, player, iterations=simulations, seed=seed, top_k=2)
            total = sum(m.visits for m in result.moves)
            row = ours_policy.policy_for_key(key)
            row[:] = 0
            for move in result.moves:
                row[move.action] = move.visits / total
            probabilities, _ = theirs_bot.step_with_policy(theirs)
            row = theirs_policy.policy_for_key(key)
            row[:] = 0
            for action, p in probabilities:
                row[action] = p
        for action in theirs.legal_actions():
            child_ours = ours.clone()
            child_ours.apply(action)
            visit(theirs.child(action), child_ours)

    visit(game.new_initial_state(), engine_ext.new_game("kuhn_poker", 2))
    return game, ours_policy, theirs_policy, len(seen)


def kuhn_exploitability(simulations: int, seed: int) -> dict:
    game, ours, theirs, states = kuhn_policies(simulations, seed)
    return {
        "game": "kuhn_poker",
        "information_states": states,
        "simulations_per_state": simulations,
        "ours": round(exploitability.exploitability(game, ours), 4),
        "openspiel_ismcts": round(exploitability.exploitability(game, theirs), 4),
        "uniform_random": round(exploitability.exploitability(game, os_policy.UniformRandomPolicy(game)), 4),
    }


def islands(args: argparse.Namespace) -> dict:
    """Pairs of one island game against OpenSpiel's ISMCTS, resumable from ``args.out``, on a process pool."""
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

    from spiel_islands import play_pair, summary

    ours = {"iterations": args.simulations}
    if args.heuristic:
        ours["heuristic"] = args.heuristic
    out = Path(args.out) if args.out else None
    games = [json.loads(line) for line in out.read_text().splitlines()] if out and out.exists() else []
    done = {g["deal"] for g in games}
    todo = [deal for deal in range(args.pairs) if deal not in done]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [
            pool.submit(play_pair, args.islands, args.players, deal, args.simulations, ours, args.seed) for deal in todo
        ]
        for future in futures:
            pair = future.result()
            games += pair
            if out:
                with out.open("a") as f:
                    f.writelines(json.dumps(g) + "\n" for g in pair)
    return {
        "game": args.islands,
        "players": args.players,
        "simulations_per_decision": args.simulations,
        "ours": ours,
        **summary(games),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=500)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--equal-time", action="store_true", help="also a head-to-head at equal time per decision")
    parser.add_argument("--islands", choices=("survive", "islet", "small_islands"), help="an island game instead")
    parser.add_argument("--players", type=int, default=2, help="--islands: seats (our bot and OpenSpiel's alternate)")
    parser.add_argument("--pairs", type=int, default=30, help="--islands: deal pairs")
    parser.add_argument("--heuristic", default=None, help="--islands: our bot's evaluation (default: the game's)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None, help="--islands: JSONL of finished games (a rerun resumes)")
    args = parser.parse_args()
    if args.islands:
        print(json.dumps(islands(args), indent=2))
        return
    report = {
        "speed": bench.openspiel_speed(2.0, args.simulations, seed=args.seed),
        "head_to_head": head_to_head(args.simulations, args.hands, args.seed),
        "exploitability": kuhn_exploitability(args.simulations * 4, args.seed),
    }
    if args.equal_time:
        report["head_to_head_equal_time"] = head_to_head(args.simulations, args.hands, args.seed, equal_time=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
