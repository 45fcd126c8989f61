# Included by mcts.pyx (one compilation unit: the iteration reads and writes the tree memory inline).
# The tree memory: each thread's arena of nodes with its (parent, action) index and compaction, and the root's
# statistics.


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
