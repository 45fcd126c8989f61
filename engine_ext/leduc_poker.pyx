# cython: language_level=3
"""Leduc poker, exactly as OpenSpiel's ``leduc_poker`` with its default options (reference game for the search).

Parameters: ``players`` 2..10 (default 2), ``starting_player`` (default 0). ``action_mapping`` and
``suit_isomorphism`` keep OpenSpiel's defaults (off) and are not offered.

Rules (OpenSpiel's):
- Deck of ``2 * (players + 1)`` cards ``0..``; card ``c`` has rank ``c // 2`` and suit ``c % 2``. Everybody antes 1
  and starts with 100 chips.
- Chance deals one private card to each seat in order (outcome = card id, uniform over the cards left), then the
  first betting round, then one public card (same encoding), then the second betting round.
- Actions ``0`` = ``Fold`` (only when facing a bet), ``1`` = ``Call`` (check when nothing to call), ``2`` = ``Raise``
  (at most 2 raises per round; 2 chips in round 1, 4 in round 2). Each round starts with ``starting_player`` or the
  next seat still in. A round ends when, with no raise, every seat still in has called, or, after a raise, every other
  seat still in has called.
- The hand ends when one seat is left (it takes the pot) or after the second round (showdown: a pair with the public
  card beats any non-pair; otherwise higher rank, then the other card's rank; equal hands split the pot).
- Returns: chips at the end minus 100 (split pots can be fractional). ``scores()``: the same, truncated to integers.

Information: a seat sees its own card, the public card and every bet (so every contribution to the pot); other
seats' cards are never shown, and nor is the showdown's payout, which would reveal them. A private card dealt to
another seat is observed as ``Chance outcome:?`` (action id ``2 * (players + 1)``).
"""

import json
import sys

from libc.stdint cimport int8_t, int16_t, int32_t

from engine_ext.core cimport (
    CHANCE_PLAYER,
    TERMINAL_PLAYER,
    GameVTable,
    Rng,
    State,
    rng_below,
)

from engine_ext.core import IllegalAction, InvalidObservation
from engine_ext.registry import GameInfo, GameOption, SearchDefaults, draw_fields

cdef enum:
    MAX_PLAYERS = 10
    MAX_CARDS = 2 * (MAX_PLAYERS + 1)
    MAX_BETS_PER_ROUND = 3 * MAX_PLAYERS - 2
    FOLD = 0
    CALL = 1
    RAISE = 2
    NO_CARD = -1
    MAX_RAISES = 2
    FIRST_RAISE = 2
    SECOND_RAISE = 4
    STARTING_MONEY = 100


cdef struct Leduc:
    int8_t num_players
    int8_t starting_player
    int8_t cur_player             # seat to act or CHANCE_PLAYER (terminal is derived)
    int8_t round                  # 1 or 2
    int8_t num_calls
    int8_t num_raises
    int8_t remaining_players
    int8_t private_dealt
    int8_t public_card
    int8_t private_card[MAX_PLAYERS]
    int8_t folded[MAX_PLAYERS]
    int8_t settled                # the pot has been paid out
    int8_t seq_len[2]
    int8_t seq[2][MAX_BETS_PER_ROUND]
    int16_t stakes
    int16_t pot
    int16_t ante[MAX_PLAYERS]
    double money[MAX_PLAYERS]


cdef inline int num_cards(const Leduc* g) noexcept nogil:
    return 2 * (g.num_players + 1)


cdef inline bint card_in_deck(const Leduc* g, int c) noexcept nogil:
    cdef int p
    if g.public_card == c:
        return False
    for p in range(g.private_dealt):
        if g.private_card[p] == c:
            return False
    return True


cdef inline bint ready_for_next_round(const Leduc* g) noexcept nogil:
    return ((g.num_raises == 0 and g.num_calls == g.remaining_players)
            or (g.num_raises > 0 and g.num_calls == g.remaining_players - 1))


cdef inline bint is_terminal(const Leduc* g) noexcept nogil:
    return g.remaining_players == 1 or (g.round == 2 and ready_for_next_round(g))


cdef int next_player(const Leduc* g) noexcept nogil:
    cdef int start = g.cur_player
    cdef int i, p
    if g.cur_player == CHANCE_PLAYER:
        start = (g.starting_player + g.num_players - 1) % g.num_players
    for i in range(1, g.num_players + 1):
        p = (start + i) % g.num_players
        if not g.folded[p]:
            return p
    return -1


cdef int rank_hand(const Leduc* g, int player) noexcept nogil:
    """OpenSpiel's RankHand: pairs above every high-card hand, then the higher card's rank, then the lower's."""
    cdef int low = g.public_card
    cdef int high = g.private_card[player]
    cdef int n = num_cards(g)
    if low > high:
        low, high = high, low
    if low % 2 == 0 and high == low + 1:
        return n * n + low
    return (high // 2) * n + (low // 2)


cdef void ante(Leduc* g, int player, int amount) noexcept nogil:
    g.pot += amount
    g.ante[player] += amount
    g.money[player] -= amount


cdef void resolve_winner(Leduc* g) noexcept nogil:
    cdef int p, q, rank
    cdef int best = -1
    cdef int winners = 0
    cdef int8_t is_winner[MAX_PLAYERS]
    for p in range(g.num_players):
        is_winner[p] = 0
    if g.remaining_players == 1:
        for p in range(g.num_players):
            if not g.folded[p]:
                g.money[p] += g.pot
                break
    else:
        for p in range(g.num_players):
            if g.folded[p]:
                continue
            rank = rank_hand(g, p)
            if rank > best:
                best = rank
                for q in range(g.num_players):
                    is_winner[q] = 0
                is_winner[p] = 1
                winners = 1
            elif rank == best:
                is_winner[p] = 1
                winners += 1
        for p in range(g.num_players):
            if is_winner[p]:
                g.money[p] += <double>g.pot / winners
    g.pot = 0
    g.settled = 1


cdef void append_move(Leduc* g, int action) noexcept nogil:
    cdef int r = g.round - 1
    g.seq[r][g.seq_len[r]] = action
    g.seq_len[r] += 1


cdef void after_bet(Leduc* g, bint may_end_round) noexcept nogil:
    if is_terminal(g):
        resolve_winner(g)
    elif may_end_round and ready_for_next_round(g):
        g.round += 1
        g.num_raises = 0
        g.num_calls = 0
        g.cur_player = CHANCE_PLAYER
    else:
        g.cur_player = next_player(g)


cdef int l_num_players(const void* s) noexcept nogil:
    return (<const Leduc*>s).num_players


cdef int l_current_player(const void* s) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    if is_terminal(g):
        return TERMINAL_PLAYER
    return g.cur_player


cdef int l_legal_actions(const void* s, int32_t* out) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    cdef int n = 0
    if g.stakes > g.ante[g.cur_player]:
        out[n] = FOLD
        n += 1
    out[n] = CALL
    n += 1
    if g.num_raises < MAX_RAISES:
        out[n] = RAISE
        n += 1
    return n


cdef int l_chance_outcomes(const void* s, int32_t* actions, double* probs) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    cdef int n = 0
    cdef int c
    for c in range(num_cards(g)):
        if card_in_deck(g, c):
            actions[n] = c
            n += 1
    for c in range(n):
        probs[c] = 1.0 / n
    return n


cdef int32_t l_sample_chance(const void* s, Rng* rng) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    cdef int left = num_cards(g) - g.private_dealt - (1 if g.public_card != NO_CARD else 0)
    cdef int skip = rng_below(rng, left)
    cdef int c
    for c in range(num_cards(g)):
        if card_in_deck(g, c):
            if skip == 0:
                return c
            skip -= 1
    return -1


cdef void l_apply(void* s, int32_t action) noexcept nogil:
    cdef Leduc* g = <Leduc*>s
    cdef int p = g.cur_player
    cdef int call_amount
    if p == CHANCE_PLAYER:
        if g.private_dealt < g.num_players:
            g.private_card[g.private_dealt] = action
            g.private_dealt += 1
            if g.private_dealt == g.num_players:
                g.cur_player = g.starting_player
        else:
            g.public_card = action
            g.cur_player = next_player(g)
        return
    if action == FOLD:
        append_move(g, FOLD)
        g.folded[p] = 1
        g.remaining_players -= 1
        after_bet(g, True)
    elif action == CALL:
        ante(g, p, g.stakes - g.ante[p])
        g.num_calls += 1
        append_move(g, CALL)
        after_bet(g, True)
    else:
        call_amount = g.stakes - g.ante[p]
        if call_amount > 0:
            ante(g, p, call_amount)
        call_amount = FIRST_RAISE if g.round == 1 else SECOND_RAISE
        g.stakes += call_amount
        ante(g, p, call_amount)
        g.num_raises += 1
        g.num_calls = 0
        append_move(g, RAISE)
        after_bet(g, False)


cdef void l_returns(const void* s, double* out) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    cdef int p
    for p in range(g.num_players):
        out[p] = g.money[p] - STARTING_MONEY if g.settled else 0.0


cdef void l_scores(const void* s, int32_t* out) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    cdef int p
    for p in range(g.num_players):
        out[p] = <int32_t>(g.money[p] - STARTING_MONEY)


cdef int32_t l_private_key(const void* s, int seat) noexcept nogil:
    """What ``seat`` alone knows: the rank of its private card (the suits play alike), -1 before it is dealt."""
    cdef const Leduc* g = <const Leduc*>s
    return g.private_card[seat] // 2 if seat < g.private_dealt else -1


cdef void l_determinize(void* s, int seat, Rng* rng) noexcept nogil:
    """Deal the other dealt seats cards from the deck minus ``seat``'s card and the public card."""
    cdef Leduc* g = <Leduc*>s
    cdef int8_t pool[MAX_CARDS]
    cdef int pool_size = 0
    cdef int own = g.private_card[seat] if seat < g.private_dealt else NO_CARD
    cdef int c, p, pick
    cdef bint was_settled = g.settled
    for c in range(num_cards(g)):
        if c != own and c != g.public_card:
            pool[pool_size] = c
            pool_size += 1
    for p in range(g.private_dealt):
        if p == seat:
            continue
        pick = rng_below(rng, pool_size)
        g.private_card[p] = pool[pick]
        pool_size -= 1
        pool[pick] = pool[pool_size]
    if was_settled and g.remaining_players > 1:
        # A showdown in the resampled world pays out by the resampled cards.
        for p in range(g.num_players):
            g.money[p] = STARTING_MONEY - g.ante[p]
            g.pot += g.ante[p]
        resolve_winner(g)


cdef int32_t l_observed_action(const void* s, int32_t action, int seat) noexcept nogil:
    cdef const Leduc* g = <const Leduc*>s
    if g.cur_player == CHANCE_PLAYER and g.private_dealt < g.num_players and seat != g.private_dealt:
        return num_cards(g)
    return action


cdef void l_utility_bounds(const void* s, double* lowest, double* highest) noexcept nogil:
    """OpenSpiel's MinUtility / MaxUtility: 2 raises of 2 and 2 of 4 plus the ante, per opponent for the winner."""
    lowest[0] = -(MAX_RAISES * FIRST_RAISE + MAX_RAISES * SECOND_RAISE + 1)
    highest[0] = ((<const Leduc*>s).num_players - 1) * (MAX_RAISES * FIRST_RAISE + MAX_RAISES * SECOND_RAISE + 1)


cdef GameVTable LEDUC_TABLE
LEDUC_TABLE.name = b"leduc_poker"
LEDUC_TABLE.state_size = sizeof(Leduc)
LEDUC_TABLE.max_players = MAX_PLAYERS
LEDUC_TABLE.max_actions = 3
LEDUC_TABLE.max_chance_outcomes = MAX_CARDS
LEDUC_TABLE.num_players = l_num_players
LEDUC_TABLE.current_player = l_current_player
LEDUC_TABLE.legal_actions = l_legal_actions
LEDUC_TABLE.chance_outcomes = l_chance_outcomes
LEDUC_TABLE.apply = l_apply
LEDUC_TABLE.sample_chance = l_sample_chance
LEDUC_TABLE.returns = l_returns
LEDUC_TABLE.scores = l_scores
LEDUC_TABLE.determinize = l_determinize
LEDUC_TABLE.observed_action = l_observed_action
LEDUC_TABLE.utility_bounds = l_utility_bounds
LEDUC_TABLE.heuristic = NULL
LEDUC_TABLE.private_key = l_private_key
LEDUC_TABLE.playout_action = NULL

ACTION_NAMES = ("Fold", "Call", "Raise")


cdef class LeducState(State):
    """A Leduc poker position; see the module docstring for the rules."""

    def __cinit__(self):
        self.attach(&LEDUC_TABLE)

    cdef Leduc* g(self):
        return <Leduc*>self.buf

    def action_to_string(self, int32_t action):
        cdef Leduc* g = self.g()
        if l_current_player(g) == CHANCE_PLAYER:
            return "Chance outcome:?" if action == num_cards(g) else f"Chance outcome:{action}"
        if action in (FOLD, CALL, RAISE):
            return ACTION_NAMES[action]
        raise IllegalAction(f"{action} is not a Leduc poker action (0 = Fold, 1 = Call, 2 = Raise)")

    def _parse_move_text(self, str text):
        cdef Leduc* g = self.g()
        cleaned = text.strip().lower()
        if l_current_player(g) == CHANCE_PLAYER:
            prefix = "chance outcome:"
            if cleaned.startswith(prefix) and cleaned[len(prefix):].strip().isdigit():
                return int(cleaned[len(prefix):])
            raise ValueError("a chance node takes 'Chance outcome:<card>'")
        for action, name in enumerate(ACTION_NAMES):
            if cleaned == name.lower():
                return action
        raise ValueError("Leduc poker moves are 'Fold', 'Call' and 'Raise'")

    def _public_fields(self):
        cdef Leduc* g = self.g()
        return {
            "round": g.round,
            "public_card": g.public_card if g.public_card != NO_CARD else None,
            "round1": [g.seq[0][i] for i in range(g.seq_len[0])],
            "round2": [g.seq[1][i] for i in range(g.seq_len[1])],
            "pot": g.pot,
            "contributions": [g.ante[p] for p in range(g.num_players)],
            "folded": [bool(g.folded[p]) for p in range(g.num_players)],
            "current_player": self.current_player(),
        }

    def to_json(self):
        cdef Leduc* g = self.g()
        return json.dumps(
            {
                "game": "leduc_poker",
                "players": g.num_players,
                "starting_player": g.starting_player,
                "private_cards": [g.private_card[p] for p in range(g.private_dealt)],
                "public_card": g.public_card if g.public_card != NO_CARD else None,
                "round1": [g.seq[0][i] for i in range(g.seq_len[0])],
                "round2": [g.seq[1][i] for i in range(g.seq_len[1])],
            },
            separators=(",", ":"),
        )

    def observation(self, int seat):
        self.check_seat(seat)
        cdef Leduc* g = self.g()
        obs = {
            "game": "leduc_poker",
            "players": g.num_players,
            "starting_player": g.starting_player,
            "seat": seat,
            "cards_dealt": g.private_dealt,
            "private_card": g.private_card[seat] if seat < g.private_dealt else None,
        }
        obs.update(self._public_fields())
        return obs

    def private_info(self, int seat):
        self.check_seat(seat)
        cdef Leduc* g = self.g()
        return {"card": g.private_card[seat]} if seat < g.private_dealt else {}

    def __str__(self):
        cdef Leduc* g = self.g()
        privates = " ".join(str(g.private_card[p]) if p < g.private_dealt else "-" for p in range(g.num_players))
        public = "-" if g.public_card == NO_CARD else str(g.public_card)
        r1 = "".join("fcr"[g.seq[0][i]] for i in range(g.seq_len[0])) or "-"
        r2 = "".join("fcr"[g.seq[1][i]] for i in range(g.seq_len[1])) or "-"
        status = "over" if is_terminal(g) else f"to act: {self.current_player()}"
        return (f"Leduc poker | round {g.round} | private {privates} | public {public} | "
                f"bets {r1} / {r2} | pot {g.pot} | {status}")

    def __repr__(self):
        return f"<LeducState {self.to_json()}>"


def new_game(int players=2, long seed=0, int starting_player=0):
    """A new hand before any card is dealt. ``seed`` is accepted for the common signature; the game has no
    randomness outside its chance nodes."""
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"leduc_poker takes 2..{MAX_PLAYERS} players, not {players}")
    if not 0 <= starting_player < players:
        raise ValueError(f"starting_player must be a seat 0..{players - 1}, not {starting_player}")
    cdef LeducState state = LeducState.__new__(LeducState)
    cdef Leduc* g = <Leduc*>state.buf
    g.num_players = players
    g.starting_player = starting_player
    g.cur_player = CHANCE_PLAYER
    g.round = 1
    g.stakes = 1
    g.pot = players
    g.remaining_players = players
    g.public_card = NO_CARD
    for p in range(players):
        g.ante[p] = 1
        g.money[p] = STARTING_MONEY - 1
    return state


def _replay(int players, int starting_player, private_cards, public_card, round1, round2):
    """The state reached by the given deal and bets; raises ``InvalidObservation`` naming the bad field."""
    state = new_game(players, starting_player=starting_player)
    steps = [(f"private_cards[{i}]", c) for i, c in enumerate(private_cards)]
    steps += [(f"round1[{i}]", b) for i, b in enumerate(round1)]
    if public_card is not None:
        steps.append(("public_card", public_card))
    elif round2:
        raise InvalidObservation("round2", "the second round cannot start before the public card")
    steps += [(f"round2[{i}]", b) for i, b in enumerate(round2)]
    for field, action in steps:
        if not isinstance(action, int) or isinstance(action, bool):
            raise InvalidObservation(field, f"{action!r} is not an action id")
        try:
            state.apply(action)
        except IllegalAction as err:
            raise InvalidObservation(field, str(err)) from None
    return state


def _checked_players(data, error):
    players = data.get("players")
    if not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise error("players", f"expected 2..{MAX_PLAYERS}, got {players!r}")
    starting = data.get("starting_player", 0)
    if not isinstance(starting, int) or not 0 <= starting < players:
        raise error("starting_player", f"expected a seat 0..{players - 1}, got {starting!r}")
    return players, starting


def _field_error(field, message):
    return ValueError(f"{field}: {message}")


def from_json(str text):
    """The state ``to_json`` wrote (validated by replaying it)."""
    data = json.loads(text)
    if data.get("game") != "leduc_poker":
        raise ValueError("not a leduc_poker state")
    players, starting = _checked_players(data, _field_error)
    return _replay(players, starting, data.get("private_cards", []), data.get("public_card"),
                   data.get("round1", []), data.get("round2", []))


def from_observation(dict obs):
    """A determinizable state consistent with one seat's ``observation``: unseen cards get arbitrary values."""
    players, starting = _checked_players(obs, InvalidObservation)
    seat = obs.get("seat")
    if not isinstance(seat, int) or not 0 <= seat < players:
        raise InvalidObservation("seat", f"expected 0..{players - 1}, got {seat!r}")
    dealt = obs.get("cards_dealt")
    if not isinstance(dealt, int) or not 0 <= dealt <= players:
        raise InvalidObservation("cards_dealt", f"expected 0..{players}, got {dealt!r}")
    own = obs.get("private_card")
    public = obs.get("public_card")
    deck = 2 * (players + 1)
    if (seat < dealt) != (own is not None):
        raise InvalidObservation("private_card", "must be given exactly when this seat's card has been dealt")
    for field, card in (("private_card", own), ("public_card", public)):
        if card is not None and (not isinstance(card, int) or not 0 <= card < deck):
            raise InvalidObservation(field, f"expected a card 0..{deck - 1}, got {card!r}")
    if own is not None and own == public:
        raise InvalidObservation("public_card", "the public card cannot be this seat's own card")
    others = iter(c for c in range(deck) if c != own and c != public)
    cards = [own if p == seat else next(others) for p in range(dealt)]
    state = _replay(players, starting, cards, public, obs.get("round1", []), obs.get("round2", []))
    if state.observation(seat) != obs:
        raise InvalidObservation("observation", "fields contradict each other (pot, contributions, folds or turn)")
    return state


GAME_INFOS = (
    GameInfo(
        name="leduc_poker",
        title="Leduc poker",
        description="Leduc poker exactly as OpenSpiel's leduc_poker (default options)",
        min_players=2,
        max_players=MAX_PLAYERS,
        module=sys.modules[__name__],
        draw=draw_fields,
        returns_are_win_shares=False,
        options=(
            GameOption("starting_player", int, 0, "the seat that opens both betting rounds",
                       low=0, high=MAX_PLAYERS - 1),
        ),
        # Strength levels (docs/benchmarks.md, "Strength levels"): without private roots iterations stopped paying at
        # about 100 here, and with more of them the default UCB constant (0.7) lost; 1,000 iterations at 0.3 beat 100
        # at 0.7 (+0.161 [0.087, 0.236], picked from six candidates over 2,000 groups; +0.257 [0.190, 0.323] on other
        # deals). With private roots each step beat the one below (2,000 groups, --seed 13): greedy vs random +1.805
        # [1.669, 1.941], 30 vs greedy +0.617 [0.487, 0.747], 100 vs 30 +0.728 [0.634, 0.821], 1,000 at 0.3 vs 100
        # +0.527 [0.461, 0.592].
        bot_levels=(
            {"algorithm": "random"},
            {"algorithm": "greedy"},
            {"algorithm": "ismcts", "iterations": 30},
            {"algorithm": "ismcts", "iterations": 100},
            {"algorithm": "ismcts", "iterations": 1_000, "exploration": 0.3},
        ),
        # The opponents' trees branch first on the rank of their own card (private_roots): at 1,000 iterations against
        # the same search without it +0.279 chips a hand [0.195, 0.362] (UCB 0.7) and +0.302 [0.255, 0.349] (UCB 0.3);
        # at 100 iterations level, -0.017 [-0.081, 0.048] (docs/experiments/cross-game.md "Private roots"). Worlds
        # weighted by the beliefs the opponent's moves give (beliefs), 8,000 deal groups, UCB 0.3: +0.025 [0.009, 0.041]
        # at 1,000 iterations, +0.057 [0.033, 0.081] at 3,000.
        search_defaults=SearchDefaults(private_roots=True, beliefs=True),
        private_key_fixed=True,
    ),
)
