# cython: language_level=3
"""The C interface every game implements, the seeded RNG and the ``State`` base class.

Two levels (DESIGN.md, "Engine core"): below, a game is a fixed-size C struct plus a ``GameVTable`` of ``noexcept
nogil`` functions over raw state buffers, which the search drives without the GIL; above, ``State`` owns one buffer and
the table, and each game module adds its Python API.
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport qsort
from libc.string cimport memcpy

cdef enum:
    CHANCE_PLAYER = -1
    TERMINAL_PLAYER = -2
    # The ``seat`` argument of ``observed_action`` for a seat not involved in the action (``State.public_action``).
    NO_SEAT = -1
    # Most seats any game may have: the size of per-seat buffers (returns, scores, search statistics).
    MAX_SEATS_ANY = 16


# ---------------------------------------------------------------------------------------------------------------------
# RNG: splitmix64. One 64-bit word of state, so a search thread keeps one per tree and clone() copies nothing extra.
# ---------------------------------------------------------------------------------------------------------------------
cdef struct Rng:
    uint64_t state


cdef inline void rng_seed(Rng* rng, uint64_t seed) noexcept nogil:
    rng.state = seed * <uint64_t>0x9E3779B97F4A7C15 + <uint64_t>0x2545F4914F6CDD1D


cdef inline uint64_t rng_next(Rng* rng) noexcept nogil:
    rng.state += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = rng.state
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint32_t rng_below(Rng* rng, uint32_t n) noexcept nogil:
    """Uniform integer in ``[0, n)`` by Lemire's multiply-shift (bias below 2**-32 for the n used here)."""
    return <uint32_t>(((rng_next(rng) >> 32) * <uint64_t>n) >> 32)


cdef inline int cmp_action_ids(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline void sort_action_ids(int32_t* a, int n) noexcept nogil:
    """Ascending action ids for ``legal_actions``. Generators that emit ids in order leave little to do: a sorted list
    costs one pass, a nearly sorted one an insertion sort; only long unsorted lists go to qsort."""
    cdef int i, j, out_of_order = 0
    cdef int32_t v
    for i in range(1, n):
        out_of_order += a[i] < a[i - 1]
    if out_of_order == 0:
        return
    if n > 24 and out_of_order > 4:
        qsort(a, n, sizeof(int32_t), cmp_action_ids)
        return
    for i in range(1, n):
        v = a[i]
        if v >= a[i - 1]:
            continue
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef inline int32_t kind_balanced_choice(const int32_t* legal, int n, Rng* rng, int shift,
                                         int preferred) noexcept nogil:
    """A light playout policy for games whose action ids carry a kind in bits ``shift`` and up (at most 32 kinds):
    an action of kind ``preferred`` whenever there is one (-1: none), else a kind uniformly among those present,
    then an action of it uniformly, so a kind with many variants (ways to pay, token placements) does not crowd out
    the others."""
    cdef int counts[32]
    cdef int k, kinds = 0, pick, i
    for k in range(32):
        counts[k] = 0
    for i in range(n):
        counts[(legal[i] >> shift) & 31] += 1
    if preferred >= 0 and counts[preferred]:
        k = preferred
    else:
        for k in range(32):
            kinds += counts[k] > 0
        pick = rng_below(rng, kinds)
        for k in range(32):
            if counts[k]:
                if pick == 0:
                    break
                pick -= 1
    pick = rng_below(rng, counts[k])
    for i in range(n):
        if (legal[i] >> shift) & 31 == k:
            if pick == 0:
                return legal[i]
            pick -= 1
    return legal[0]


cdef inline double rng_uniform(Rng* rng) noexcept nogil:
    """Uniform double in ``[0, 1)`` with 53 random bits."""
    return <double>(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


# ---------------------------------------------------------------------------------------------------------------------
# The game table. Every function takes a raw pointer to the game's state struct. Buffers for ``legal_actions`` and
# ``chance_outcomes`` must hold ``max_actions`` / ``max_chance_outcomes`` entries.
# ---------------------------------------------------------------------------------------------------------------------
cdef enum:
    MAX_OTHER_HEURISTICS = 12  # evaluation functions a game offers beside its default, for the arena to choose from
    MAX_OTHER_PLAYOUTS = 3     # playout policies a game offers beside its light one (GameInfo.playout_policies[1:])


ctypedef int (*int_of_state_fn)(const void* s) noexcept nogil
ctypedef int (*list_actions_fn)(const void* s, int32_t* out) noexcept nogil
ctypedef int (*chance_outcomes_fn)(const void* s, int32_t* out_actions, double* out_probs) noexcept nogil
ctypedef void (*apply_fn)(void* s, int32_t action) noexcept nogil
ctypedef int32_t (*sample_chance_fn)(const void* s, Rng* rng) noexcept nogil
ctypedef void (*returns_fn)(const void* s, double* out) noexcept nogil
ctypedef void (*scores_fn)(const void* s, int32_t* out) noexcept nogil
ctypedef void (*determinize_fn)(void* s, int seat, Rng* rng) noexcept nogil
ctypedef int32_t (*observed_action_fn)(const void* s, int32_t action, int seat) noexcept nogil
ctypedef void (*utility_bounds_fn)(const void* s, double* lowest, double* highest) noexcept nogil
ctypedef int32_t (*playout_fn)(const void* s, const int32_t* legal, int n, Rng* rng) noexcept nogil
ctypedef bint (*redundant_fn)(const void* s, int32_t previous, int32_t action) noexcept nogil
ctypedef int32_t (*private_key_fn)(const void* s, int seat) noexcept nogil


cdef struct GameVTable:
    const char* name
    size_t state_size
    int max_players               # at most MAX_SEATS_ANY
    int max_actions               # most legal actions at any decision node
    int max_chance_outcomes       # most outcomes at any chance node
    int_of_state_fn num_players
    int_of_state_fn current_player        # seat, CHANCE_PLAYER or TERMINAL_PLAYER
    list_actions_fn legal_actions         # ascending action ids, returns the count
    chance_outcomes_fn chance_outcomes    # returns the count; probabilities sum to 1
    apply_fn apply                        # unchecked: the action must be legal
    sample_chance_fn sample_chance        # one outcome drawn with its probability
    returns_fn returns
    scores_fn scores
    determinize_fn determinize            # resample every fact hidden from seat, from its observation only
    observed_action_fn observed_action    # what seat (NO_SEAT: an uninvolved seat) sees of action taken in s
    utility_bounds_fn utility_bounds      # the range of returns(), to scale rewards to [0, 1] for the search
    returns_fn heuristic                  # optional (NULL): estimated returns scaled to [0, 1], for cut-off playouts
    returns_fn other_heuristics[MAX_OTHER_HEURISTICS]  # optional alternatives (GameInfo.heuristics[1:]), NULL-padded
    playout_fn playout_action             # optional (NULL: uniform): a light policy choosing among legal in playouts
    # optional: True when ``action`` right after the same seat's ``previous`` reaches what the two in the other order
    # reach, and that order is the one to search (``SearchConfig.canonical_order``)
    redundant_fn redundant
    # optional: a number in [0, 2**24) naming what ``seat`` alone knows in ``s`` (its own hidden facts; -1: nothing), so
    # the search can give each value its own subtree in that seat's tree (``SearchConfig.private_roots``)
    private_key_fn private_key
    # optional alternatives to ``playout_action`` (GameInfo.playout_policies[1:]), NULL-padded
    playout_fn other_playout_actions[MAX_OTHER_PLAYOUTS]
    # optional (NULL: the seat to move): the seat whose turn it is, also while chance or another seat's reaction is
    # resolved within it (``SearchConfig.playout_to``)
    int_of_state_fn turn_owner
    # optional (NULL: none): ``playout_action``'s move drawn straight from the state, with the same chances over the
    # legal moves, without listing them; -1 where the game does not draw it so (then the moves are listed)
    sample_chance_fn playout_draw
    sample_chance_fn other_playout_draws[MAX_OTHER_PLAYOUTS]   # the same for ``other_playout_actions``, NULL-padded


cdef inline void clone_into(const GameVTable* vt, void* dst, const void* src) noexcept nogil:
    """Every game state is one fixed-size struct with no pointers, so a copy is a memcpy."""
    memcpy(dst, src, vt.state_size)


cpdef check_int(data, str key, long lo, long hi, str prefix=*, bint missing_zero=*)


cdef class State:
    cdef const GameVTable* vt
    cdef void* buf
    cdef readonly long long move_number   # moves applied through apply() since new_game/from_json (clones keep it)

    cdef void attach(self, const GameVTable* vt) except *
    cdef State empty_like(self)
    cdef int check_legal(self, int32_t action) except -1

    cpdef int current_player(self)
    cpdef bint is_terminal(self)
    cpdef int num_players(self)
    cpdef list legal_actions(self)
    cpdef list chance_outcomes(self)
    cpdef apply(self, int32_t action)
    cpdef State clone(self)
    cpdef list returns(self)
    cpdef list scores(self)
    cpdef int32_t public_action(self, int32_t action)
    cpdef int32_t observed_action(self, int32_t action, int seat)
    cpdef State determinize(self, int seat, uint64_t seed)
