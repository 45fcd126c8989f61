# Included by survive_rules.pyx (one compilation unit: the policies call the rules' helpers inline).
# The playout policies and search hooks: the light policy, the hunting one, the Action phase drawn without listing
# its moves, and which move pairs are redundant (the same position in either order).


cdef int32_t s_playout_action(const void* p, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """Light playout policy: a uniformly drawn Adventurer move that does not bring it closer to a Rescue Island is
    redrawn once, so playouts walk Adventurers home more often than uniform play does."""
    cdef int32_t a = legal[rng_below(rng, n)]
    cdef Move m = decode(a)
    if m.kind == K_MOVE_ADV and RESCUE_DISTANCE[m.to] >= RESCUE_DISTANCE[m.frm]:
        a = legal[rng_below(rng, n)]
    return a


cdef double prey_at(const Survive* s, int kind, int c, int mover) noexcept nogil:
    """What a move brings ``mover`` at ``c`` in treasure value: the other seats' Adventurers there that it takes, less
    its own. A Shark arriving takes the swimmers, a Sea Serpent everyone there (a Raft's passengers too); removing the
    tile (``kind`` < 0) leaves everyone on it swimming."""
    cdef double total = 0.0
    cdef int i
    cdef const Meeple* m
    if s.adv_at[c] == 0:
        return 0.0
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        if m.status != ST_BOARD or m.cell != c or (kind == SHARK and m.aboard):
            continue
        total += -m.value if seat_of_colour(s, i // MEEPLES_PER_COLOUR) == mover else m.value
    return total


cdef int32_t s_hunting_playout_action(const void* p, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """``hunting``: the light policy, but a Shark or Sea Serpent moves where it takes the most treasure value from the
    other seats (less the mover's own), and Rising Waters takes the tile whose Adventurers bring that most; ties, and a
    Kaiju, at random. So the rivals a playout plays on for ``playout_to=own_turn`` strike as the bots they stand for
    do, not at random."""
    cdef const Survive* s = <const Survive*>p
    cdef int k, ties = 0, kind = -1
    cdef double value, best = -1e300
    cdef int32_t pick = -1
    cdef Move m
    if s.decision == D_PHASE and (s.phase == PH_CREATURE or s.phase == PH_DIE_MOVE) and s.die_type != KAIJU:
        kind = s.die_type
    elif not (s.decision == D_PHASE and s.phase == PH_RISING):
        return s_playout_action(p, legal, n, rng)
    for k in range(n):
        m = decode(legal[k])
        value = prey_at(s, kind, m.to if kind >= 0 else m.frm, s.active)
        if value > best:
            best = value
            pick = legal[k]
            ties = 1
        elif value == best:
            ties += 1
            if rng_below(rng, ties) == 0:               # one of the best at random (reservoir)
                pick = legal[k]
    return pick


cdef enum:
    ACTION_GROUPS = 11  # the slot groups of ``action_slots``


cdef bint first_of_its_kind(const Survive* s, int lo, int i) noexcept nogil:
    """No Adventurer before ``i`` (from ``lo``) is identical to it: the same colour, value, cell, raft and swim, so the
    same move ids (``gen_action_phase`` lists an identical one's moves once)."""
    cdef const Meeple* m = &s.meeple[i]
    cdef const Meeple* o
    cdef int j
    for j in range(lo, i):
        o = &s.meeple[j]
        if (o.status == ST_BOARD and j // MEEPLES_PER_COLOUR == i // MEEPLES_PER_COLOUR and o.aboard == m.aboard
                and o.value == m.value and o.swum == m.swum and o.cell == m.cell):
            return False
    return True


cdef int32_t adventurer_slot(const Survive* s, int lo, int kind, int sub, int r) noexcept nogil:
    """The move of slot ``r`` among the (own Adventurer on the board, neighbour) pairs from ``lo``: a movement
    (``kind`` K_MOVE_ADV, as ``gen_adventurer_moves``) or a Dolphin step (K_DOLPHIN of land ``sub``, as
    ``gen_dolphin_steps``); -1 where that pair is no legal move or an identical Adventurer's slot stands for it."""
    cdef int i = lo
    cdef int c, t
    cdef const Meeple* m
    while s.meeple[i].status != ST_BOARD or r >= NUM_NEIGHBOURS[s.meeple[i].cell]:
        if s.meeple[i].status == ST_BOARD:
            r -= NUM_NEIGHBOURS[s.meeple[i].cell]
        i += 1
    m = &s.meeple[i]
    c = m.cell
    t = NEIGHBOURS[c][r]
    if not first_of_its_kind(s, lo, i):
        return -1
    if kind == K_DOLPHIN:
        if m.aboard or s.terrain[c] != WATER or not dolphin_can_enter(s, t):
            return -1
        return act(K_DOLPHIN, sub, i // MEEPLES_PER_COLOUR, m.value, m.swum, c, t)
    if not can_step(s, m, t):
        return -1
    return act(K_MOVE_ADV, m.aboard, i // MEEPLES_PER_COLOUR, m.value, m.swum, c, t)


cdef int32_t raft_slot(const Survive* s, int seat, int kind, int r) noexcept nogil:
    """The move of slot ``r`` among the (Raft, neighbour) pairs: a step of ``kind`` (K_MOVE_RAFT or K_PADDLES, as
    ``gen_raft_steps``) of a Raft the seat controls, or -1."""
    cdef int c = next_bit(s.raft_bits, -1)
    cdef int t
    while r >= NUM_NEIGHBOURS[c]:
        r -= NUM_NEIGHBOURS[c]
        c = next_bit(s.raft_bits, c)
    t = NEIGHBOURS[c][r]
    if raft_can_enter(s, t) and controls_raft(s, seat, c):
        return act(kind, 0, 0, 0, 0, c, t)
    return -1


cdef int32_t creature_slot(const Survive* s, int seat, int first_kind, int r, int per, int land) noexcept nogil:
    """The move of slot ``r`` among (creature from ``first_kind`` on, its cell) pairs, ``per`` slots each: with
    ``per`` = NUM_CELLS a Dive (``r % per`` the empty Water space it goes to), with 1 a Repellent of ``land`` (where
    the creature concerns the seat); -1 where the slot is no legal move."""
    cdef int pair = r // per
    cdef int kind, c, i
    for kind in range(first_kind, KAIJU + 1):
        c = next_bit(s.creature_bits, -1)
        while c >= 0:
            if s.creatures[c][kind]:
                if pair == 0:
                    if per == 1:
                        return act(K_REPEL, land, 0, kind, 0, c, 0) if seat_concerned(s, seat, KAIJU, c) else -1
                    i = r % per
                    if dive_can_enter(s, c, i):
                        return act(K_DIVE, kind, 0, 0, 0, c, i)
                    return -1
                pair -= 1
            c = next_bit(s.creature_bits, c)
    return -1


cdef int action_slots(const Survive* s, int* sizes) noexcept nogil:
    """The slots of ``draw_action_phase``, in ``gen_action_phase``'s groups (``sizes``: ACTION_GROUPS counts):
    (own Adventurer on the board, neighbour) and (Raft, neighbour) pairs while movements are left, the end of the
    movements, and each Ability tile's options (Paddles: Raft and neighbour; Dolphin: Adventurer and neighbour; Dive:
    creature and space; Die; Repellent: Shark or Kaiju). Returns the total."""
    cdef int seat = s.active
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int hi = lo + colours_per_seat(s) * MEEPLES_PER_COLOUR
    cdef int walkers = 0, rafts = 0, dives = 0, repels = 0
    cdef int total = 0, g, i, c, kind, land
    for i in range(lo, hi):
        if s.meeple[i].status == ST_BOARD:
            walkers += NUM_NEIGHBOURS[s.meeple[i].cell]
    c = next_bit(s.raft_bits, -1)
    while c >= 0:
        rafts += NUM_NEIGHBOURS[c]
        c = next_bit(s.raft_bits, c)
    if (s.held[seat][1][BK_DIVE - FIRST_ABILITY] or s.held[seat][0][BK_REPELLENT - FIRST_ABILITY]
            or s.held[seat][1][BK_REPELLENT - FIRST_ABILITY]):
        c = next_bit(s.creature_bits, -1)
        while c >= 0:
            for kind in range(KAIJU + 1):
                if s.creatures[c][kind]:
                    dives += 1
                    repels += kind >= SHARK
            c = next_bit(s.creature_bits, c)
    sizes[0] = walkers if s.moves_left > 0 else 0
    sizes[1] = rafts if s.moves_left > 0 else 0
    sizes[2] = 1                                                    # the end of the movements
    sizes[3] = rafts if s.held[seat][0][BK_PADDLES - FIRST_ABILITY] else 0
    for land in range(2):
        sizes[4 + land] = walkers if s.held[seat][land][BK_DOLPHIN - FIRST_ABILITY] else 0
        sizes[7 + land] = 1 if s.held[seat][land][BK_DIE - FIRST_ABILITY] else 0
        sizes[9 + land] = repels if s.held[seat][land][BK_REPELLENT - FIRST_ABILITY] else 0
    sizes[6] = dives * NUM_CELLS if s.held[seat][1][BK_DIVE - FIRST_ABILITY] else 0
    for g in range(ACTION_GROUPS):
        total += sizes[g]
    return total


cdef int32_t draw_action_phase(const Survive* s, const int* sizes, int total, Rng* rng) noexcept nogil:
    """One Action-phase move drawn uniformly from what ``gen_action_phase`` lists, without listing it: a slot drawn
    among ``action_slots``'s is kept when it is a legal move (for an Adventurer, the first of its identical ones: the
    same move id), else drawn again, so each legal move has one slot and the same chance."""
    cdef int seat = s.active
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int g, r
    cdef int32_t a
    while True:
        r = rng_below(rng, total)
        g = 0
        while r >= sizes[g]:
            r -= sizes[g]
            g += 1
        if g == 0:
            a = adventurer_slot(s, lo, K_MOVE_ADV, 0, r)
        elif g == 1:
            a = raft_slot(s, seat, K_MOVE_RAFT, r)
        elif g == 2:
            a = act(K_END, 0, 0, 0, 0, 0, 0)
        elif g == 3:
            a = raft_slot(s, seat, K_PADDLES, r)
        elif g <= 5:
            a = adventurer_slot(s, lo, K_DOLPHIN, g - 4, r)
        elif g == 6:
            a = creature_slot(s, seat, SERPENT, r, NUM_CELLS, 0)
        elif g <= 8:
            a = act(K_DIE, g - 7, 0, 0, 0, 0, 0)
        else:
            a = creature_slot(s, seat, SHARK, r, 1, g - 9)
        if a >= 0:
            return a


cdef int32_t s_playout_draw(const void* p, Rng* rng) noexcept nogil:
    """``s_playout_action``'s move drawn straight from the state, with its chances, in the Action phase (the moves
    most playout steps choose among, and the longest list); -1 elsewhere (the moves are listed there)."""
    cdef const Survive* s = <const Survive*>p
    cdef int sizes[ACTION_GROUPS]
    cdef int total
    cdef int32_t a
    cdef Move m
    if (s.to_move < 0 or s.decision == D_BOARD or s.decision == D_REACT or s.decision == D_KAIJU
            or s.decision == D_CONTINUE or s.phase != PH_ACTION):
        return -1
    total = action_slots(s, sizes)
    a = draw_action_phase(s, sizes, total, rng)
    m = decode(a)
    if m.kind == K_MOVE_ADV and RESCUE_DISTANCE[m.to] >= RESCUE_DISTANCE[m.frm]:
        a = draw_action_phase(s, sizes, total, rng)
    return a


cdef inline bint near(int a, int b) noexcept nogil:
    """The same node or neighbours."""
    cdef int k
    if a == b:
        return True
    for k in range(NUM_NEIGHBOURS[a]):
        if NEIGHBOURS[a][k] == b:
            return True
    return False


cdef bint s_redundant(const void* p, int32_t previous, int32_t action) noexcept nogil:
    """Two movements in one Action phase commute when everything they touch lies apart: each is an Adventurer's or a
    Raft's step between nodes on the board (not to a Rescue Island: the last Adventurer leaving the board ends the
    seat's movements), and no node of one is a node of the other or next to it (boarding, room on a raft, a raft's
    passengers and control are all decided on the nodes a step touches), and neither steps where a creature is (an
    interaction, maybe a reaction to ask, comes with that step). Either order then reaches the same position
    with the same moves legal, so the search keeps the ascending one: ``action`` right after ``previous`` is redundant
    when the two commute and ``action`` has the smaller id."""
    cdef Move a, b
    if action >= previous:
        return False
    a = decode(action)
    b = decode(previous)
    if (a.kind != K_MOVE_ADV and a.kind != K_MOVE_RAFT) or (b.kind != K_MOVE_ADV and b.kind != K_MOVE_RAFT):
        return False
    if a.to >= FIRST_RESCUE or b.to >= FIRST_RESCUE:
        return False
    if creatures_at(<const Survive*>p, a.to) or creatures_at(<const Survive*>p, b.to):
        return False                              # an interaction (and a reaction to ask) comes with the step
    return not (near(a.frm, b.frm) or near(a.frm, b.to) or near(a.to, b.frm) or near(a.to, b.to))
