# cython: language_level=3
"""Islet's rules on the C level: set-up, Explore, Move, payments, eggs, both end triggers, the solo mode, and the game
table the search drives without the GIL. The rulings are in ``islet.pyx``'s docstring and docs/rules/islet.md."""

from libc.math cimport exp
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memset

from engine_ext.core cimport (CHANCE_PLAYER, TERMINAL_PLAYER, GameVTable, Rng, kind_balanced_choice, rng_below,
                              sort_action_ids)

# The start islet's cells in deal order; solo deals the second islet's six after them.
cdef int START_X[12]
cdef int START_Y[12]
START_X[:] = [-1, 0, 1, -1, 0, 1, 9, 10, 11, 9, 10, 11]
START_Y[:] = [0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]
# The nest a pair of different terrains makes, and the terrain pair of each nest.
cdef int PAIR_P[3]
cdef int PAIR_Q[3]
PAIR_P[:] = [WATER, WATER, SAND]     # leaves = water + clay, branches = water + sand, flowers = sand + clay
PAIR_Q[:] = [CLAY, SAND, CLAY]


cdef int nest_of_pair(int a, int b) noexcept nogil:
    if a > b:
        a, b = b, a
    if a == WATER and b == SAND:
        return BRANCHES
    if a == WATER and b == CLAY:
        return LEAVES
    return FLOWERS


# ---------------------------------------------------------------------------------------------------------------------
# Action packing
# ---------------------------------------------------------------------------------------------------------------------
cdef Move decode(int32_t a) noexcept nogil:
    cdef Move m
    cdef int payload = a_payload(a), t
    memset(&m, 0, sizeof(Move))
    m.kind = a_kind(a)
    m.cell = NO_CELL
    m.extra = X_NONE
    if m.kind == K_PLACE:
        m.cell = payload & 255
        m.type = (payload >> 8) & 15
    elif m.kind == K_ADVANCE:
        m.cell = (payload >> 12) & 255
        for t in range(3):
            m.pay.tu[t] = (payload >> (4 * t)) & 3
            m.pay.tg[t] = (payload >> (2 + 4 * t)) & 3
    elif m.kind == K_START:
        m.cell = payload & 255
    elif m.kind == K_LAY:
        m.pay.nu = payload & 3
        m.pay.ng = (payload >> 2) & 3
        for t in range(3):
            m.pay.tu[t] = (payload >> (4 + 6 * t)) & 15
            m.pay.tg[t] = (payload >> (8 + 6 * t)) & 3
        m.extra = (payload >> 22) & 7
        m.slot = (payload >> 25) & 1
    elif m.kind == K_REMOVE_HAND:
        m.removed[0] = payload & 15
        m.removed[1] = (payload >> 4) & 15
        m.removed[2] = (payload >> 8) & 15
    else:
        m.type = payload & 31
    return m


cdef int32_t encode(const Move* m) noexcept nogil:
    cdef int payload = 0, t
    if m.kind == K_PLACE:
        payload = (m.type << 8) | m.cell
    elif m.kind == K_ADVANCE:
        payload = m.cell << 12
        for t in range(3):
            payload |= (m.pay.tu[t] << (4 * t)) | (m.pay.tg[t] << (2 + 4 * t))
    elif m.kind == K_START:
        payload = m.cell
    elif m.kind == K_LAY:
        payload = m.pay.nu | (m.pay.ng << 2) | (m.extra << 22) | (m.slot << 25)
        for t in range(3):
            payload |= (m.pay.tu[t] << (4 + 6 * t)) | (m.pay.tg[t] << (8 + 6 * t))
    elif m.kind == K_REMOVE_HAND:
        payload = m.removed[0] | (m.removed[1] << 4) | (m.removed[2] << 8)
    elif m.kind in (K_STOP, K_END, K_REMOVE_BAG):
        payload = 0
    else:
        payload = m.type
    return act(m.kind, payload)


# ---------------------------------------------------------------------------------------------------------------------
# The islets: cells, neighbours, placement
# ---------------------------------------------------------------------------------------------------------------------
cdef inline void neighbour_xy(int x, int y, int k, int* nx, int* ny) noexcept nogil:
    """Edge neighbours of (x, y): left, right, and (x, y+1) when the cell points up ((x + y) odd), else (x, y-1)."""
    if k == 0:
        nx[0] = x - 1
        ny[0] = y
    elif k == 1:
        nx[0] = x + 1
        ny[0] = y
    else:
        nx[0] = x
        ny[0] = y + 1 if (x + y) & 1 else y - 1


cdef inline int cell_hash(int x, int y) noexcept nogil:
    return (((x + 128) * 40503 + (y + 128) * 2654435) >> 4) & (CELL_HASH - 1)


cdef int find_cell(const Islet* s, int x, int y) noexcept nogil:
    cdef int h = cell_hash(x, y), c
    while s.cell_at[h]:
        c = s.cell_at[h] - 1
        if s.cell[c].x == x and s.cell[c].y == y:
            return c
        h = (h + 1) & (CELL_HASH - 1)
    return NO_CELL


cdef int new_cell(Islet* s, int x, int y) noexcept nogil:
    """A sea cell at (x, y), linked both ways to the cells already beside it."""
    cdef int c = s.num_cells, k, n, nx, ny, j, h = cell_hash(x, y)
    cdef Cell* cell = &s.cell[c]
    s.num_cells += 1
    while s.cell_at[h]:
        h = (h + 1) & (CELL_HASH - 1)
    s.cell_at[h] = c + 1
    cell.x = x
    cell.y = y
    cell.height = 0
    cell.top = 255
    cell.islet = 0
    cell.egg = -1
    for k in range(3):
        neighbour_xy(x, y, k, &nx, &ny)
        n = find_cell(s, nx, ny)
        cell.nb[k] = n
        if n != NO_CELL:
            for j in range(3):
                if s.cell[n].nb[j] == NO_CELL:
                    neighbour_xy(s.cell[n].x, s.cell[n].y, j, &nx, &ny)
                    if nx == x and ny == y:
                        s.cell[n].nb[j] = c
            if s.cell[n].height > 0:
                cell.islet |= 1 << s.cell[n].islet
    return c


cdef int add_tile(Islet* s, int c, int t) noexcept nogil:
    """Place a tile of type ``t`` on cell ``c`` (a sea cell becomes land of the islet it touches); logs it. Returns
    the terrain it covered, or -1 for the sea."""
    cdef Cell* cell = &s.cell[c]
    cdef int covered = -1, k, n, nx, ny, islet
    if cell.height > 0:
        covered = terrain_of(cell.top)
        cell.height += 1
        cell.top = t
    else:
        islet = 1 if cell.islet == 2 else 0
        cell.islet = islet
        cell.height = 1
        cell.top = t
        for k in range(3):
            if cell.nb[k] == NO_CELL:
                neighbour_xy(cell.x, cell.y, k, &nx, &ny)
                new_cell(s, nx, ny)      # links itself to c and to every other existing neighbour
            n = cell.nb[k]
            if s.cell[n].height == 0:
                s.cell[n].islet |= 1 << islet
    s.log_cell[s.log_n] = c
    s.log_type[s.log_n] = t
    s.log_n += 1
    return covered


cdef inline bint pawn_of_other(const Islet* s, int seat, int c) noexcept nogil:
    cdef int o
    for o in range(s.num_players):
        if o != seat and s.seat[o].pawn == c:
            return True
    return False


cdef inline bint pawn_at(const Islet* s, int c) noexcept nogil:
    return pawn_of_other(s, -1, c)


cdef inline bint visited(const Islet* s, int c) noexcept nogil:
    return (s.visited[c >> 6] >> (c & 63)) & 1


cdef inline void visit_only(Islet* s, int c) noexcept nogil:
    s.visited[0] = s.visited[1] = s.visited[2] = 0
    if c != NO_CELL:
        s.visited[c >> 6] |= (<uint64_t>1) << (c & 63)


cdef inline bint is_shore(const Islet* s, int c) noexcept nogil:
    cdef int k
    for k in range(3):
        if not is_land(s, s.cell[c].nb[k]):
            return True
    return False


# ---------------------------------------------------------------------------------------------------------------------
# Solo cards
# ---------------------------------------------------------------------------------------------------------------------
cdef bint card_satisfied(const Islet* s, int card, int islet, int c) noexcept nogil:
    """Card ``card`` (1-13) on its ``islet``'s side (0 day, 1 night), read at land cell ``c``."""
    cdef const Cell* cell = &s.cell[c]
    cdef int terrain = terrain_of(cell.top), nest = nest_of(cell.top), h = cell.height
    cdef int k, n, any_higher = 0, any_egg = 0, same_terrain = 0, same_nest = 0, any_sea = 0
    for k in range(3):
        n = cell.nb[k]
        if not is_land(s, n):
            any_sea = 1
            continue
        any_higher |= s.cell[n].height > h
        any_egg |= s.cell[n].egg >= 0
        same_terrain |= terrain_of(s.cell[n].top) == terrain
        same_nest |= nest_of(s.cell[n].top) == nest
    if islet == 0:
        if card <= 3:
            return terrain == card - 1
        if card <= 6:
            return nest == card - 4
        if card == 7:
            return h >= 3
        if card == 8:
            return h >= 2
        if card == 9:
            return any_sea
        if card == 10:
            return not any_higher
        if card == 11:
            return any_egg
        if card == 12:
            return same_terrain
        return same_nest
    if card <= 3:
        return nest == card - 1
    if card == 4:
        return terrain == SAND
    if card == 5:
        return terrain == CLAY
    if card == 6:
        return terrain == WATER
    if card == 7:
        return h == 1
    if card == 8:
        return h <= 2
    if card == 9:
        return not any_sea
    if card == 10:
        return any_higher
    if card == 11:
        return not any_egg
    if card == 12:
        return not same_terrain
    return not same_nest


cdef int satisfied_slots(const Islet* s, int c, int* slots) noexcept nogil:
    """The card slots of ``c``'s islet whose card ``c`` satisfies."""
    cdef int islet = s.cell[c].islet, k, n = 0
    for k in range(2):
        if s.cards[islet][k] and card_satisfied(s, s.cards[islet][k], islet, c):
            slots[n] = k
            n += 1
    return n


cdef inline int deck_size(const Islet* s) noexcept nogil:
    cdef int k, n = 0
    for k in range(NUM_CARDS):
        n += (s.deck >> k) & 1
    return n


# ---------------------------------------------------------------------------------------------------------------------
# Payments
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int avail(const Seat* p, int r) noexcept nogil:
    return p.guar[r] - p.used[r]


cdef inline bint can_pay_terrain(const Seat* p, int t) noexcept nogil:
    cdef int x
    if p.cards[t] + avail(p, t) >= 1:
        return True
    for x in range(3):
        if x != t and p.cards[x] + avail(p, x) >= 2:
            return True
    return False


cdef int terrain_pays(const Seat* p, int t, Pay* out) noexcept nogil:
    """Every minimal way to pay one terrain card of type ``t``: the card itself (unguaranteed or guaranteed), or two
    identical cards of another terrain transformed (any mix of unguaranteed and guaranteed). Longer chains of
    transforms always contain one of these, so they are never minimal."""
    cdef int n = 0, x, gu, gg
    memset(out, 0, 8 * sizeof(Pay))
    if p.cards[t] >= 1:
        out[n].tu[t] = 1
        n += 1
    if avail(p, t) >= 1:
        out[n].tg[t] = 1
        n += 1
    for x in range(3):
        if x == t:
            continue
        for gg in range(3):
            gu = 2 - gg
            if gu <= p.cards[x] and gg <= avail(p, x):
                out[n].tu[x] = gu
                out[n].tg[x] = gg
                n += 1
    return n


cdef inline bint makes_nests(int k, int tp, int tq, int tr) noexcept nogil:
    """Can terrain cards (tp of the nest's first terrain, tq of its second, tr of the third) make ``k`` nest cards of
    that pair? Each nest takes one of each; a missing terrain card takes two identical spare cards of another type."""
    cdef int need = (k - tp if tp < k else 0) + (k - tq if tq < k else 0)
    cdef int spare = ((tp - k) // 2 if tp > k else 0) + ((tq - k) // 2 if tq > k else 0) + tr // 2
    return spare >= need


cdef int lay_pays(const Seat* p, int nest, Pay* out, int cap) noexcept nogil:
    """Every minimal way to pay 3 nest cards of ``nest``: nest cards (unguaranteed, guaranteed) and terrain cards
    transformed into nests of that pair. Minimal: no single card of the payment can be left out."""
    cdef int N = 3 + nest, n = 0, su, sg, k, a, b, c, ua, ub, uc
    cdef int tt[3]
    cdef int tot[3]
    tt[0] = PAIR_P[nest]
    tt[1] = PAIR_Q[nest]
    tt[2] = 3 - tt[0] - tt[1]
    cdef int hold[3]
    for a in range(3):
        hold[a] = p.cards[tt[a]] + avail(p, tt[a])
    for su in range(min(<int>p.cards[N], 3) + 1):
        for sg in range(min(avail(p, N), 3 - su) + 1):
            k = 3 - su - sg
            if k == 0:
                if n < cap:
                    memset(&out[n], 0, sizeof(Pay))
                    out[n].nu = su
                    out[n].ng = sg
                    n += 1
                continue
            for a in range(min(hold[0], 4 * k) + 1):
                for b in range(min(hold[1], 4 * k) + 1):
                    for c in range(min(hold[2], 4 * k) + 1):
                        if not makes_nests(k, a, b, c):
                            continue
                        if (a and makes_nests(k, a - 1, b, c)) or (b and makes_nests(k, a, b - 1, c)) or (
                                c and makes_nests(k, a, b, c - 1)) or (su + sg and makes_nests(k + 1, a, b, c)):
                            continue
                        tot[0] = a
                        tot[1] = b
                        tot[2] = c
                        # every split of each terrain's total between unguaranteed and guaranteed cards
                        for ua in range(max(0, a - avail(p, tt[0])), min(a, <int>p.cards[tt[0]]) + 1):
                            for ub in range(max(0, b - avail(p, tt[1])), min(b, <int>p.cards[tt[1]]) + 1):
                                for uc in range(max(0, c - avail(p, tt[2])), min(c, <int>p.cards[tt[2]]) + 1):
                                    if n >= cap:
                                        return n
                                    memset(&out[n], 0, sizeof(Pay))
                                    out[n].nu = su
                                    out[n].ng = sg
                                    out[n].tu[tt[0]] = ua
                                    out[n].tg[tt[0]] = a - ua
                                    out[n].tu[tt[1]] = ub
                                    out[n].tg[tt[1]] = b - ub
                                    out[n].tu[tt[2]] = uc
                                    out[n].tg[tt[2]] = c - uc
                                    n += 1
    return n


cdef void apply_pay(Islet* s, Seat* p, const Pay* pay, int nest_res) noexcept nogil:
    """Spent unguaranteed cards go back to their stacks; spent guaranteed resources are turned over for this turn."""
    cdef int t
    for t in range(3):
        p.cards[t] -= pay.tu[t]
        s.stacks[t] += pay.tu[t]
        p.used[t] += pay.tg[t]
    if nest_res >= 0:
        p.cards[nest_res] -= pay.nu
        s.stacks[nest_res] += pay.nu
        p.used[nest_res] += pay.ng


# ---------------------------------------------------------------------------------------------------------------------
# Legal actions
# ---------------------------------------------------------------------------------------------------------------------
cdef int sea_placement_ok(const Islet* s, int c) noexcept nogil:
    """A first tile goes on a sea cell; solo: one that touches only the pawn's islet."""
    if s.cell[c].height != 0:
        return False
    if s.solo:
        return s.cell[c].islet == (1 << s.cell[s.seat[0].pawn].islet)
    return True


cdef bint upper_placement_ok(const Islet* s, int c) noexcept nogil:
    """A 2nd-4th tile: on a tile adjacent to the last one placed (A), with no bird and no egg (B), at least as high
    as the last one placed (C), so that the placed tile ends one level or more above it."""
    return is_land(s, c) and s.cell[c].egg < 0 and not pawn_at(s, c) and s.cell[c].height >= s.cell[
        s.last_cell].height


cdef bint can_place_more(const Islet* s) noexcept nogil:
    cdef int k
    if s.placed >= 4 or s.seat[s.active].hand_n == 0:
        return False
    for k in range(3):
        if upper_placement_ok(s, s.cell[s.last_cell].nb[k]):
            return True
    return False


cdef bint has_exit(const Islet* s, const Seat* q, int seat, int d) noexcept nogil:
    """After entering cell ``d`` (which holds another pawn) with the resources ``q`` has left, can the pawn still
    advance to a cell without another pawn? (Ruling: no step may lead into a position with no legal action.)"""
    cdef int k, n
    for k in range(3):
        n = s.cell[d].nb[k]
        if not is_land(s, n) or n == d or visited(s, n) or pawn_of_other(s, seat, n):
            continue
        if terrain_of(s.cell[n].top) == terrain_of(s.cell[d].top) or can_pay_terrain(q, terrain_of(s.cell[n].top)):
            return True
    return False


# The payment codes for one terrain card of each terrain, ascending, computed once per legal-action list.
cdef struct PayTable:
    int ready[3]
    int count[3]
    Pay pays[3][8]
    int32_t codes[3][8]


cdef void pays_for(const Seat* p, int t, PayTable* table) noexcept nogil:
    cdef int k, j
    cdef Pay tmp
    cdef int32_t code
    cdef Move m
    if table.ready[t]:
        return
    table.ready[t] = 1
    table.count[t] = terrain_pays(p, t, table.pays[t])
    memset(&m, 0, sizeof(Move))
    m.kind = K_ADVANCE
    for k in range(table.count[t]):
        m.pay = table.pays[t][k]
        table.codes[t][k] = encode(&m)
    for k in range(1, table.count[t]):         # insertion sort by code, keeping the pays beside
        j = k
        while j > 0 and table.codes[t][j - 1] > table.codes[t][j]:
            code = table.codes[t][j]
            table.codes[t][j] = table.codes[t][j - 1]
            table.codes[t][j - 1] = code
            tmp = table.pays[t][j]
            table.pays[t][j] = table.pays[t][j - 1]
            table.pays[t][j - 1] = tmp
            j -= 1


cdef int push_advance(const Islet* s, int d, bint always_pay, PayTable* table, int32_t* out,
                      int n) noexcept nogil:
    cdef int seat = s.active, k, t, terrain
    cdef const Seat* p = &s.seat[seat]
    cdef Seat q
    cdef int here = p.pawn
    cdef bint occupied = pawn_of_other(s, seat, d)
    cdef int32_t base = act(K_ADVANCE, d << 12)
    if visited(s, d):
        return n
    terrain = terrain_of(s.cell[d].top)
    if not always_pay and here != NO_CELL and terrain_of(s.cell[here].top) == terrain:
        if occupied and not has_exit(s, p, seat, d):
            return n
        out[n] = base
        return n + 1
    pays_for(p, terrain, table)
    for k in range(table.count[terrain]):
        if occupied:
            q = p[0]
            for t in range(3):
                q.cards[t] -= table.pays[terrain][k].tu[t]
                q.used[t] += table.pays[terrain][k].tg[t]
            if not has_exit(s, &q, seat, d):
                continue
        out[n] = base | table.codes[terrain][k]
        n += 1
    return n


cdef int push_lays(const Islet* s, int32_t* out, int n) noexcept nogil:
    cdef int seat = s.active, c, nest, N, count, k, r, t, e, ns, j
    cdef const Seat* p = &s.seat[seat]
    cdef Pay pays[2048]
    cdef int slots[2]
    cdef int stacks_after[NUM_RES]
    cdef Move m
    c = p.pawn
    if c == NO_CELL or s.cell[c].egg >= 0 or pawn_of_other(s, seat, c) or eggs_left(p) == 0:
        return n
    ns = 1
    slots[0] = 0
    if s.solo:
        ns = satisfied_slots(s, c, slots)
        if ns == 0:
            return n
    nest = nest_of(s.cell[c].top)
    N = 3 + nest
    count = lay_pays(p, nest, pays, 2048)
    memset(&m, 0, sizeof(Move))
    m.kind = K_LAY
    for k in range(count):
        m.pay = pays[k]
        for r in range(NUM_RES):
            stacks_after[r] = s.stacks[r]
        for t in range(3):
            stacks_after[t] += pays[k].tu[t]
        stacks_after[N] += pays[k].nu
        for j in range(ns):
            m.slot = slots[j]
            e = 0
            if p.free_eggs >= 2:
                for r in range(NUM_RES):
                    if stacks_after[r] > 0 and p.guar[r] < MAX_GUARANTEED:
                        m.extra = r
                        out[n] = encode(&m)
                        n += 1
                        e += 1
                if e == 0:
                    m.extra = X_NONE
                    out[n] = encode(&m)
                    n += 1
            elif p.free_eggs == 1:
                m.extra = X_NONE
                out[n] = encode(&m)
                n += 1
            else:
                for r in range(NUM_RES):
                    if p.guar[r] > 0:
                        m.extra = r
                        out[n] = encode(&m)
                        n += 1
            if n > MAX_ACTIONS - 64:
                return n
    return n


cdef int push_steps(const Islet* s, int32_t* out, int n) noexcept nogil:
    """Every ADVANCE and LAY the active seat may take now."""
    cdef const Seat* p = &s.seat[s.active]
    cdef int here = p.pawn, c, k, other
    cdef PayTable table
    table.ready[0] = table.ready[1] = table.ready[2] = 0
    if here == NO_CELL:
        for c in range(s.num_cells):
            if is_land(s, c) and is_shore(s, c):
                n = push_advance(s, c, True, &table, out, n)
        return n
    for k in range(3):
        c = s.cell[here].nb[k]
        if is_land(s, c):
            n = push_advance(s, c, False, &table, out, n)
    if s.solo:
        other = 1 - s.cell[here].islet
        for c in range(s.num_cells):
            if is_land(s, c) and s.cell[c].islet == other and s.cell[c].top == s.cell[here].top:
                n = push_advance(s, c, True, &table, out, n)
    return push_lays(s, out, n)


cdef int i_legal_actions(const void* ptr, int32_t* out) noexcept nogil:
    cdef const Islet* s = <const Islet*>ptr
    cdef const Seat* p = &s.seat[s.active]
    cdef int n = 0, c, k, t1, t2, t3
    cdef int h[NUM_TYPES]
    if s.phase == PH_SETUP_PAWN:
        for c in range(s.num_cells):
            if is_land(s, c):
                out[n] = act(K_START, c)
                n += 1
    elif s.phase == PH_TURN:
        if p.hand_n:
            for t1 in range(NUM_TYPES):         # ids are type << 8 | cell: type outer keeps them ascending
                if p.hand[t1]:
                    for c in range(s.num_cells):
                        if sea_placement_ok(s, c):
                            out[n] = act(K_PLACE, (t1 << 8) | c)
                            n += 1
        if s.solo:
            for t1 in range(NUM_TYPES):
                h[t1] = p.hand[t1]
            for t1 in range(NUM_TYPES):
                for t2 in range(t1, NUM_TYPES):
                    for t3 in range(t2, NUM_TYPES):
                        if h[t1] - (t1 == t2) - (t1 == t3) >= 1 and h[t2] - (t2 == t3) >= 1 and h[t3] >= 1:
                            out[n] = act(K_REMOVE_HAND, t1 | (t2 << 4) | (t3 << 8))
                            n += 1
            out[n] = act(K_REMOVE_BAG, 0)
            n += 1
        else:
            n = push_steps(s, out, n)
            if p.hand_n == 0:
                out[n] = act(K_END, 0)
                n += 1
    elif s.phase == PH_EXPLORE:
        for t1 in range(NUM_TYPES):
            if p.hand[t1]:
                for k in range(3):
                    c = s.cell[s.last_cell].nb[k]
                    if upper_placement_ok(s, c):
                        out[n] = act(K_PLACE, (t1 << 8) | c)
                        n += 1
        out[n] = act(K_STOP, 0)
        n += 1
    elif s.phase == PH_DISCARD:
        for k in range(NUM_RES):
            if p.cards[k]:
                out[n] = act(K_RETURN, k)
                n += 1
    elif s.phase == PH_MOVE:
        n = push_steps(s, out, n)
        if s.solo or (p.pawn != NO_CELL and not pawn_of_other(s, s.active, p.pawn)):
            out[n] = act(K_END, 0)
            n += 1
    sort_action_ids(out, n)
    return n


# ---------------------------------------------------------------------------------------------------------------------
# Chance
# ---------------------------------------------------------------------------------------------------------------------
cdef inline bint bag_phase(const Islet* s) noexcept nogil:
    return s.phase in (PH_SETUP_ISLET, PH_SETUP_HAND, PH_DRAW, PH_REMOVE)


cdef int i_chance_outcomes(const void* ptr, int32_t* actions, double* probs) noexcept nogil:
    cdef const Islet* s = <const Islet*>ptr
    cdef int n = 0, t, kind, size
    if bag_phase(s):
        kind = K_REMOVE_DRAW if s.phase == PH_REMOVE else K_DEAL
        for t in range(NUM_TYPES):
            if s.bag[t]:
                actions[n] = act(kind, t)
                probs[n] = s.bag[t] / <double>s.bag_n
                n += 1
    elif s.phase in (PH_SETUP_CARDS, PH_REFILL):
        size = deck_size(s)
        for t in range(NUM_CARDS):
            if (s.deck >> t) & 1:
                actions[n] = act(K_REVEAL, t + 1)
                probs[n] = 1.0 / size
                n += 1
    return n


cdef int32_t i_sample_chance(const void* ptr, Rng* rng) noexcept nogil:
    cdef const Islet* s = <const Islet*>ptr
    cdef int t, pick
    if bag_phase(s):
        pick = rng_below(rng, s.bag_n)
        for t in range(NUM_TYPES):
            pick -= s.bag[t]
            if pick < 0:
                return act(K_REMOVE_DRAW if s.phase == PH_REMOVE else K_DEAL, t)
    pick = rng_below(rng, deck_size(s))
    for t in range(NUM_CARDS):
        if (s.deck >> t) & 1:
            if pick == 0:
                return act(K_REVEAL, t + 1)
            pick -= 1
    return -1


# ---------------------------------------------------------------------------------------------------------------------
# Applying actions
# ---------------------------------------------------------------------------------------------------------------------
cdef void game_over(Islet* s) noexcept nogil:
    s.phase = PH_OVER


cdef void start_turn(Islet* s) noexcept nogil:
    s.phase = PH_TURN
    s.placed = 0
    s.steps = 0
    visit_only(s, s.seat[s.active].pawn)


cdef void end_turn(Islet* s) noexcept nogil:
    cdef Seat* p = &s.seat[s.active]
    cdef int r
    for r in range(NUM_RES):
        p.used[r] = 0
    if s.solo:
        s.round += 1
        if s.round > MAX_ROUNDS:
            s.won = 0
            game_over(s)
            return
        start_turn(s)
        return
    s.active = (s.active + 1) % s.num_players
    if s.active == 0:
        if (s.final_round >= 0 and s.round >= s.final_round) or s.round >= MAX_ROUNDS:
            game_over(s)
            return
        s.round += 1
    start_turn(s)


cdef void after_draw(Islet* s) noexcept nogil:
    if unguaranteed(&s.seat[s.active]) > MAX_UNGUARANTEED:
        s.phase = PH_DISCARD
    else:
        end_turn(s)


cdef void start_draw(Islet* s) noexcept nogil:
    s.left = MAX_HAND - s.seat[s.active].hand_n
    if s.left <= 0:
        after_draw(s)
    elif s.bag_n == 0:
        if s.solo:                  # a tile must be taken from the empty bag: the solo game is lost
            s.won = 0
            game_over(s)
        else:
            after_draw(s)
    else:
        s.phase = PH_DRAW


cdef void set_final_round(Islet* s, int r) noexcept nogil:
    if s.final_round < 0 or r < s.final_round:
        s.final_round = r


cdef void settle_refill(Islet* s) noexcept nogil:
    """Solo: after an egg, reveal cards beside the other islet until it has 2 (while the deck lasts)."""
    cdef int empty = (s.cards[s.refill_islet][0] == 0) + (s.cards[s.refill_islet][1] == 0)
    cdef int size = deck_size(s)
    s.left = empty if empty < size else size
    s.phase = PH_REFILL if s.left > 0 else PH_MOVE


cdef void take_from_bag(Islet* s, int t) noexcept nogil:
    s.bag[t] -= 1
    s.bag_n -= 1


cdef void i_apply(void* ptr, int32_t a) noexcept nogil:
    cdef Islet* s = <Islet*>ptr
    cdef Move m = decode(a)
    cdef Seat* p = &s.seat[s.active]
    cdef int c, covered, terrain, gain, k, islet
    if m.kind == K_DEAL:
        take_from_bag(s, m.type)
        s.left -= 1
        if s.phase == PH_SETUP_ISLET:
            k = (12 if s.solo else 6) - s.left - 1
            c = find_cell(s, START_X[k], START_Y[k])
            if c == NO_CELL:
                c = new_cell(s, START_X[k], START_Y[k])
            s.cell[c].islet = 1 << (k // 6)
            add_tile(s, c, m.type)
            if s.left == 0:
                if s.solo:
                    s.phase = PH_SETUP_CARDS
                    s.left = 4
                else:
                    s.phase = PH_SETUP_HAND
                    s.active = 0
                    s.left = MAX_HAND
        elif s.phase == PH_SETUP_HAND:
            p.hand[m.type] += 1
            p.hand_n += 1
            if s.left == 0:
                s.active += 1
                s.left = MAX_HAND
                if s.active == s.num_players:
                    s.active = 0
                    if s.solo:
                        s.phase = PH_SETUP_PAWN
                    else:
                        s.round = 1
                        start_turn(s)
        else:                        # PH_DRAW
            p.hand[m.type] += 1
            p.hand_n += 1
            if s.bag_n == 0 and not s.solo:
                set_final_round(s, s.round + 1)     # the last tile: finish the round, then one more
            if s.left == 0:
                after_draw(s)
            elif s.bag_n == 0:
                if s.solo:
                    s.won = 0
                    game_over(s)
                else:
                    after_draw(s)
    elif m.kind == K_REVEAL:
        s.deck &= ~(1 << (m.type - 1))
        s.left -= 1
        if s.phase == PH_SETUP_CARDS:
            k = 3 - s.left
            s.cards[k // 2][k % 2] = m.type
            if s.left == 0:
                s.phase = PH_SETUP_HAND
                s.active = 0
                s.left = MAX_HAND
        else:
            k = 0 if s.cards[s.refill_islet][0] == 0 else 1
            s.cards[s.refill_islet][k] = m.type
            if s.left == 0:
                s.phase = PH_MOVE
    elif m.kind == K_START:
        p.pawn = m.cell
        s.round = 1
        start_turn(s)
    elif m.kind == K_PLACE:
        p.hand[m.type] -= 1
        p.hand_n -= 1
        covered = add_tile(s, m.cell, m.type)
        terrain = terrain_of(m.type)
        gain = terrain if covered < 0 or covered == terrain else 3 + nest_of_pair(terrain, covered)
        if s.stacks[gain]:
            s.stacks[gain] -= 1
            p.cards[gain] += 1
        s.placed += 1
        s.last_cell = m.cell
        s.phase = PH_EXPLORE
        if not can_place_more(s):
            start_draw(s)
    elif m.kind == K_STOP:
        start_draw(s)
    elif m.kind == K_RETURN:
        p.cards[m.type] -= 1
        s.stacks[m.type] += 1
        if unguaranteed(p) <= MAX_UNGUARANTEED:
            end_turn(s)
    elif m.kind == K_ADVANCE:
        apply_pay(s, p, &m.pay, -1)
        p.pawn = m.cell
        s.visited[m.cell >> 6] |= (<uint64_t>1) << (m.cell & 63)
        s.steps += 1
        s.phase = PH_MOVE
    elif m.kind == K_LAY:
        c = p.pawn
        apply_pay(s, p, &m.pay, 3 + nest_of(s.cell[c].top))
        s.cell[c].egg = s.active
        p.laid += 1
        if p.free_eggs >= 2:
            p.free_eggs -= 1
            if m.extra != X_NONE:
                s.stacks[m.extra] -= 1
                p.guar[m.extra] += 1
                p.free_eggs -= 1
        elif p.free_eggs == 1:
            p.free_eggs = 0
        else:                        # the egg comes off a guaranteed resource, which returns to its stack
            p.guar[m.extra] -= 1
            s.stacks[m.extra] += 1
            if p.used[m.extra] > p.guar[m.extra]:
                p.used[m.extra] = p.guar[m.extra]
        s.steps += 1
        visit_only(s, c)
        s.phase = PH_MOVE
        if s.solo:
            islet = s.cell[c].islet
            s.cards[islet][m.slot] = 0
            if eggs_left(p) == 0:
                s.won = 1
                game_over(s)
                return
            s.refill_islet = 1 - islet
            settle_refill(s)
        elif eggs_left(p) == 0:
            set_final_round(s, s.round)
    elif m.kind == K_END:
        end_turn(s)
    elif m.kind == K_REMOVE_HAND:
        for k in range(3):
            p.hand[m.removed[k]] -= 1
            s.removed[m.removed[k]] += 1
        p.hand_n -= 3
        s.phase = PH_MOVE
    elif m.kind == K_REMOVE_BAG:
        if s.bag_n == 0:
            s.won = 0
            game_over(s)
        else:
            s.left = 3
            s.phase = PH_REMOVE
    elif m.kind == K_REMOVE_DRAW:
        take_from_bag(s, m.type)
        s.removed[m.type] += 1
        s.left -= 1
        if s.left == 0:
            s.phase = PH_MOVE
        elif s.bag_n == 0:           # fewer than 3 tiles were left: removed, and the game is lost
            s.won = 0
            game_over(s)


# ---------------------------------------------------------------------------------------------------------------------
# Results, information, search hooks
# ---------------------------------------------------------------------------------------------------------------------
cdef int i_num_players(const void* ptr) noexcept nogil:
    return (<const Islet*>ptr).num_players


cdef int i_current_player(const void* ptr) noexcept nogil:
    cdef const Islet* s = <const Islet*>ptr
    if s.phase == PH_OVER:
        return TERMINAL_PLAYER
    if s.phase in (PH_SETUP_ISLET, PH_SETUP_CARDS, PH_SETUP_HAND, PH_DRAW, PH_REMOVE, PH_REFILL):
        return CHANCE_PLAYER
    return s.active


cdef void i_scores(const void* ptr, int32_t* out) noexcept nogil:
    """Eggs laid; solo: the tiles left in the bag after a win, 0 otherwise."""
    cdef const Islet* s = <const Islet*>ptr
    cdef int i
    if s.solo:
        out[0] = s.bag_n if s.won == 1 else 0
        return
    for i in range(s.num_players):
        out[i] = s.seat[i].laid


cdef void egg_heights(const Islet* s, int seat, int* out) noexcept nogil:
    """The heights of ``seat``'s laid eggs, highest first (10 entries, 0 past the last egg)."""
    cdef int c, i, j, h, n = 0
    for i in range(10):
        out[i] = 0
    for c in range(s.num_cells):
        if s.cell[c].egg == seat:
            h = s.cell[c].height
            j = n
            while j > 0 and out[j - 1] < h:
                out[j] = out[j - 1]
                j -= 1
            out[j] = h
            n += 1


cdef int compare_seats(const Islet* s, int a, int b) noexcept nogil:
    """> 0 when seat a ranks above seat b: more eggs, then the highest egg, the next highest, and so on."""
    cdef int ha[10]
    cdef int hb[10]
    cdef int i
    if s.seat[a].laid != s.seat[b].laid:
        return s.seat[a].laid - s.seat[b].laid
    egg_heights(s, a, ha)
    egg_heights(s, b, hb)
    for i in range(10):
        if ha[i] != hb[i]:
            return ha[i] - hb[i]
    return 0


cdef void i_returns(const void* ptr, double* out) noexcept nogil:
    """Multi-player: the best-ranked seat wins; seats tied all the way share the victory. Solo: 1 won, 0 lost."""
    cdef const Islet* s = <const Islet*>ptr
    cdef int i, j, winners = 0
    cdef bint best
    for i in range(s.num_players):
        out[i] = 0.0
    if s.phase != PH_OVER:
        return
    if s.solo:
        out[0] = 1.0 if s.won == 1 else 0.0
        return
    for i in range(s.num_players):
        best = True
        for j in range(s.num_players):
            if compare_seats(s, j, i) > 0:
                best = False
                break
        if best:
            out[i] = 1.0
            winners += 1
    for i in range(s.num_players):
        out[i] /= winners


cdef void i_determinize(void* ptr, int seat, Rng* rng) noexcept nogil:
    """Other seats' hands are dealt afresh from the tiles ``seat`` has not seen (the bag and those hands); the rest
    stays in the bag. Everything else is public."""
    cdef Islet* s = <Islet*>ptr
    cdef int pool[NUM_TYPES]
    cdef int total = s.bag_n, o, t, _k, pick
    for t in range(NUM_TYPES):
        pool[t] = s.bag[t]
    for o in range(s.num_players):
        if o != seat:
            for t in range(NUM_TYPES):
                pool[t] += s.seat[o].hand[t]
                s.seat[o].hand[t] = 0
            total += s.seat[o].hand_n
    for o in range(s.num_players):
        if o == seat:
            continue
        for _k in range(s.seat[o].hand_n):
            pick = rng_below(rng, total)
            for t in range(NUM_TYPES):
                pick -= pool[t]
                if pick < 0:
                    break
            pool[t] -= 1
            total -= 1
            s.seat[o].hand[t] += 1
    for t in range(NUM_TYPES):
        s.bag[t] = pool[t]
    s.bag_n = total


cdef int32_t i_observed_action(const void* ptr, int32_t a, int seat) noexcept nogil:
    """A tile drawn into a hand is seen by its drawer alone; others see that a tile was drawn."""
    cdef const Islet* s = <const Islet*>ptr
    if a_kind(a) == K_DEAL and s.phase in (PH_SETUP_HAND, PH_DRAW) and seat != s.active:
        return act(K_DEAL, HIDDEN)
    return a


cdef void i_utility_bounds(const void* ptr, double* lowest, double* highest) noexcept nogil:
    lowest[0] = 0.0
    highest[0] = 1.0


cdef double potential(const Islet* s, int seat) noexcept nogil:
    """Eggs laid, plus progress toward the next egg: the best nest stock (cards and guaranteed resources, terrain
    pairs that transform into it) against the 3 a lay costs, and a little for guaranteed resources and position."""
    cdef const Seat* p = &s.seat[seat]
    cdef int nest, stock, best = 0, g = 0, r
    for nest in range(3):
        stock = p.cards[3 + nest] + p.guar[3 + nest] + min(p.cards[PAIR_P[nest]] + p.guar[PAIR_P[nest]],
                                                           p.cards[PAIR_Q[nest]] + p.guar[PAIR_Q[nest]])
        if stock > best:
            best = stock
    for r in range(NUM_RES):
        g += p.guar[r]
    return p.laid + 0.45 * min(best, 3) / 3.0 + 0.04 * g + (0.05 if p.pawn != NO_CELL else 0.0)


cdef double nest_units(const Seat* p, int nest) noexcept nogil:
    """Nest cards of one kind a seat could pay now: its cards and guaranteed ones, plus pairs of the two terrains."""
    cdef int a = p.cards[PAIR_P[nest]] + p.guar[PAIR_P[nest]], b = p.cards[PAIR_Q[nest]] + p.guar[PAIR_Q[nest]]
    return p.cards[3 + nest] + p.guar[3 + nest] + min(a, b)


cdef double solo_progress(const Islet* s) noexcept nogil:
    """Solo: eggs laid, plus how near the next lay is: resources held (any can be transformed, about 4 make an egg),
    hand tiles (future resources), and, on a tile that satisfies a card of its islet, the nests of that tile's kind
    against the 3 a lay costs."""
    cdef const Seat* p = &s.seat[0]
    cdef int r, held = 0, c = p.pawn
    cdef int slots[2]
    cdef double near = 0.0
    for r in range(NUM_RES):
        held += p.cards[r] + p.guar[r]
    if c != NO_CELL and s.cell[c].egg < 0 and satisfied_slots(s, c, slots) > 0:
        near = 0.5 * min(nest_units(p, nest_of(s.cell[c].top)), 3.0) / 3.0
    return p.laid + 0.1 * min(held, 6) + 0.05 * p.hand_n + near


cdef double height_bonus(const Islet* s, int seat) noexcept nogil:
    """The end's tie-break as a small bonus (rulebook: most eggs, then the highest egg, then the next highest, ...):
    the heights of the seat's eggs, highest first, 0.02 a level for the highest and half as much for each next one, so
    that no tie-break outweighs progress toward an egg."""
    cdef int h[10]
    cdef int i
    cdef double bonus = 0.0, weight = 0.02
    egg_heights(s, seat, h)
    for i in range(10):
        if h[i] == 0:
            break
        bonus += weight * h[i]
        weight *= 0.5
    return bonus


cdef void i_heuristic(const void* ptr, double* out) noexcept nogil:
    """Win shares estimated from the potentials by a softmax (one egg = e); solo: the chance that egg progress
    outpaces the bag, a logistic of progress minus the share of the bag used."""
    islet_shares(<const Islet*>ptr, out, False)


cdef void i_heights_heuristic(const void* ptr, double* out) noexcept nogil:
    """``heights``: ``progress`` with the tie-break on egg heights in each seat's potential (``height_bonus``)."""
    islet_shares(<const Islet*>ptr, out, True)


cdef void islet_shares(const Islet* s, double* out, bint heights) noexcept nogil:
    cdef double best = -1.0, total = 0.0, progress, used
    cdef double est[MAX_SEATS]
    cdef int i
    if s.phase == PH_OVER:
        i_returns(s, out)
        return
    if s.solo:
        progress = solo_progress(s) / s.eggs_start
        used = 1.0 - s.bag_n / 74.0
        out[0] = 1.0 / (1.0 + exp(-6.0 * (progress - used + 0.1)))
        return
    for i in range(s.num_players):
        est[i] = potential(s, i) + (height_bonus(s, i) if heights else 0.0)
        if est[i] > best:
            best = est[i]
    for i in range(s.num_players):
        out[i] = exp(est[i] - best)
        total += out[i]
    for i in range(s.num_players):
        out[i] /= total


cdef int32_t i_playout_action(const void* ptr, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """Light playout policy: lay an egg whenever one can be laid; otherwise pick a kind of action uniformly (place,
    stop, advance, end, ...) and then one action of that kind, so the many ways to pay one step do not crowd out
    exploring."""
    return kind_balanced_choice(legal, n, rng, 27, K_LAY)


cdef void init_game(Islet* s, int players, int solo, int eggs) noexcept nogil:
    """A game before its first chance event: every tile in the bag, full stacks, eggs in reserve, pawns in the sea."""
    cdef int t, i
    memset(s, 0, sizeof(Islet))
    s.num_players = players
    s.solo = solo
    s.eggs_start = eggs
    s.won = -1
    s.final_round = -1
    s.phase = PH_SETUP_ISLET
    s.left = 12 if solo else 6
    s.bag_n = NUM_TILES
    s.last_cell = NO_CELL
    for t in range(NUM_TYPES):
        s.bag[t] = NUM_TILES // NUM_TYPES
    for t in range(NUM_RES):
        s.stacks[t] = STACK_SIZE
    s.deck = (1 << NUM_CARDS) - 1 if solo else 0
    for i in range(MAX_SEATS):
        s.seat[i].pawn = NO_CELL
        s.seat[i].free_eggs = eggs if i < players else 0


cdef GameVTable ISLET_TABLE
ISLET_TABLE.name = b"islet"
ISLET_TABLE.state_size = sizeof(Islet)
ISLET_TABLE.max_players = MAX_SEATS
ISLET_TABLE.max_actions = MAX_ACTIONS
ISLET_TABLE.max_chance_outcomes = NUM_CARDS
ISLET_TABLE.num_players = i_num_players
ISLET_TABLE.current_player = i_current_player
ISLET_TABLE.legal_actions = i_legal_actions
ISLET_TABLE.chance_outcomes = i_chance_outcomes
ISLET_TABLE.apply = i_apply
ISLET_TABLE.sample_chance = i_sample_chance
ISLET_TABLE.returns = i_returns
ISLET_TABLE.scores = i_scores
ISLET_TABLE.determinize = i_determinize
ISLET_TABLE.observed_action = i_observed_action
ISLET_TABLE.utility_bounds = i_utility_bounds
ISLET_TABLE.heuristic = i_heuristic
ISLET_TABLE.other_heuristics[0] = i_heights_heuristic
ISLET_TABLE.playout_action = i_playout_action


cdef const GameVTable* islet_table() noexcept nogil:
    return &ISLET_TABLE
