# cython: language_level=3
"""Compiled Monte Carlo tree search over the engine's C table, run without the GIL.

Multiple-observer information-set MCTS (Cowling, Powley & Whitehouse 2012): every seat has its own tree, keyed by
what that seat observes (``observed_action``), so another seat's partly hidden move enters a tree as what that tree's
owner saw of it. Each iteration samples a world consistent with the searching seat's observation, descends all trees
together (the seat to act selects by UCB with availability counts among the actions legal in this world), expands at
most one node per tree, plays out (uniformly random or the game's light policy, cut off after ``playout_depth``
steps and scored by the game's heuristic when it has one), and backs the result up every tree. Rewards are the game's
returns scaled to [0, 1]; for games with a heuristic, each iteration's rewards are taken relative to the heuristic
value of the root in that iteration's sampled world (a control variate: it does not depend on the moves, so rankings
stay unbiased, and the noise the resampled hidden facts add to every leaf cancels).

The same loop runs PIMC (one perfect-information tree per sampled world, root statistics pooled), ``cheat`` (one
perfect-information tree on the true state) and flat Monte Carlo (root actions in turn, random playouts).

Memory: a node is 32 bytes and the child index 24 bytes per node (a 12-byte slot, kept at most half full), so
56 bytes per node; the node capacity bounds it, after which the trees stop growing and iterations go on.
"""

from libc.math cimport log, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from engine_ext.core cimport (
    CHANCE_PLAYER,
    TERMINAL_PLAYER,
    GameVTable,
    Rng,
    State,
    clone_into,
    rng_below,
    rng_seed,
)

cdef enum:
    MAX_PLAYERS = 16
    NO_NODE = -1
    MAX_PATH = 4096
    CHECK_EVERY = 64

    ALG_ISMCTS = 0
    ALG_PIMC = 1
    ALG_FLAT = 2
    ALG_CHEAT = 3

ALGORITHMS = {"ismcts": ALG_ISMCTS, "pimc": ALG_PIMC, "flat": ALG_FLAT, "cheat": ALG_CHEAT}
NODE_BYTES = 56


cdef struct Node:
    int32_t action          # the observed action on the edge into this node
    int32_t first_child
    int32_t next_sibling
    int32_t visits
    int32_t avail           # times the edge was available when its parent was visited
    int32_t slot            # row of the root statistics for children of the searching seat's root, else -1
    float value             # reward sum of the seat that acted on the edge (unused for chance edges)
    int8_t mover


cdef struct Arena:
    Node* nodes
    int32_t count
    int32_t capacity
    uint64_t* keys          # ((parent + 1) << 32) | action; 0 marks an empty hash slot
    int32_t* children
    uint64_t mask


# Per root action of the searching seat: visits, raw return sums per seat and win-share sum.
cdef struct RootStats:
    int32_t* action
    int64_t* visits
    double* values          # [slot * players + seat]
    double* wins
    int32_t count
    int32_t capacity
    int32_t players


cdef struct Params:
    int algorithm
    int seat
    int players
    int64_t iterations      # < 0: no limit
    double deadline         # CLOCK_MONOTONIC seconds; 0: none
    double exploration
    int playout_depth       # < 0: play to the end
    int worlds              # PIMC
    bint light_playouts     # use the game's playout policy when it has one (else uniform)
    bint baseline           # subtract the root's heuristic value in each sampled world (games with a heuristic)
    volatile int* cancel


cdef struct Outcome:
    int64_t iterations
    int64_t worlds
    int32_t nodes


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def monotonic():
    """The clock deadlines are measured on (CLOCK_MONOTONIC seconds)."""
    return now()


# ---------------------------------------------------------------------------------------------------------------------
# Arena: nodes plus an open-addressing index (parent, action) -> child
# ---------------------------------------------------------------------------------------------------------------------
cdef int arena_init(Arena* a, int32_t capacity) noexcept nogil:
    cdef uint64_t slots = 1
    while slots < <uint64_t>capacity * 2:
        slots <<= 1
    a.nodes = <Node*>malloc(capacity * sizeof(Node))
    a.keys = <uint64_t*>calloc(slots, sizeof(uint64_t))
    a.children = <int32_t*>malloc(slots * sizeof(int32_t))
    a.capacity = capacity
    a.mask = slots - 1
    a.count = 0
    return a.nodes != NULL and a.keys != NULL and a.children != NULL


cdef void arena_clear(Arena* a) noexcept nogil:
    memset(a.keys, 0, (a.mask + 1) * sizeof(uint64_t))
    a.count = 0


cdef void arena_free(Arena* a) noexcept nogil:
    free(a.nodes)
    free(a.keys)
    free(a.children)


cdef inline uint64_t mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint64_t edge_key(int32_t parent, int32_t action) noexcept nogil:
    return ((<uint64_t>(parent + 1)) << 32) | <uint32_t>action


cdef inline int position_of(const int32_t* sorted_actions, int n, int32_t action) noexcept nogil:
    """Index of ``action`` in an ascending list, or -1."""
    cdef int lo = 0, hi = n - 1, mid
    while lo <= hi:
        mid = (lo + hi) >> 1
        if sorted_actions[mid] < action:
            lo = mid + 1
        elif sorted_actions[mid] > action:
            hi = mid - 1
        else:
            return mid
    return -1


cdef int32_t find_child(const Arena* a, int32_t parent, int32_t action) noexcept nogil:
    cdef uint64_t key = edge_key(parent, action)
    cdef uint64_t i = mix(key) & a.mask
    while a.keys[i] != 0:
        if a.keys[i] == key:
            return a.children[i]
        i = (i + 1) & a.mask
    return NO_NODE


cdef int32_t new_node(Arena* a, int32_t parent, int32_t action, int mover) noexcept nogil:
    """A fresh node; NO_NODE when the arena is full. ``parent`` NO_NODE makes a root."""
    cdef int32_t n
    cdef uint64_t key, i
    cdef Node* node
    if a.count >= a.capacity:
        return NO_NODE
    n = a.count
    a.count += 1
    node = &a.nodes[n]
    node.action = action
    node.first_child = NO_NODE
    node.next_sibling = NO_NODE
    node.visits = 0
    node.avail = 1
    node.slot = -1
    node.value = 0
    node.mover = mover
    if parent != NO_NODE:
        node.next_sibling = a.nodes[parent].first_child
        a.nodes[parent].first_child = n
        key = edge_key(parent, action)
        i = mix(key) & a.mask
        while a.keys[i] != 0:
            i = (i + 1) & a.mask
        a.keys[i] = key
        a.children[i] = n
    return n


# ---------------------------------------------------------------------------------------------------------------------
# Root statistics
# ---------------------------------------------------------------------------------------------------------------------
cdef int root_init(RootStats* r, int capacity, int players) noexcept nogil:
    r.action = <int32_t*>malloc(capacity * sizeof(int32_t))
    r.visits = <int64_t*>calloc(capacity, sizeof(int64_t))
    r.values = <double*>calloc(capacity * players, sizeof(double))
    r.wins = <double*>calloc(capacity, sizeof(double))
    r.count = 0
    r.capacity = capacity
    r.players = players
    return r.action != NULL and r.visits != NULL and r.values != NULL and r.wins != NULL


cdef void root_free(RootStats* r) noexcept nogil:
    free(r.action)
    free(r.visits)
    free(r.values)
    free(r.wins)


cdef int32_t root_slot(RootStats* r, int32_t action) noexcept nogil:
    cdef int32_t k
    for k in range(r.count):
        if r.action[k] == action:
            return k
    if r.count >= r.capacity:
        return -1
    r.action[r.count] = action
    r.count += 1
    return r.count - 1


cdef void root_record(RootStats* r, int32_t slot, const double* raw, double win) noexcept nogil:
    cdef int p
    r.visits[slot] += 1
    for p in range(r.players):
        r.values[slot * r.players + p] += raw[p]
    r.wins[slot] += win


# ---------------------------------------------------------------------------------------------------------------------
# One iteration's pieces
# ---------------------------------------------------------------------------------------------------------------------
cdef double win_share(const double* raw, int players, int seat) noexcept nogil:
    """1/k when ``seat`` is among the k seats with the highest return, else 0."""
    cdef double best = raw[0]
    cdef int p, tied = 0
    for p in range(1, players):
        if raw[p] > best:
            best = raw[p]
    for p in range(players):
        if raw[p] == best:
            tied += 1
    return 1.0 / tied if raw[seat] == best else 0.0


cdef void evaluate(const GameVTable* vt, void* world, const Params* prm, Rng* rng, int32_t* buf,
                   double* raw, double* scaled, double* win) noexcept nogil:
    """Play out from ``world`` and score it: ``raw`` returns, ``scaled`` in [0, 1], ``win`` for the searching seat."""
    cdef int steps = 0
    cdef int player, n, p
    cdef double lo, hi
    cdef bint cut = False
    while True:
        player = vt.current_player(world)
        if player == TERMINAL_PLAYER:
            break
        if prm.playout_depth >= 0 and steps >= prm.playout_depth and vt.heuristic != NULL:
            cut = True
            break
        if player == CHANCE_PLAYER:
            vt.apply(world, vt.sample_chance(world, rng))
        else:
            n = vt.legal_actions(world, buf)
            if vt.playout_action != NULL and prm.light_playouts:
                vt.apply(world, vt.playout_action(world, buf, n, rng))
            else:
                vt.apply(world, buf[rng_below(rng, n)])
        steps += 1
    vt.utility_bounds(world, &lo, &hi)
    if cut:
        vt.heuristic(world, scaled)
        for p in range(prm.players):
            raw[p] = lo + scaled[p] * (hi - lo)
        win[0] = scaled[prm.seat] if hi - lo == 1.0 else win_share(raw, prm.players, prm.seat)
        return
    vt.returns(world, raw)
    for p in range(prm.players):
        scaled[p] = (raw[p] - lo) / (hi - lo)
    win[0] = win_share(raw, prm.players, prm.seat)


cdef bint stop_now(const Params* prm, int64_t done) noexcept nogil:
    if prm.iterations >= 0 and done >= prm.iterations:
        return True
    if done % CHECK_EVERY == 0:
        if prm.cancel[0]:
            return True
        if prm.deadline > 0 and now() >= prm.deadline:
            return True
    return False


cdef int tree_search(const GameVTable* vt, const void* root, const Params* prm, Arena* arena, RootStats* stats,
                     Rng* rng, int64_t budget, bint perfect, bint resample, Outcome* out) noexcept nogil:
    """Run iterations until ``budget`` (or the parameters) stop it. ``perfect``: one tree keyed by actual actions
    (PIMC, cheat); otherwise one tree per seat keyed by what it observes. ``resample``: a new world per iteration."""
    cdef int players = prm.players
    cdef int trees = 1 if perfect else players
    cdef void* world = malloc(vt.state_size)
    cdef int32_t* legal = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    cdef int32_t* untried = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    cdef char* tried = <char*>malloc(vt.max_actions)
    cdef int32_t* path = <int32_t*>malloc(trees * MAX_PATH * sizeof(int32_t))
    cdef int32_t cur[MAX_PLAYERS]
    cdef int plen[MAX_PLAYERS]
    cdef bint attached[MAX_PLAYERS]
    cdef double raw[MAX_PLAYERS]
    cdef double scaled[MAX_PLAYERS]
    cdef double baseline[MAX_PLAYERS]
    cdef double win, ucb, best_ucb, log_avail
    cdef int32_t child, best_child, action, observed, obs_tree
    cdef int64_t done = 0
    cdef int t, n, k, untried_count, player
    cdef bint acting_expanded
    cdef Node* node
    if world == NULL or legal == NULL or untried == NULL or path == NULL or tried == NULL:
        free(world)
        free(legal)
        free(untried)
        free(tried)
        free(path)
        return 0
    while arena.count < trees:
        new_node(arena, NO_NODE, -1, -1)               # one root per tree: node t is tree t's root
    while not stop_now(prm, out.iterations) and (budget < 0 or done < budget):
        clone_into(vt, world, root)
        if resample:
            vt.determinize(world, prm.seat, rng)
            out.worlds += 1
        # Control variate: the tree learns each move's value relative to the heuristic value of the root in the same
        # sampled world. The baseline does not depend on the moves chosen, so rankings stay unbiased, while the noise
        # that resampled hidden facts add to every evaluation of this iteration cancels.
        for t in range(players):
            baseline[t] = 0.5
        if vt.heuristic != NULL and prm.baseline:
            vt.heuristic(world, baseline)
        for t in range(trees):
            cur[t] = t
            path[t * MAX_PATH] = t
            plen[t] = 1
            attached[t] = True
        while True:
            player = vt.current_player(world)
            if player == TERMINAL_PLAYER:
                break
            acting_expanded = False
            if player == CHANCE_PLAYER:
                action = vt.sample_chance(world, rng)
            else:
                obs_tree = 0 if perfect else player
                if not attached[obs_tree]:
                    break
                n = vt.legal_actions(world, legal)
                memset(tried, 0, n)
                best_child = NO_NODE
                best_ucb = -1.0
                action = legal[0]
                # Walk the children (legal actions are ascending, so membership is a binary search): the ones legal in
                # this world are available; UCB picks among them once every legal action has been tried.
                child = arena.nodes[cur[obs_tree]].first_child
                while child != NO_NODE:
                    node = &arena.nodes[child]
                    k = position_of(legal, n, node.action)
                    if k >= 0:
                        tried[k] = 1
                        node.avail += 1
                        if node.visits == 0:
                            ucb = 1e9
                        else:
                            log_avail = log(<double>node.avail)
                            ucb = node.value / node.visits + prm.exploration * sqrt(log_avail / node.visits)
                        if ucb > best_ucb:
                            best_ucb = ucb
                            best_child = child
                    child = node.next_sibling
                untried_count = 0
                for k in range(n):
                    if not tried[k]:
                        untried[untried_count] = legal[k]
                        untried_count += 1
                if untried_count > 0:
                    action = untried[rng_below(rng, untried_count)]
                elif best_child != NO_NODE:
                    action = arena.nodes[best_child].action
            # Advance every tree that is still descending by what its owner observes of ``action``.
            for t in range(trees):
                if not attached[t]:
                    continue
                observed = action if perfect else vt.observed_action(world, action, t)
                child = find_child(arena, cur[t], observed)
                if child == NO_NODE:
                    child = new_node(arena, cur[t], observed, player)
                    attached[t] = False
                    if child == NO_NODE:
                        continue
                    if (not perfect and cur[t] == prm.seat) or (perfect and cur[t] == 0):
                        arena.nodes[child].slot = root_slot(stats, observed)
                    if player >= 0 and (perfect or t == player):
                        acting_expanded = True
                if plen[t] < MAX_PATH:
                    path[t * MAX_PATH + plen[t]] = child
                    plen[t] += 1
                    cur[t] = child
                else:
                    attached[t] = False
            vt.apply(world, action)
            if acting_expanded:
                break
        evaluate(vt, world, prm, rng, legal, raw, scaled, &win)
        for t in range(trees):
            for k in range(plen[t]):
                node = &arena.nodes[path[t * MAX_PATH + k]]
                node.visits += 1
                if node.mover >= 0:
                    node.value += scaled[node.mover] - baseline[node.mover] + 0.5
                if k == 1 and node.slot >= 0 and (perfect or t == prm.seat):
                    root_record(stats, node.slot, raw, win)
        out.iterations += 1
        done += 1
    out.nodes = arena.count
    free(world)
    free(legal)
    free(untried)
    free(tried)
    free(path)
    return 1


cdef int flat_search(const GameVTable* vt, const void* root, const Params* prm, RootStats* stats, Rng* rng,
                     Outcome* out) noexcept nogil:
    """Flat Monte Carlo: the root actions in turn, each followed by a random playout in a fresh world."""
    cdef void* world = malloc(vt.state_size)
    cdef int32_t* legal = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    cdef double raw[MAX_PLAYERS]
    cdef double scaled[MAX_PLAYERS]
    cdef double win
    cdef int n, slot
    cdef int32_t action
    if world == NULL or legal == NULL:
        free(world)
        free(legal)
        return 0
    while not stop_now(prm, out.iterations):
        clone_into(vt, world, root)
        vt.determinize(world, prm.seat, rng)
        out.worlds += 1
        n = vt.legal_actions(world, legal)
        action = legal[out.iterations % n]
        slot = root_slot(stats, action)
        vt.apply(world, action)
        evaluate(vt, world, prm, rng, legal, raw, scaled, &win)
        if slot >= 0:
            root_record(stats, slot, raw, win)
        out.iterations += 1
    free(world)
    free(legal)
    return 1


# ---------------------------------------------------------------------------------------------------------------------
# Python entry point (one thread's search; search/__init__.py runs several and pools them)
# ---------------------------------------------------------------------------------------------------------------------
cdef class Control:
    """Shared by the threads of one search: ``cancel()`` stops them within CHECK_EVERY iterations."""
    cdef int flag

    def __cinit__(self):
        self.flag = 0

    def cancel(self):
        self.flag = 1

    @property
    def cancelled(self):
        return self.flag != 0


def run(State state, int seat, str algorithm, long long iterations, double deadline, unsigned long long seed,
        double exploration, int playout_depth, int worlds, Control control, int node_capacity, int pv_length=8,
        bint light_playouts=True, bint baseline=True):
    """One search from ``state`` for ``seat``; releases the GIL while it runs.

    ``iterations`` < 0 means no iteration limit (``deadline`` must then be set, in ``monotonic()`` seconds).
    Returns root statistics per action of ``seat``, counts, and the principal line (observed action ids).
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {sorted(ALGORITHMS)}")
    cdef const GameVTable* vt = state.vt
    cdef Params prm
    cdef Arena arena
    cdef RootStats stats
    cdef Outcome out
    cdef Rng rng
    cdef int ok = 1
    prm.algorithm = ALGORITHMS[algorithm]
    prm.seat = seat
    prm.players = state.num_players()
    prm.iterations = iterations
    prm.deadline = deadline
    prm.exploration = exploration
    prm.playout_depth = playout_depth
    prm.worlds = max(1, worlds)
    prm.light_playouts = light_playouts
    prm.baseline = baseline
    prm.cancel = &control.flag
    out.iterations = 0
    out.worlds = 0
    out.nodes = 0
    rng_seed(&rng, seed)
    if prm.players > MAX_PLAYERS:
        raise ValueError(f"the search handles at most {MAX_PLAYERS} seats")
    if not root_init(&stats, vt.max_actions, prm.players):
        root_free(&stats)
        raise MemoryError()
    arena.nodes = NULL
    arena.keys = NULL
    arena.children = NULL
    if prm.algorithm != ALG_FLAT and not arena_init(&arena, node_capacity):
        arena_free(&arena)
        root_free(&stats)
        raise MemoryError(f"cannot allocate a tree of {node_capacity} nodes")
    with nogil:
        if prm.algorithm == ALG_ISMCTS:
            ok = tree_search(vt, state.buf, &prm, &arena, &stats, &rng, -1, False, True, &out)
        elif prm.algorithm == ALG_CHEAT:
            ok = tree_search(vt, state.buf, &prm, &arena, &stats, &rng, -1, True, False, &out)
        elif prm.algorithm == ALG_FLAT:
            ok = flat_search(vt, state.buf, &prm, &stats, &rng, &out)
        else:
            ok = pimc(vt, state.buf, &prm, &arena, &stats, &rng, &out)
    pv = principal_line(&arena, &stats, seat, prm.algorithm, pv_length) if ok else []
    result = {
        "actions": [
            {
                "action": stats.action[k],
                "visits": stats.visits[k],
                "value_sums": [stats.values[k * prm.players + p] for p in range(prm.players)],
                "win_sum": stats.wins[k],
            }
            for k in range(stats.count)
        ],
        "iterations": out.iterations,
        "worlds": out.worlds,
        "nodes": out.nodes,
        "pv": pv,
    }
    arena_free(&arena)
    root_free(&stats)
    if not ok:
        raise MemoryError("search buffers could not be allocated")
    return result


cdef int pimc(const GameVTable* vt, const void* root, Params* prm, Arena* arena, RootStats* stats, Rng* rng,
              Outcome* out) noexcept nogil:
    """Perfect-information Monte Carlo: a fresh UCT tree per sampled world; root statistics pooled over worlds."""
    cdef void* world = malloc(vt.state_size)
    cdef int64_t budget
    if world == NULL:
        return 0
    while not stop_now(prm, out.iterations):
        budget = prm.iterations // prm.worlds if prm.iterations >= 0 else CHECK_EVERY * 4
        if budget < 1:
            budget = 1
        clone_into(vt, world, root)
        vt.determinize(world, prm.seat, rng)
        out.worlds += 1
        arena_clear(arena)
        if not tree_search(vt, world, prm, arena, stats, rng, budget, True, False, out):
            free(world)
            return 0
    free(world)
    return 1


cdef list principal_line(Arena* arena, RootStats* stats, int seat, int algorithm, int length):
    """Most visited child first, from the searching seat's root (the single tree for PIMC and cheat)."""
    cdef list line = []
    cdef int32_t node, child, best
    if algorithm == ALG_FLAT or arena.count == 0:
        return line
    node = 0 if algorithm in (ALG_CHEAT, ALG_PIMC) else seat
    while len(line) < length:
        best = NO_NODE
        child = arena.nodes[node].first_child
        while child != NO_NODE:
            if best == NO_NODE or arena.nodes[child].visits > arena.nodes[best].visits:
                best = child
            child = arena.nodes[child].next_sibling
        if best == NO_NODE or arena.nodes[best].visits == 0:
            break
        line.append(arena.nodes[best].action)
        node = best
    return line


def evaluate_state(State state, int seat, unsigned long long seed, int playout_depth, bint light_playouts=True):
    """Scaled returns in [0, 1] of one playout from ``state`` (cut off and scored by the heuristic after
    ``playout_depth`` steps when the game has one; 0 scores the position itself)."""
    cdef const GameVTable* vt = state.vt
    cdef Params prm
    cdef Rng rng
    cdef double raw[MAX_PLAYERS]
    cdef double scaled[MAX_PLAYERS]
    cdef double win
    cdef void* world = malloc(vt.state_size)
    cdef int32_t* buf = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    if world == NULL or buf == NULL:
        free(world)
        free(buf)
        raise MemoryError()
    prm.seat = seat
    prm.players = state.num_players()
    prm.playout_depth = playout_depth
    prm.light_playouts = light_playouts
    rng_seed(&rng, seed)
    clone_into(vt, world, state.buf)
    with nogil:
        evaluate(vt, world, &prm, &rng, buf, raw, scaled, &win)
    free(world)
    free(buf)
    return [scaled[p] for p in range(prm.players)]
