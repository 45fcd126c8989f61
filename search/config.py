"""What a search runs: ``SearchConfig`` (its fields, the game's defaults filled in) and the checks a request's
configuration passes before a search starts."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import engine_ext
from search import mcts

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


def deals_by_evidence(config: SearchConfig, info: engine_ext.GameInfo) -> bool:
    """Whether a search with ``config`` (resolved) deals the other seats' hidden facts by beliefs from what their
    moves show: ``beliefs`` in a game with ``GameInfo.key_evidence`` (Small Islands' Objectives) or
    ``GameInfo.belief_filter`` (Survive's treasure values), for every algorithm that samples worlds (ISMCTS, PIMC,
    flat Monte Carlo), so that each plays from the same beliefs and the arena compares algorithms, not what they
    were told."""
    learns = info.key_evidence is not None or info.belief_filter is not None
    return bool(config.beliefs) and learns and config.algorithm in EVIDENCE_SEARCHES


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


def _thread_seed(seed: int, thread: int) -> int:
    return (seed * 1_000_003 + thread * 7919) % 2**64
