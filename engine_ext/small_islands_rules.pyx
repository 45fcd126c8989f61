# cython: language_level=3
"""Small Islands' rules on the C level: set-up, Preparation (display, Navigation deck, Objectives), Exploration
(take, place with edge matching, Bonus tokens, refill, landing), Harvest (Houses, Missions, Rewards, Discovery
tokens), the three end conditions, final scoring and tie-breaks, and the game table. The rulings are in
``small_islands.pyx``'s docstring and docs/rules/small_islands.md."""

from libc.math cimport exp
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from engine_ext.core cimport (CHANCE_PLAYER, TERMINAL_PLAYER, GameVTable, Rng, kind_balanced_choice, rng_below,
                              rng_uniform, sort_action_ids)


cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil

cdef enum:
    PURPOSE_DRAWS = 4               # purposeful playouts: options of a placement or a Bonus token weighed

cdef double EVIDENCE_SHARPNESS = 3.0  # objective_evidence: the softmax's sharpness, per PP an option earns
cdef double EVIDENCE_NOISE = 0.1     # objective_evidence: the share of choices modelled as uniform

# Component tables, filled from data/small_islands.json by small_islands.pyx at import (set_tables).
cdef int TILE_NREG[NUM_TILE_IDS]
cdef int TILE_EDGES[NUM_TILE_IDS][2]
cdef int TILE_ICONS[NUM_TILE_IDS][2][NUM_ICONS]
cdef int CANON[NUM_TILE_IDS]           # the smallest id of an identical tile (same regions and icons)
cdef uint64_t KIND_MASK[NUM_TILE_IDS]  # every id of the same kind
# Objective cards: mission and reward of each (data: objective_cards).
cdef int OBJ_MISSION[NUM_OBJECTIVES]
cdef int OBJ_REWARD[NUM_OBJECTIVES]
OBJ_MISSION[:] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
OBJ_REWARD[:] = [0, 1, 2, 7, 3, 6, 9, 4, 8, 10, 5, 11]
cdef int DISC_VALUE[NUM_DISC_VALUES]
DISC_VALUE[:] = [7, 6, 5, 4]
cdef int DX[4]
cdef int DY[4]
DX[:] = [0, 1, 0, -1]                 # N, E, S, W
DY[:] = [-1, 0, 1, 0]


cdef void set_tables(int tile, int nreg, int e0, int e1, const int* icons0, const int* icons1) noexcept nogil:
    cdef int k, other, r, same
    TILE_NREG[tile] = nreg
    TILE_EDGES[tile][0] = e0
    TILE_EDGES[tile][1] = e1
    for k in range(NUM_ICONS):
        TILE_ICONS[tile][0][k] = icons0[k]
        TILE_ICONS[tile][1][k] = icons1[k]
    CANON[tile] = tile
    for other in range(tile):
        same = TILE_NREG[other] == nreg
        for r in range(nreg):
            same = same and TILE_EDGES[other][r] == TILE_EDGES[tile][r]
            for k in range(NUM_ICONS):
                same = same and TILE_ICONS[other][r][k] == TILE_ICONS[tile][r][k]
        if same and (tile < FIRST_START) == (other < FIRST_START):
            CANON[tile] = CANON[other]
            break
    KIND_MASK[tile] = 0
    for other in range(tile + 1):
        if CANON[other] == CANON[tile]:
            KIND_MASK[tile] |= (<uint64_t>1) << other
            KIND_MASK[other] |= (<uint64_t>1) << tile


# ---------------------------------------------------------------------------------------------------------------------
# Action packing
# ---------------------------------------------------------------------------------------------------------------------
cdef Move decode(int32_t a) noexcept nogil:
    cdef Move m
    cdef int p = a_payload(a)
    memset(&m, 0, sizeof(Move))
    m.kind = a_kind(a)
    if m.kind == K_PLACE:
        m.tile = p & 63
        m.rot = (p >> 6) & 3
        m.x = ((p >> 8) & 127) - OFFSET
        m.y = ((p >> 15) & 127) - OFFSET
    elif m.kind == K_BONUS:
        m.token = p & 3
        m.side = (p >> 2) & 3
        m.cover = (p >> 4) & 3
        m.region = (p >> 6) & 1
        m.x = ((p >> 7) & 127) - OFFSET
        m.y = ((p >> 14) & 127) - OFFSET
    elif m.kind == K_LAND:
        m.colour = p & 3
        m.x = ((p >> 2) & 127) - OFFSET
        m.y = ((p >> 9) & 127) - OFFSET
    elif m.kind == K_OBJ_KEEP:
        m.a = p & 15
        m.b = (p >> 4) & 15
    elif m.kind == K_DEAL or m.kind == K_DISCARD:
        m.tile = p & 63
    else:
        m.a = p & 255
    return m


cdef int32_t encode(const Move* m) noexcept nogil:
    cdef int p = 0
    if m.kind == K_PLACE:
        p = m.tile | (m.rot << 6) | ((m.x + OFFSET) << 8) | ((m.y + OFFSET) << 15)
    elif m.kind == K_BONUS:
        p = m.token | (m.side << 2) | (m.cover << 4) | (m.region << 6) | ((m.x + OFFSET) << 7) | (
            (m.y + OFFSET) << 14)
    elif m.kind == K_LAND:
        p = m.colour | ((m.x + OFFSET) << 2) | ((m.y + OFFSET) << 9)
    elif m.kind == K_OBJ_KEEP:
        p = m.a | (m.b << 4)
    elif m.kind == K_DEAL or m.kind == K_DISCARD:
        p = m.tile
    elif m.kind == K_NO_BONUS or m.kind == K_HARVEST_DONE:
        p = 0
    else:
        p = m.a
    return act(m.kind, p)


# ---------------------------------------------------------------------------------------------------------------------
# The board
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int rotate(int mask, int r) noexcept nogil:
    return ((mask << r) | (mask >> (4 - r))) & 15 if r else mask


cdef inline int slot_hash(int x, int y) noexcept nogil:
    return (((x + 128) * 40503 + (y + 128) * 2654435) >> 4) & (SLOT_HASH - 1)


cdef int find_slot(const SmallIslands* s, int x, int y) noexcept nogil:
    cdef int h = slot_hash(x, y), k
    while s.slot_at[h]:
        k = s.slot_at[h] - 1
        if s.placed[k].x == x and s.placed[k].y == y:
            return k
        h = (h + 1) & (SLOT_HASH - 1)
    return NO_SLOT


cdef int root_of(const SmallIslands* s, int r) noexcept nogil:
    while s.region[r].parent != r:
        r = s.region[r].parent
    return r


cdef int shared_tiles(const SmallIslands* s, int ra, int rb) noexcept nogil:
    """Tiles with one region in island ``ra`` and the other in island ``rb`` (counted once when they merge)."""
    cdef int k, n = 0, a, b
    cdef uint64_t bits = s.two_regions
    while bits:
        k = lowest_bit(bits)
        bits &= bits - 1
        a = root_of(s, 2 * k)
        b = root_of(s, 2 * k + 1)
        if (a == ra and b == rb) or (a == rb and b == ra):
            n += 1
    return n


cdef void unite(SmallIslands* s, int a, int b) noexcept nogil:
    cdef int ra = root_of(s, a), rb = root_of(s, b), k, keep, gone
    if ra == rb:
        return
    keep = ra if ra < rb else rb
    gone = rb if ra < rb else ra
    s.region[keep].tiles = s.region[keep].tiles + s.region[gone].tiles - shared_tiles(s, ra, rb)
    for k in range(NUM_ICONS):
        s.region[keep].isl[k] += s.region[gone].isl[k]
    s.region[keep].houses += s.region[gone].houses
    for k in range(MAX_SEATS):
        s.region[keep].by_seat[k] += s.region[gone].by_seat[k]
    s.region[keep].harvested |= s.region[gone].harvested
    s.region[gone].parent = keep


cdef inline int region_on_edge(const Placed* p, int bit) noexcept nogil:
    cdef int r
    for r in range(p.nreg):
        if p.reg_edges[r] & bit:
            return r
    return -1


cdef bint fits(const SmallIslands* s, int edges, int x, int y) noexcept nogil:
    """An empty square beside a placed tile, Land meeting Land and Sea meeting Sea on every touching side."""
    cdef int d, k, touching = 0, mine, theirs
    if find_slot(s, x, y) != NO_SLOT or x < -60 or x > 60 or y < -60 or y > 60:
        return False
    for d in range(4):
        k = find_slot(s, x + DX[d], y + DY[d])
        if k == NO_SLOT:
            continue
        touching = 1
        mine = (edges >> d) & 1
        theirs = (s.placed[k].edges >> ((d + 2) & 3)) & 1
        if mine != theirs:
            return False
    return touching


cdef inline int square_key(int x, int y) noexcept nogil:
    return ((y + OFFSET) << 8) | (x + OFFSET)


cdef int open_index(const SmallIslands* s, int key) noexcept nogil:
    """Binary search of the sorted open squares: the index of ``key``, or -(insertion point) - 1."""
    cdef int lo = 0, hi = s.num_open - 1, mid
    while lo <= hi:
        mid = (lo + hi) >> 1
        if s.open_key[mid] < key:
            lo = mid + 1
        elif s.open_key[mid] > key:
            hi = mid - 1
        else:
            return mid
    return -lo - 1


cdef void update_open(SmallIslands* s, int x, int y, const Placed* p) noexcept nogil:
    """The square (x, y) is taken by ``p``: it leaves the open squares, and each empty square beside it opens (or
    learns that one more side touches a tile, and whether Land)."""
    cdef int k = open_index(s, square_key(x, y)), d, nx, ny, key, j, side
    if k >= 0:
        for j in range(k, s.num_open - 1):
            s.open_key[j] = s.open_key[j + 1]
            s.open_touch[j] = s.open_touch[j + 1]
            s.open_need[j] = s.open_need[j + 1]
        s.num_open -= 1
    for d in range(4):
        nx = x + DX[d]
        ny = y + DY[d]
        if find_slot(s, nx, ny) != NO_SLOT:
            continue
        key = square_key(nx, ny)
        k = open_index(s, key)
        if k < 0:
            if s.num_open >= MAX_OPEN:
                continue
            k = -k - 1
            j = s.num_open
            while j > k:
                s.open_key[j] = s.open_key[j - 1]
                s.open_touch[j] = s.open_touch[j - 1]
                s.open_need[j] = s.open_need[j - 1]
                j -= 1
            s.open_key[k] = key
            s.open_touch[k] = 0
            s.open_need[k] = 0
            s.num_open += 1
        side = 1 << ((d + 2) & 3)
        s.open_touch[k] |= side
        if (p.edges >> d) & 1:
            s.open_need[k] |= side


cdef int place_tile(SmallIslands* s, int tile, int rot, int x, int y) noexcept nogil:
    """Put ``tile`` (rotated ``rot`` quarter turns clockwise) on (x, y), joining its land regions to the islands
    across Land edges. Returns its slot."""
    cdef int k = s.num_placed, r, d, n, h, mine, theirs, j
    cdef Placed* p = &s.placed[k]
    cdef Region* g
    s.num_placed += 1
    h = slot_hash(x, y)
    while s.slot_at[h]:
        h = (h + 1) & (SLOT_HASH - 1)
    s.slot_at[h] = k + 1
    p.id = tile
    p.x = x
    p.y = y
    p.rot = rot
    p.nreg = TILE_NREG[tile]
    if p.nreg == 2:
        s.two_regions |= (<uint64_t>1) << k
    p.edges = 0
    p.ports = 0
    for r in range(2):
        g = &s.region[2 * k + r]
        memset(g, 0, sizeof(Region))
        g.parent = 2 * k + r
        p.reg_edges[r] = 0
        if r < p.nreg:
            p.reg_edges[r] = rotate(TILE_EDGES[tile][r], rot)
            p.edges |= p.reg_edges[r]
            for j in range(NUM_ICONS):
                g.icons[j] = TILE_ICONS[tile][r][j]
                g.isl[j] = g.icons[j]
            g.tiles = 1
            p.ports += g.icons[I_P]
    for d in range(4):
        n = find_slot(s, x + DX[d], y + DY[d])
        if n == NO_SLOT or n == k:
            continue
        mine = region_on_edge(p, 1 << d)
        theirs = region_on_edge(&s.placed[n], 1 << ((d + 2) & 3))
        if mine >= 0 and theirs >= 0:
            unite(s, 2 * k + mine, 2 * n + theirs)
    update_open(s, x, y, p)
    j = k                                 # keep the slots ascending by (y, x)
    while j > 0 and square_key(s.placed[s.slot_order[j - 1]].x, s.placed[s.slot_order[j - 1]].y) > square_key(x, y):
        s.slot_order[j] = s.slot_order[j - 1]
        j -= 1
    s.slot_order[j] = k
    return k


cdef void rebuild_islands(SmallIslands* s) noexcept nogil:
    """Island counts from the regions' icons and Houses (loading): the union-find is the placements'."""
    cdef int r, root, k, j, seen
    for r in range(2 * s.num_placed):
        if s.region[r].parent == r:
            memset(s.region[r].isl, 0, NUM_ICONS)
            s.region[r].tiles = 0
            s.region[r].houses = 0
            memset(s.region[r].by_seat, 0, MAX_SEATS)
    for k in range(s.num_placed):
        s.placed[k].ports = 0
        for r in range(s.placed[k].nreg):
            root = root_of(s, 2 * k + r)
            seen = r == 1 and root_of(s, 2 * k) == root
            if not seen:
                s.region[root].tiles += 1
            for j in range(NUM_ICONS):
                s.region[root].isl[j] += s.region[2 * k + r].icons[j]
            for j in range(MAX_SEATS):
                s.region[root].by_seat[j] += (s.region_houses[2 * k + r] >> (2 * j)) & 3
                s.region[root].houses += (s.region_houses[2 * k + r] >> (2 * j)) & 3
            s.placed[k].ports += s.region[2 * k + r].icons[I_P]


cdef int ports_around(const SmallIslands* s, int colour) noexcept nogil:
    """Ports on the (up to 8) Landscape tiles around a placed Ship."""
    cdef int k, dx, dy, n = 0, n_slot
    if not (s.ships >> colour) & 1:
        return 0
    k = s.ship_slot[colour]
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            if dx or dy:
                n_slot = find_slot(s, s.placed[k].x + dx, s.placed[k].y + dy)
                if n_slot != NO_SLOT and s.placed[n_slot].id < FIRST_SHIP:
                    n += s.placed[n_slot].ports
    return n


# ---------------------------------------------------------------------------------------------------------------------
# Missions and Rewards
# ---------------------------------------------------------------------------------------------------------------------
cdef bint mission_met(const SmallIslands* s, int mission, int root) noexcept nogil:
    cdef const uint8_t* c = s.region[root].isl
    cdef int fl = c[I_FL], fr = c[I_FR], le = c[I_LE]
    if mission == 0:
        return fl > fr
    if mission == 1:
        return fr > le
    if mission == 2:
        return le > fl
    if mission == 3:
        return c[I_T] >= 1 and fl >= 2
    if mission == 4:
        return c[I_T] >= 1 and fr >= 2
    if mission == 5:
        return c[I_T] >= 1 and le >= 2
    if mission == 6:
        return c[I_P] >= 2
    if mission == 7:
        return fl >= 1 and fr >= 1 and le >= 1
    if mission == 8:
        return (fl > 0 and fl == fr) or (fr > 0 and fr == le) or (le > 0 and le == fl)
    if mission == 9:
        return fl > 0 and (fl == fr or fl == le)
    if mission == 10:
        return fr > 0 and (fr == fl or fr == le)
    return le > 0 and (le == fl or le == fr)


cdef inline int most_resource(const uint8_t* c) noexcept nogil:
    return max(c[I_FL], max(c[I_FR], c[I_LE]))


cdef int reward_points(const SmallIslands* s, int reward, int root) noexcept nogil:
    """Prestige Points of a Reward for one island (the House just placed counted). A Reward with a choice of resource
    takes the one that scores most: the choice has no other effect. R8 (Discovery) scores through its tokens."""
    cdef const uint8_t* c = s.region[root].isl
    cdef int low = 0, k, tiles = s.region[root].tiles
    if reward <= 2:
        return c[reward] + 2
    if reward == 3:
        return 2 * c[I_T] + 2
    if reward == 4:
        for k in range(3):
            if c[k] and (low == 0 or c[k] < low):
                low = c[k]
        return 2 * low + 2
    if reward == 5:
        return 6
    if reward == 6:
        return 10 if tiles >= 12 else 8 if tiles >= 9 else 6 if tiles >= 6 else 4 if tiles >= 3 else 0
    if reward == 7:
        return 0
    if reward == 8:
        return most_resource(c) + 2
    if reward == 9:
        return most_resource(c) + c[I_P] // 2
    if reward == 10:
        return (c[I_H] - s.region[root].houses) + s.region[root].houses
    return c[I_P] + 2


# ---------------------------------------------------------------------------------------------------------------------
# Small queries
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int popcount64(uint64_t v) noexcept nogil:
    cdef int n = 0
    while v:
        v &= v - 1
        n += 1
    return n


cdef inline int lowest_bit(uint64_t v) noexcept nogil:
    cdef int k = 0
    while not (v >> k) & 1:
        k += 1
    return k


cdef inline int pile_total(const SmallIslands* s) noexcept nogil:
    return s.disc_pile[0] + s.disc_pile[1] + s.disc_pile[2] + s.disc_pile[3]


cdef inline bint is_island_root(const SmallIslands* s, int r) noexcept nogil:
    return r < 2 * s.num_placed and (r & 1) < s.placed[r >> 1].nreg and s.region[r].parent == r


cdef inline int ship_ok(const SmallIslands* s, int seat, int colour) noexcept nogil:
    """Ships a seat may land: its own colour, or with 2-3 players a grey one (the unused colours)."""
    if (s.ships >> colour) & 1:
        return False
    return colour == seat or colour >= s.num_players


cdef int push_landings(const SmallIslands* s, int32_t* out, int n) noexcept nogil:
    """Ships on every open square whose touching sides are all Sea, ascending by square then colour."""
    cdef int colour, k, grey = -1, ok_colours = 0
    cdef Move m
    if s.nav_n > 0:
        return n
    for colour in range(MAX_SEATS):
        if not ship_ok(s, s.active, colour):
            continue
        if colour >= s.num_players:
            if grey >= 0:
                continue                # grey Ships are identical: the lowest free colour stands for all
            grey = colour
        ok_colours |= 1 << colour
    if not ok_colours:
        return n
    memset(&m, 0, sizeof(Move))
    m.kind = K_LAND
    for k in range(s.num_open):
        if s.open_need[k]:
            continue
        m.x = (s.open_key[k] & 255) - OFFSET
        m.y = (s.open_key[k] >> 8) - OFFSET
        for colour in range(MAX_SEATS):
            if (ok_colours >> colour) & 1:
                m.colour = colour
                out[n] = encode(&m)
                n += 1
    return n


cdef int push_placements(const SmallIslands* s, int32_t* out, int n) noexcept nogil:
    """Every kind in hand, every distinct turn, every open square whose touching sides it matches; ascending ids
    (square, then turn, then kind)."""
    cdef uint64_t hand = s.hand[s.active], seen_types = 0
    cdef int kinds[3]
    cdef int nk = 0, tile, rot, r2, k, j, dup, reg, edges
    cdef int masks[3][4]
    cdef bint valid[3][4]
    cdef int same
    while hand:
        tile = lowest_bit(hand)
        hand &= hand - 1
        if (seen_types >> CANON[tile]) & 1:
            continue                    # an identical tile was listed already
        seen_types |= (<uint64_t>1) << CANON[tile]
        kinds[nk] = CANON[tile]
        nk += 1
    for j in range(1, nk):             # kinds ascending
        tile = kinds[j]
        k = j - 1
        while k >= 0 and kinds[k] > tile:
            kinds[k + 1] = kinds[k]
            k -= 1
        kinds[k + 1] = tile
    for j in range(nk):
        for rot in range(4):
            masks[j][rot] = 0
            for reg in range(TILE_NREG[kinds[j]]):
                masks[j][rot] |= rotate(TILE_EDGES[kinds[j]][reg], rot)
            dup = 0
            for r2 in range(rot):       # a turn giving the same regions as a smaller one is the same tile
                same = 1
                for reg in range(TILE_NREG[kinds[j]]):
                    if rotate(TILE_EDGES[kinds[j]][reg], r2) != rotate(TILE_EDGES[kinds[j]][reg], rot):
                        same = 0
                dup = dup or same
            valid[j][rot] = not dup
    cdef int32_t square
    cdef int x, y
    for k in range(s.num_open):
        x = (s.open_key[k] & 255) - OFFSET
        y = (s.open_key[k] >> 8) - OFFSET
        if x < -60 or x > 60 or y < -60 or y > 60:
            continue
        square = act(K_PLACE, ((x + OFFSET) << 8) | ((y + OFFSET) << 15))       # the bit layout of encode()
        for rot in range(4):
            for j in range(nk):
                edges = masks[j][rot]
                if valid[j][rot] and (edges & s.open_touch[k]) == s.open_need[k]:
                    out[n] = square | (rot << 6) | kinds[j]
                    n += 1
    return n


cdef int push_bonuses(const SmallIslands* s, int32_t* out, int n) noexcept nogil:
    """Every Bonus token placement, ascending ids (square, region, cover, side, token)."""
    cdef int i, k, r, t, side, cover, tokens = s.tokens[s.active]
    cdef int32_t square, region_base, cover_base, side_base
    cdef int usable[4][4]                 # per side, the tokens that may show it, ascending
    cdef int nusable[4]
    cdef const Placed* p
    cdef const Region* g
    for side in range(4):
        nusable[side] = 0
        for t in range(4):
            if (tokens >> t) & 1 and (side == 0 or t == 3 or t == side - 1):
                usable[side][nusable[side]] = t
                nusable[side] += 1
    for i in range(s.num_placed):
        k = s.slot_order[i]
        p = &s.placed[k]
        if p.id >= FIRST_SHIP:
            continue
        square = act(K_BONUS, ((p.x + OFFSET) << 7) | ((p.y + OFFSET) << 14))   # the bit layout of encode()
        for r in range(p.nreg):
            g = &s.region[2 * k + r]
            region_base = square | (r << 6)
            for cover in range(4):
                if cover and g.icons[cover - 1] == 0:
                    continue
                cover_base = region_base | (cover << 4)
                for side in range(4):
                    if side == 0:               # a Port on a coastal region, at most 2 per tile, covers nothing
                        if cover or p.edges == 15 or p.ports >= 2:
                            continue
                    elif side == cover:         # a resource covers a different resource, or is added
                        continue
                    side_base = cover_base | (side << 2)
                    for t in range(nusable[side]):
                        out[n] = side_base | usable[side][t]
                        n += 1
    return n


cdef int push_houses(const SmallIslands* s, int32_t* out, int n) noexcept nogil:
    cdef int r, seat = s.active, mission
    if s.houses_hand[seat] == 0 or s.obj_cur[seat] < 0:
        return n
    mission = OBJ_MISSION[s.obj_cur[seat]]
    for r in range(2 * s.num_placed):
        if not is_island_root(s, r) or s.placed[r >> 1].id >= FIRST_SHIP:
            continue
        if (s.region[r].tiles >= 2 and s.region[r].isl[I_H] > s.region[r].houses
                and not (s.region[r].harvested >> seat) & 1 and mission_met(s, mission, r)):
            out[n] = act(K_HOUSE, r)
            n += 1
    return n


cdef int legal_into(const SmallIslands* s, int32_t* out) noexcept nogil:
    cdef int n = 0, k, a, b, v
    cdef int cards[3]
    cdef uint64_t hand, kinds
    cdef Move m
    if s.phase == PH_OBJ_KEEP:
        cards[0] = s.obj_next[s.active]
        cards[1] = s.obj_drawn[0]
        cards[2] = s.obj_drawn[1]
        memset(&m, 0, sizeof(Move))
        m.kind = K_OBJ_KEEP
        for a in range(3):
            for b in range(3):
                if a != b and cards[a] >= 0 and cards[b] >= 0:
                    m.a = cards[a]
                    m.b = cards[b]
                    out[n] = encode(&m)
                    n += 1
    elif s.phase == PH_TURN:
        for k in range(DISPLAY):
            if s.display[k] != NO_SLOT:
                out[n] = act(K_TAKE, k)
                n += 1
        n = push_landings(s, out, n)
    elif s.phase == PH_PLACE:
        n = push_placements(s, out, n)
        if n == 0:                      # nothing fits: discard a hand tile (ruling), one per kind
            hand = s.hand[s.active]
            kinds = 0
            while hand:
                k = lowest_bit(hand)
                hand &= hand - 1
                if not (kinds >> CANON[k]) & 1:
                    kinds |= (<uint64_t>1) << CANON[k]
                    out[n] = act(K_DISCARD, CANON[k])
                    n += 1
    elif s.phase == PH_BONUS:
        n = push_bonuses(s, out, n)
        out[n] = act(K_NO_BONUS, 0)
        n += 1
    elif s.phase == PH_HARVEST:
        n = push_houses(s, out, n)
        out[n] = act(K_HARVEST_DONE, 0)
        n += 1
    elif s.phase == PH_DISC_KEEP:
        for v in range(NUM_DISC_VALUES):
            if s.disc_drawn[v]:
                out[n] = act(K_KEEP_DISC, v)
                n += 1
    sort_action_ids(out, n)
    return n


cdef int ss_legal_actions(const void* p, int32_t* out) noexcept nogil:
    return legal_into(<const SmallIslands*>p, out)


# ---------------------------------------------------------------------------------------------------------------------
# Chance
# ---------------------------------------------------------------------------------------------------------------------
cdef inline bint tile_phase(const SmallIslands* s) noexcept nogil:
    return s.phase == PH_SETUP_DISPLAY or s.phase == PH_SETUP_HAND or s.phase == PH_REFILL


cdef inline bint card_phase(const SmallIslands* s) noexcept nogil:
    return s.phase == PH_SETUP_OBJ or s.phase == PH_OBJ_DRAW


cdef int ss_chance_outcomes(const void* ptr, int32_t* actions, double* probs) noexcept nogil:
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef int n = 0, k, size, total
    cdef uint64_t pool
    if tile_phase(s):
        size = popcount64(s.pool)
        pool = s.pool
        while pool:
            k = lowest_bit(pool)
            pool &= pool - 1
            actions[n] = act(K_DEAL, k)
            probs[n] = 1.0 / size
            n += 1
    elif card_phase(s):
        if s.obj_top >= 0:
            actions[0] = act(K_DRAW_OBJ, s.obj_top)
            probs[0] = 1.0
            return 1
        size = popcount64(s.obj_deck)
        for k in range(NUM_OBJECTIVES):
            if (s.obj_deck >> k) & 1:
                actions[n] = act(K_DRAW_OBJ, k)
                probs[n] = 1.0 / size
                n += 1
    elif s.phase == PH_DISC_DRAW:
        total = pile_total(s)
        for k in range(NUM_DISC_VALUES):
            if s.disc_pile[k]:
                actions[n] = act(K_DRAW_DISC, k)
                probs[n] = s.disc_pile[k] / <double>total
                n += 1
    return n


cdef int32_t ss_sample_chance(const void* ptr, Rng* rng) noexcept nogil:
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef int pick, k
    cdef uint64_t pool
    if tile_phase(s):
        pick = rng_below(rng, popcount64(s.pool))
        pool = s.pool
        while pick:
            pool &= pool - 1
            pick -= 1
        return act(K_DEAL, lowest_bit(pool))
    if card_phase(s):
        if s.obj_top >= 0:
            return act(K_DRAW_OBJ, s.obj_top)
        pick = rng_below(rng, popcount64(s.obj_deck))
        for k in range(NUM_OBJECTIVES):
            if (s.obj_deck >> k) & 1:
                if pick == 0:
                    return act(K_DRAW_OBJ, k)
                pick -= 1
    pick = rng_below(rng, pile_total(s))
    for k in range(NUM_DISC_VALUES):
        pick -= s.disc_pile[k]
        if pick < 0:
            return act(K_DRAW_DISC, k)
    return -1


# ---------------------------------------------------------------------------------------------------------------------
# Flow
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int next_seat(const SmallIslands* s, int seat) noexcept nogil:
    return (seat + 1) % s.num_players


cdef void game_over(SmallIslands* s) noexcept nogil:
    s.phase = PH_OVER


cdef void begin_objectives(SmallIslands* s) noexcept nogil:
    s.obj_seats_left = s.num_players
    s.active = s.start_player
    s.phase = PH_OBJ_DRAW
    s.left = 2


cdef void after_display(SmallIslands* s) noexcept nogil:
    """Preparation, after the display: the Navigation deck, or the end when 6 tiles cannot be drawn."""
    if s.deck_n < NAV_SIZE:
        game_over(s)
        return
    s.deck_n -= NAV_SIZE
    s.nav_n = NAV_SIZE
    begin_objectives(s)


cdef void start_round(SmallIslands* s) noexcept nogil:
    cdef int k, empty = 0
    s.round += 1
    s.lander = -1
    for k in range(MAX_SEATS):
        s.revealed[k] = -1
    for k in range(DISPLAY):
        empty += s.display[k] == NO_SLOT
    s.left = empty if empty < s.deck_n else s.deck_n
    if s.left > 0:
        s.phase = PH_SETUP_DISPLAY
    else:
        after_display(s)


cdef bint can_act(const SmallIslands* s) noexcept nogil:
    cdef int32_t buf[1024]
    cdef int k
    for k in range(DISPLAY):
        if s.display[k] != NO_SLOT:
            return True
    return push_landings(s, buf, 0) > 0


cdef void begin_harvest(SmallIslands* s, int seat) noexcept nogil:
    cdef int r
    cdef int32_t buf[256]
    s.active = seat
    s.revealed[seat] = s.obj_cur[seat]
    for r in range(2 * s.num_placed):
        s.region[r].harvested &= ~(1 << seat)
    s.phase = PH_HARVEST
    if push_houses(s, buf, 0) == 0:
        finish_harvest(s)


cdef void finish_harvest(SmallIslands* s) noexcept nogil:
    cdef int seat = s.active, refill
    refill = HOUSES_IN_HAND - s.houses_hand[seat]
    if refill > s.houses_stock[seat]:
        refill = s.houses_stock[seat]
    s.houses_hand[seat] += refill
    s.houses_stock[seat] -= refill
    if s.obj_cur[seat] >= 0:
        s.obj_deck |= 1 << s.obj_cur[seat]
        s.obj_cur[seat] = -1
    s.harvest_left -= 1
    if s.harvest_left > 0:
        begin_harvest(s, next_seat(s, seat))
        return
    if s.final or s.ships == 15:
        game_over(s)
        return
    s.obj_top = -1                        # the Objective deck is shuffled
    s.obj_top_by = -1
    s.start_player = next_seat(s, s.lander)
    start_round(s)


cdef void start_harvest(SmallIslands* s, int first) noexcept nogil:
    s.harvest_left = s.num_players
    s.lander = first
    begin_harvest(s, first)


cdef void start_turn(SmallIslands* s, int seat) noexcept nogil:
    s.active = seat
    s.taken_slot = -1
    s.phase = PH_TURN
    if not can_act(s):                    # neither a face-up tile nor a landing: a final Harvest from this seat
        s.final = 1
        start_harvest(s, seat)


cdef void after_bonus(SmallIslands* s) noexcept nogil:
    if s.taken_slot >= 0 and s.nav_n > 0:
        s.phase = PH_REFILL
    else:
        start_turn(s, next_seat(s, s.active))


cdef void after_place(SmallIslands* s) noexcept nogil:
    if s.tokens[s.active] == 0:
        after_bonus(s)
        return
    s.phase = PH_BONUS


cdef int remove_from_hand(SmallIslands* s, int seat, int tile) noexcept nogil:
    """Remove a tile of ``tile``'s kind from the hand: one every seat knows of first (so what others believe of the
    rest of the hand stays true), else the lowest id of that kind."""
    cdef uint64_t hand
    cdef int k, pass_
    for pass_ in range(2):
        hand = s.known[seat] if pass_ == 0 else s.hand[seat]
        while hand:
            k = lowest_bit(hand)
            hand &= hand - 1
            if CANON[k] == CANON[tile]:
                s.hand[seat] &= ~((<uint64_t>1) << k)
                s.known[seat] &= ~((<uint64_t>1) << k)
                s.hand_n[seat] -= 1
                return k
    return -1


cdef void ss_apply(void* ptr, int32_t a) noexcept nogil:
    cdef SmallIslands* s = <SmallIslands*>ptr
    cdef Move m = decode(a)
    cdef int seat = s.active, k, third, slot, r, v, points, root, temples
    cdef Region* g
    if m.kind == K_DEAL:
        s.pool &= ~((<uint64_t>1) << m.tile)
        if s.phase == PH_REFILL:
            s.nav_n -= 1
            s.display[s.taken_slot] = m.tile
            start_turn(s, next_seat(s, seat))
            return
        s.deck_n -= 1
        s.left -= 1
        if s.phase == PH_SETUP_DISPLAY:
            for k in range(DISPLAY):
                if s.display[k] == NO_SLOT:
                    s.display[k] = m.tile
                    break
            if s.left == 0:
                if s.round == 0:
                    s.phase = PH_SETUP_HAND
                    s.active = 0
                    s.left = HAND
                else:
                    after_display(s)
        else:                             # PH_SETUP_HAND
            s.hand[seat] |= (<uint64_t>1) << m.tile
            s.hand_n[seat] += 1
            if s.left == 0:
                if seat + 1 < s.num_players:
                    s.active = seat + 1
                    s.left = HAND
                else:
                    s.phase = PH_SETUP_OBJ
                    s.active = 0
                    s.left = 1
    elif m.kind == K_DRAW_OBJ:
        s.obj_deck &= ~(1 << m.a)
        if m.a == s.obj_top:
            s.obj_top = -1
            s.obj_top_by = -1
        if s.phase == PH_SETUP_OBJ:
            s.obj_next[seat] = m.a
            if seat + 1 < s.num_players:
                s.active = seat + 1
            else:
                s.start_player = 0
                start_round(s)
        else:
            s.obj_drawn[2 - s.left] = m.a
            s.left -= 1
            if s.left == 0:
                s.phase = PH_OBJ_KEEP
    elif m.kind == K_OBJ_KEEP:
        third = s.obj_next[seat] + s.obj_drawn[0] + s.obj_drawn[1] - m.a - m.b
        s.obj_cur[seat] = m.a
        s.obj_next[seat] = m.b
        s.obj_drawn[0] = s.obj_drawn[1] = -1
        s.obj_deck |= 1 << third
        s.obj_top = third
        s.obj_top_by = seat
        s.obj_seats_left -= 1
        if s.obj_seats_left > 0:
            s.active = next_seat(s, seat)
            s.phase = PH_OBJ_DRAW
            s.left = 2
        else:
            start_turn(s, s.start_player)
    elif m.kind == K_TAKE:
        s.hand[seat] |= (<uint64_t>1) << s.display[m.a]
        s.known[seat] |= (<uint64_t>1) << s.display[m.a]
        s.hand_n[seat] += 1
        s.display[m.a] = NO_SLOT
        s.taken_slot = m.a
        s.phase = PH_PLACE
    elif m.kind == K_PLACE:
        remove_from_hand(s, seat, m.tile)
        place_tile(s, m.tile, m.rot, m.x, m.y)
        s.turn += 1
        s.last_place[seat] = s.turn
        after_place(s)
    elif m.kind == K_DISCARD:
        k = remove_from_hand(s, seat, m.tile)
        s.gone |= (<uint64_t>1) << k
        after_bonus(s)
    elif m.kind == K_BONUS:
        s.tokens[seat] &= ~(1 << m.token)
        slot = find_slot(s, m.x, m.y)
        g = &s.region[2 * slot + m.region]
        root = root_of(s, 2 * slot + m.region)
        if m.side == 0:
            g.icons[I_P] += 1
            s.region[root].isl[I_P] += 1
            s.placed[slot].ports += 1
        else:
            g.icons[m.side - 1] += 1
            s.region[root].isl[m.side - 1] += 1
            if m.cover:
                g.icons[m.cover - 1] -= 1
                s.region[root].isl[m.cover - 1] -= 1
        after_bonus(s)
    elif m.kind == K_NO_BONUS:
        after_bonus(s)
    elif m.kind == K_LAND:
        slot = place_tile(s, FIRST_SHIP + m.colour, 0, m.x, m.y)
        s.ships |= 1 << m.colour
        s.ship_slot[m.colour] = slot
        s.turn += 1
        s.last_place[seat] = s.turn
        start_harvest(s, seat)
    elif m.kind == K_HOUSE:
        root = m.a
        s.houses_hand[seat] -= 1
        s.houses_placed[seat] += 1
        s.region[root].houses += 1
        s.region[root].by_seat[seat] += 1
        s.region[root].harvested |= 1 << seat
        # the House goes on a free mark of one of the island's regions (the lowest), kept for recounts
        for r in range(2 * s.num_placed):
            if (r & 1) < s.placed[r >> 1].nreg and root_of(s, r) == root and s.region[r].icons[I_H] > region_houses(
                    s, r):
                region_house_add(s, r, seat)
                break
        points = reward_points(s, OBJ_REWARD[s.obj_cur[seat]], root)
        s.pp[seat] += points
        if OBJ_REWARD[s.obj_cur[seat]] == 7:
            temples = s.region[root].isl[I_T]
            s.disc_left = temples if temples < pile_total(s) else pile_total(s)
            if s.disc_left > 0:
                s.phase = PH_DISC_DRAW
                return
        after_house(s)
    elif m.kind == K_DRAW_DISC:
        s.disc_pile[m.a] -= 1
        s.disc_drawn[m.a] += 1
        s.disc_left -= 1
        if s.disc_left == 0:
            s.phase = PH_DISC_KEEP
    elif m.kind == K_KEEP_DISC:
        s.disc[seat][m.a] += 1
        s.disc_drawn[m.a] -= 1
        for v in range(NUM_DISC_VALUES):
            s.disc_pile[v] += s.disc_drawn[v]
            s.disc_drawn[v] = 0
        s.phase = PH_HARVEST
        after_house(s)
    elif m.kind == K_HARVEST_DONE:
        finish_harvest(s)


cdef inline int region_houses(const SmallIslands* s, int r) noexcept nogil:
    cdef int k, n = 0
    for k in range(MAX_SEATS):
        n += (s.region_houses[r] >> (2 * k)) & 3
    return n


cdef inline void region_house_add(SmallIslands* s, int r, int seat) noexcept nogil:
    s.region_houses[r] += 1 << (2 * seat)


cdef void after_house(SmallIslands* s) noexcept nogil:
    cdef int32_t buf[256]
    s.phase = PH_HARVEST
    if push_houses(s, buf, 0) == 0:
        finish_harvest(s)


# ---------------------------------------------------------------------------------------------------------------------
# Results, information, search hooks
# ---------------------------------------------------------------------------------------------------------------------
cdef int ss_num_players(const void* p) noexcept nogil:
    return (<const SmallIslands*>p).num_players


cdef int ss_current_player(const void* ptr) noexcept nogil:
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    if s.phase == PH_OVER:
        return TERMINAL_PLAYER
    if tile_phase(s) or card_phase(s) or s.phase == PH_DISC_DRAW:
        return CHANCE_PLAYER
    return s.active


cdef int final_score(const SmallIslands* s, int seat) noexcept nogil:
    """Prestige Points, Discovery tokens and the Ports around the seat's own coloured Ship."""
    cdef int v, total = s.pp[seat]
    for v in range(NUM_DISC_VALUES):
        total += s.disc[seat][v] * DISC_VALUE[v]
    return total + ports_around(s, seat)


cdef void ss_scores(const void* ptr, int32_t* out) noexcept nogil:
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef int i
    for i in range(s.num_players):
        out[i] = final_score(s, i)


cdef int compare_seats(const SmallIslands* s, int a, int b) noexcept nogil:
    """> 0 when seat a ranks above b: score, then Houses placed, Ports around the own Ship, the later placement."""
    cdef int d = final_score(s, a) - final_score(s, b)
    if d:
        return d
    d = s.houses_placed[a] - s.houses_placed[b]
    if d:
        return d
    d = ports_around(s, a) - ports_around(s, b)
    if d:
        return d
    return s.last_place[a] - s.last_place[b]


cdef void ss_returns(const void* ptr, double* out) noexcept nogil:
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef int i, j, winners = 0
    cdef bint best
    for i in range(s.num_players):
        out[i] = 0.0
    if s.phase != PH_OVER:
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


cdef int32_t ss_private_key(const void* ptr, int seat) noexcept nogil:
    """A coarse name for what ``seat`` alone knows: its Objective for this round (what its placements aim at; its
    hand tiles and the card kept for the next round are left out, so an opponent's tree splits in at most 12),
    -1 while it has none."""
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    return s.obj_cur[seat] if s.obj_cur[seat] >= 0 else -1


cdef void ss_determinize(void* ptr, int seat, Rng* rng) noexcept nogil:
    """Resample what ``seat`` cannot see, from its observation alone: the other seats' hand tiles it has not seen
    taken (from the unseen pool), their Objectives (from the cards whose place it does not know: not one shown in this
    Harvest, which went back to the deck) and their Discovery tokens (from the pile and their tokens)."""
    cdef SmallIslands* s = <SmallIslands*>ptr
    cdef int o, k, _k, pick, v, total, hidden
    cdef uint64_t pool = s.pool, bits
    cdef uint16_t unknown, returned
    cdef int disc_pool[NUM_DISC_VALUES]
    # Landscape tiles. Identical tiles are one kind and the board records kinds, so which ids of a kind are unseen
    # is not in the observation: take the highest free ids of each kind, as many as are unseen (from_observation
    # does the same), then deal the other seats' hidden tiles from them.
    cdef uint64_t present = s.hand[seat] | s.gone, canonical = 0, unused
    for k in range(DISPLAY):
        if s.display[k] != NO_SLOT:
            present |= (<uint64_t>1) << s.display[k]
    for o in range(s.num_players):
        present |= s.known[o]
        if o != seat:
            pool |= s.hand[o] & ~s.known[o]
    for k in range(NUM_LAND):
        if CANON[k] != k:
            continue
        hidden = popcount64(pool & KIND_MASK[k])
        unused = KIND_MASK[k] & ~present
        while hidden > 0 and unused:
            v = 63 - __builtin_clzll(unused)
            unused &= ~((<uint64_t>1) << v)
            canonical |= (<uint64_t>1) << v
            hidden -= 1
    pool = canonical
    for o in range(s.num_players):
        if o == seat:
            continue
        hidden = s.hand_n[o] - popcount64(s.known[o])
        s.hand[o] = s.known[o]
        for _k in range(hidden):
            pick = rng_below(rng, popcount64(pool))
            bits = pool
            while pick:
                bits &= bits - 1
                pick -= 1
            v = lowest_bit(bits)
            pool &= ~((<uint64_t>1) << v)
            s.hand[o] |= (<uint64_t>1) << v
    s.pool = pool
    # Objectives: the deck (but a top card the seat returned itself, and the cards shown in this Harvest and returned:
    # every seat saw them go back) and the others' unrevealed cards
    unknown = s.obj_deck
    if s.obj_top >= 0 and s.obj_top_by == seat:
        unknown &= ~(1 << s.obj_top)
    returned = 0
    for o in range(s.num_players):
        if s.revealed[o] >= 0 and s.obj_cur[o] != s.revealed[o]:
            returned |= 1 << s.revealed[o]
    unknown &= ~returned
    for o in range(s.num_players):
        if o == seat:
            continue
        if s.obj_cur[o] >= 0 and s.revealed[o] != s.obj_cur[o]:
            unknown |= 1 << s.obj_cur[o]
        if s.obj_next[o] >= 0:
            unknown |= 1 << s.obj_next[o]
        if o == s.active and (s.phase == PH_OBJ_KEEP or s.phase == PH_OBJ_DRAW):
            for k in range(2 if s.phase == PH_OBJ_KEEP else 2 - s.left):
                unknown |= 1 << s.obj_drawn[k]
    for o in range(s.num_players):
        if o == seat:
            continue
        if s.obj_cur[o] >= 0 and s.revealed[o] != s.obj_cur[o]:
            s.obj_cur[o] = draw_weighted_card(&unknown, s.obj_weight[o], rng)
        if s.obj_next[o] >= 0:
            s.obj_next[o] = draw_card(&unknown, rng)
        if o == s.active and (s.phase == PH_OBJ_KEEP or s.phase == PH_OBJ_DRAW):
            for k in range(2 if s.phase == PH_OBJ_KEEP else 2 - s.left):
                s.obj_drawn[k] = draw_card(&unknown, rng)
    if s.obj_top >= 0 and s.obj_top_by != seat:
        s.obj_top = draw_card(&unknown, rng)
        unknown |= 1 << s.obj_top                 # it stays in the deck, on top
    if s.obj_top >= 0 and s.obj_top_by == seat:
        unknown |= 1 << s.obj_top
    s.obj_deck = unknown | returned
    # Discovery tokens
    for v in range(NUM_DISC_VALUES):
        disc_pool[v] = s.disc_pile[v]
    total = pile_total(s)
    for o in range(s.num_players):
        if o == seat:
            continue
        for v in range(NUM_DISC_VALUES):
            disc_pool[v] += s.disc[o][v]
            total += s.disc[o][v]
        if o == s.active and (s.phase == PH_DISC_KEEP or s.phase == PH_DISC_DRAW):
            for v in range(NUM_DISC_VALUES):
                disc_pool[v] += s.disc_drawn[v]
                total += s.disc_drawn[v]
    for o in range(s.num_players):
        if o == seat:
            continue
        hidden = s.disc[o][0] + s.disc[o][1] + s.disc[o][2] + s.disc[o][3]
        for v in range(NUM_DISC_VALUES):
            s.disc[o][v] = 0
        for _k in range(hidden):
            v = draw_value(disc_pool, &total, rng)
            s.disc[o][v] += 1
        if o == s.active and (s.phase == PH_DISC_KEEP or s.phase == PH_DISC_DRAW):
            hidden = s.disc_drawn[0] + s.disc_drawn[1] + s.disc_drawn[2] + s.disc_drawn[3]
            for v in range(NUM_DISC_VALUES):
                s.disc_drawn[v] = 0
            for _k in range(hidden):
                v = draw_value(disc_pool, &total, rng)
                s.disc_drawn[v] += 1
    for v in range(NUM_DISC_VALUES):
        s.disc_pile[v] = disc_pool[v]


cdef int draw_card(uint16_t* unknown, Rng* rng) noexcept nogil:
    cdef int n = 0, k, pick
    for k in range(NUM_OBJECTIVES):
        n += (unknown[0] >> k) & 1
    pick = rng_below(rng, n)
    for k in range(NUM_OBJECTIVES):
        if (unknown[0] >> k) & 1:
            if pick == 0:
                unknown[0] &= ~(1 << k)
                return k
            pick -= 1
    return -1


cdef int draw_weighted_card(uint16_t* unknown, const float* weight, Rng* rng) noexcept nogil:
    """A card from ``unknown`` in proportion to ``weight`` (a searching seat's beliefs about it); uniformly, as
    ``draw_card`` does, when no card in ``unknown`` has a weight."""
    cdef double total = 0.0, pick
    cdef int k, last = -1
    for k in range(NUM_OBJECTIVES):
        if (unknown[0] >> k) & 1 and weight[k] > 0:
            total += weight[k]
    if total <= 0:
        return draw_card(unknown, rng)
    pick = rng_uniform(rng) * total
    for k in range(NUM_OBJECTIVES):
        if (unknown[0] >> k) & 1 and weight[k] > 0:
            last = k
            pick -= weight[k]
            if pick < 0:
                break
    unknown[0] &= ~(1 << last)
    return last


cdef int objective_evidence(const SmallIslands* s, int mover, int32_t a, double* out) noexcept nogil:
    """How likely each Objective as ``mover``'s card for this round makes its tile placement or Bonus token ``a``,
    into ``out[NUM_OBJECTIVES]``: a player placing for its Objective is modelled as choosing among the placements of
    the same tile (or among its Bonus tokens) by a softmax of what that Objective would earn after each
    (``harvest_value``, ``EVIDENCE_SHARPNESS`` per PP), mixed with a uniform choice (``EVIDENCE_NOISE``) so that no
    move rules a card out. Reads only the board, ``mover``'s Houses in hand and Bonus tokens, and the tile the move
    shows: what every seat sees. Returns 0 (``out`` untouched) when the move says nothing: another kind of move,
    no Houses in hand, or one option only."""
    cdef int kind = a_kind(a), n, i, k, chosen = -1, houses
    cdef Move m
    cdef SmallIslands* base
    cdef SmallIslands* after
    cdef int32_t* options
    cdef double* value
    cdef double top, total
    if (kind != K_PLACE and kind != K_BONUS) or s.active != mover or s.houses_hand[mover] == 0:
        return 0
    if (kind == K_PLACE and s.phase != PH_PLACE) or (kind == K_BONUS and s.phase != PH_BONUS):
        return 0
    m = decode(a)
    if kind == K_PLACE and m.tile >= NUM_LAND:      # only Landscape tiles are ever in a hand
        return 0
    base = <SmallIslands*>malloc(2 * sizeof(SmallIslands))
    options = <int32_t*>malloc(MAX_ACTIONS * sizeof(int32_t))
    value = NULL
    if base == NULL or options == NULL:
        free(base)
        free(options)
        return 0
    after = base + 1
    memcpy(base, s, sizeof(SmallIslands))
    if kind == K_PLACE:
        base.hand[mover] = (<uint64_t>1) << m.tile    # the tile the move shows, alone: its placements
        base.known[mover] = base.hand[mover]
        base.hand_n[mover] = 1
        n = push_placements(base, options, 0)
    else:
        n = push_bonuses(base, options, 0)
    for i in range(n):
        if options[i] == a:
            chosen = i
    if chosen >= 0 and n >= 2:
        value = <double*>malloc(n * NUM_OBJECTIVES * sizeof(double))
    if value == NULL:                                 # the move says nothing (or no memory to weigh it)
        free(base)
        free(options)
        return 0
    for i in range(n):
        memcpy(after, base, sizeof(SmallIslands))
        ss_apply(after, options[i])
        for k in range(NUM_OBJECTIVES):
            value[i * NUM_OBJECTIVES + k] = harvest_value(after, mover, k, &houses)
    for k in range(NUM_OBJECTIVES):
        top = value[k]
        for i in range(n):
            if value[i * NUM_OBJECTIVES + k] > top:
                top = value[i * NUM_OBJECTIVES + k]
        total = 0.0
        for i in range(n):
            total += exp(EVIDENCE_SHARPNESS * (value[i * NUM_OBJECTIVES + k] - top))
        out[k] = EVIDENCE_NOISE / n + (1.0 - EVIDENCE_NOISE) * exp(
            EVIDENCE_SHARPNESS * (value[chosen * NUM_OBJECTIVES + k] - top)) / total
    free(base)
    free(options)
    free(value)
    return 1


cdef int draw_value(int* pool, int* total, Rng* rng) noexcept nogil:
    cdef int pick = rng_below(rng, total[0]), v
    for v in range(NUM_DISC_VALUES):
        pick -= pool[v]
        if pick < 0:
            pool[v] -= 1
            total[0] -= 1
            return v
    return 0


cdef int32_t ss_observed_action(const void* ptr, int32_t a, int seat) noexcept nogil:
    """What another seat sees: a tile dealt into a hand, Objective draws and choices, Discovery draws and the token
    kept are hidden; everything else is public."""
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef int kind = a_kind(a)
    if seat == s.active:
        return a
    if kind == K_DEAL and s.phase == PH_SETUP_HAND:
        return act(K_DEAL, HIDDEN_TILE)
    if kind == K_DRAW_OBJ:
        return act(K_DRAW_OBJ, HIDDEN_CARD)
    if kind == K_OBJ_KEEP:
        return act(K_OBJ_KEEP, HIDDEN_CARD | (HIDDEN_CARD << 4))
    if kind == K_DRAW_DISC:
        return act(K_DRAW_DISC, 7)
    if kind == K_KEEP_DISC:
        return act(K_KEEP_DISC, 7)
    return a


include "small_islands_eval.pxi"


cdef void init_game(SmallIslands* s, int players) noexcept nogil:
    """Before the first chance event: the start island laid (side A, 2x2), every Landscape tile unseen."""
    cdef int k
    memset(s, 0, sizeof(SmallIslands))
    s.num_players = players
    s.phase = PH_SETUP_DISPLAY
    s.left = DISPLAY
    s.lander = -1
    s.taken_slot = -1
    s.deck_n = NUM_LAND
    s.pool = ((<uint64_t>1) << NUM_LAND) - 1
    s.obj_deck = (1 << NUM_OBJECTIVES) - 1
    s.obj_top = -1
    s.obj_top_by = -1
    s.obj_drawn[0] = s.obj_drawn[1] = -1
    for k in range(DISPLAY):
        s.display[k] = NO_SLOT
    for k in range(MAX_SEATS):
        s.obj_cur[k] = -1
        s.obj_next[k] = -1
        s.revealed[k] = -1
        if k < players:
            s.tokens[k] = 15
            s.houses_hand[k] = HOUSES_IN_HAND
            s.houses_stock[k] = HOUSES_EACH - HOUSES_IN_HAND
    s.disc_pile[0] = 2
    s.disc_pile[1] = 4
    s.disc_pile[2] = 4
    s.disc_pile[3] = 2
    place_tile(s, FIRST_START + 0, 0, 0, 0)
    place_tile(s, FIRST_START + 1, 0, 1, 0)
    place_tile(s, FIRST_START + 2, 0, 0, 1)
    place_tile(s, FIRST_START + 3, 0, 1, 1)


cdef GameVTable SMALL_ISLANDS_TABLE
SMALL_ISLANDS_TABLE.name = b"small_islands"
SMALL_ISLANDS_TABLE.state_size = sizeof(SmallIslands)
SMALL_ISLANDS_TABLE.max_players = MAX_SEATS
SMALL_ISLANDS_TABLE.max_actions = MAX_ACTIONS
SMALL_ISLANDS_TABLE.max_chance_outcomes = NUM_LAND
SMALL_ISLANDS_TABLE.num_players = ss_num_players
SMALL_ISLANDS_TABLE.current_player = ss_current_player
SMALL_ISLANDS_TABLE.legal_actions = ss_legal_actions
SMALL_ISLANDS_TABLE.chance_outcomes = ss_chance_outcomes
SMALL_ISLANDS_TABLE.apply = ss_apply
SMALL_ISLANDS_TABLE.sample_chance = ss_sample_chance
SMALL_ISLANDS_TABLE.returns = ss_returns
SMALL_ISLANDS_TABLE.scores = ss_scores
SMALL_ISLANDS_TABLE.determinize = ss_determinize
SMALL_ISLANDS_TABLE.observed_action = ss_observed_action
SMALL_ISLANDS_TABLE.utility_bounds = ss_utility_bounds
SMALL_ISLANDS_TABLE.heuristic = ss_heuristic
SMALL_ISLANDS_TABLE.other_heuristics[0] = ss_missions_heuristic
SMALL_ISLANDS_TABLE.playout_action = ss_playout_action
SMALL_ISLANDS_TABLE.private_key = ss_private_key
SMALL_ISLANDS_TABLE.other_playout_actions[0] = ss_purposeful_playout_action
SMALL_ISLANDS_TABLE.other_playout_actions[1] = ss_objectives_playout_action


cdef const GameVTable* small_islands_table() noexcept nogil:
    return &SMALL_ISLANDS_TABLE
