"""Game-agnostic search for Atoll's games: information-set MCTS and baseline bots.

``suggest(state_or_observation, seat, ...)`` is the one entry point (DESIGN.md, "Search"). The search reads only what
``seat`` observes: a world is sampled from ``state.determinize(seat, ...)`` every iteration, so two states with equal
``observation(seat)`` give identical results for the same seed and iteration budget.

Algorithms: ``ismcts`` (multiple-observer information-set MCTS, compiled, nogil), ``pimc`` (perfect-information UCT
over sampled worlds), ``flat`` (flat Monte Carlo), ``greedy`` (one ply, scored by the game's heuristic or a random
playout), ``random``, and ``cheat`` (UCT on the true state: an upper bound for benchmarks only; ``allow_cheat=True``
is required, and nothing a service client can reach sets it).

The final choice is the most visited root action (ties: higher mean value, then lower action id). Budgets: an
iteration count, a time limit, or both (the first reached stops the search); with neither, 1,000 iterations.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import engine_ext
from search import mcts
from search.mcts import Control

__all__ = ["ALGORITHMS", "Control", "Move", "SearchResult", "suggest"]

ALGORITHMS = ("ismcts", "pimc", "flat", "greedy", "random", "cheat")
DEFAULT_ITERATIONS = 1000
# Playouts longer than this are cut off and scored by the game's heuristic (games without one play to the end).
DEFAULT_PLAYOUT_DEPTH = {"survive": 0}
DEFAULT_EXPLORATION = 0.7
# Survive's win-share heuristic moves by a few hundredths per move: a smaller UCB constant lets the search tell moves
# apart (arena, 20 games each against greedy at 1,000 iterations: 0.7 scored 19 points a game, 0.05-0.2 about 29).
EXPLORATION = {"survive": 0.2}
MAX_NODES = 4_000_000
FASTEST_ITERATIONS_PER_S = 250_000
GREEDY_SAMPLES = 8
BELIEF_WORLDS = 32


@dataclass(frozen=True)
class Move:
    """One candidate move. ``value`` is the acting seat's mean return, ``values`` every seat's; ``win_prob`` the mean
    win share (1 for a sole win, 1/k for a k-way tie); ``pv`` the expected line as move text, this move first."""

    action: int
    text: str
    visits: int
    value: float
    values: list[float]
    win_prob: float
    pv: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SearchResult:
    """Ranked moves (best first), root statistics and what the seat believes about hidden facts."""

    moves: list[Move]
    stats: dict
    belief: dict

    @property
    def best(self) -> Move:
        return self.moves[0]


def suggest(
    state_or_observation: engine_ext.State | dict,
    seat: int,
    *,
    iterations: int | None = None,
    time_ms: float | None = None,
    seed: int = 0,
    top_k: int = 5,
    algorithm: str = "ismcts",
    threads: int = 1,
    exploration: float | None = None,
    playout_depth: int | None = None,
    worlds: int | None = None,
    node_capacity: int | None = None,
    light_playouts: bool = True,
    baseline: bool = True,
    control: Control | None = None,
    allow_cheat: bool = False,
) -> SearchResult:
    """Search the position for ``seat`` (who must be to act) and rank its moves.

    ``state_or_observation``: a state, or one seat's ``observation`` dict (the stateless path). ``exploration``: the
    UCB constant for rewards in [0, 1] (default per game: 0.2 for Survive, else 0.7). ``control``: pass a
    ``Control`` to cancel from another thread; the search then returns the best found so far. ``playout_depth``:
    playout steps before the game's heuristic scores the position (-1: to the end; default per game).
    ``light_playouts``: playouts use the game's light policy where it has one (else uniform random).
    ``baseline``: tree values are learnt relative to the heuristic value of the root in each sampled world (a control
    variate; games with a heuristic only).
    """
    state = _as_state(state_or_observation)
    _check_request(state, seat, iterations, time_ms, top_k, algorithm, threads, allow_cheat)
    if iterations is None and time_ms is None:
        iterations = DEFAULT_ITERATIONS
    control = control or Control()
    started = time.perf_counter()
    deadline = mcts.monotonic() + time_ms / 1000.0 if time_ms is not None else 0.0
    depth = DEFAULT_PLAYOUT_DEPTH.get(state.game_name, -1) if playout_depth is None else playout_depth
    if exploration is None:
        exploration = EXPLORATION.get(state.game_name, DEFAULT_EXPLORATION)
    if algorithm == "random":
        rng = random.Random(seed)
        action = rng.choice(state.legal_actions())
        pooled = {action: {"visits": 1, "value_sums": [0.0] * state.num_players(), "win_sum": 0.0}}
        runs = [{"iterations": 0, "worlds": 0, "nodes": 0, "pv": [action]}]
    elif algorithm == "greedy":
        pooled, runs = _greedy(state, seat, iterations, deadline, seed, control)
    else:
        pooled, runs = _tree_search(
            state,
            seat,
            algorithm,
            iterations,
            deadline,
            seed,
            threads,
            exploration,
            depth,
            worlds,
            node_capacity,
            control,
            {"light_playouts": light_playouts, "baseline": baseline},
        )
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    moves = _rank(state, seat, pooled, runs[0]["pv"], seed, top_k)
    done = sum(r["iterations"] for r in runs)
    stats = {
        "algorithm": algorithm,
        "iterations": done,
        "worlds_sampled": sum(r["worlds"] for r in runs),
        "nodes": sum(r["nodes"] for r in runs),
        "elapsed_ms": round(elapsed_ms, 3),
        "iterations_per_s": round(done / (elapsed_ms / 1000.0)) if elapsed_ms > 0 else 0,
        "threads": len(runs),
        "cancelled": control.cancelled,
        "playout_depth": depth,
    }
    return SearchResult(moves=moves, stats=stats, belief=belief_summary(state, seat, seed))


def _as_state(state_or_observation) -> engine_ext.State:
    if isinstance(state_or_observation, engine_ext.State):
        return state_or_observation
    if isinstance(state_or_observation, dict):
        return engine_ext.from_observation(state_or_observation.get("game"), state_or_observation)
    raise TypeError("suggest() takes a State or an observation dict")


def _check_request(state, seat, iterations, time_ms, top_k, algorithm, threads, allow_cheat) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if algorithm == "cheat" and not allow_cheat:
        raise ValueError("algorithm: 'cheat' reads hidden information and is only for benchmarks")
    if not 0 <= seat < state.num_players():
        raise ValueError(f"seat: expected 0..{state.num_players() - 1}, got {seat}")
    if state.current_player() != seat:
        who = {engine_ext.CHANCE: "chance", engine_ext.TERMINAL: "nobody (the game is over)"}.get(
            state.current_player(), f"seat {state.current_player()}"
        )
        raise ValueError(f"seat: seat {seat} is not to act; {who} is")
    if iterations is not None and iterations < 1:
        raise ValueError(f"iterations: expected at least 1, got {iterations}")
    if time_ms is not None and time_ms <= 0:
        raise ValueError(f"time_ms: expected a positive time, got {time_ms}")
    if top_k < 1:
        raise ValueError(f"top_k: expected at least 1, got {top_k}")
    if threads < 1:
        raise ValueError(f"threads: expected at least 1, got {threads}")


def _tree_search(
    state, seat, algorithm, iterations, deadline, seed, threads, exploration, depth, worlds, capacity, control, flags
):
    players = state.num_players()
    if capacity is None:
        # Each iteration adds at most one node per tree; a time budget is bounded by the fastest rate we have seen.
        per_thread = (iterations + threads - 1) // threads if iterations else None
        if deadline:
            by_time = int(max(0.0, deadline - mcts.monotonic()) * FASTEST_ITERATIONS_PER_S) + 1
            per_thread = by_time if per_thread is None else min(per_thread, by_time)
        capacity = min(MAX_NODES, per_thread * (players + 1) + players + 64)
    shares = [-1] * threads
    if iterations is not None:
        shares = [iterations // threads + (1 if i < iterations % threads else 0) for i in range(threads)]
    worlds = worlds or max(1, min(32, (iterations or 4096) // 64))
    runs: list[dict | None] = [None] * threads
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            runs[i] = mcts.run(
                state,
                seat,
                algorithm,
                shares[i],
                deadline,
                _thread_seed(seed, i),
                exploration,
                depth,
                worlds,
                control,
                capacity,
                **flags,
            )
        except BaseException as err:  # noqa: BLE001 - re-raised in the calling thread below
            errors.append(err)

    if threads == 1:
        work(0)
    else:
        pool = [threading.Thread(target=work, args=(i,), name=f"atoll-search-{i}") for i in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    if errors:
        raise errors[0]
    pooled: dict[int, dict] = {}
    for run in runs:
        for entry in run["actions"]:
            slot = pooled.setdefault(entry["action"], {"visits": 0, "value_sums": [0.0] * players, "win_sum": 0.0})
            slot["visits"] += entry["visits"]
            slot["value_sums"] = [a + b for a, b in zip(slot["value_sums"], entry["value_sums"], strict=True)]
            slot["win_sum"] += entry["win_sum"]
    return pooled, runs


def _thread_seed(seed: int, thread: int) -> int:
    return (seed * 1_000_003 + thread * 7919) % 2**64


def _greedy(state, seat, iterations, deadline, seed, control):
    """One ply: every legal move scored in several sampled worlds by the heuristic (or a random playout)."""
    players = state.num_players()
    legal = state.legal_actions()
    samples = max(1, (iterations or GREEDY_SAMPLES * len(legal)) // len(legal))
    depth = 0 if state.game_name in DEFAULT_PLAYOUT_DEPTH else -1
    pooled = {}
    done = 0
    for k in range(samples):
        if control.cancelled or (deadline and mcts.monotonic() >= deadline and done):
            break
        world = state.determinize(seat, _thread_seed(seed, k))
        for action in legal:
            after = world.clone()
            after.apply(action)
            scaled = mcts.evaluate_state(after, seat, _thread_seed(seed + action, k), depth)
            slot = pooled.setdefault(action, {"visits": 0, "value_sums": [0.0] * players, "win_sum": 0.0})
            slot["visits"] += 1
            slot["value_sums"] = [a + b for a, b in zip(slot["value_sums"], scaled, strict=True)]
            slot["win_sum"] += scaled[seat]
            done += 1
    return pooled, [{"iterations": done, "worlds": samples, "nodes": 0, "pv": []}]


def _rank(state, seat, pooled, pv_ids, seed, top_k) -> list[Move]:
    legal = set(state.legal_actions())
    entries = [(a, s) for a, s in pooled.items() if a in legal and s["visits"] > 0]
    entries.sort(key=lambda e: (-e[1]["visits"], -e[1]["value_sums"][seat] / e[1]["visits"], e[0]))
    moves = []
    for rank, (action, s) in enumerate(entries[:top_k]):
        visits = s["visits"]
        values = [v / visits for v in s["value_sums"]]
        line = principal_line(state, seat, pv_ids, seed) if rank == 0 and pv_ids and pv_ids[0] == action else []
        moves.append(
            Move(
                action=action,
                text=state.action_to_string(action),
                visits=visits,
                value=values[seat],
                values=values,
                win_prob=s["win_sum"] / visits,
                pv=line or [state.action_to_string(action)],
            )
        )
    if not moves:
        # Nothing was sampled (a cancel before the first iteration): fall back to the first legal move.
        action = min(legal)
        moves.append(
            Move(
                action,
                state.action_to_string(action),
                0,
                0.0,
                [0.0] * state.num_players(),
                0.0,
                [state.action_to_string(action)],
            )
        )
    return moves


def principal_line(state, seat, observed_ids: list[int], seed: int) -> list[str]:
    """The tree's most visited line as move text from ``seat``'s view, replayed in one sampled world."""
    world = state.determinize(seat, seed)
    texts = []
    for observed in observed_ids:
        if world.is_terminal():
            break
        if world.current_player() == engine_ext.CHANCE:
            options = [a for a, _ in world.chance_outcomes()]
        else:
            options = world.legal_actions()
        match = next((a for a in options if world.observed_action(a, seat) == observed), None)
        if match is None:
            break
        texts.append(world.action_to_string(observed))
        world.apply(match)
    return texts


def belief_summary(state, seat: int, seed: int, worlds: int = BELIEF_WORLDS) -> dict:
    """What ``seat`` believes of every other seat's private facts: frequencies over sampled worlds."""
    module = engine_ext.game_module(state.game_name)
    sampled = [state.determinize(seat, _thread_seed(seed, 10_000 + k)) for k in range(worlds)]
    if hasattr(module, "belief_summary"):
        return module.belief_summary(sampled, seat)
    summary = {}
    for other in range(state.num_players()):
        if other == seat:
            continue
        counts: dict[str, Counter] = defaultdict(Counter)
        for world in sampled:
            for key, value in world.private_info(other).items():
                counts[key][json.dumps(value)] += 1
        if counts:
            summary[f"seat {other}"] = {
                key: {v: round(n / worlds, 4) for v, n in sorted(c.items())} for key, c in counts.items()
            }
    return summary
