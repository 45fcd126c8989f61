# Included by mcts.pyx (one compilation unit: the entry point drives the iteration inline).
# The Python entry point: ``Forest``, one thread's trees kept between searches (tree reuse), running a search's
# stages (halving, refine, PIMC, flat) and reporting on it (statistics, principal line, profile).


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
