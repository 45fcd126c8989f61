"""Speed and game-metric reports (``atoll bench speed``, ``atoll bench metrics``): every registered game, JSON out,
an optional PNG. Strength tournaments are ``search.arena``.
"""

from __future__ import annotations

import itertools
import json
import platform
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import engine_ext
import search
from engine_ext import core
from search import arena, mcts, play

HEARTS_PLAYERS = 4


# --- engine speed -----------------------------------------------------------------------------------------------
def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def core_playouts(state: engine_ext.State, seconds: float) -> dict:
    playouts = 1
    while timed(core.playout_steps, state, playouts, 1) < seconds / 4:
        playouts *= 2
    start = time.perf_counter()
    steps = core.playout_steps(state, playouts, 7)
    elapsed = time.perf_counter() - start
    return {"core_steps_per_s": round(steps / elapsed), "core_playouts": playouts, "mean_game_length": steps / playouts}


def random_step(state: engine_ext.State, rng: random.Random) -> int:
    if state.current_player() == engine_ext.CHANCE:
        outcomes = state.chance_outcomes()
        action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
    else:
        action = rng.choice(state.legal_actions())
    state.apply(action)
    return action


def python_playouts(state: engine_ext.State, seconds: float) -> dict:
    rng = random.Random(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = state.clone()
        while not s.is_terminal():
            random_step(s, rng)
            steps += 1
        games += 1
    return {"python_steps_per_s": round(steps / (time.perf_counter() - start)), "python_playouts": games}


def per_call_ns(fn, calls: int) -> float:
    return min(timed(fn, calls) for _ in range(5)) / calls * 1e9


def call_overhead_ns(state: engine_ext.State, calls: int = 200_000) -> float:
    """Cost of the cheapest Python -> core call (``current_player``) minus an empty loop's iteration."""

    def calls_loop(n: int) -> None:
        f = state.current_player
        for _ in range(n):
            f()

    def empty_loop(n: int) -> None:
        for _ in range(n):
            pass

    return per_call_ns(calls_loop, calls) - per_call_ns(empty_loop, calls)


def midgame(state: engine_ext.State, steps: int = 150) -> tuple[engine_ext.State, int]:
    """A position about a third into a random game (or the last node before the end), for determinize."""
    rng = random.Random(3)
    s = state.clone()
    taken = 0
    while taken < steps:
        nxt = s.clone()
        random_step(nxt, rng)
        if nxt.is_terminal():
            break
        s = nxt
        taken += 1
    return s, taken


def default_players(name: str) -> int:
    return engine_ext.game_info(name).benchmark_players


def engine_speed(name: str, players: int, seconds: float) -> dict:
    state = engine_ext.new_game(name, players, seed=1)
    result = {"players": players}
    result.update(core_playouts(state, seconds))
    result.update(python_playouts(state, seconds))
    result["clone_ns"] = round(per_call_ns(lambda n: core.clone_many(state, n), 200_000), 1)
    result["call_overhead_ns"] = round(call_overhead_ns(state), 1)
    mid, at = midgame(state)
    result["determinize_at"] = f"step {at}"
    result["determinize_ns"] = round(per_call_ns(lambda n: [mid.determinize(0, i) for i in range(n)], 50_000), 1)
    return result


def opening_decision(name: str, players: int) -> engine_ext.State:
    state = engine_ext.new_game(name, players, seed=1)
    rng = random.Random(0)
    while state.current_player() == engine_ext.CHANCE:
        random_step(state, rng)
    return state


def search_speed(name: str, players: int, seconds: float, threads: int = 1) -> dict:
    """A time-budgeted ISMCTS from the game's first decision, default settings except that the search decides even
    where the defaults hand the set-up to another algorithm (Survive's placements go to greedy, which grows no tree):
    the opening is where the speed target is set."""
    state = opening_decision(name, players)
    seat = state.current_player()
    search.suggest(state, seat, iterations=200, setup_algorithm="same")  # warm-up
    stats = search.suggest(state, seat, time_ms=seconds * 1000, threads=threads, setup_algorithm="same").stats
    return {
        "players": players,
        "threads": threads,
        "algorithm": stats["algorithm"],
        "iterations_per_s": stats["iterations_per_s"],
        "iterations": stats["iterations"],
        "nodes": stats["nodes"],
        "node_bytes": stats["nodes"] * mcts.NODE_BYTES,
        "playout_depth": stats["playout_depth"],
    }


def openspiel_speed(seconds: float, simulations: int = 500, decisions: int = 60, seed: int = 0) -> dict | None:
    """OpenSpiel's compiled ISMCTS measured in this run, where ``open_spiel`` is installed: on Leduc poker against
    ours on identical positions, and on 4-player Hearts (its 4-player reference) from the opening."""
    try:
        import pyspiel
    except ImportError:
        return None

    def bot(game, sims):
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        final = pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
        return pyspiel.ISMCTSBot(seed, evaluator, 2.0, sims, -1, final, False, False)

    game = pyspiel.load_game("leduc_poker")
    rng = random.Random(seed)
    positions = []
    while len(positions) < decisions:
        theirs, ours = game.new_initial_state(), engine_ext.new_game("leduc_poker", 2)
        while not theirs.is_terminal():
            if theirs.is_chance_node():
                action = rng.choice([a for a, _ in theirs.chance_outcomes()])
            else:
                positions.append((ours.clone(), theirs.clone()))
                action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            ours.apply(action)
    positions = positions[:decisions]
    leduc_bot = bot(game, simulations)
    started = time.perf_counter()
    for _, theirs in positions:
        leduc_bot.step(theirs)
    theirs_rate = decisions * simulations / (time.perf_counter() - started)
    done = 0
    started = time.perf_counter()
    for k, (ours, _) in enumerate(positions):
        done += search.suggest(ours, ours.current_player(), iterations=simulations, seed=seed + k).stats["iterations"]
    ours_rate = done / (time.perf_counter() - started)
    hearts = pyspiel.load_game("hearts")
    state = hearts.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
    hearts_bot = bot(hearts, 1000)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        hearts_bot.step(state)
        steps += 1
    hearts_rate = steps * 1000 / (time.perf_counter() - started)
    return {
        "leduc": {
            "simulations_per_decision": simulations,
            "decisions": decisions,
            "ours_wall_clock_iterations_per_s": round(ours_rate),
            "openspiel_iterations_per_s": round(theirs_rate),
            "ratio": round(ours_rate / theirs_rate, 2),
        },
        "hearts_4p_openspiel_iterations_per_s": round(hearts_rate),
    }


def quiet(step: str) -> None:
    """No progress shown."""


def speed_report(
    games: list[str], seconds: float, threads: int = 1, openspiel: bool = True, progress: Callable[[str], None] = quiet
) -> dict:
    """Engine and search speed of each game (and OpenSpiel's reference, where installed); ``progress`` is told each
    step as it starts."""
    report = {"machine": platform.machine(), "python": platform.python_version(), "engines": {}, "searches": {}}
    steps = 2 * len(games) + openspiel
    for k, name in enumerate(games):
        players = default_players(name)
        progress(f"[{2 * k + 1}/{steps}] {name}: engine speed")
        report["engines"][name] = engine_speed(name, players, seconds)
        progress(f"[{2 * k + 2}/{steps}] {name}: search speed")
        report["searches"][name] = search_speed(name, players, seconds * 2, threads)
    if openspiel:
        progress(f"[{steps}/{steps}] OpenSpiel's ISMCTS (Leduc, 4-player Hearts), where installed")
    reference = openspiel_speed(seconds) if openspiel else None
    if reference is not None:
        four = [n for n in games if report["searches"][n]["players"] == HEARTS_PLAYERS]
        for name in four:
            ours = report["searches"][name]["iterations_per_s"]
            reference[f"ratio_{name}_4p_to_hearts_4p"] = round(
                ours / reference["hearts_4p_openspiel_iterations_per_s"], 2
            )
        report["openspiel"] = reference
    return report


def plot_speed(report: dict, path: Path, drawn: Callable | None = None) -> None:
    """The report's engine and search speeds as two bar charts in a PNG (``drawn``, if given, sees the figure before
    it is closed)."""
    pyplot = arena.optional_pyplot()
    names = list(report["engines"])
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4))
    left.bar(names, [report["engines"][n]["core_steps_per_s"] / 1e6 for n in names])
    left.axhline(2.0, color="grey", linestyle=":", label="target 2 M")
    left.set_ylabel("in-core random steps per second (M)")
    left.set_yscale("log")
    left.legend()
    right.bar(names, [report["searches"][n]["iterations_per_s"] / 1e3 for n in names])
    right.axhline(40, color="grey", linestyle=":", label="target 40 k (4 players)")
    if "openspiel" in report:
        right.axhline(
            report["openspiel"]["hearts_4p_openspiel_iterations_per_s"] / 1e3, color="red", linestyle="--",
            label="OpenSpiel ISMCTS, 4p Hearts",
        )  # fmt: skip
    right.set_ylabel("ISMCTS iterations per second (k), 1 thread")
    right.set_yscale("log")
    right.legend()
    for axes in (left, right):  # six game names side by side: slanted, so that they do not overlap
        axes.tick_params(axis="x", labelrotation=30)
        for label in axes.get_xticklabels():
            label.set_horizontalalignment("right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    if drawn is not None:
        drawn(figure)
    pyplot.close(figure)


# --- game metrics -----------------------------------------------------------------------------------------------
def _leaves(value, path: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, f"{path}/{key}").items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _leaves(item, f"{path}[{i}]").items()}
    return {path: value}


def hidden_facts(state: engine_ext.State, seat: int, samples: int = 8) -> int:
    """How many of the other seats' private facts ``seat`` cannot know: the leaves of their ``private_info`` that
    differ between worlds sampled from its observation."""
    worlds = [state.determinize(seat, k) for k in range(samples)]
    count = 0
    for other in range(state.num_players()):
        if other == seat:
            continue
        seen = [_leaves(world.private_info(other)) for world in worlds]
        count += sum(1 for path in seen[0] if len({repr(s.get(path)) for s in seen}) > 1)
    return count


def game_metrics(name: str, players: int, games: int, seed: int = 0) -> dict:
    """Random self-play statistics (the TAG framework's game report): length in atomic steps, decisions and turns
    (runs of one seat's decisions), branching, chance events, how many of the others' facts seat 0 cannot know at
    each tenth of the game, and seat 0's win share."""
    lengths, decisions, turns, chance, first_seat, branching = [], [], [], [], [], Counter()
    hidden_by_decile = [[] for _ in range(10)]
    for g in range(games):
        rng = random.Random(play.derive_seed(seed, "metrics", g))
        state = play.new_game(name, players, play.derive_seed(seed, "metrics-deal", g))
        history, steps, n_decisions, n_turns, n_chance, last_actor = [], 0, 0, 0, 0, None
        while not state.is_terminal():
            actor = state.current_player()
            if actor >= 0:
                branching[len(state.legal_actions())] += 1
                n_decisions += 1
                if actor != last_actor:
                    n_turns += 1
                last_actor = actor
            else:
                n_chance += 1
            history.append(state.clone())
            random_step(state, rng)
            steps += 1
        lengths.append(steps)
        decisions.append(n_decisions)
        turns.append(n_turns)
        chance.append(n_chance)
        first_seat.append(arena.win_shares(state.returns())[0])
        for decile in range(10):  # hidden facts sampled once per tenth of the game, for seat 0
            hidden_by_decile[decile].append(hidden_facts(history[decile * len(history) // 10], 0))
    total = sum(branching.values())
    mean_branching = sum(b * n for b, n in branching.items()) / total if total else 0.0
    buckets = Counter()
    for b, n in branching.items():
        buckets[_bucket(b)] += n
    return {
        "players": players,
        "games": games,
        "mean_atomic_steps": round(sum(lengths) / games, 1),
        "mean_decisions": round(sum(decisions) / games, 1),
        "mean_turns": round(sum(turns) / games, 1),
        "mean_chance_events": round(sum(chance) / games, 1),
        "branching_mean": round(mean_branching, 2),
        "branching_distribution": {k: round(v / total, 4) for k, v in sorted(buckets.items(), key=_bucket_order)},
        "hidden_facts_of_others_by_decile": [round(sum(v) / len(v), 2) if v else None for v in hidden_by_decile],
        "first_seat_win_share_random_play": round(sum(first_seat) / games, 4),
        "equal_share": round(1 / players, 4),
    }


BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500)


def _bucket(branching: int) -> str:
    for low, high in itertools.pairwise(BUCKETS):
        if branching < high:
            return f"{low}-{high - 1}"
    return f"{BUCKETS[-1]}+"


def _bucket_order(item: tuple[str, int]) -> int:
    return int(item[0].split("-")[0].rstrip("+"))


def greedy_against_random(name: str, players: int, deals: int, workers: int = 1) -> dict:
    """How often one greedy seat beats random ones (duplicate deals, the greedy seat rotating)."""
    result = arena.run_match(name, players, play.BotSettings("greedy"), play.BotSettings("random"), deals, 0, workers)
    greedy = result["configs"]["challenger"]
    return {"deal_groups": result["deal_groups"], "greedy_win_share": greedy["win_share"],
            "greedy_mean_return": greedy["mean_return"]}  # fmt: skip


def metrics_report(
    games: list[str], per_game: int, greedy_deals: int, workers: int = 1, progress: Callable[[str], None] = quiet
) -> dict:
    """Game metrics of each game at its smallest seat count and at four (or its largest); ``progress`` is told each
    step as it starts."""
    report = {}
    plan = []
    for name in games:
        info = engine_ext.game_info(name)
        plan += [(name, players) for players in sorted({info.min_players, min(4, info.max_players)})]
    for k, (name, players) in enumerate(plan, 1):
        greedy = f", greedy against random over {greedy_deals} deal groups" if greedy_deals else ""
        progress(f"[{k}/{len(plan)}] {name}, {players} players: {per_game} random games{greedy}")
        entry = game_metrics(name, players, per_game)
        if greedy_deals:
            entry["greedy_vs_random"] = greedy_against_random(name, players, greedy_deals, workers)
        report.setdefault(name, {})[f"{players}p"] = entry
    return report


def write_json(report: dict, path: Path | None) -> None:
    text = json.dumps(report, indent=2)
    if path:
        Path(path).write_text(text + "\n")
    print(text)
