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

import json
import math
import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, fields, replace

import engine_ext
from search import mcts
from search.mcts import Control

__all__ = ["ALGORITHMS", "Control", "Move", "SearchConfig", "SearchResult", "TreeKeeper", "suggest"]

ALGORITHMS = ("ismcts", "pimc", "flat", "greedy", "random", "cheat")
SEARCHES = ("ismcts", "pimc", "flat", "cheat")  # the algorithms that ``setup_algorithm`` can stand in for
EVIDENCE_SEARCHES = ("ismcts", "pimc", "flat")  # those that deal worlds by beliefs from what the moves show
DEFAULT_ITERATIONS = 1000
MAX_NODES = 4_000_000
MIN_NODES = 64  # a tree per seat needs its roots and room to grow
FASTEST_ITERATIONS_PER_S = 250_000
GREEDY_SAMPLES = 8
REFINE_THREADS = 1000  # refine: the second stage's thread i seeds as thread REFINE_THREADS + i (apart from the first's)
LCB_VISIT_FLOOR = 0.1  # final_lcb: moves with fewer visits than this share of the most visited one's rank last
BELIEF_WORLDS = 32
BELIEF_KEYS = 64  # beliefs: private keys 0..63 are weighed (a key above weighs 1: the game's keys for poker are cards)
BELIEF_FLOOR = 1e-3  # beliefs: no key is ever ruled out (the trees' answers are estimates)
BELIEF_TRIES = 64  # beliefs: draws per reported world before one is taken as it comes (as the search does)


@dataclass(frozen=True)
class SearchConfig:
    """Everything that decides what a search does, in one value. ``None`` fields take the game's record
    (``engine_ext.game_info(name).search_defaults``) or the documented default; ``resolved(info)`` fills them in.

    ``exploration``: the UCB constant for rewards in [0, 1], or with ``scaled_exploration`` in units of the standard
    deviation of the acting seat's rewards at the node (a constant that fits every reward scale). ``heuristic``: which
    of the game's evaluations (``GameInfo.heuristics``) scores cut-off playouts, greedy moves and the control
    variate. ``candidates``: a tree's new child is the best of this many untried moves drawn at random, scored by
    that heuristic one ply on (1: a random untried move). ``widening``: progressive widening, a node visited ``v``
    times grows at most ``ceil(widening * sqrt(v))`` children (0: every move is tried before any is revisited).
    ``minimax``: implicit minimax backups, the weight in [0, 1] of a child's best line through its mover's own next
    decisions (scored by the heuristic) beside its mean reward when a node picks among its children (0: off).
    ``minimax_prior``: before that best line is taken, each child's line counts its node's mean as this many visits
    beside its own (a line tried once holds one sampled world's luck; 0: off).
    ``final_lcb`` (tree searches): the move played is the one whose learnt value has the highest lower confidence
    bound, this many standard errors below its mean, among the moves with at least a tenth of the most visited one's
    visits (0: the most visited, the default).
    ``halving`` (tree searches with an iteration budget): the searching seat's root moves are chosen by sequential
    halving instead of UCB. The budget is split into ceil(log2(moves)) rounds; in each, every surviving move gets an
    equal share of the round's iterations (the tree below it searches as usual), then the better half by mean reward
    goes on; the move played is the best by mean among the last survivors. It spends the budget on telling the best
    moves apart rather than on regret during the search, which is what a wide root with noisy values needs. A search
    bounded by time alone has no budget to split and selects by UCB at the root.
    ``canonical_order``: where the game can tell (``GameVTable.redundant``), two consecutive moves of one seat that
    reach the same position in either order are searched in one order only (below the root), so the tree does not
    split its visits between transpositions of one plan.
    ``open_loop`` (ISMCTS): the searching seat's tree holds its own moves only, other seats' moves and chance pass it
    by (an open-loop tree over what happens between its decisions), and once another seat's tree has left its known
    part that seat plays on by the heuristic's best of ``candidates`` moves (else the light policy), so an iteration
    ends only where the searching seat's own tree grows: it reaches the seat's next turns instead of stopping at the
    first new node of any seat.
    ``private_roots`` (ISMCTS, games that name a seat's own hidden facts, ``GameVTable.private_key``: the poker games'
    cards; coarse keys in Survive and Small Islands): every other seat's tree branches first on that seat's own hidden
    facts in the sampled world (its card), so its moves in the search are learnt per card, as it would choose them
    knowing its card, instead of one policy pooled over every card the searching seat cannot tell apart (strategy
    fusion in the opponents' trees).
    ``beliefs`` (ISMCTS, in a game loop that passes a ``TreeKeeper``; with ``private_roots`` where the key is
    fixed): the seat's sampled worlds are weighted by how likely the other seats' moves since its last search make
    each of their private keys, as that search's own trees for them answered (the visit shares of each key's branch
    at the node where the move was made, smoothed); a weight carries over from search to search in the game.
    Without a keeper nothing is learnt and worlds are dealt as without; past a chance event the other seat saw
    differently (a card dealt to it) nothing more is learnt until the next search. In a game whose moves show
    evidence about a key that changes (``GameInfo.key_evidence``: Small Islands' Objective for the round) the
    weights come instead from each move as the seat observes it (its likelihood under each key, by the game's model
    of a player aiming at its key), are forgotten when the mover takes a new key, and deal the worlds directly
    (``GameInfo.weigh_keys``); private roots are not needed there, and PIMC and flat Monte Carlo deal their worlds
    by them too (``deals_by_evidence``). In a game with a filter over whole worlds (``GameInfo.belief_filter``:
    Survive's treasure values) the seat's filter starts at its first decision, set-up included, sees every move as
    the seat observes it, and deals the worlds of ISMCTS, PIMC and flat Monte Carlo.
    ``reuse`` (ISMCTS): when the caller passes a ``TreeKeeper`` (the game loop, ``search.play``, keeps one per bot
    seat), the search starts from the subtree of the seat's previous search that the moves since lead to, and keeps
    its trees for the next; without a keeper it has no effect.
    ``refine`` (tree searches with an iteration budget; 0: off, else at least 2): the search runs in two stages. The
    first ``refine_screen`` iterations search as with ``playout_to="steps"`` (leaves scored where they are) and rank
    the root's moves; the rest of the budget searches a fresh tree whose root takes only the best ``refine`` of them,
    with the configured ``playout_to`` (e.g. ``"own_turn"``, leaves scored after the other seats' replies). The move
    played is the second stage's choice; the ranking lists its moves first, then the rest as the screen ranked them.
    A cheap, exact evaluation picks the few moves worth telling apart, and the costly, noisy one that sees further
    spends the budget on those alone. A search without a second stage is the screen alone: a budget no larger than
    ``refine_screen``, a search bounded by time alone (it has no budget to split), or fewer than two moves to compare.
    A second stage stopped by time or cancellation before it has run the screen's iterations (or its whole budget,
    if that is smaller) leaves the screen's ranking and principal line; its iterations still count.
    With ``reuse`` the screen's trees are the ones kept and reused (the second stage's root is not the seat's).
    ``setup_algorithm``: at the game's set-up decisions (``GameInfo.in_setup``: Survive's placements) a search
    (``ismcts``, ``pimc``, ``flat``, ``cheat``) plays this algorithm instead, on the same budget (``"greedy"``: the
    evaluation one ply on over sampled worlds, never fewer than its own ``GREEDY_SAMPLES``); ``"same"``: the search
    itself.
    ``playout_depth``: playout steps before the game's heuristic scores the position (-1: to the end).
    ``playout_to`` (tree searches): where a playout's ``playout_depth`` steps start counting. ``"steps"``: at the
    leaf. ``"turn"``: at the end of the turn the iteration's last tree move was made in (the game's
    ``GameVTable.turn_owner``; without one a turn is a run of one seat's moves). ``"own_turn"``: at the start of the
    searching seat's next turn. ``"chance"``: at the turn's next chance event or its end, whichever comes first
    (the rest of the seats' own decisions only, no luck). Until then each seat moves by the heuristic's best one ply
    on among ``playout_candidates`` legal moves drawn at random (default: ``candidates``; 1: the playout policy), so
    leaves are scored at one point of the round (with ``"own_turn"``, after the other seats' replies).
    ``light_playouts``: playouts use the game's light policy where it has one (else uniform); ``playout_policy``
    names another of the game's policies (``GameInfo.playout_policies``) to use instead. ``baseline``: tree values are
    learnt relative to the heuristic value of the root in each sampled world (a control variate; games with a
    heuristic only). ``worlds``: PIMC's sampled worlds. ``node_capacity``: the tree's
    node limit (default: enough for the budget).
    """

    algorithm: str = "ismcts"
    iterations: int | None = None
    time_ms: float | None = None
    seed: int = 0
    threads: int = 1
    top_k: int = 5
    exploration: float | None = None
    scaled_exploration: bool | None = None
    heuristic: str | None = None
    candidates: int | None = None
    widening: float | None = None
    minimax: float | None = None
    minimax_prior: float | None = None
    final_lcb: float | None = None
    halving: bool | None = None
    refine: int | None = None
    refine_screen: int | None = None
    canonical_order: bool | None = None
    open_loop: bool | None = None
    private_roots: bool | None = None
    beliefs: bool | None = None
    reuse: bool | None = None
    setup_algorithm: str | None = None
    playout_depth: int | None = None
    playout_to: str | None = None
    playout_candidates: int | None = None
    light_playouts: bool | None = None
    playout_policy: str | None = None
    baseline: bool | None = None
    worlds: int | None = None
    node_capacity: int | None = None

    def to_dict(self) -> dict:
        """The fields that differ from the defaults (what a hosted game's record and the arena's files store)."""
        default = SearchConfig()
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)
        }

    @classmethod
    def from_dict(cls, data: dict) -> SearchConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def resolved(self, info: engine_ext.GameInfo, players: int | None = None) -> SearchConfig:
        """This configuration with every unset field taken from the game's record (for ``players`` seats and for
        the iteration budget where it says so: ``SearchDefaults.by_players``, then ``by_budget``) and the documented
        defaults.
        (``greedy`` without a budget keeps its own: ``GREEDY_SAMPLES`` worlds, and takes the game's
        ``greedy_heuristic`` and ``greedy_playout_depth`` where its record names them; PIMC's worlds depend on the
        position and are chosen when it runs.)"""
        defaults = info.search_defaults
        if players is not None and defaults.by_players and players in defaults.by_players:
            defaults = replace(defaults, **defaults.by_players[players])
        iterations = self.iterations
        if iterations is None and self.time_ms is None and self.algorithm != "greedy":
            iterations = DEFAULT_ITERATIONS
        for budget in defaults.by_budget:
            if budget.applies(players, iterations):
                defaults = replace(defaults, **budget.settings)
        heuristic, depth = defaults.heuristic, defaults.playout_depth
        candidates = defaults.candidates if self.candidates is None else self.candidates
        playout_candidates = self.playout_candidates
        if playout_candidates is None:
            playout_candidates = candidates if defaults.playout_candidates is None else defaults.playout_candidates
        if self.algorithm == "greedy":
            heuristic = defaults.greedy_heuristic or heuristic
            depth = depth if defaults.greedy_playout_depth is None else defaults.greedy_playout_depth
        return replace(
            self,
            iterations=iterations,
            exploration=defaults.exploration if self.exploration is None else self.exploration,
            heuristic=heuristic if self.heuristic is None else self.heuristic,
            candidates=candidates,
            widening=defaults.widening if self.widening is None else self.widening,
            minimax=defaults.minimax if self.minimax is None else self.minimax,
            minimax_prior=defaults.minimax_prior if self.minimax_prior is None else self.minimax_prior,
            final_lcb=defaults.final_lcb if self.final_lcb is None else self.final_lcb,
            halving=defaults.halving if self.halving is None else self.halving,
            refine=defaults.refine if self.refine is None else self.refine,
            refine_screen=defaults.refine_screen if self.refine_screen is None else self.refine_screen,
            canonical_order=defaults.canonical_order if self.canonical_order is None else self.canonical_order,
            open_loop=defaults.open_loop if self.open_loop is None else self.open_loop,
            private_roots=defaults.private_roots if self.private_roots is None else self.private_roots,
            beliefs=defaults.beliefs if self.beliefs is None else self.beliefs,
            reuse=defaults.reuse if self.reuse is None else self.reuse,
            setup_algorithm=defaults.setup_algorithm if self.setup_algorithm is None else self.setup_algorithm,
            scaled_exploration=(
                defaults.scaled_exploration if self.scaled_exploration is None else self.scaled_exploration
            ),
            playout_depth=depth if self.playout_depth is None else self.playout_depth,
            playout_to=defaults.playout_to if self.playout_to is None else self.playout_to,
            playout_candidates=playout_candidates,
            light_playouts=defaults.light_playouts if self.light_playouts is None else self.light_playouts,
            playout_policy=defaults.playout_policy if self.playout_policy is None else self.playout_policy,
            baseline=defaults.baseline if self.baseline is None else self.baseline,
        )


class TreeKeeper:
    """Tree reuse and beliefs for one seat in one game: the trees each search thread leaves (``mcts.Forest``), what
    the seat observed of every move since the last search and who made it, and the seat's beliefs about the other
    seats' private keys. The game loop calls ``observe`` before applying each move (chance included) and passes the
    keeper to ``suggest``; a search with ``reuse`` then starts from the subtree those observations lead to, and one
    with ``beliefs`` first weighs each other seat's keys by its moves since. A keeper never reads more than the seat
    observes: the observed action ids are exactly what the seat's own tree is keyed by, and who moves is public."""

    def __init__(self, seat: int):
        self.seat = seat
        self.forests: list[mcts.Forest] = []
        self.path: list[int] = []
        self.movers: list[int] = []
        self.fingerprint: tuple | None = None
        self.beliefs: dict[int, list[float]] = {}  # seat -> weight of each private key (max 1)
        # A game whose beliefs come from what moves show (GameInfo.key_evidence): set by the first search with
        # ``beliefs``; from then on every other seat's move is weighed as it is observed.
        self.evidence: engine_ext.GameInfo | None = None
        # A game whose beliefs are a filter over whole worlds (GameInfo.belief_filter): started by the first search
        # with ``beliefs``; from then on it sees every move as this seat observes it.
        self.filter = None

    def observe(self, state: engine_ext.State, action: int) -> None:
        """Record ``action``, about to be applied to ``state``, as this seat observes it."""
        if self.fingerprint is not None:
            self.path.append(state.observed_action(action, self.seat))
            self.movers.append(state.current_player())
        if self.evidence is not None:
            self.weigh_move(state, action)
        if self.filter is not None:
            self.filter.observe(state, action)

    def start_evidence(self, info: engine_ext.GameInfo, state: engine_ext.State, seed: int) -> None:
        """From this decision of the seat's on, learn from what the other seats' moves show: weigh each move by
        ``info.key_evidence``, or start ``info.belief_filter`` at ``state`` (once; ``seed`` seeds its worlds)."""
        if info.key_evidence is not None:
            self.evidence = info
        elif info.belief_filter is not None and self.filter is None:
            self.filter = info.belief_filter(state, self.seat, seed)

    def weigh_move(self, state: engine_ext.State, action: int) -> None:
        """Beliefs from what a move shows (games with ``GameInfo.key_evidence``): a move that renews its mover's key
        forgets what was learnt of it; one that hints at it multiplies the mover's weights by its likelihood under
        each key, computed on the position as this seat observes it (its observation, loaded), never the state."""
        mover = state.current_player()
        if mover < 0 or mover == self.seat:
            return
        observed = state.observed_action(action, self.seat)
        what = self.evidence.evidence_move(observed)
        if what == "renew":
            self.beliefs.pop(mover, None)
        elif what == "weigh":
            view = self.evidence.from_observation(state.observation(self.seat))
            likelihood = self.evidence.key_evidence(view, mover, observed)
            if likelihood:
                weights = self.beliefs.setdefault(mover, [1.0] * len(likelihood))
                weights[:] = [w * p for w, p in zip(weights, likelihood, strict=True)]
                top = max(weights)
                weights[:] = [max(BELIEF_FLOOR, w / top) for w in weights]

    def update_beliefs(self) -> None:
        """Weigh each other seat's private keys by its moves since the last search, as that search's trees for the
        seat answered under each key (visit shares at the node the move was made at, smoothed by one visit; a key
        whose branch never reached it takes the mean of the others). A seat's tree is followed by what this seat
        observed of each move, so past a chance event the other seat saw differently (a card dealt to it) the tree
        has no such line and nothing more is learnt until the next search; past a public one (Leduc's shared card)
        it goes on."""
        forest = self.forests[0] if self.forests else None
        if forest is None or not forest.nodes:
            return
        for i, mover in enumerate(self.movers):
            if mover < 0 or mover == self.seat:
                continue
            action, prefix = self.path[i], self.path[:i]
            likelihood = {}
            for key in range(BELIEF_KEYS):
                children = forest.policy(mover, key, prefix)
                if children:
                    total = sum(visits for _, visits in children)
                    chosen = sum(visits for move, visits in children if move == action)
                    likelihood[key] = (chosen + 1) / (total + len(children))
            if not likelihood:
                continue
            mean = sum(likelihood.values()) / len(likelihood)
            weights = self.beliefs.setdefault(mover, [1.0] * BELIEF_KEYS)
            weights[:] = [w * likelihood.get(key, mean) for key, w in enumerate(weights)]
            top = max(weights)
            weights[:] = [max(BELIEF_FLOOR, w / top) for w in weights]

    def belief_rows(self, players: int) -> list[list[float]] | None:
        """The beliefs as ``mcts.run`` takes them (one row per seat), or None when there are none."""
        if not self.beliefs:
            return None
        width = max(len(row) for row in self.beliefs.values())
        return [self.beliefs.get(p, [1.0] * width) for p in range(players)]

    def reset(self) -> None:
        """Forget the kept trees and beliefs (the next search starts afresh)."""
        for forest in self.forests:
            forest.release()
        self.forests = []
        self.path = []
        self.movers = []
        self.fingerprint = None
        self.beliefs = {}
        self.filter = None

    @property
    def nodes(self) -> int:
        return sum(forest.nodes for forest in self.forests)

    @property
    def bytes(self) -> int:
        """Memory the kept trees hold, and the belief filter's worlds (``GameInfo.belief_filter``) if it has one."""
        kept = sum(forest.bytes for forest in self.forests)
        return kept + (self.filter.bytes if self.filter is not None else 0)


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


def deals_by_evidence(config: SearchConfig, info: engine_ext.GameInfo) -> bool:
    """Whether a search with ``config`` (resolved) deals the other seats' hidden facts by beliefs from what their
    moves show: ``beliefs`` in a game with ``GameInfo.key_evidence`` (Small Islands' Objectives) or
    ``GameInfo.belief_filter`` (Survive's treasure values), for every algorithm that samples worlds (ISMCTS, PIMC,
    flat Monte Carlo), so that each plays from the same beliefs and the arena compares algorithms, not what they
    were told."""
    learns = info.key_evidence is not None or info.belief_filter is not None
    return bool(config.beliefs) and learns and config.algorithm in EVIDENCE_SEARCHES


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


def check_config(config: SearchConfig, state: engine_ext.State, allow_cheat: bool = False) -> None:
    """ValueError naming the first setting of ``config`` that a search of ``state``'s game would refuse (what
    ``suggest`` checks before it searches, and the arena before it plays a game)."""
    if config.algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {config.algorithm!r}")
    if config.algorithm == "cheat" and not allow_cheat:
        raise ValueError("algorithm: 'cheat' reads hidden information and is only for benchmarks")
    if config.iterations is not None and config.iterations < 1:
        raise ValueError(f"iterations: expected at least 1, got {config.iterations}")
    if config.time_ms is not None and not 0 < config.time_ms < float("inf"):
        raise ValueError(f"time_ms: expected a positive, finite time, got {config.time_ms}")
    if config.setup_algorithm is not None and config.setup_algorithm not in ("same", *ALGORITHMS):
        raise ValueError(
            f"setup_algorithm: expected 'same' or one of {', '.join(ALGORITHMS)}, got {config.setup_algorithm!r}"
        )
    if config.setup_algorithm == "cheat" and not allow_cheat:
        raise ValueError("setup_algorithm: 'cheat' reads hidden information and is only for benchmarks")
    if config.exploration is not None and not 0 <= config.exploration < float("inf"):
        raise ValueError(f"exploration: expected a finite constant of 0 or more, got {config.exploration}")
    if config.worlds is not None and config.worlds < 1:
        raise ValueError(f"worlds: expected at least 1, got {config.worlds}")
    if config.playout_depth is not None and config.playout_depth < -1:
        raise ValueError(f"playout_depth: expected -1 (play to the end) or 0 and more, got {config.playout_depth}")
    if config.node_capacity is not None and config.node_capacity < MIN_NODES:
        raise ValueError(f"node_capacity: expected at least {MIN_NODES}, got {config.node_capacity}")
    if config.heuristic is not None:
        mcts.heuristic_index(state, config.heuristic)  # raises ValueError naming what the game offers
    if config.playout_policy is not None:
        mcts.playout_index(state, config.playout_policy)  # the same for playout policies
    if config.candidates is not None and config.candidates < 1:
        raise ValueError(f"candidates: expected at least 1, got {config.candidates}")
    if config.playout_to is not None and config.playout_to not in mcts.PLAYOUT_TO:
        raise ValueError(f"playout_to: expected one of {', '.join(mcts.PLAYOUT_TO)}, got {config.playout_to!r}")
    if config.playout_candidates is not None and config.playout_candidates < 1:
        raise ValueError(f"playout_candidates: expected at least 1, got {config.playout_candidates}")
    if config.widening is not None and config.widening < 0:
        raise ValueError(f"widening: expected 0 (off) or a positive factor, got {config.widening}")
    if config.minimax is not None and not 0 <= config.minimax <= 1:
        raise ValueError(f"minimax: expected a weight from 0 (off) to 1, got {config.minimax}")
    if config.minimax_prior is not None and not 0 <= config.minimax_prior < math.inf:
        raise ValueError(f"minimax_prior: expected a finite number of visits >= 0, got {config.minimax_prior}")
    if config.final_lcb is not None and not 0 <= config.final_lcb < math.inf:
        raise ValueError(f"final_lcb: expected a finite number of standard errors >= 0, got {config.final_lcb}")
    info = engine_ext.game_info(state.game_name)
    if config.beliefs and not info.private_key_fixed and info.key_evidence is None and info.belief_filter is None:
        raise ValueError(
            f"beliefs: {state.game_name} names no private key that stays the same through a game, so what a seat's"
            " moves said about it cannot carry over"
        )
    if config.refine is not None and (config.refine < 0 or config.refine == 1):
        raise ValueError(
            f"refine: expected 0 (off) or the 2 or more moves its second stage compares, got {config.refine}"
        )
    if config.refine_screen is not None and config.refine_screen < 1:
        raise ValueError(f"refine_screen: expected at least 1 iteration, got {config.refine_screen}")
    if config.halving and config.final_lcb:
        raise ValueError("halving and final_lcb each choose the move played; set one of them")
    if config.top_k < 1:
        raise ValueError(f"top_k: expected at least 1, got {config.top_k}")
    if config.threads < 1:
        raise ValueError(f"threads: expected at least 1, got {config.threads}")


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


def _thread_seed(seed: int, thread: int) -> int:
    return (seed * 1_000_003 + thread * 7919) % 2**64


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


def _lower_bounds(entries: list[tuple[int, dict]], z: float) -> dict[int, float]:
    """Per action: its mean learnt value minus ``z`` standard errors (the spread from this search's samples of the
    move, at least the spread of all the root's samples)."""
    n = sum(s["samples"] for _, s in entries)
    total = sum(s["own_learnt_sum"] for _, s in entries)
    root_var = max(0.0, sum(s["learnt_sq_sum"] for _, s in entries) / n - (total / n) ** 2) if n else 0.0
    bounds = {}
    for action, s in entries:
        var = root_var
        if s["samples"] > 1:
            mean = s["own_learnt_sum"] / s["samples"]
            var = max(var, s["learnt_sq_sum"] / s["samples"] - mean**2)
        bounds[action] = s["learnt_sum"] / s["visits"] - z * math.sqrt(var / s["visits"])
    return bounds


def _order(state, pooled, config: SearchConfig) -> list[tuple[int, dict]]:
    """The legal sampled moves of ``pooled`` as ``(action, statistics)``, best first (``_rank``'s order)."""
    legal = set(state.legal_actions())
    entries = [(a, s) for a, s in pooled.items() if a in legal and s["visits"] > 0]
    if config.algorithm in ("flat", "greedy"):
        entries.sort(key=lambda e: (-e[1]["learnt_sum"] / e[1]["visits"], -e[1]["visits"], e[0]))
    elif config.halving and config.iterations is not None:
        entries.sort(key=lambda e: (-e[1]["survived"], -e[1]["learnt_sum"] / e[1]["visits"], -e[1]["visits"], e[0]))
    elif config.final_lcb:
        bound = _lower_bounds(entries, config.final_lcb)
        floor = LCB_VISIT_FLOOR * max(s["visits"] for _, s in entries) if entries else 0
        entries.sort(key=lambda e: (e[1]["visits"] < floor, -bound[e[0]], -e[1]["visits"], e[0]))
    else:
        entries.sort(key=lambda e: (-e[1]["visits"], -e[1]["learnt_sum"] / e[1]["visits"], e[0]))
    # refine: the second stage's moves come first, in its order (the sort is stable).
    entries.sort(key=lambda e: not e[1].get("refined", False))
    return entries


def _rank(state, seat, pooled, pv_ids, config: SearchConfig) -> list[Move]:
    """Best first. Tree searches: most visited, ties by the value the tree learnt (the control-variate value, which
    is what selection used), then the lower id; with ``final_lcb`` > 0, by the learnt value's lower confidence bound
    (mean minus ``final_lcb`` standard errors, each move's spread at least the root's pooled spread) among the moves
    with at least ``LCB_VISIT_FLOOR`` of the most visited one's visits (so a move seen a few times cannot win on a
    lucky sample), the others after them; with ``halving`` (and an iteration budget), by the rounds of sequential
    halving survived (summed over threads), then by that learnt value: the last survivors are compared by their means.
    Flat Monte Carlo and greedy spread visits evenly by design, so their ranking is by that learnt value. With
    ``refine``, the second stage's moves come first, in that order, then the screen's others."""
    seed, top_k = config.seed, config.top_k
    legal = set(state.legal_actions())
    moves = []
    for rank, (action, s) in enumerate(_order(state, pooled, config)[:top_k]):
        visits = s["visits"]
        # Values and win shares are this search's samples; a reused tree's prior visits count only for the ranking.
        samples = s.get("samples", visits)
        values = [v / samples for v in s["value_sums"]] if samples else [0.0] * state.num_players()
        line = principal_line(state, seat, pv_ids, seed) if rank == 0 and pv_ids and pv_ids[0] == action else []
        moves.append(
            Move(
                action=action,
                text=state.action_to_string(action),
                visits=visits,
                value=values[seat],
                values=values,
                win_prob=s["win_sum"] / samples if samples else 0.0,
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
        match = world.observed_as(observed, seat)
        if match is None:
            break
        texts.append(world.action_to_string(observed))
        world.apply(match)
    return texts


def belief_summary(
    state, seat: int, seed: int, worlds: int = BELIEF_WORLDS, weights: dict[int, list[float]] | None = None
) -> dict:
    """What ``seat`` believes of every other seat's private facts: frequencies over sampled worlds. ``weights``
    (``TreeKeeper.beliefs``): worlds kept in proportion to their private keys' weights, as the search samples them."""
    sampled = []
    draws = 0
    accept = random.Random(seed)
    while len(sampled) < worlds:
        world = state.determinize(seat, _thread_seed(seed, 10_000 + draws))
        draws += 1
        if weights and draws <= worlds * BELIEF_TRIES:
            weight = 1.0
            for other, row in weights.items():
                key = world.private_key(other)
                weight *= row[key] if 0 <= key < len(row) else 1.0
            if accept.random() >= weight:
                continue
        sampled.append(world)
    summarise = engine_ext.game_info(state.game_name).belief_summary
    if summarise is not None:
        return summarise(sampled, seat)
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
