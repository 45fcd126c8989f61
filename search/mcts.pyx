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
perfect-information tree on the true state) and flat Monte Carlo (every root action in each sampled world, their
playouts on common random numbers).

Exploration: UCB1 with availability counts. The constant is either for rewards in [0, 1] or, with ``scaled``, in
units of the standard deviation of the acting seat's rewards over the node's visits (pooled over its children), so
the term fits the reward scale by itself: a control variate that shrinks the spread of rewards to a few hundredths
(Survive) or raw win shares (spread about 0.5) need no hand-picked constant.

Implicit minimax backups (Lanctot, Winands, Pepels & Sturtevant 2014), with ``minimax`` > 0: every node also keeps
``best``, the value of the best line below it through the mover's own consecutive decisions (a Survive turn's
movement steps and Rising Waters: max over the children, themselves scored by the heuristic when they were made), or
its mean where the next move is another seat's or chance's; selection then ranks a child by ``(1 - minimax) * mean +
minimax * best``. A mean over a few random continuations undervalues a move whose worth is one particular follow-up
(step onto a boat, then sail it); the minimax part sees that follow-up as soon as it has been tried once.

Memory: a node is 56 bytes (its value sum is a double: a float's running sum drifted by a large share of the gaps
between moves over millions of rewards; the sum of squares and the minimax value beside it) and the child index 24
bytes per node (a 12-byte slot, kept at most half full), so 80 bytes per node; the node capacity bounds it, after
which the trees stop growing and iterations go on. After 1,024 iterations and at each doubling a search lays its
trees out again breadth first, each node's children side by side (``arena_compact``: selection reads every child of
each node on its path, and children appended as they came lay a cache line apart each; about a tenth less CPU for
a 4-seat Survive search of 30,000 iterations), holding a second copy of the nodes while it does.
"""

from libc.math cimport log, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from engine_ext import game_info

from engine_ext.core cimport (
    CHANCE_PLAYER,
    MAX_OTHER_HEURISTICS,
    MAX_OTHER_PLAYOUTS,
    MAX_SEATS_ANY,
    TERMINAL_PLAYER,
    GameVTable,
    playout_fn,
    returns_fn,
    sample_chance_fn,
    Rng,
    State,
    clone_into,
    rng_below,
    rng_next,
    rng_seed,
    rng_uniform,
)

ALGORITHMS = {"ismcts": ALG_ISMCTS, "pimc": ALG_PIMC, "flat": ALG_FLAT, "cheat": ALG_CHEAT}
# SearchConfig.playout_to
PLAYOUT_TO = {"steps": TO_STEPS, "turn": TO_TURN, "own_turn": TO_OWN_TURN, "chance": TO_CHANCE}
NODE_BYTES = 80
# A tree search lays its trees out again (``arena_compact``) after this many iterations, and again at each doubling.
cdef int64_t COMPACT_FIRST = 1024
MAX_KEPT_NODES = 8_000_000   # a reused tree and the new growth together stay below this many nodes

cdef enum:
    REBASE_WORLDS = 256      # sampled worlds that estimate the new root's heuristic when a tree is reused
    PRIVATE_EDGE = -(1 << 24)  # private_roots: the edge to key k is PRIVATE_EDGE - k (keys below 2**24), below actions
    BELIEF_TRIES = 64        # beliefs: worlds drawn at most per iteration before the last one is taken as it is


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def compaction(first=None):
    """The iteration count at which a tree search first lays its trees out again (``arena_compact``; then at each
    doubling), set to ``first`` when given (a number of iterations; 0 turns it off); returns the value before. For tests
    and benchmarks: the layout changes where nodes lie in memory, never a result."""
    global COMPACT_FIRST
    before = COMPACT_FIRST
    if first is not None:
        if first < 0:
            raise ValueError(f"compaction: expected a number of iterations >= 0, not {first}")
        COMPACT_FIRST = first if first > 0 else -1
    return before if before > 0 else 0


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


cdef void arena_compact(Arena* a, int trees) noexcept nogil:
    """Lay the trees out again breadth first from their roots (node t stays tree t's root), each node's children side
    by side in their sibling order, and rebuild the child index. Nothing a search reads changes (every link, key and
    statistic is the same, renumbered); what changes is where the nodes lie: new children are appended wherever the
    arena has reached, so a node's siblings end up a cache line apart each, and selection, which reads every child of
    every node on its path, waits on memory for each. Skipped when memory is short or a node is not under a root."""
    cdef int32_t count = a.count, head = 0, tail = trees, o, child, n
    cdef int32_t* order = <int32_t*>malloc(count * sizeof(int32_t))     # new id -> old id
    cdef int32_t* renamed = <int32_t*>malloc(count * sizeof(int32_t))   # old id -> new id
    cdef int32_t* parent = <int32_t*>malloc(count * sizeof(int32_t))    # by new id
    cdef Node* fresh = <Node*>malloc(a.capacity * sizeof(Node))
    cdef Node* node
    cdef uint64_t key, i
    if order == NULL or renamed == NULL or parent == NULL or fresh == NULL or trees > count:
        free(order)
        free(renamed)
        free(parent)
        free(fresh)
        return
    for n in range(trees):
        order[n] = n
        renamed[n] = n
        parent[n] = NO_NODE
    while head < tail:
        o = order[head]
        child = a.nodes[o].first_child
        while child != NO_NODE and tail < count:
            order[tail] = child
            renamed[child] = tail
            parent[tail] = head
            tail += 1
            child = a.nodes[child].next_sibling
        head += 1
    if tail != count:
        free(order)
        free(renamed)
        free(parent)
        free(fresh)
        return
    memset(a.keys, 0, (a.mask + 1) * sizeof(uint64_t))
    for n in range(count):
        node = &fresh[n]
        node[0] = a.nodes[order[n]]
        if node.first_child != NO_NODE:
            node.first_child = renamed[node.first_child]
        if node.next_sibling != NO_NODE:
            node.next_sibling = renamed[node.next_sibling]
        if parent[n] != NO_NODE:
            key = edge_key(parent[n], node.action)
            i = slot_hash(key) & a.mask
            while a.keys[i] != 0:
                i = (i + 1) & a.mask
            a.keys[i] = key
            a.children[i] = n
    free(a.nodes)
    a.nodes = fresh
    free(order)
    free(renamed)
    free(parent)


cdef inline uint64_t slot_hash(uint64_t key) noexcept nogil:
    """The hash slot of an edge key: one splitmix64 step seeded by the key (a good finaliser, no state)."""
    cdef Rng mixer
    mixer.state = key - <uint64_t>0x9E3779B97F4A7C15
    return rng_next(&mixer)


cdef inline uint64_t edge_key(int32_t parent, int32_t action) noexcept nogil:
    return ((<uint64_t>(parent + 1)) << 32) | <uint32_t>action


cdef inline int position_of(const int32_t* sorted_actions, int n, int32_t action) noexcept nogil:
    """Index of ``action`` in an ascending list, or -1. A branch-free lower bound (the halving step compiles to a
    conditional move): the tree's children are looked up in every selection, and a mispredicted branch per halving
    cost more than the comparisons."""
    cdef const int32_t* base = sorted_actions
    cdef int half
    if n <= 0:
        return -1
    while n > 1:
        half = n >> 1
        base = base + half if base[half - 1] < action else base
        n -= half
    return <int>(base - sorted_actions) if base[0] == action else -1


cdef int32_t find_child(const Arena* a, int32_t parent, int32_t action) noexcept nogil:
    cdef uint64_t key = edge_key(parent, action)
    cdef uint64_t i = slot_hash(key) & a.mask
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
    node.square = 0
    node.best = 0
    node.mover = mover
    if parent != NO_NODE:
        node.next_sibling = a.nodes[parent].first_child
        a.nodes[parent].first_child = n
        key = edge_key(parent, action)
        i = slot_hash(key) & a.mask
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
    r.learnt = <double*>calloc(capacity, sizeof(double))
    r.learnt_sq = <double*>calloc(capacity, sizeof(double))
    r.survived = <int32_t*>calloc(capacity, sizeof(int32_t))
    r.prior = <int64_t*>calloc(capacity, sizeof(int64_t))
    r.prior_learnt = <double*>calloc(capacity, sizeof(double))
    r.count = 0
    r.capacity = capacity
    r.players = players
    return (r.action != NULL and r.visits != NULL and r.values != NULL and r.wins != NULL and r.learnt != NULL
            and r.learnt_sq != NULL and r.survived != NULL and r.prior != NULL and r.prior_learnt != NULL)


cdef void root_free(RootStats* r) noexcept nogil:
    free(r.action)
    free(r.visits)
    free(r.values)
    free(r.wins)
    free(r.learnt)
    free(r.learnt_sq)
    free(r.survived)
    free(r.prior)
    free(r.prior_learnt)


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


cdef void root_record(RootStats* r, int32_t slot, const double* raw, double win, double learnt) noexcept nogil:
    cdef int p
    r.visits[slot] += 1
    for p in range(r.players):
        r.values[slot * r.players + p] += raw[p]
    r.wins[slot] += win
    r.learnt[slot] += learnt
    r.learnt_sq[slot] += learnt * learnt


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
                   double* raw, double* scaled, double* win, const double* known) noexcept nogil:
    """Play out from ``world`` and score it: ``raw`` returns, ``scaled`` in [0, 1], ``win`` for the searching seat.
    ``known`` (or NULL): the heuristic of ``world`` itself, already computed, used when the playout is cut at once."""
    cdef int steps = 0
    cdef int player, n, p
    cdef int32_t action
    cdef double lo, hi
    cdef bint cut = False
    while True:
        player = vt.current_player(world)
        if player == TERMINAL_PLAYER:
            break
        if prm.playout_depth >= 0 and steps >= prm.playout_depth and prm.heuristic != NULL:
            cut = True
            break
        if player == CHANCE_PLAYER:
            vt.apply(world, vt.sample_chance(world, rng))
        else:
            action = prm.draw(world, rng) if prm.draw != NULL else -1
            if action >= 0:
                vt.apply(world, action)
            else:
                n = vt.legal_actions(world, buf)
                if prm.playout != NULL:
                    vt.apply(world, prm.playout(world, buf, n, rng))
                else:
                    vt.apply(world, buf[rng_below(rng, n)])
        steps += 1
    vt.utility_bounds(world, &lo, &hi)
    if cut:
        if known != NULL and steps == 0:
            memcpy(scaled, known, prm.players * sizeof(double))
        else:
            prm.heuristic(world, scaled)
        for p in range(prm.players):
            raw[p] = lo + scaled[p] * (hi - lo)
        win[0] = scaled[prm.seat] if hi - lo == 1.0 or prm.players == 1 else win_share(raw, prm.players, prm.seat)
        return
    vt.returns(world, raw)
    for p in range(prm.players):
        scaled[p] = (raw[p] - lo) / (hi - lo)
    # A solo game has no one to beat: its win is its (scaled) result.
    win[0] = scaled[prm.seat] if prm.players == 1 else win_share(raw, prm.players, prm.seat)


cdef bint stop_now(const Params* prm, int64_t done) noexcept nogil:
    if prm.iterations >= 0 and done >= prm.iterations:
        return True
    if done % CHECK_EVERY == 0:
        if prm.cancel[0]:
            return True
        if prm.deadline > 0 and now() >= prm.deadline:
            return True
    return False


cdef int walk_init(Walk* w, const GameVTable* vt, int trees, int players) noexcept nogil:
    w.trees = trees
    w.world = malloc(vt.state_size)
    w.scratch = malloc(vt.state_size)
    w.scored = <double*>malloc(players * sizeof(double))
    w.kept = malloc(vt.state_size)
    w.kept_scored = <double*>malloc(players * sizeof(double))
    w.kept_action = -1
    w.kept_ready = False
    w.baseline_ready = False
    w.halving = NULL
    w.legal = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    w.untried = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    w.tried = <char*>malloc(vt.max_actions)
    w.path = <int32_t*>malloc(trees * MAX_PATH * sizeof(int32_t))
    w.cur = <int32_t*>malloc(trees * sizeof(int32_t))
    w.plen = <int*>malloc(trees * sizeof(int))
    w.attached = <bint*>malloc(trees * sizeof(bint))
    w.raw = <double*>malloc(players * sizeof(double))
    w.scaled = <double*>malloc(players * sizeof(double))
    w.baseline = <double*>malloc(players * sizeof(double))
    return (w.world != NULL and w.scratch != NULL and w.scored != NULL and w.kept != NULL and w.kept_scored != NULL
            and w.legal != NULL and w.untried != NULL
            and w.tried != NULL and w.path != NULL and w.cur != NULL and w.plen != NULL and w.attached != NULL
            and w.raw != NULL and w.scaled != NULL and w.baseline != NULL)


cdef void walk_free(Walk* w) noexcept nogil:
    free(w.world)
    free(w.scratch)
    free(w.scored)
    free(w.kept)
    free(w.kept_scored)
    free(w.legal)
    free(w.untried)
    free(w.tried)
    free(w.path)
    free(w.cur)
    free(w.plen)
    free(w.attached)
    free(w.raw)
    free(w.scaled)
    free(w.baseline)


cdef void sample_world(const GameVTable* vt, const void* root, const Params* prm, Arena* arena, Rng* rng,
                       bint resample, Walk* w, Outcome* out) noexcept nogil:
    """Start an iteration: a world consistent with the searching seat's view, every tree back at its root."""
    cdef int t, tries = 0
    clone_into(vt, w.world, root)
    w.kept_ready = False
    if resample:
        vt.determinize(w.world, prm.seat, rng)
        while prm.belief != NULL and tries < BELIEF_TRIES and rng_uniform(rng) >= belief_weight(vt, prm, w.world):
            clone_into(vt, w.world, root)
            vt.determinize(w.world, prm.seat, rng)
            tries += 1
        out.worlds += 1
    # Control variate: the tree learns each move's value relative to the heuristic value of the root in the same
    # sampled world. The baseline does not depend on the moves chosen, so rankings stay unbiased, while the noise
    # that resampled hidden facts add to every evaluation of this iteration cancels.
    # Without resampling (PIMC's world, the clairvoyant's true state) every iteration starts from the same position,
    # so its baseline is scored once.
    if resample or not w.baseline_ready:
        for t in range(prm.players):
            w.baseline[t] = 0.5
        if prm.heuristic != NULL and prm.baseline:
            prm.heuristic(w.world, w.baseline)
        w.baseline_ready = not resample
    for t in range(prm.players):
        out.baseline_sum[t] += w.baseline[t]
    for t in range(w.trees):
        w.cur[t] = t
        w.path[t * MAX_PATH] = t
        w.plen[t] = 1
        w.attached[t] = True
        if prm.private_roots and t != prm.seat:
            enter_private_root(vt, prm, arena, w, t)


cdef double belief_weight(const GameVTable* vt, const Params* prm, const void* world) noexcept nogil:
    """``beliefs``: how likely the other seats' play so far makes this world, relative to the likeliest (the product
    over seats of the weight of each seat's private key; a key the beliefs do not cover weighs 1)."""
    cdef double weight = 1.0
    cdef int o
    cdef int32_t key
    for o in range(prm.players):
        if o == prm.seat:
            continue
        key = vt.private_key(world, o)
        if 0 <= key < prm.belief_keys:
            weight *= prm.belief[o * prm.belief_keys + key]
    return weight


cdef void enter_private_root(const GameVTable* vt, const Params* prm, Arena* arena, Walk* w, int t) noexcept nogil:
    """``private_roots``: seat ``t``'s tree first branches on what ``t`` alone knows in this world (its private key,
    as the edge ``PRIVATE_EDGE - key``), so its decisions below are learnt per value of its own hidden facts, as the
    seat itself would make them, instead of one policy pooled over every value the searching seat cannot tell apart."""
    cdef int32_t key = vt.private_key(w.world, t)
    cdef int32_t child
    if key < 0:
        return
    child = find_child(arena, t, PRIVATE_EDGE - key)
    if child == NO_NODE:
        child = new_node(arena, t, PRIVATE_EDGE - key, -1)
        if child == NO_NODE:
            return
    w.path[t * MAX_PATH + 1] = child
    w.plen[t] = 2
    w.cur[t] = child


cdef double exploration_at(const Params* prm, const Arena* arena, int32_t node) noexcept nogil:
    """The UCB constant at ``node``: the configured one, or (scaled) that times the standard deviation of the acting
    seat's rewards over the node's children (floored, so a node whose rewards all agree still breaks ties)."""
    cdef double n = 0.0, total = 0.0, squares = 0.0, variance
    cdef int32_t child
    cdef const Node* c
    if not prm.scaled:
        return prm.exploration
    child = arena.nodes[node].first_child
    while child != NO_NODE:
        c = &arena.nodes[child]
        n += c.visits
        total += c.value
        squares += c.square
        child = c.next_sibling
    if n < 2.0:
        return prm.exploration * 0.5
    variance = squares / n - (total / n) * (total / n)
    if variance < 1e-8:
        variance = 1e-8
    return prm.exploration * sqrt(variance)


cdef int32_t pick_untried(const GameVTable* vt, const Params* prm, Rng* rng, Walk* w, int count,
                          int wanted) noexcept nogil:
    """A new child among the ``count`` untried moves in ``w.untried``: at random, or the best for the acting seat by
    the heuristic one ply on among ``wanted`` drawn at random (without replacement; ``candidates`` for a tree's new
    child). With more than one draw, ``w.kept`` is then the position that move leads to and ``w.kept_scored`` its
    heuristic."""
    cdef int draws = wanted if wanted < count else count
    cdef int j, k, player
    cdef int32_t action, best = -1
    cdef double value, best_value = -1.0
    cdef void* swap
    if draws <= 1 or prm.heuristic == NULL:
        return w.untried[rng_below(rng, count)]
    player = vt.current_player(w.world)
    for j in range(draws):
        k = j + <int>rng_below(rng, count - j)
        action = w.untried[k]
        w.untried[k] = w.untried[j]
        w.untried[j] = action
        clone_into(vt, w.scratch, w.world)
        vt.apply(w.scratch, action)
        prm.heuristic(w.scratch, w.scored)
        value = w.scored[player]
        if value > best_value:
            best_value = value
            best = action
            # Keep the best position and its scores: when this move expands the tree, the world becomes this
            # position and the depth-0 evaluation reads these scores (no second apply, no second heuristic call).
            swap = w.kept
            w.kept = w.scratch
            w.scratch = swap
            memcpy(w.kept_scored, w.scored, prm.players * sizeof(double))
    w.kept_action = best
    return best


cdef int32_t policy_action(const GameVTable* vt, const Params* prm, Rng* rng, Walk* w) noexcept nogil:
    """A seat's move outside its tree inside an open-loop iteration: the heuristic's best one ply on among
    ``candidates`` legal moves drawn at random (``pick_untried`` over every legal move), else the light policy."""
    cdef int n, k
    cdef int32_t action
    if prm.draw != NULL and not (prm.candidates > 1 and prm.heuristic != NULL):
        action = prm.draw(w.world, rng)
        if action >= 0:
            return action
    n = vt.legal_actions(w.world, w.legal)
    if prm.candidates > 1 and prm.heuristic != NULL:
        for k in range(n):
            w.untried[k] = w.legal[k]
        return pick_untried(vt, prm, rng, w, n, prm.candidates)
    if prm.playout != NULL:
        return prm.playout(w.world, w.legal, n, rng)
    return w.legal[rng_below(rng, n)]


cdef inline int turn_of(const GameVTable* vt, const void* world, int fallback) noexcept nogil:
    """The seat whose turn it is at ``world`` (the game's ``turn_owner``; without one the seat to move, and
    ``fallback`` at chance)."""
    cdef int player
    if vt.turn_owner != NULL:
        return vt.turn_owner(world)
    player = vt.current_player(world)
    return player if player >= 0 else fallback


cdef int finish_turns(const GameVTable* vt, const Params* prm, Rng* rng, Walk* w) noexcept nogil:
    """``playout_to``: play the iteration's world on from its leaf to the end of the turn the last tree move was made
    in (TO_TURN), to the start of the searching seat's next turn (TO_OWN_TURN), or to the first chance event or the
    end of that turn (TO_CHANCE: the seats' own decisions only, no luck), each move the heuristic's best one
    ply on among ``playout_candidates`` legal moves (fewer than two: the playout policy), chance by its
    probabilities. A leaf already there is scored where it stands. Returns the steps played; ``w.kept_ready`` then
    says whether ``w.kept_scored`` holds the heuristic of the final position."""
    cdef int start = w.leaf_turn
    cdef int owner = start
    cdef int player, n, k, steps = 0
    cdef int32_t action
    cdef bint left = False, scored = False
    cdef void* swap
    while steps < MAX_TURN_STEPS:
        player = vt.current_player(w.world)
        if player == TERMINAL_PLAYER:
            break
        owner = turn_of(vt, w.world, owner)
        if owner != start:
            left = True
        if left and (prm.playout_to != TO_OWN_TURN or owner == prm.seat):
            break
        if prm.playout_to == TO_CHANCE and player == CHANCE_PLAYER:
            break
        scored = False
        action = -1
        if player != CHANCE_PLAYER and prm.draw != NULL and not (prm.playout_candidates > 1 and prm.heuristic != NULL):
            action = prm.draw(w.world, rng)         # the light policy's move without the list, where the game can
        if player == CHANCE_PLAYER:
            vt.apply(w.world, vt.sample_chance(w.world, rng))
        elif action >= 0:
            vt.apply(w.world, action)
        else:
            n = vt.legal_actions(w.world, w.legal)
            if n == 1:
                vt.apply(w.world, w.legal[0])
            elif prm.playout_candidates > 1 and prm.heuristic != NULL:
                for k in range(n):
                    w.untried[k] = w.legal[k]
                pick_untried(vt, prm, rng, w, n, prm.playout_candidates)
                swap = w.world                      # the best candidate's position, already applied and scored
                w.world = w.kept
                w.kept = swap
                scored = True
            elif prm.playout != NULL:
                vt.apply(w.world, prm.playout(w.world, w.legal, n, rng))
            else:
                vt.apply(w.world, w.legal[rng_below(rng, n)])
        steps += 1
    if steps > 0:
        w.kept_ready = scored
    return steps


cdef int halving_init(Halving* h, int capacity, int32_t root, int64_t budget) noexcept nogil:
    h.root = root
    h.moves = 0
    h.alive = 0
    h.budget = budget
    h.done = 0
    h.order = <int*>malloc(capacity * sizeof(int))
    h.actions = <int32_t*>malloc(capacity * sizeof(int32_t))
    h.rounds = <int32_t*>calloc(capacity, sizeof(int32_t))
    h.got = <int64_t*>calloc(capacity, sizeof(int64_t))
    h.mean = <double*>malloc(capacity * sizeof(double))
    return h.order != NULL and h.actions != NULL and h.rounds != NULL and h.got != NULL and h.mean != NULL


cdef void halving_free(Halving* h) noexcept nogil:
    free(h.order)
    free(h.actions)
    free(h.rounds)
    free(h.got)
    free(h.mean)


cdef void halving_share(Halving* h) noexcept nogil:
    """Each survivor's visits in the round that starts: the iterations left, spread evenly over the rounds left, over
    the survivors (the last survivor gets everything that remains)."""
    cdef int64_t left = h.budget - h.done
    if h.alive <= 1 or h.rounds_left <= 1:
        h.per_move = left // h.alive if h.alive > 1 else left
    else:
        h.per_move = left // h.rounds_left // h.alive
    if h.per_move < 1:
        h.per_move = 1


cdef void halving_round(const GameVTable* vt, const Params* prm, const Arena* arena, Walk* w) noexcept nogil:
    """End a round: the better half of the survivors by their mean reward so far (every round's) go on."""
    cdef Halving* h = w.halving
    cdef int i, j, k, keep
    cdef int32_t child, observed
    for i in range(h.alive):
        k = h.order[i]
        observed = h.actions[k] if w.trees == 1 else vt.observed_action(w.world, h.actions[k], prm.seat)
        child = find_child(arena, h.root, observed)
        if child != NO_NODE and arena.nodes[child].visits > 0:
            h.mean[k] = arena.nodes[child].value / arena.nodes[child].visits
        else:
            h.mean[k] = -1e300
    for i in range(1, h.alive):  # insertion sort, best first; ties keep the earlier (lower) move first
        k = h.order[i]
        j = i - 1
        while j >= 0 and h.mean[h.order[j]] < h.mean[k]:
            h.order[j + 1] = h.order[j]
            j -= 1
        h.order[j + 1] = k
    keep = (h.alive + 1) // 2
    for i in range(h.alive):
        h.got[h.order[i]] = 0
        if i < keep:
            h.rounds[h.order[i]] += 1
    h.alive = keep
    h.rounds_left -= 1
    halving_share(h)


cdef int32_t halving_pick(const GameVTable* vt, const Params* prm, const Arena* arena, Walk* w,
                          int n) noexcept nogil:
    """The root move of this iteration under sequential halving: the survivor with the fewest visits this round
    (legal in this world), after ending the round if every survivor has had its share; -1 when none is legal."""
    cdef Halving* h = w.halving
    cdef int i, k, best = -1, rounds = 0
    if h.moves == 0:
        h.moves = n
        h.alive = n
        for i in range(n):
            h.actions[i] = w.legal[i]
            h.order[i] = i
        while (1 << rounds) < n:
            rounds += 1
        h.rounds_left = rounds if rounds > 0 else 1
        halving_share(h)
    if h.alive > 1:
        for i in range(h.alive):
            if h.got[h.order[i]] < h.per_move:
                break
        else:
            halving_round(vt, prm, arena, w)
    for i in range(h.alive):
        k = h.order[i]
        if position_of(w.legal, n, h.actions[k]) >= 0 and (best < 0 or h.got[k] < h.got[best]):
            best = k
    if best < 0:
        return -1
    h.got[best] += 1
    h.done += 1
    return h.actions[best]


cdef int32_t select_action(const GameVTable* vt, const Params* prm, Arena* arena, Rng* rng, Walk* w,
                           int32_t node) noexcept nogil:
    """The acting seat's choice at its tree node ``node``: an untried legal action (``pick_untried``) while the node
    may grow (always, or with ``widening`` while it has fewer children than its visits allow), else UCB over the
    children legal in this world. Every legal child's availability count goes up (it was available this time)."""
    cdef int n = vt.legal_actions(w.world, w.legal)
    cdef int k, kept, untried_count = 0, children = 0
    cdef int32_t child, best_child = NO_NODE, previous
    cdef double ucb, best_ucb = -1.0
    cdef double exploration
    cdef Node* c
    cdef int32_t chosen
    if prm.root_moves != NULL and node == (0 if w.trees == 1 else prm.seat):
        # A root restricted to some moves (``refine``'s second stage): the others are not searched. A world where
        # none of them is legal (a root move that depends on hidden facts) searches every move.
        kept = 0
        for k in range(n):
            if position_of(prm.root_moves, prm.root_count, w.legal[k]) >= 0:
                w.legal[kept] = w.legal[k]
                kept += 1
        if kept > 0:
            n = kept
    if w.halving != NULL and node == w.halving.root:
        chosen = halving_pick(vt, prm, arena, w, n)
        if chosen >= 0:
            return chosen
    exploration = exploration_at(prm, arena, node)
    if prm.canonical_order and arena.nodes[node].mover == vt.current_player(w.world):
        # The same seat moved into this node: drop the moves that would only transpose its last one (the game
        # searches them in the other order), keeping the list ascending. Never at a root (its mover is -1).
        previous = arena.nodes[node].action
        kept = 0
        for k in range(n):
            if not vt.redundant(w.world, previous, w.legal[k]):
                w.legal[kept] = w.legal[k]
                kept += 1
        n = kept
    memset(w.tried, 0, n)
    # Legal actions are ascending, so whether a child is legal in this world is a binary search.
    child = arena.nodes[node].first_child
    while child != NO_NODE:
        c = &arena.nodes[child]
        k = position_of(w.legal, n, c.action)
        if k >= 0:
            w.tried[k] = 1
            children += 1
            c.avail += 1
            if c.visits == 0:
                ucb = 1e9
            else:
                ucb = c.value / c.visits + exploration * sqrt(log(<double>c.avail) / c.visits)
                if prm.minimax > 0.0:
                    ucb += prm.minimax * (c.best - c.value / c.visits)
            if ucb > best_ucb:
                best_ucb = ucb
                best_child = child
        child = c.next_sibling
    for k in range(n):
        if not w.tried[k]:
            w.untried[untried_count] = w.legal[k]
            untried_count += 1
    if untried_count > 0 and (best_child == NO_NODE or prm.widening <= 0
                              or children < prm.widening * sqrt(<double>arena.nodes[node].visits + 1.0)):
        return pick_untried(vt, prm, rng, w, untried_count, prm.candidates)
    if best_child != NO_NODE:
        return arena.nodes[best_child].action
    return w.legal[0]


cdef bint descend_trees(const GameVTable* vt, const Params* prm, Arena* arena, RootStats* stats, bint perfect,
                        Walk* w, int player, int32_t action) noexcept nogil:
    """Move every tree still descending along ``action`` as its owner observes it, expanding a missing child (a tree
    that expands stops descending). True when the acting seat's own tree expanded: the iteration's tree part ends."""
    cdef int t
    cdef int32_t child, observed
    cdef bint acting_expanded = False
    for t in range(w.trees):
        if not w.attached[t]:
            continue
        if prm.open_loop and t == prm.seat and player != prm.seat:
            continue  # open loop: what happens between the searching seat's decisions does not branch its tree
        observed = action if perfect else vt.observed_action(w.world, action, t)
        child = find_child(arena, w.cur[t], observed)
        if child == NO_NODE:
            child = new_node(arena, w.cur[t], observed, player)
            w.attached[t] = False
            if child == NO_NODE:
                continue
            if (not perfect and w.cur[t] == prm.seat) or (perfect and w.cur[t] == 0):
                arena.nodes[child].slot = root_slot(stats, observed)
            if player >= 0 and (perfect or t == player) and (not prm.open_loop or t == prm.seat):
                acting_expanded = True
        if w.plen[t] < MAX_PATH:
            w.path[t * MAX_PATH + w.plen[t]] = child
            w.plen[t] += 1
            w.cur[t] = child
        else:
            w.attached[t] = False
    return acting_expanded


cdef void select_and_expand(const GameVTable* vt, const Params* prm, Arena* arena, RootStats* stats, Rng* rng,
                            bint perfect, Walk* w) noexcept nogil:
    """Play the world forward from the root: chance by its probabilities, each seat by its own tree, until the acting
    seat's tree expands a node, the acting seat's tree has left the known part, or the game ends."""
    cdef int player
    cdef int32_t action
    cdef void* swap
    while True:
        player = vt.current_player(w.world)
        if player == TERMINAL_PLAYER:
            return
        w.kept_action = -1
        if player == CHANCE_PLAYER:
            action = vt.sample_chance(w.world, rng)
        elif not w.attached[0 if perfect else player]:
            if not prm.open_loop or player == prm.seat:
                return
            action = policy_action(vt, prm, rng, w)  # another seat past its known tree: play on by policy
        else:
            action = select_action(vt, prm, arena, rng, w, w.cur[0 if perfect else player])
        if prm.playout_to != TO_STEPS:
            w.leaf_turn = turn_of(vt, w.world, w.leaf_turn)
        if descend_trees(vt, prm, arena, stats, perfect, w, player, action):
            if action == w.kept_action:
                swap = w.world                          # the candidate scored one ply on is this very position
                w.world = w.kept
                w.kept = swap
                w.kept_ready = True
            else:
                vt.apply(w.world, action)
            return
        vt.apply(w.world, action)


cdef double minimax_value(const Arena* arena, const Node* node, double prior) noexcept nogil:
    """``node``'s implicit minimax value for its mover: the best ``best`` among its visited children when every one
    of them is the same seat's next decision, else (another seat or chance moves next, or a leaf) its mean. With
    ``prior`` > 0 each child's line first counts ``node``'s mean as ``prior`` visits beside its own, so that a line
    tried a few times (one sampled world each) does not win the max by its luck."""
    cdef int32_t child = node.first_child
    cdef const Node* c
    cdef double top = -1e300, line
    cdef double mean = node.value / node.visits
    cdef bint any_child = False
    while child != NO_NODE:
        c = &arena.nodes[child]
        if c.visits > 0:
            if c.mover != node.mover:
                return mean
            line = c.best
            if prior > 0.0:
                line = (c.visits * line + prior * mean) / (c.visits + prior)
            if line > top:
                top = line
            any_child = True
        child = c.next_sibling
    return top if any_child else mean


cdef void backpropagate(const Params* prm, Arena* arena, RootStats* stats, bint perfect, Walk* w) noexcept nogil:
    """Credit every node on every tree's path, deepest first: a visit, and the reward of the seat that moved into it
    (relative to the baseline), then (``minimax``) its implicit minimax value from its children; the searching seat's
    root children also record the raw returns and the win share."""
    cdef int t, k
    cdef Node* node
    cdef double reward
    for t in range(w.trees):
        for k in range(w.plen[t] - 1, -1, -1):
            node = &arena.nodes[w.path[t * MAX_PATH + k]]
            node.visits += 1
            if node.mover >= 0:
                reward = w.scaled[node.mover] - w.baseline[node.mover] + 0.5
                node.value += reward
                node.square += reward * reward
                if prm.minimax > 0.0:
                    node.best = minimax_value(arena, node, prm.minimax_prior)
            if k == 1 and node.slot >= 0 and (perfect or t == prm.seat):
                root_record(stats, node.slot, w.raw, w.win, w.scaled[prm.seat] - w.baseline[prm.seat] + 0.5)


cdef int tree_search(const GameVTable* vt, const void* root, const Params* prm, Arena* arena, RootStats* stats,
                     Rng* rng, int64_t budget, bint perfect, bint resample, Outcome* out) noexcept nogil:
    """Iterations until ``budget`` (< 0: none) or the parameters stop them: sample a world, select and expand,
    evaluate, backpropagate. ``perfect``: one tree keyed by actual actions (PIMC, cheat); otherwise one tree per seat
    keyed by what it observes. ``resample``: a new world per iteration. Returns 0 when memory ran out."""
    cdef Walk w
    cdef Halving halving
    cdef int64_t done = 0
    cdef int k
    cdef int32_t slot, action
    cdef int64_t total = budget if budget >= 0 else prm.iterations
    cdef int64_t compact_at = COMPACT_FIRST
    if not walk_init(&w, vt, 1 if perfect else prm.players, prm.players):
        walk_free(&w)
        return 0
    if prm.halving and total > 0:
        if not halving_init(&halving, vt.max_actions, 0 if perfect else prm.seat, total):
            halving_free(&halving)
            walk_free(&w)
            return 0
        w.halving = &halving
    while arena.count < w.trees:
        if new_node(arena, NO_NODE, -1, -1) == NO_NODE:  # one root per tree: node t is tree t's root
            if w.halving != NULL:
                halving_free(&halving)
            walk_free(&w)
            return 0
    while not stop_now(prm, out.iterations) and (budget < 0 or done < budget):
        if done == compact_at:                      # never when it is off (-1)
            arena_compact(arena, w.trees)
            compact_at *= 2
        sample_world(vt, root, prm, arena, rng, resample, &w, out)
        if prm.playout_to != TO_STEPS:
            w.leaf_turn = turn_of(vt, w.world, prm.seat)
        select_and_expand(vt, prm, arena, stats, rng, perfect, &w)
        if prm.playout_to != TO_STEPS:
            finish_turns(vt, prm, rng, &w)
        evaluate(vt, w.world, prm, rng, w.legal, w.raw, w.scaled, &w.win, w.kept_scored if w.kept_ready else NULL)
        backpropagate(prm, arena, stats, perfect, &w)
        out.iterations += 1
        done += 1
    out.nodes = arena.count
    if w.halving != NULL:
        for k in range(halving.moves):
            action = halving.actions[k]
            slot = root_slot(stats, action if perfect else vt.observed_action(root, action, prm.seat))
            if slot >= 0:
                stats.survived[slot] += halving.rounds[k]
        halving_free(&halving)
    walk_free(&w)
    return 1


cdef int flat_search(const GameVTable* vt, const void* root, const Params* prm, RootStats* stats, Rng* rng,
                     Outcome* out) noexcept nogil:
    """Flat Monte Carlo in rounds: each round samples one world and plays every root action in it, each followed by
    a playout from the same random stream (common random numbers), so moves are compared on the same worlds and the
    same luck instead of each on its own. Only whole rounds count: a round that the budget, the clock or a cancel
    cuts short is dropped (except the first, so a budget below the number of moves still scores those it reached)."""
    cdef void* world = malloc(vt.state_size)
    cdef void* after = malloc(vt.state_size)
    cdef int32_t* legal = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    cdef int32_t* buf = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    cdef double* raws = <double*>malloc(vt.max_actions * prm.players * sizeof(double))
    cdef double* wins = <double*>malloc(vt.max_actions * sizeof(double))
    cdef double* learnt = <double*>malloc(vt.max_actions * sizeof(double))
    cdef double scaled[MAX_SEATS_ANY]
    cdef Rng luck, play
    cdef int n = 0, i, done, rounds = 0
    cdef int32_t slot
    cdef int ok = 1
    if world == NULL or after == NULL or legal == NULL or buf == NULL or raws == NULL or wins == NULL or learnt == NULL:
        ok = 0
    while ok and not stop_now(prm, out.iterations):
        if rounds > 0 and prm.iterations >= 0 and out.iterations + n > prm.iterations:
            break  # a partial round would weigh some moves on one world more (n: the moves, the same every round)
        clone_into(vt, world, root)
        vt.determinize(world, prm.seat, rng)
        out.worlds += 1
        n = vt.legal_actions(world, legal)
        rng_seed(&luck, rng_next(rng))
        done = 0
        for i in range(n):
            if i > 0 and stop_now(prm, out.iterations):
                break
            clone_into(vt, after, world)
            vt.apply(after, legal[i])
            play = luck
            evaluate(vt, after, prm, &play, buf, raws + i * prm.players, scaled, wins + i, NULL)
            learnt[i] = scaled[prm.seat]
            out.iterations += 1
            done += 1
        if done < n and rounds > 0:
            break
        for i in range(done):
            slot = root_slot(stats, legal[i])
            if slot >= 0:
                root_record(stats, slot, raws + i * prm.players, wins[i], learnt[i])
        rounds += 1
        if done < n:
            break
    free(world)
    free(after)
    free(legal)
    free(buf)
    free(raws)
    free(wins)
    free(learnt)
    return ok


# ---------------------------------------------------------------------------------------------------------------------
# Python entry point (one thread's search; search/__init__.py runs several and pools them)
# ---------------------------------------------------------------------------------------------------------------------
cdef class Forest:
    """One thread's ISMCTS trees, kept after a search so that the same seat's next search in the same game starts from
    the subtree its observations since lead to (tree reuse). ``search.TreeKeeper`` holds one per thread and the
    observed actions; ``run`` takes both, re-roots, and leaves the new trees here."""
    cdef Arena arena
    cdef bint held
    cdef int seat
    cdef int players
    cdef double baseline[MAX_SEATS_ANY]     # per seat: the mean root heuristic the kept values are relative to

    def __cinit__(self):
        self.held = False

    def __dealloc__(self):
        self.release()

    def policy(self, int owner, int key, list path):
        """What seat ``owner``'s kept tree learnt at the node that ``path`` (actions as observed) leads to from its
        private root for ``key`` (the tree's root with ``key`` < 0): ``[(action, visits)]`` of its children, ``[]``
        where the tree never went."""
        cdef int32_t node, child
        if not self.held or not 0 <= owner < self.players:
            return []
        node = owner
        if key >= 0:
            node = find_child(&self.arena, node, PRIVATE_EDGE - key)
            if node == NO_NODE:
                return []
        node = follow(&self.arena, node, path)
        if node == NO_NODE:
            return []
        children = []
        child = self.arena.nodes[node].first_child
        while child != NO_NODE:
            children.append((self.arena.nodes[child].action, self.arena.nodes[child].visits))
            child = self.arena.nodes[child].next_sibling
        return children

    def release(self):
        """Free the kept trees (the next search starts afresh)."""
        if self.held:
            arena_free(&self.arena)
            self.held = False

    @property
    def nodes(self):
        """Nodes kept (0 when nothing is)."""
        return self.arena.count if self.held else 0

    @property
    def bytes(self):
        """Memory the kept trees hold (their node arrays and hash tables; 0 when nothing is kept)."""
        if not self.held:
            return 0
        return self.arena.capacity * sizeof(Node) + (self.arena.mask + 1) * (sizeof(uint64_t) + sizeof(int32_t))


cdef int32_t follow(const Arena* a, int32_t node, list path):
    """The node ``path`` (observed actions) leads to from ``node``, or NO_NODE where the tree never went."""
    for action in path:
        node = find_child(a, node, <int32_t>action)
        if node == NO_NODE:
            return NO_NODE
    return node


cdef int32_t subtree_size(const Arena* a, int32_t root) noexcept nogil:
    """Nodes in the subtree under ``root``, itself included (children always come after their parent in the arena,
    so one pass in id order with a membership flag counts it)."""
    cdef char* inside = <char*>calloc(a.count, 1)
    cdef int32_t n, child, count = 1
    if inside == NULL:
        return 1
    inside[root] = 1
    for n in range(root, a.count):
        if not inside[n]:
            continue
        child = a.nodes[n].first_child
        while child != NO_NODE:
            inside[child] = 1
            count += 1
            child = a.nodes[child].next_sibling
    free(inside)
    return count


cdef void copy_subtree(const Arena* old, int32_t old_root, Arena* fresh, int32_t new_root, int seat,
                       const double* shift, RootStats* stats) noexcept nogil:
    """Copy the subtree under ``old_root`` below ``new_root`` of ``fresh`` (breadth first, until ``fresh`` is full),
    adding ``shift[mover]`` to every reward (re-basing the control variate on the new root) and recording the
    searching seat's new root children in ``stats`` as prior visits."""
    cdef int32_t* queue = <int32_t*>malloc(2 * fresh.capacity * sizeof(int32_t))
    cdef int32_t head = 0, tail = 0, o, n, child, k
    cdef const Node* c
    cdef Node* made
    cdef double d
    if queue == NULL:
        return
    fresh.nodes[new_root].visits = old.nodes[old_root].visits
    queue[0] = old_root
    queue[1] = new_root
    tail = 1
    while head < tail:
        o = queue[2 * head]
        n = queue[2 * head + 1]
        head += 1
        child = old.nodes[o].first_child
        while child != NO_NODE:
            c = &old.nodes[child]
            k = new_node(fresh, n, c.action, c.mover)
            if k == NO_NODE:
                free(queue)
                return
            made = &fresh.nodes[k]
            made.visits = c.visits
            made.avail = c.avail
            made.value = c.value
            made.square = c.square
            made.best = c.best
            if c.mover >= 0:
                d = shift[c.mover]
                made.value = c.value + d * c.visits
                made.square = c.square + 2.0 * d * c.value + d * d * c.visits
                made.best = c.best + d
            if n == new_root:
                made.slot = root_slot(stats, c.action)
                if made.slot >= 0:
                    stats.prior[made.slot] += made.visits
                    stats.prior_learnt[made.slot] += made.value
            queue[2 * tail] = child
            queue[2 * tail + 1] = k
            tail += 1
            child = c.next_sibling
    free(queue)


cdef void root_baseline(const GameVTable* vt, const void* root, const Params* prm, Rng* rng,
                        double* mean) noexcept nogil:
    """The mean heuristic value of the root over sampled worlds, per seat (0.5 without a control variate)."""
    cdef void* world = malloc(vt.state_size)
    cdef double value[MAX_SEATS_ANY]
    cdef int _, p
    for p in range(prm.players):
        mean[p] = 0.5
    if prm.heuristic == NULL or not prm.baseline or world == NULL:
        free(world)
        return
    for p in range(prm.players):
        mean[p] = 0.0
    for _ in range(REBASE_WORLDS):
        clone_into(vt, world, root)
        vt.determinize(world, prm.seat, rng)
        prm.heuristic(world, value)
        for p in range(prm.players):
            mean[p] += value[p] / REBASE_WORLDS
    free(world)


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


def run(State state, int seat, config, long long iterations, double deadline, unsigned long long seed,
        Control control, int node_capacity, int pv_length=8, bint profile=False, Forest forest=None, list path=None,
        list belief=None, root_moves=None):
    """One thread's search from ``state`` for ``seat``; releases the GIL while it runs.

    ``config`` is a resolved ``search.SearchConfig`` (algorithm, exploration, playout depth, worlds, flags).
    ``iterations`` is this thread's share (< 0: no limit; ``deadline``, in ``monotonic()`` seconds, must then be set).
    Returns root statistics per action of ``seat``, counts, and the principal line (observed action ids); with
    ``profile``, also the depth and width profile of the searching seat's tree (``tree_profile``).

    ``forest`` (ISMCTS): trees kept from this seat's previous search in the same game, and ``path`` what the seat
    observed of every move since (its own first). When the seat's tree holds that line, the subtree it leads to is
    the new root's (rewards re-based on the new root's heuristic, its children's visits counted as prior visits);
    other seats' trees start afresh (the seat cannot know what they observed). The trees this search leaves are kept
    in ``forest`` for the next one. ``reused`` in the result: the nodes carried over (0: a fresh start).

    ``belief`` (ISMCTS, games with ``GameVTable.private_key``): per seat, the weight of each private key (a list of
    equal-length lists, the searching seat's ignored, each weight in [0, 1]); sampled worlds are kept in proportion to
    the product of their keys' weights (rejection, at most ``BELIEF_TRIES`` draws an iteration).

    ``root_moves`` (tree searches): the only moves the seat's root may take (actual action ids; the others are
    neither tried nor counted); None: every legal move.
    """
    algorithm = config.algorithm
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {sorted(ALGORITHMS)}")
    cdef const GameVTable* vt = state.vt
    cdef Params prm
    cdef Arena arena
    cdef RootStats stats
    cdef Outcome out
    cdef Rng rng
    cdef int ok = 1
    cdef int p
    cdef int32_t reuse_root = NO_NODE, kept = 0
    cdef double shift[MAX_SEATS_ANY]
    cdef double fresh_mean[MAX_SEATS_ANY]
    prm.algorithm = ALGORITHMS[algorithm]
    prm.seat = seat
    prm.players = state.num_players()
    prm.iterations = iterations
    prm.deadline = deadline
    prm.exploration = config.exploration
    prm.scaled = config.scaled_exploration
    prm.playout_depth = config.playout_depth
    playout_to = "steps" if config.playout_to is None else config.playout_to
    if playout_to not in PLAYOUT_TO:
        raise ValueError(f"playout_to: {playout_to!r}; expected one of {list(PLAYOUT_TO)}")
    prm.playout_to = PLAYOUT_TO[playout_to] if prm.algorithm != ALG_FLAT else TO_STEPS
    prm.playout_candidates = config.candidates if config.playout_candidates is None else config.playout_candidates
    prm.worlds = max(1, config.worlds)
    prm.light_playouts = config.light_playouts
    prm.playout = playout_of(vt, playout_index(state, config.playout_policy)) if config.light_playouts else NULL
    prm.draw = draw_of(vt, playout_index(state, config.playout_policy), config.light_playouts)
    prm.baseline = config.baseline
    prm.halving = config.halving and prm.algorithm != ALG_FLAT
    prm.cancel = &control.flag
    out.iterations = 0
    out.worlds = 0
    out.nodes = 0
    for p in range(MAX_SEATS_ANY):
        out.baseline_sum[p] = 0.0
        fresh_mean[p] = 0.5
    prm.heuristic = heuristic_of(vt, heuristic_index(state, config.heuristic))
    prm.candidates = config.candidates
    prm.widening = config.widening
    prm.minimax = config.minimax
    prm.minimax_prior = config.minimax_prior
    prm.canonical_order = config.canonical_order and vt.redundant != NULL
    prm.open_loop = config.open_loop and prm.algorithm == ALG_ISMCTS
    prm.private_roots = config.private_roots and prm.algorithm == ALG_ISMCTS and vt.private_key != NULL
    prm.belief = NULL
    prm.belief_keys = 0
    prm.root_moves = NULL
    prm.root_count = 0
    cdef double* weights = NULL
    cdef int32_t* allowed = NULL
    moves = None
    if root_moves is not None:
        moves = sorted({int(a) for a in root_moves})
        if not moves:
            raise ValueError("root_moves: expected at least one move")
    if belief and prm.algorithm == ALG_ISMCTS and vt.private_key != NULL:
        if len(belief) != state.num_players() or any(len(row) != len(belief[0]) for row in belief):
            raise ValueError("belief: one row of equal length per seat")
        prm.belief_keys = len(belief[0])
    rng_seed(&rng, seed)
    if prm.players > MAX_SEATS_ANY:
        raise ValueError(f"the search handles at most {MAX_SEATS_ANY} seats")
    if not root_init(&stats, vt.max_actions, prm.players):
        root_free(&stats)
        raise MemoryError()
    reusing = forest is not None and prm.algorithm == ALG_ISMCTS
    if reusing and forest.held and path is not None and forest.seat == seat and forest.players == prm.players:
        reuse_root = follow(&forest.arena, seat, path)
        if reuse_root != NO_NODE:
            kept = subtree_size(&forest.arena, reuse_root)
            # Room for the kept nodes, at most as many again as the search's own (a long run of forced moves would
            # otherwise grow the tree search after search); the copy keeps the shallowest nodes when it must stop.
            node_capacity = max(node_capacity, min(node_capacity + min(kept, node_capacity) + prm.players,
                                                   MAX_KEPT_NODES))
    arena.nodes = NULL
    arena.keys = NULL
    arena.children = NULL
    if prm.algorithm != ALG_FLAT and not arena_init(&arena, node_capacity):
        arena_free(&arena)
        root_free(&stats)
        raise MemoryError(f"cannot allocate a tree of {node_capacity} nodes")
    if reuse_root != NO_NODE:
        root_baseline(vt, state.buf, &prm, &rng, fresh_mean)
        for p in range(prm.players):
            shift[p] = forest.baseline[p] - fresh_mean[p]
        while arena.count < prm.players:
            new_node(&arena, NO_NODE, -1, -1)
        copy_subtree(&forest.arena, reuse_root, &arena, seat, seat, shift, &stats)
        kept = arena.count - prm.players
    if prm.belief_keys > 0:
        weights = <double*>malloc(prm.players * prm.belief_keys * sizeof(double))
        if weights != NULL:  # without memory for it the search runs without beliefs
            for p in range(prm.players):
                for k in range(prm.belief_keys):
                    weights[p * prm.belief_keys + k] = min(1.0, max(0.0, <double>belief[p][k]))
            prm.belief = weights
    if moves is not None:
        allowed = <int32_t*>malloc(len(moves) * sizeof(int32_t))
        if allowed != NULL:  # without memory for it the search does not run and raises MemoryError below
            for k in range(len(moves)):
                allowed[k] = moves[k]
            prm.root_moves = allowed
            prm.root_count = len(moves)
        else:
            ok = 0
    if ok:
        with nogil:
            if prm.algorithm == ALG_ISMCTS:
                ok = tree_search(vt, state.buf, &prm, &arena, &stats, &rng, -1, False, True, &out)
            elif prm.algorithm == ALG_CHEAT:
                ok = tree_search(vt, state.buf, &prm, &arena, &stats, &rng, -1, True, False, &out)
            elif prm.algorithm == ALG_FLAT:
                ok = flat_search(vt, state.buf, &prm, &stats, &rng, &out)
            else:
                ok = pimc(vt, state.buf, &prm, &arena, &stats, &rng, &out)
    free(weights)
    free(allowed)
    prm.belief = NULL
    prm.root_moves = NULL
    pv = principal_line(&arena, &stats, seat, prm.algorithm, pv_length) if ok else []
    children = root_children(&arena, seat, prm.algorithm) if ok else []
    shape = tree_profile(&arena, seat, prm.algorithm) if ok and profile else None
    result = {
        "actions": [
            {
                "action": stats.action[k],
                "visits": stats.visits[k] + stats.prior[k],
                "samples": stats.visits[k],
                "value_sums": [stats.values[k * prm.players + p] for p in range(prm.players)],
                "win_sum": stats.wins[k],
                "learnt_sum": stats.learnt[k] + stats.prior_learnt[k],
                "own_learnt_sum": stats.learnt[k],
                "learnt_sq_sum": stats.learnt_sq[k],
                "survived": stats.survived[k],
            }
            for k in range(stats.count)
        ],
        "iterations": out.iterations,
        "worlds": out.worlds,
        "nodes": out.nodes,
        "reused": kept if reuse_root != NO_NODE else 0,
        "pv": pv,
        "root_children": children,
    }
    if shape is not None:
        result["profile"] = shape
    if reusing and ok:
        forest.release()
        forest.arena = arena
        forest.held = True
        forest.seat = seat
        forest.players = prm.players
        for p in range(prm.players):
            forest.baseline[p] = out.baseline_sum[p] / out.iterations if out.iterations > 0 else fresh_mean[p]
    else:
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
        budget = prm.iterations // prm.worlds if prm.iterations >= 0 else PIMC_TIMED_WORLD
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


cdef list root_children(Arena* arena, int seat, int algorithm):
    """The searching seat's root children as the tree holds them: observed action, visits, value sum, the sum of the
    squared rewards and the implicit minimax value."""
    cdef list out = []
    cdef int32_t child
    if algorithm == ALG_FLAT or arena.count == 0:
        return out
    child = arena.nodes[0 if algorithm in (ALG_CHEAT, ALG_PIMC) else seat].first_child
    while child != NO_NODE:
        out.append({"action": arena.nodes[child].action, "visits": arena.nodes[child].visits,
                    "value_sum": arena.nodes[child].value, "square_sum": arena.nodes[child].square,
                    "best": arena.nodes[child].best})
        child = arena.nodes[child].next_sibling
    return out


cdef dict tree_profile(Arena* arena, int seat, int algorithm):
    """The shape of the searching seat's tree (the last world's tree for PIMC), breadth first from its root.

    Per depth (edges from the root): nodes, iterations through them (their visits summed), nodes with children and
    the mean children of those, and how many nodes are the searching seat's moves, other seats' moves and chance.
    ``turns_reached[k]``: iterations that reached the searching seat's k-th turn in the tree (k = 1 is the current
    turn; a turn is a run of the seat's own moves, chance inside it included, that another seat's move ends), so
    ``turns_reached[2] / iterations`` is the share of iterations that see the seat's next turn."""
    cdef int32_t root, node, child, head = 0, tail = 0, count = arena.count
    cdef int32_t* queue
    cdef int32_t* depth
    cdef int8_t* last
    cdef int32_t* turns
    cdef int d, mover, children
    levels = []
    reached = {}
    if algorithm == ALG_FLAT or count == 0:
        return {"levels": levels, "turns_reached": reached, "root_visits": 0}
    root = 0 if algorithm in (ALG_CHEAT, ALG_PIMC) else seat
    queue = <int32_t*>malloc(count * sizeof(int32_t))
    depth = <int32_t*>malloc(count * sizeof(int32_t))
    turns = <int32_t*>malloc(count * sizeof(int32_t))
    last = <int8_t*>malloc(count * sizeof(int8_t))
    if queue == NULL or depth == NULL or turns == NULL or last == NULL:
        free(queue)
        free(depth)
        free(turns)
        free(last)
        raise MemoryError()
    queue[tail] = root
    tail += 1
    depth[root] = 0
    turns[root] = 1  # the root is the seat's own decision: its current turn
    last[root] = seat
    while head < tail:
        node = queue[head]
        head += 1
        d = depth[node]
        while len(levels) <= d:
            levels.append({"depth": len(levels), "nodes": 0, "visits": 0, "expanded": 0, "children": 0,
                           "own": 0, "others": 0, "chance": 0})
        level = levels[d]
        level["nodes"] += 1
        level["visits"] += arena.nodes[node].visits
        mover = arena.nodes[node].mover
        if node != root:
            if mover == seat:
                level["own"] += 1
            elif mover < 0:
                level["chance"] += 1
            else:
                level["others"] += 1
        children = 0
        child = arena.nodes[node].first_child
        while child != NO_NODE:
            children += 1
            depth[child] = d + 1
            mover = arena.nodes[child].mover
            turns[child] = turns[node]
            last[child] = last[node]
            if mover >= 0:
                if mover == seat and last[node] != seat:
                    turns[child] = turns[node] + 1
                    reached[turns[child]] = reached.get(turns[child], 0) + arena.nodes[child].visits
                last[child] = mover
            queue[tail] = child
            tail += 1
            child = arena.nodes[child].next_sibling
        if children:
            level["expanded"] += 1
            level["children"] += children
    free(queue)
    free(depth)
    free(turns)
    free(last)
    reached[1] = arena.nodes[root].visits
    return {"levels": levels, "turns_reached": dict(sorted(reached.items())), "root_visits": arena.nodes[root].visits}


cdef inline bint better_child(const Node* a, const Node* b) noexcept nogil:
    """More visits, ties to the higher learnt value: the order ``search._rank`` uses for the root."""
    if a.visits != b.visits:
        return a.visits > b.visits
    return a.visits > 0 and a.value / a.visits > b.value / b.visits


cdef list principal_line(Arena* arena, RootStats* stats, int seat, int algorithm, int length):
    """Most visited child first (ties: higher learnt value), from the searching seat's root (the single tree for PIMC
    and cheat)."""
    cdef list line = []
    cdef int32_t node, child, best
    if algorithm == ALG_FLAT or arena.count == 0:
        return line
    node = 0 if algorithm in (ALG_CHEAT, ALG_PIMC) else seat
    while len(line) < length:
        best = NO_NODE
        child = arena.nodes[node].first_child
        while child != NO_NODE:
            if best == NO_NODE or better_child(&arena.nodes[child], &arena.nodes[best]):
                best = child
            child = arena.nodes[child].next_sibling
        if best == NO_NODE or arena.nodes[best].visits == 0:
            break
        line.append(arena.nodes[best].action)
        node = best
    return line


cdef returns_fn heuristic_of(const GameVTable* vt, int index) noexcept:
    return vt.heuristic if index == 0 else vt.other_heuristics[index - 1]


cdef playout_fn playout_of(const GameVTable* vt, int index) noexcept:
    return vt.playout_action if index == 0 else vt.other_playout_actions[index - 1]


cdef sample_chance_fn draw_of(const GameVTable* vt, int index, bint light_playouts) noexcept:
    """The game's draw of its playout policy number ``index`` (``GameVTable.playout_draw``: that policy's chances
    without a list of the moves), or NULL: the moves are listed (always for uniform playouts)."""
    if not light_playouts:
        return NULL
    return vt.playout_draw if index == 0 else vt.other_playout_draws[index - 1]


def _by_name(State state, name, str setting, tuple names, str offered_none, int others):
    """The position of ``name`` among the game's ``names`` for ``setting`` (None: 0, the game's default), or a
    ValueError naming what the game offers; beyond the table's ``others`` alternatives it is not compiled in."""
    if name is None:
        return 0
    if name not in names:
        offered = ", ".join(names) if names else offered_none
        raise ValueError(f"{setting}: {state.game_name} offers {offered}; got {name!r}")
    index = names.index(name)
    if index > others:
        raise ValueError(f"{setting}: {name!r} is not compiled into {state.game_name}")
    return index


def playout_index(State state, name):
    """The position of the playout policy called ``name`` among the game's (``GameInfo.playout_policies``); None: its
    light policy (or uniform, for a game without one)."""
    index = _by_name(state, name, "playout_policy", game_info(state.game_name).playout_policies,
                     "none (the game's playouts are uniform)", MAX_OTHER_PLAYOUTS)
    if playout_of(state.vt, index) == NULL and name is not None:
        raise ValueError(f"playout_policy: {name!r} is not compiled into {state.game_name}")
    return index


def playout_choice(State state, unsigned long long seed, playout_policy=None):
    """The move the playout policy named ``playout_policy`` (the game's light one when None) makes at ``state``, a
    seat's decision, with the random stream ``seed``: what a playout through it would play there."""
    cdef const GameVTable* vt = state.vt
    cdef playout_fn policy = playout_of(vt, playout_index(state, playout_policy))
    cdef Rng rng
    cdef int32_t* buf
    cdef int n
    cdef int32_t action
    if vt.current_player(state.buf) < 0:
        raise ValueError("playout_choice: the state is not a seat's decision")
    buf = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    if buf == NULL:
        raise MemoryError()
    rng_seed(&rng, seed)
    n = vt.legal_actions(state.buf, buf)
    action = policy(state.buf, buf, n, &rng) if policy != NULL else buf[rng_below(&rng, n)]
    free(buf)
    return action


def playout_draws(State state, int count, unsigned long long seed):
    """``count`` moves of the game's light policy at ``state``, a seat's decision, each drawn straight from the state
    (``GameVTable.playout_draw``: no list of the legal moves) on the random stream ``seed``; None where the game does
    not draw them so there (its playouts then list the moves)."""
    cdef const GameVTable* vt = state.vt
    cdef Rng rng
    cdef int _
    cdef int32_t action
    cdef list drawn = []
    if vt.current_player(state.buf) < 0:
        raise ValueError("playout_draws: the state is not a seat's decision")
    if vt.playout_draw == NULL:
        return None
    rng_seed(&rng, seed)
    for _ in range(count):
        action = vt.playout_draw(state.buf, &rng)
        if action < 0:
            return None
        drawn.append(action)
    return drawn


def heuristic_index(State state, name):
    """The position of the evaluation called ``name`` among the game's (``GameInfo.heuristics``); None: the default."""
    index = _by_name(state, name, "heuristic", game_info(state.game_name).heuristics,
                     "none (the game has no heuristic)", MAX_OTHER_HEURISTICS)
    if heuristic_of(state.vt, index) == NULL and name is not None:
        raise ValueError(f"heuristic: {name!r} is not compiled into {state.game_name}")
    return index


def evaluate_state(State state, int seat, unsigned long long seed, int playout_depth, bint light_playouts=True,
                   heuristic=None, playout_policy=None):
    """Scaled returns in [0, 1] of one playout from ``state`` (cut off and scored by the heuristic named
    ``heuristic``, the game's default when None, after ``playout_depth`` steps when the game has one; 0 scores the
    position itself), played by the playout policy named ``playout_policy`` (the game's light one when None) or, without
    ``light_playouts``, uniformly."""
    cdef const GameVTable* vt = state.vt
    cdef Params prm
    cdef Rng rng
    cdef double raw[MAX_SEATS_ANY]
    cdef double scaled[MAX_SEATS_ANY]
    cdef double win
    cdef void* world
    cdef int32_t* buf
    prm.heuristic = heuristic_of(vt, heuristic_index(state, heuristic))
    world = malloc(vt.state_size)
    buf = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    if world == NULL or buf == NULL:
        free(world)
        free(buf)
        raise MemoryError()
    prm.seat = seat
    prm.players = state.num_players()
    prm.playout_depth = playout_depth
    prm.light_playouts = light_playouts
    prm.playout = playout_of(vt, playout_index(state, playout_policy)) if light_playouts else NULL
    prm.draw = draw_of(vt, playout_index(state, playout_policy), light_playouts)
    rng_seed(&rng, seed)
    clone_into(vt, world, state.buf)
    with nogil:
        evaluate(vt, world, &prm, &rng, buf, raw, scaled, &win, NULL)
    free(world)
    free(buf)
    return [scaled[p] for p in range(prm.players)]


def play_on(State state, int seat, str playout_to, unsigned long long seed, last_turn=None, int candidates=8,
            heuristic=None):
    """Where a tree search's playout with ``playout_to`` (``"turn"``, ``"own_turn"`` or ``"chance"``) would stop from
    ``state`` for the searching ``seat``, moves drawn as there (the heuristic's best of ``candidates``, chance with
    the random stream ``seed``). ``last_turn``: the turn owner where the leaf's last tree move was made (None: the
    turn owner at ``state``). Returns the position (a new State) and the steps played."""
    cdef const GameVTable* vt = state.vt
    cdef Params prm
    cdef Walk w
    cdef Rng rng
    cdef int steps
    cdef State out
    if playout_to not in ("turn", "own_turn", "chance"):
        raise ValueError(f"playout_to: expected 'turn', 'own_turn' or 'chance', got {playout_to!r}")
    if not 0 <= seat < state.num_players():
        raise ValueError(f"seat: expected 0..{state.num_players() - 1}, got {seat}")
    if last_turn is not None and not 0 <= last_turn < state.num_players():
        raise ValueError(f"last_turn: expected a seat 0..{state.num_players() - 1} or None, got {last_turn}")
    if candidates < 1:
        raise ValueError(f"candidates: expected at least 1, got {candidates}")
    prm.seat = seat
    prm.players = state.num_players()
    prm.playout_to = PLAYOUT_TO[playout_to]
    prm.playout_candidates = candidates
    prm.heuristic = heuristic_of(vt, heuristic_index(state, heuristic))
    prm.playout = playout_of(vt, 0)
    prm.draw = draw_of(vt, 0, True)
    if not walk_init(&w, vt, 1, prm.players):
        walk_free(&w)
        raise MemoryError()
    rng_seed(&rng, seed)
    clone_into(vt, w.world, state.buf)
    w.leaf_turn = turn_of(vt, w.world, seat) if last_turn is None else last_turn
    with nogil:
        steps = finish_turns(vt, &prm, &rng, &w)
    out = state.clone()
    clone_into(vt, out.buf, w.world)
    walk_free(&w)
    return out, steps
