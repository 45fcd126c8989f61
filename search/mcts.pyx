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


include "mcts_tree.pxi"


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


include "mcts_forest.pxi"
