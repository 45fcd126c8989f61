# cython: language_level=3
"""The search's C structures (see mcts.pyx for the algorithm). Memory: every buffer here is owned by the ``run`` call
that allocates it and freed before it returns, except a tree kept for reuse, which its ``Forest`` owns; nothing is
shared between threads but the cancel flag."""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t

from engine_ext.core cimport MAX_SEATS_ANY, playout_fn, returns_fn, sample_chance_fn

cdef enum:
    NO_NODE = -1
    MAX_PATH = 4096             # deepest path kept per tree; deeper descents stop growing that tree
    # Iterations between checks of the deadline and the cancel flag: a Small Islands iteration takes about 40 us, so
    # 64 let a 5 ms search run 6.7 ms; 8 stop it within about 0.3 ms. A clock read costs about 20 ns, under 2 % of
    # eight iterations of the fastest game (Kuhn), and a search on an iteration budget reads no clock.
    CHECK_EVERY = 8
    PIMC_TIMED_WORLD = 256      # PIMC on a time budget: iterations in each sampled world
    MAX_TURN_STEPS = 1000       # ``playout_to``: most steps played on from a leaf (a guard, never reached in play)

    ALG_ISMCTS = 0
    ALG_PIMC = 1
    ALG_FLAT = 2
    ALG_CHEAT = 3

    TO_STEPS = 0                # playouts: ``playout_depth`` steps (``SearchConfig.playout_to``)
    TO_TURN = 1                 # then on to the end of the turn the leaf is in
    TO_OWN_TURN = 2             # then on to the start of the searching seat's next turn
    TO_CHANCE = 3               # then on to the next chance event or the end of the turn, whichever comes first


cdef struct Node:
    int32_t action          # the observed action on the edge into this node (-1 for a root)
    int32_t first_child     # NO_NODE, or the newest child; siblings chain through next_sibling
    int32_t next_sibling
    int32_t visits          # iterations that passed through this node
    int32_t avail           # iterations in which this edge was legal when its parent was visited (>= 1)
    int32_t slot            # row in RootStats for children of the searching seat's root, else -1
    double value            # sum of the mover's rewards (reward - baseline + 0.5) over ``visits``; unused for chance
    double square           # sum of the squares of those rewards (the spread scaled exploration reads)
    double best             # implicit minimax: the mover's best line below (its consecutive own moves), else the mean
    int8_t mover            # seat that took the edge's action, -1 for chance and roots


cdef struct Arena:
    Node* nodes             # nodes[0 .. count): roots first (node t is tree t's root)
    int32_t count
    int32_t capacity        # the trees stop growing when count reaches it; iterations go on
    uint64_t* keys          # open addressing, at most half full: ((parent + 1) << 32) | action; 0 = empty
    int32_t* children       # the child node of each key
    uint64_t mask           # number of hash slots - 1 (a power of two)


cdef struct RootStats:
    # Per root action of the searching seat: visits, raw return sums per seat and the win-share sum. These (not the
    # tree's control-variate values) are what the caller ranks and reports.
    int32_t* action
    int64_t* visits
    double* values          # [slot * players + seat]
    double* wins
    double* learnt          # the searching seat's rewards as the tree learns them (relative to the baseline + 0.5)
    double* learnt_sq       # and their squares (the final choice's lower confidence bound)
    int32_t* survived       # halving: the rounds of sequential halving the action survived (all of them: a finalist)
    int64_t* prior          # visits a reused tree brought (an earlier search's iterations through the child)
    double* prior_learnt    # and their learnt rewards, re-based on this search's root
    int32_t count
    int32_t capacity        # the game's max_actions
    int32_t players


cdef struct Params:
    int algorithm           # ALG_*
    int seat                # the searching seat
    int players
    int64_t iterations      # < 0: no limit (a deadline or a cancel stops the search)
    double deadline         # CLOCK_MONOTONIC seconds; 0: none
    double exploration      # UCB constant: for rewards in [0, 1], or (scaled) in units of the node's reward spread
    bint scaled             # exploration times the standard deviation of the acting seat's rewards at the node
    int playout_depth       # steps before the heuristic scores a playout; < 0: play to the end
    int playout_to          # TO_*: where a tree search's playout may first stop (then ``playout_depth`` more steps)
    int playout_candidates  # where playout_to plays on: each move the heuristic's best of this many (1: the policy)
    returns_fn heuristic    # the game's evaluation the configuration names (NULL: the game has none)
    int candidates          # a new child is the best of this many untried moves by the heuristic one ply on (1: random)
    double widening         # > 0: a node visited v times has at most ceil(widening * sqrt(v)) children
    double minimax          # weight of a child's implicit minimax value beside its mean in selection (0: off)
    double minimax_prior    # the node's mean counted as this many visits in each child's line before the max (0: off)
    bint canonical_order    # below the root, skip a move the game calls redundant after the same seat's last one
    bint open_loop          # ISMCTS: the searching seat's tree follows its own moves only; detached seats play on
    bint private_roots      # ISMCTS: each other seat's tree branches first on what that seat alone knows in the world
    const double* belief    # ISMCTS (NULL: none): weight of private key k of seat o at [o * belief_keys + k], max 1
    int belief_keys
    int worlds              # PIMC: worlds the iteration budget is split over
    bint light_playouts     # playouts use the game's light policy when it has one (else uniform)
    playout_fn playout      # the playout policy in use (NULL: uniform), from light_playouts and the policy's name
    sample_chance_fn draw   # the game's ``playout_draw`` when ``playout`` is its light policy (else NULL)
    bint baseline           # rewards relative to the root's heuristic value in each sampled world
    bint halving            # sequential halving over the searching seat's root moves (searches with a budget)
    const int32_t* root_moves  # NULL: every legal move; else (ascending) the only moves the seat's root may take
    int root_count
    volatile int* cancel    # set by Control.cancel() from another thread


cdef struct Outcome:
    int64_t iterations
    int64_t worlds
    int32_t nodes
    double baseline_sum[MAX_SEATS_ANY]  # per seat: the root's heuristic summed over the iterations' sampled worlds


cdef struct Halving:
    # Sequential halving at the searching seat's root (Karnin et al. 2013; Cazenave 2015): the budget is split into
    # ceil(log2(moves)) rounds; in each, every surviving move gets an equal share of the round's iterations (the tree
    # below it searches as usual), then the better half by mean reward survives. Survivors come first in ``order``.
    int32_t root            # the node the halving applies to (the searching seat's root)
    int moves               # root moves (0: not started; set at the first iteration)
    int alive               # survivors: order[0 .. alive)
    int* order              # indices into ``actions``
    int32_t* actions        # every root move
    int32_t* rounds         # per move: rounds survived
    int64_t* got            # per move: visits in the current round
    double* mean            # per move: its mean reward when the last round ended
    int64_t per_move        # visits each survivor gets this round
    int rounds_left
    int64_t budget          # the search's iterations
    int64_t done            # iterations that went through the root so far


cdef struct Walk:
    # One iteration's working memory, allocated once per search. ``trees`` is 1 for a perfect-information search
    # (PIMC, cheat) and one per seat for ISMCTS, each tree keyed by what its owner observes.
    int trees
    void* world             # the sampled world, played forward as the iteration descends
    void* scratch           # a copy of the world to score candidate moves one ply on
    double* scored          # per seat: the heuristic of a candidate
    void* kept              # the best candidate so far, one ply on from the world (``pick_untried``)
    double* kept_scored     # per seat: its heuristic
    int32_t kept_action     # the move that leads to it (-1: none kept for this step)
    bint kept_ready         # the world is the kept position: a depth-0 evaluation reads ``kept_scored``
    int32_t* legal          # max_actions entries
    int32_t* untried        # max_actions entries
    char* tried             # max_actions flags
    int32_t* path           # trees * MAX_PATH node ids: path[t * MAX_PATH + k] is tree t's k-th node
    int32_t* cur            # per tree: the node the descent is at
    int* plen               # per tree: path length
    bint* attached          # per tree: still descending (false once it expanded, filled up or ran out of path)
    double* raw             # per seat: returns of the playout
    double* scaled          # per seat: returns scaled to [0, 1]
    double* baseline        # per seat: the root's heuristic value in this world (0.5 without a control variate)
    bint baseline_ready     # ``baseline`` holds the root's value already (a search that does not resample worlds)
    double win              # the searching seat's win share of the playout
    Halving* halving        # NULL: the root selects by UCB like every node
    int leaf_turn           # the turn owner where the iteration's last tree move was made (``playout_to``)
