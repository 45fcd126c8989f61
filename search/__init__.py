"""Game-agnostic search for Atoll's games: information-set MCTS and baseline bots.

``suggest(state_or_observation, seat, config)`` is the one entry point. A ``SearchConfig`` (or its fields as
keywords) says what to run; unset fields take the game's record (``engine_ext.game_info(name).search_defaults``).
The search reads only what ``seat`` observes: a world is sampled from ``state.determinize(seat, ...)`` every
iteration, so two states with equal ``observation(seat)`` give identical results for the same seed and budget.

Algorithms: ``ismcts`` (multiple-observer information-set MCTS, compiled, nogil: ``search/mcts.pyx``), ``pimc``
(perfect-information UCT over sampled worlds), ``flat`` (flat Monte Carlo), ``greedy`` (one ply, scored by the game's
heuristic or a random playout), ``random``, and ``cheat`` (UCT on the true state: an upper bound for benchmarks only;
``allow_cheat=True`` is required, and nothing a service client can reach sets it).

The final choice is the most visited root action (ties: higher mean value, then lower action id). Budgets: an
iteration count, a time limit, or both (the first reached stops the search); with neither, 1,000 iterations.
``search.play`` is the game loop every caller plays through (hosted games, PlayGame, the arena, ``atoll play``).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import fields, replace

import engine_ext
from search import mcts
from search.config import (
    ALGORITHMS,
    BELIEF_WORLDS,
    DEFAULT_ITERATIONS,
    EVIDENCE_SEARCHES,
    FASTEST_ITERATIONS_PER_S,
    GREEDY_SAMPLES,
    LCB_VISIT_FLOOR,
    MAX_NODES,
    MIN_NODES,
    REFINE_THREADS,
    SEARCHES,
    SearchConfig,
    _thread_seed,
    check_config,
    deals_by_evidence,
)
from search.keeper import TreeKeeper
from search.mcts import Control
from search.report import Move, SearchResult, _order, _rank, belief_summary, principal_line
from search.report import _lower_bounds as _lower_bounds  # tests read it here

# The API, and the constants other modules read as ``search.X`` (each defined in the module of its role).
__all__ = [
    "ALGORITHMS", "BELIEF_WORLDS", "DEFAULT_ITERATIONS", "EVIDENCE_SEARCHES", "GREEDY_SAMPLES", "LCB_VISIT_FLOOR",
    "MIN_NODES", "REFINE_THREADS", "SEARCHES", "Control", "Move", "SearchConfig", "SearchResult", "TreeKeeper",
    "belief_summary", "check_config", "deals_by_evidence", "principal_line", "suggest",
]  # fmt: skip


def suggest(
    state_or_observation: engine_ext.State | dict,
    seat: int,
    config: SearchConfig | None = None,
    *,
    control: Control | None = None,
    allow_cheat: bool = False,
    profile: bool = False,
    keeper: TreeKeeper | None = None,
    summary: bool = True,
    **settings,
) -> SearchResult:
    """Search the position for ``seat`` (who must be to act) and rank its moves.

    ``state_or_observation``: a state, or one seat's ``observation`` dict (the stateless path). The search is
    described by ``config`` (a ``SearchConfig``) or by its fields as keywords (``iterations=5000, seed=1``); keywords
    override the config's fields. ``control``: pass a ``Control`` to cancel from another thread; the search then
    returns the best found so far. ``allow_cheat`` must be set for ``algorithm="cheat"`` (benchmarks only).
    ``profile``: add ``stats["profile"]``, the depth and width profile of the searching seat's tree (the first
    thread's; tree algorithms only): per depth the nodes, the iterations through them, the mean children of expanded
    nodes and who moves there, and how many iterations reached the seat's k-th turn (``mcts.tree_profile``; an
    ``open_loop`` tree holds no other seat's moves, so it counts no later turns).
    ``keeper``: the seat's ``TreeKeeper`` in a game loop; with ``reuse`` the search starts from its kept subtree
    (``stats["reused_nodes"]``: the nodes carried over) and leaves its trees there.
    ``summary=False``: leave ``belief`` empty (a bot seat that only plays the move: the summary samples 32 worlds of
    its own, which nobody reads there; about 0.1 ms a decision in four-seat Survive since its summary is counted in C,
    0.4 ms before). The moves do not depend on it.
    """
    state = _as_state(state_or_observation)
    info = engine_ext.game_info(state.game_name)
    try:
        config = replace(config or SearchConfig(), **settings) if settings else config or SearchConfig()
    except TypeError:
        unknown = sorted(set(settings) - {f.name for f in fields(SearchConfig)})
        raise TypeError(f"suggest() got unknown settings {unknown}; SearchConfig lists them") from None
    _check_request(state, seat, config, allow_cheat)
    if keeper is not None and keeper.seat != seat:
        raise ValueError(f"keeper: it keeps seat {keeper.seat}'s trees, not seat {seat}'s")
    config = config.resolved(info, state.num_players())
    if keeper is not None and info.belief_filter is not None and deals_by_evidence(config, info):
        keeper.start_evidence(info, state, config.seed)  # at the seat's first decision, set-up included
    if (
        config.setup_algorithm != "same"
        and config.algorithm in SEARCHES
        and info.in_setup is not None
        and info.in_setup(state)
    ):
        iterations = config.iterations
        if config.setup_algorithm == "greedy" and iterations is not None:
            # Never fewer sampled worlds than greedy's own (a small budget over a few hundred placements would
            # leave it one or two); its evaluations are cheap beside a search's iterations.
            iterations = max(iterations, GREEDY_SAMPLES * len(state.legal_actions()))
        config = replace(config, algorithm=config.setup_algorithm, iterations=iterations)
    control = control or Control()
    started = time.perf_counter()
    deadline = mcts.monotonic() + config.time_ms / 1000.0 if config.time_ms is not None else 0.0
    if config.algorithm == "random":
        rng = random.Random(config.seed)
        action = rng.choice(state.legal_actions())
        pooled = {action: {**empty_slot(state.num_players()), "visits": 1, "samples": 1}}
        runs = [{"iterations": 0, "worlds": 0, "nodes": 0, "pv": [action]}]
    elif config.algorithm == "greedy":
        pooled, runs = _greedy(state, seat, config, deadline, control)
    else:
        pooled, runs = _tree_search(state, seat, config, deadline, control, profile, keeper)
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    moves = _rank(state, seat, pooled, runs[0]["pv"], config)
    done = sum(r["iterations"] for r in runs)
    stats = {
        "algorithm": config.algorithm,
        "iterations": done,
        "worlds_sampled": sum(r["worlds"] for r in runs),
        "nodes": sum(r["nodes"] for r in runs),
        "elapsed_ms": round(elapsed_ms, 3),
        "iterations_per_s": round(done / (elapsed_ms / 1000.0)) if elapsed_ms > 0 else 0,
        "threads": len(runs),
        "cancelled": control.cancelled,
        "playout_depth": config.playout_depth,
    }
    if config.reuse and keeper is not None:
        stats["reused_nodes"] = sum(r.get("reused", 0) for r in runs)
    if profile and "profile" in runs[0]:
        stats["profile"] = runs[0]["profile"]
    if not summary:
        return SearchResult(moves=moves, stats=stats, belief={})
    weights = None
    if keeper is not None and config.beliefs and (config.algorithm == "ismcts" or deals_by_evidence(config, info)):
        weights = keeper.beliefs
    if weights and info.weigh_keys is not None:  # beliefs from what the moves show: the worlds are dealt by them
        state, weights = info.weigh_keys(state, keeper.belief_rows(state.num_players())), None
    if keeper is not None and keeper.filter is not None and deals_by_evidence(config, info):
        state = keeper.filter.weigh(state)
    return SearchResult(moves=moves, stats=stats, belief=belief_summary(state, seat, config.seed, weights=weights))


def _as_state(state_or_observation) -> engine_ext.State:
    if isinstance(state_or_observation, engine_ext.State):
        return state_or_observation
    if isinstance(state_or_observation, dict):
        return engine_ext.from_observation(state_or_observation.get("game"), state_or_observation)
    raise TypeError("suggest() takes a State or an observation dict")


def _check_request(state: engine_ext.State, seat: int, config: SearchConfig, allow_cheat: bool) -> None:
    if not 0 <= seat < state.num_players():
        raise ValueError(f"seat: expected 0..{state.num_players() - 1}, got {seat}")
    if state.current_player() != seat:
        who = {engine_ext.CHANCE: "chance", engine_ext.TERMINAL: "nobody (the game is over)"}.get(
            state.current_player(), f"seat {state.current_player()}"
        )
        raise ValueError(f"seat: seat {seat} is not to act; {who} is")
    check_config(config, state, allow_cheat)


def _tree_search(
    state: engine_ext.State,
    seat: int,
    config: SearchConfig,
    deadline: float,
    control: Control,
    profile: bool = False,
    keeper: TreeKeeper | None = None,
) -> tuple[dict, list[dict]]:
    players = state.num_players()
    threads = config.threads
    iterations = config.iterations
    capacity = config.node_capacity
    if capacity is None:
        # Each iteration adds at most one node per tree; a time budget is bounded by the fastest rate we have seen.
        per_thread = (iterations + threads - 1) // threads if iterations else None
        if deadline:
            by_time = int(max(0.0, deadline - mcts.monotonic()) * FASTEST_ITERATIONS_PER_S) + 1
            per_thread = by_time if per_thread is None else min(per_thread, by_time)
        capacity = min(MAX_NODES, per_thread * (players + 1) + players + 64)
    if config.worlds is None:
        # PIMC: enough iterations in each world to try every legal move ten times, at most 32 worlds.
        per_world = max(64, 10 * len(state.legal_actions()))
        config = replace(config, worlds=max(1, min(32, (iterations or 4096) // per_world)))
    forests: list = [None] * threads
    path = None
    belief = None
    info = engine_ext.game_info(state.game_name)
    evidence = deals_by_evidence(config, info)
    if keeper is not None and (config.reuse or (config.beliefs and not evidence)) and config.algorithm == "ismcts":
        # Trees learnt under other settings (or another game) are not reused; a new thread count starts afresh.
        # (Beliefs from what the moves show read no trees: a seat with them alone keeps none.)
        budgetless = replace(config, seed=0, iterations=None, time_ms=None, top_k=0, worlds=None, node_capacity=None)
        fingerprint = (state.game_name, players, budgetless)
        if keeper.fingerprint != fingerprint or len(keeper.forests) != threads:
            learnt = keeper.beliefs if keeper.evidence is not None else {}  # from the moves, not from trees: kept
            evidence_kept, filter_kept = keeper.evidence, keeper.filter
            keeper.reset()
            keeper.beliefs, keeper.evidence, keeper.filter = learnt, evidence_kept, filter_kept
            keeper.forests = [mcts.Forest() for _ in range(threads)]
            keeper.fingerprint = fingerprint
        forests = keeper.forests
        if config.beliefs and not evidence:
            keeper.update_beliefs()
            belief = keeper.belief_rows(players)
        path = keeper.path if config.reuse else []
    if keeper is not None and evidence:
        # Beliefs from what the moves show: the worlds are dealt by them (no draws are thrown away).
        keeper.start_evidence(info, state, config.seed)
        rows = keeper.belief_rows(players)
        if rows is not None:
            state = info.weigh_keys(state, rows)
        if keeper.filter is not None:
            state = keeper.filter.weigh(state)

    def stage(cfg: SearchConfig, budget: int | None, root_moves: list[int] | None, first: int) -> tuple[dict, list]:
        """The threads' searches of one stage, pooled; thread i seeds with ``first + i``, and only the first stage
        reuses and keeps trees."""
        shares = [-1] * threads
        if budget is not None:
            shares = [budget // threads + (1 if i < budget % threads else 0) for i in range(threads)]
        runs: list[dict | None] = [None] * threads
        errors: list[BaseException] = []
        kept = forests if first == 0 else [None] * threads

        def work(i: int) -> None:
            try:
                runs[i] = mcts.run(
                    state,
                    seat,
                    cfg,
                    shares[i],
                    deadline,
                    _thread_seed(cfg.seed, first + i),
                    control,
                    capacity,
                    profile=profile and i == 0,
                    forest=kept[i],
                    path=path if cfg.reuse and first == 0 else None,
                    belief=belief,
                    root_moves=root_moves,
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
        if keeper is not None and path is not None and first == 0:
            keeper.path = []
            keeper.movers = []
        if errors:
            if keeper is not None:
                keeper.reset()
            raise errors[0]
        return _pool(runs, players), runs

    if not config.refine or config.algorithm == "flat":  # flat Monte Carlo has no tree to restrict
        return stage(config, iterations, None, 0)
    screen = replace(config, playout_to="steps")
    if iterations is None or iterations <= config.refine_screen:
        return stage(screen, iterations, None, 0)  # no budget for a second stage: the screen is the search
    screen = replace(screen, iterations=config.refine_screen)
    screened, runs = stage(screen, screen.iterations, None, 0)
    best = [action for action, _ in _order(state, screened, screen)][: config.refine]
    if len(best) < 2 or control.cancelled or (deadline and mcts.monotonic() >= deadline):
        return screened, runs
    planned = iterations - screen.iterations
    refined, second = stage(config, planned, best, REFINE_THREADS)
    if sum(run["iterations"] for run in second) < min(planned, config.refine_screen):
        # Cut short by time or cancelled (fewer iterations than the screen's, when it planned more): the arena
        # measured the second stage at its whole budget, not a choice among a few noisy visits (a judgment, no match).
        return screened, [_both_stages(one, two, one) for one, two in zip(runs, second, strict=True)]
    pooled = {action: entry for action, entry in screened.items() if action not in best}
    for action in best:  # a move the second stage never reached keeps the screen's figures and rank
        entry = refined.get(action)
        pooled[action] = {**entry, "refined": True} if entry and entry["visits"] > 0 else screened[action]
    merged = [_both_stages(one, two, two) for one, two in zip(runs, second, strict=True)]
    return pooled, merged


def _both_stages(one: dict, two: dict, chosen: dict) -> dict:
    """A thread's run of ``refine``'s two stages: the counts of both, and the principal line (and profile) of the
    stage whose ranking is the search's."""
    both = {key: one[key] + two[key] for key in ("iterations", "worlds", "nodes")}
    return {**one, **both, "pv": chosen["pv"], **({"profile": chosen["profile"]} if "profile" in chosen else {})}


def _pool(runs: list[dict], players: int) -> dict[int, dict]:
    """The threads' root statistics summed per action."""
    if len(runs) == 1:
        return {entry["action"]: entry for entry in runs[0]["actions"]}
    pooled: dict[int, dict] = {}
    for run in runs:
        for entry in run["actions"]:
            slot = pooled.setdefault(entry["action"], empty_slot(players))
            slot["visits"] += entry["visits"]
            slot["samples"] += entry["samples"]
            slot["value_sums"] = [a + b for a, b in zip(slot["value_sums"], entry["value_sums"], strict=True)]
            slot["win_sum"] += entry["win_sum"]
            slot["learnt_sum"] += entry["learnt_sum"]
            slot["own_learnt_sum"] += entry["own_learnt_sum"]
            slot["learnt_sq_sum"] += entry["learnt_sq_sum"]
            slot["survived"] += entry["survived"]
    return pooled


def empty_slot(players: int) -> dict:
    return {
        "visits": 0,
        "samples": 0,
        "value_sums": [0.0] * players,
        "win_sum": 0.0,
        "learnt_sum": 0.0,
        "own_learnt_sum": 0.0,
        "learnt_sq_sum": 0.0,
        "survived": 0,
    }


def _greedy(
    state: engine_ext.State, seat: int, config: SearchConfig, deadline: float, control: Control, profile: bool = False
) -> tuple[dict, list[dict]]:
    """One ply: every legal move scored in several sampled worlds by the heuristic (or a random playout)."""
    players = state.num_players()
    legal = state.legal_actions()
    seed = config.seed
    samples = max(1, (config.iterations or GREEDY_SAMPLES * len(legal)) // len(legal))
    depth = config.playout_depth
    pooled = {}
    done = 0
    for k in range(samples):
        if control.cancelled or (deadline and mcts.monotonic() >= deadline and done):
            break
        world = state.determinize(seat, _thread_seed(seed, k))
        for action in legal:
            after = world.clone()
            after.apply(action)
            scaled = mcts.evaluate_state(
                after,
                seat,
                _thread_seed(seed + action, k),
                depth,
                config.light_playouts,
                config.heuristic,
                config.playout_policy,
            )
            slot = pooled.setdefault(action, empty_slot(players))
            slot["visits"] += 1
            slot["samples"] += 1
            slot["value_sums"] = [a + b for a, b in zip(slot["value_sums"], scaled, strict=True)]
            slot["win_sum"] += scaled[seat]
            slot["learnt_sum"] += scaled[seat]
            slot["own_learnt_sum"] += scaled[seat]
            slot["learnt_sq_sum"] += scaled[seat] ** 2
            done += 1
    return pooled, [{"iterations": done, "worlds": samples, "nodes": 0, "pv": []}]
