# cython: language_level=3
"""Kuhn poker, exactly as OpenSpiel's ``kuhn_poker`` (reference game for the search).

Parameters: ``players`` 2..10 (default 2). The deck holds ``players + 1`` cards ``0..players``.

Rules (OpenSpiel's, including its n-player generalisation):
- Everybody antes 1. Chance deals one card to seat 0, then seat 1, ...: outcome ``c`` means card ``c``, uniform over
  the cards not yet dealt. Action text ``Deal:c``.
- Then seats act in order ``0, 1, ...``; actions ``0`` = ``Pass`` and ``1`` = ``Bet`` (a bet adds 1 to the pot).
- Nobody bets: after ``players`` passes the highest card dealt takes the pot.
- Somebody bets: every other seat gets exactly one chance to answer it (the seats after the first bettor in this
  round, the seats before it in a second round); the highest card among the seats that bet wins the pot.
- Returns are OpenSpiel's zero-sum chips: the winner gets ``pot - own contribution``, everybody else loses their
  contribution. ``scores()`` reports the same chip results as integers.

Information: a seat sees its own card and every bet; no card is shown, even at the end (as OpenSpiel's information
state). A card dealt to another seat is observed as ``Deal:?`` (action id ``players + 1``).
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
from engine_ext.registry import GameInfo, SearchDefaults, draw_fields

cdef enum:
    MAX_PLAYERS = 10
    MAX_BETS = 2 * MAX_PLAYERS - 1
    PASS = 0
    BET = 1
    NOBODY = -1


cdef struct Kuhn:
    int8_t num_players
    int8_t num_dealt                # cards dealt so far; seat i holds card[i] for i < num_dealt
    int8_t card[MAX_PLAYERS]
    int8_t num_bets                 # decisions taken so far
    int8_t bets[MAX_BETS]           # PASS or BET, in the order taken
    int8_t first_bettor             # NOBODY until somebody bets
    int8_t winner                   # NOBODY until the end
    int16_t pot
    int16_t ante[MAX_PLAYERS]


cdef inline int deck_size(const Kuhn* k) noexcept nogil:
    return k.num_players + 1


cdef inline int hidden_deal(const Kuhn* k) noexcept nogil:
    """The id under which another seat's dealt card is observed."""
    return k.num_players + 1


cdef inline bint card_is_dealt(const Kuhn* k, int c) noexcept nogil:
    cdef int i
    for i in range(k.num_dealt):
        if k.card[i] == c:
            return True
    return False


cdef inline bint did_bet(const Kuhn* k, int player) noexcept nogil:
    """OpenSpiel's DidBet: the first bettor did; seats after it answered in round one, seats before it in round two."""
    if k.first_bettor == NOBODY:
        return False
    if player == k.first_bettor:
        return True
    if player > k.first_bettor:
        return k.bets[player] == BET
    return k.bets[k.num_players + player] == BET


cdef int k_num_players(const void* s) noexcept nogil:
    return (<const Kuhn*>s).num_players


cdef int k_current_player(const void* s) noexcept nogil:
    cdef const Kuhn* k = <const Kuhn*>s
    if k.winner != NOBODY:
        return TERMINAL_PLAYER
    if k.num_dealt < k.num_players:
        return CHANCE_PLAYER
    return k.num_bets % k.num_players


cdef int k_legal_actions(const void* s, int32_t* out) noexcept nogil:
    out[0] = PASS
    out[1] = BET
    return 2


cdef int k_chance_outcomes(const void* s, int32_t* actions, double* probs) noexcept nogil:
    cdef const Kuhn* k = <const Kuhn*>s
    cdef int n = 0
    cdef int c
    cdef double p = 1.0 / (deck_size(k) - k.num_dealt)
    for c in range(deck_size(k)):
        if not card_is_dealt(k, c):
            actions[n] = c
            probs[n] = p
            n += 1
    return n


cdef int32_t k_sample_chance(const void* s, Rng* rng) noexcept nogil:
    cdef const Kuhn* k = <const Kuhn*>s
    cdef int skip = rng_below(rng, deck_size(k) - k.num_dealt)
    cdef int c
    for c in range(deck_size(k)):
        if not card_is_dealt(k, c):
            if skip == 0:
                return c
            skip -= 1
    return -1


cdef void k_settle(Kuhn* k) noexcept nogil:
    """Decide the winner once the betting is over (OpenSpiel's end test after each decision)."""
    cdef int n = k.num_players
    cdef int best_card = -1
    cdef int i
    if k.first_bettor == NOBODY and k.num_bets == n:
        for i in range(n):
            if k.card[i] > best_card:
                best_card = k.card[i]
                k.winner = i
    elif k.first_bettor != NOBODY and k.num_bets == n + k.first_bettor:
        for i in range(n):
            if did_bet(k, i) and k.card[i] > best_card:
                best_card = k.card[i]
                k.winner = i


cdef void k_apply(void* s, int32_t action) noexcept nogil:
    cdef Kuhn* k = <Kuhn*>s
    cdef int player
    if k.num_dealt < k.num_players:
        k.card[k.num_dealt] = action
        k.num_dealt += 1
        return
    player = k.num_bets % k.num_players
    if action == BET:
        if k.first_bettor == NOBODY:
            k.first_bettor = player
        k.pot += 1
        k.ante[player] += 1
    k.bets[k.num_bets] = action
    k.num_bets += 1
    k_settle(k)


cdef void k_returns(const void* s, double* out) noexcept nogil:
    cdef const Kuhn* k = <const Kuhn*>s
    cdef int p
    for p in range(k.num_players):
        if k.winner == NOBODY:
            out[p] = 0
        elif p == k.winner:
            out[p] = k.pot - k.ante[p]
        else:
            out[p] = -k.ante[p]


cdef void k_scores(const void* s, int32_t* out) noexcept nogil:
    cdef double r[MAX_PLAYERS]
    k_returns(s, r)
    cdef int p
    for p in range((<const Kuhn*>s).num_players):
        out[p] = <int32_t>r[p]


cdef int32_t k_private_key(const void* s, int seat) noexcept nogil:
    """What ``seat`` alone knows: its card, -1 before it is dealt."""
    cdef const Kuhn* k = <const Kuhn*>s
    return k.card[seat] if seat < k.num_dealt else -1


cdef void k_determinize(void* s, int seat, Rng* rng) noexcept nogil:
    """Deal every other dealt seat a card from the deck minus ``seat``'s own card (all other cards are unseen)."""
    cdef Kuhn* k = <Kuhn*>s
    cdef int8_t pool[MAX_PLAYERS + 1]
    cdef int pool_size = 0
    cdef int own = k.card[seat] if seat < k.num_dealt else -1
    cdef int c, p, pick
    for c in range(deck_size(k)):
        if c != own:
            pool[pool_size] = c
            pool_size += 1
    for p in range(k.num_dealt):
        if p == seat:
            continue
        pick = rng_below(rng, pool_size)
        k.card[p] = pool[pick]
        pool_size -= 1
        pool[pick] = pool[pool_size]
    k_settle_after_resample(k)


cdef void k_settle_after_resample(Kuhn* k) noexcept nogil:
    """A resampled world at the end of the game gets the winner its cards imply."""
    if k.winner != NOBODY:
        k.winner = NOBODY
        k_settle(k)


cdef int32_t k_observed_action(const void* s, int32_t action, int seat) noexcept nogil:
    cdef const Kuhn* k = <const Kuhn*>s
    if k.num_dealt < k.num_players and seat != k.num_dealt:
        return hidden_deal(k)
    return action


cdef void k_utility_bounds(const void* s, double* lowest, double* highest) noexcept nogil:
    """Everybody bets: a loser pays 2, the winner collects 2 from each other seat."""
    lowest[0] = -2
    highest[0] = 2 * ((<const Kuhn*>s).num_players - 1)


cdef GameVTable KUHN_TABLE
KUHN_TABLE.name = b"kuhn_poker"
KUHN_TABLE.state_size = sizeof(Kuhn)
KUHN_TABLE.max_players = MAX_PLAYERS
KUHN_TABLE.max_actions = 2
KUHN_TABLE.max_chance_outcomes = MAX_PLAYERS + 1
KUHN_TABLE.num_players = k_num_players
KUHN_TABLE.current_player = k_current_player
KUHN_TABLE.legal_actions = k_legal_actions
KUHN_TABLE.chance_outcomes = k_chance_outcomes
KUHN_TABLE.apply = k_apply
KUHN_TABLE.sample_chance = k_sample_chance
KUHN_TABLE.returns = k_returns
KUHN_TABLE.scores = k_scores
KUHN_TABLE.determinize = k_determinize
KUHN_TABLE.observed_action = k_observed_action
KUHN_TABLE.utility_bounds = k_utility_bounds
KUHN_TABLE.heuristic = NULL
KUHN_TABLE.private_key = k_private_key
KUHN_TABLE.playout_action = NULL

ACTION_NAMES = ("Pass", "Bet")


cdef class KuhnState(State):
    """A Kuhn poker position; see the module docstring for the rules."""

    def __cinit__(self):
        self.attach(&KUHN_TABLE)

    cdef Kuhn* k(self):
        return <Kuhn*>self.buf

    def action_to_string(self, int32_t action):
        cdef Kuhn* k = self.k()
        if k.winner == NOBODY and k.num_dealt < k.num_players:
            return "Deal:?" if action == hidden_deal(k) else f"Deal:{action}"
        if action in (PASS, BET):
            return ACTION_NAMES[action]
        raise IllegalAction(f"{action} is not a Kuhn poker betting action (0 = Pass, 1 = Bet)")

    def _parse_move_text(self, str text):
        cdef Kuhn* k = self.k()
        cleaned = text.strip().lower()
        if k.winner == NOBODY and k.num_dealt < k.num_players:
            if cleaned.startswith("deal:") and cleaned[5:].isdigit():
                return int(cleaned[5:])
            raise ValueError(f"a chance node takes 'Deal:<card>' with a card 0..{k.num_players}")
        for action, name in enumerate(ACTION_NAMES):
            if cleaned == name.lower():
                return action
        raise ValueError("Kuhn poker moves are 'Pass' and 'Bet'")

    def history_string(self):
        """The bets so far as OpenSpiel writes them in an information state: ``p`` pass, ``b`` bet."""
        cdef Kuhn* k = self.k()
        return "".join("b" if k.bets[i] == BET else "p" for i in range(k.num_bets))

    def to_json(self):
        cdef Kuhn* k = self.k()
        return json.dumps(
            {
                "game": "kuhn_poker",
                "players": k.num_players,
                "cards": [k.card[i] for i in range(k.num_dealt)],
                "bets": [k.bets[i] for i in range(k.num_bets)],
            },
            separators=(",", ":"),
        )

    def observation(self, int seat):
        self.check_seat(seat)
        cdef Kuhn* k = self.k()
        return {
            "game": "kuhn_poker",
            "players": k.num_players,
            "seat": seat,
            "cards_dealt": k.num_dealt,
            "private_card": k.card[seat] if seat < k.num_dealt else None,
            "bets": [k.bets[i] for i in range(k.num_bets)],
            "pot": k.pot,
            "contributions": [k.ante[i] for i in range(k.num_players)],
            "current_player": self.current_player(),
        }

    def private_info(self, int seat):
        self.check_seat(seat)
        cdef Kuhn* k = self.k()
        return {"card": k.card[seat]} if seat < k.num_dealt else {}

    def __str__(self):
        cdef Kuhn* k = self.k()
        cards = " ".join(str(k.card[i]) if i < k.num_dealt else "-" for i in range(k.num_players))
        status = "over" if k.winner != NOBODY else f"to act: {self.current_player()}"
        return f"Kuhn poker | cards {cards} | bets {self.history_string() or '-'} | pot {k.pot} | {status}"

    def __repr__(self):
        return f"<KuhnState {self.to_json()}>"


def new_game(int players=2, long seed=0):
    """A new deal before any card is dealt. ``seed`` is accepted for the common signature; the game has no
    randomness outside its chance nodes."""
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"kuhn_poker takes 2..{MAX_PLAYERS} players, not {players}")
    cdef KuhnState state = KuhnState.__new__(KuhnState)
    cdef Kuhn* k = <Kuhn*>state.buf
    k.num_players = players
    k.first_bettor = NOBODY
    k.winner = NOBODY
    k.pot = players
    for p in range(players):
        k.ante[p] = 1
    return state


def _replay(int players, cards, bets, str field_prefix):
    """A state reached by dealing ``cards`` and then taking ``bets``; every step is checked."""
    state = new_game(players)
    for i, c in enumerate(cards):
        if not isinstance(c, int):
            raise InvalidObservation(f"{field_prefix}cards[{i}]", f"{c!r} is not a card")
        try:
            state.apply(c)
        except IllegalAction as err:
            raise InvalidObservation(f"{field_prefix}cards[{i}]", str(err)) from None
    for i, b in enumerate(bets):
        if state.current_player() < 0 or not isinstance(b, int):
            raise InvalidObservation(f"{field_prefix}bets[{i}]", f"bet {b!r} cannot be taken here")
        try:
            state.apply(b)
        except IllegalAction as err:
            raise InvalidObservation(f"{field_prefix}bets[{i}]", str(err)) from None
    return state


def from_json(str text):
    """The state ``to_json`` wrote (validated by replaying it)."""
    data = json.loads(text)
    if data.get("game") != "kuhn_poker":
        raise ValueError("not a kuhn_poker state")
    players = data.get("players")
    if not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"players: expected 2..{MAX_PLAYERS}, got {players!r}")
    return _replay(players, data.get("cards", []), data.get("bets", []), "")


def from_observation(dict obs):
    """A determinizable state consistent with one seat's ``observation``: the unseen cards get arbitrary values."""
    players = obs.get("players")
    if not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise InvalidObservation("players", f"expected 2..{MAX_PLAYERS}, got {players!r}")
    seat = obs.get("seat")
    if not isinstance(seat, int) or not 0 <= seat < players:
        raise InvalidObservation("seat", f"expected 0..{players - 1}, got {seat!r}")
    dealt = obs.get("cards_dealt")
    if not isinstance(dealt, int) or not 0 <= dealt <= players:
        raise InvalidObservation("cards_dealt", f"expected 0..{players}, got {dealt!r}")
    own = obs.get("private_card")
    if (seat < dealt) != (own is not None):
        raise InvalidObservation("private_card", "must be given exactly when this seat's card has been dealt")
    if own is not None and (not isinstance(own, int) or not 0 <= own <= players):
        raise InvalidObservation("private_card", f"expected a card 0..{players}, got {own!r}")
    others = iter(c for c in range(players + 1) if c != own)
    cards = [own if p == seat else next(others) for p in range(dealt)]
    bets = obs.get("bets", [])
    if bets and dealt < players:
        raise InvalidObservation("bets", "no betting happens before every card is dealt")
    state = _replay(players, cards, bets, "")
    if state.observation(seat) != obs:
        raise InvalidObservation("observation", "fields contradict each other (pot, contributions or turn)")
    return state


GAME_INFOS = (
    GameInfo(
        name="kuhn_poker",
        title="Kuhn poker",
        description="Kuhn poker exactly as OpenSpiel's kuhn_poker",
        min_players=2,
        max_players=MAX_PLAYERS,
        module=sys.modules[__name__],
        draw=draw_fields,
        returns_are_win_shares=False,
        options=(),
        # Strength levels (docs/benchmarks.md, "Strength levels"): with private roots (below) the search gains up to
        # about 100 iterations, and the top is the setting measured to beat its budget (scaled exploration, constant
        # 2, at 300). Screened over 2,000 deal groups (mean chips a hand): 30 vs greedy +0.135 [0.122, 0.148], 100 vs
        # 30 +0.011 [0.006, 0.017], 300 vs 100 -0.007, scaled 300 vs 300 +0.060 [0.052, 0.067] (2026-12-02).
        bot_levels=(
            {"algorithm": "random"},
            {"algorithm": "greedy"},
            {"algorithm": "ismcts", "iterations": 30},
            {"algorithm": "ismcts", "iterations": 100},
            {"algorithm": "ismcts", "iterations": 300, "scaled_exploration": True, "exploration": 2.0},
        ),
        # The opponents' trees branch first on their own card (private_roots), so the search's opponents call and fold
        # by their cards: at 3,000 iterations against the same search without it +0.053 chips a hand [0.047, 0.060], at
        # level 5's settings +0.051 [0.044, 0.058] (2,000 deal groups each, docs/experiments/cross-game.md "Private
        # roots"). Worlds weighted by the beliefs the opponent's moves give (beliefs): +0.003 [0.001, 0.005] at 3,000.
        search_defaults=SearchDefaults(private_roots=True, beliefs=True),
        private_key_fixed=True,
    ),
)
