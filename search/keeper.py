"""``TreeKeeper``: one seat's kept trees and beliefs between its searches in one game (tree reuse, the belief
filter)."""

from __future__ import annotations

import engine_ext
from search import mcts
from search.config import BELIEF_FLOOR, BELIEF_KEYS


class TreeKeeper:
    """Tree reuse and beliefs for one seat in one game: the trees each search thread leaves (``mcts.Forest``), what
    the seat observed of every move since the last search and who made it, and the seat's beliefs about the other
    seats' private keys. The game loop calls ``observe`` before applying each move (chance included) and passes the
    keeper to ``suggest``; a search with ``reuse`` then starts from the subtree those observations lead to, and one
    with ``beliefs`` first weighs each other seat's keys by its moves since. A keeper never reads more than the seat
    observes: the observed action ids are exactly what the seat's own tree is keyed by, and who moves is public."""

    def __init__(self, seat: int):
        self.seat = seat
        self.forests: list[mcts.Forest] = []
        self.path: list[int] = []
        self.movers: list[int] = []
        self.fingerprint: tuple | None = None
        self.beliefs: dict[int, list[float]] = {}  # seat -> weight of each private key (max 1)
        # A game whose beliefs come from what moves show (GameInfo.key_evidence): set by the first search with
        # ``beliefs``; from then on every other seat's move is weighed as it is observed.
        self.evidence: engine_ext.GameInfo | None = None
        # A game whose beliefs are a filter over whole worlds (GameInfo.belief_filter): started by the first search
        # with ``beliefs``; from then on it sees every move as this seat observes it.
        self.filter = None

    def observe(self, state: engine_ext.State, action: int) -> None:
        """Record ``action``, about to be applied to ``state``, as this seat observes it."""
        if self.fingerprint is not None:
            self.path.append(state.observed_action(action, self.seat))
            self.movers.append(state.current_player())
        if self.evidence is not None:
            self.weigh_move(state, action)
        if self.filter is not None:
            self.filter.observe(state, action)

    def start_evidence(self, info: engine_ext.GameInfo, state: engine_ext.State, seed: int) -> None:
        """From this decision of the seat's on, learn from what the other seats' moves show: weigh each move by
        ``info.key_evidence``, or start ``info.belief_filter`` at ``state`` (once; ``seed`` seeds its worlds)."""
        if info.key_evidence is not None:
            self.evidence = info
        elif info.belief_filter is not None and self.filter is None:
            self.filter = info.belief_filter(state, self.seat, seed)

    def weigh_move(self, state: engine_ext.State, action: int) -> None:
        """Beliefs from what a move shows (games with ``GameInfo.key_evidence``): a move that renews its mover's key
        forgets what was learnt of it; one that hints at it multiplies the mover's weights by its likelihood under
        each key, computed on the position as this seat observes it (its observation, loaded), never the state."""
        mover = state.current_player()
        if mover < 0 or mover == self.seat:
            return
        observed = state.observed_action(action, self.seat)
        what = self.evidence.evidence_move(observed)
        if what == "renew":
            self.beliefs.pop(mover, None)
        elif what == "weigh":
            view = self.evidence.from_observation(state.observation(self.seat))
            likelihood = self.evidence.key_evidence(view, mover, observed)
            if likelihood:
                weights = self.beliefs.setdefault(mover, [1.0] * len(likelihood))
                weights[:] = [w * p for w, p in zip(weights, likelihood, strict=True)]
                top = max(weights)
                weights[:] = [max(BELIEF_FLOOR, w / top) for w in weights]

    def update_beliefs(self) -> None:
        """Weigh each other seat's private keys by its moves since the last search, as that search's trees for the
        seat answered under each key (visit shares at the node the move was made at, smoothed by one visit; a key
        whose branch never reached it takes the mean of the others). A seat's tree is followed by what this seat
        observed of each move, so past a chance event the other seat saw differently (a card dealt to it) the tree
        has no such line and nothing more is learnt until the next search; past a public one (Leduc's shared card)
        it goes on."""
        forest = self.forests[0] if self.forests else None
        if forest is None or not forest.nodes:
            return
        for i, mover in enumerate(self.movers):
            if mover < 0 or mover == self.seat:
                continue
            action, prefix = self.path[i], self.path[:i]
            likelihood = {}
            for key in range(BELIEF_KEYS):
                children = forest.policy(mover, key, prefix)
                if children:
                    total = sum(visits for _, visits in children)
                    chosen = sum(visits for move, visits in children if move == action)
                    likelihood[key] = (chosen + 1) / (total + len(children))
            if not likelihood:
                continue
            mean = sum(likelihood.values()) / len(likelihood)
            weights = self.beliefs.setdefault(mover, [1.0] * BELIEF_KEYS)
            weights[:] = [w * likelihood.get(key, mean) for key, w in enumerate(weights)]
            top = max(weights)
            weights[:] = [max(BELIEF_FLOOR, w / top) for w in weights]

    def belief_rows(self, players: int) -> list[list[float]] | None:
        """The beliefs as ``mcts.run`` takes them (one row per seat), or None when there are none."""
        if not self.beliefs:
            return None
        width = max(len(row) for row in self.beliefs.values())
        return [self.beliefs.get(p, [1.0] * width) for p in range(players)]

    def reset(self) -> None:
        """Forget the kept trees and beliefs (the next search starts afresh)."""
        for forest in self.forests:
            forest.release()
        self.forests = []
        self.path = []
        self.movers = []
        self.fingerprint = None
        self.beliefs = {}
        self.filter = None

    @property
    def nodes(self) -> int:
        return sum(forest.nodes for forest in self.forests)

    @property
    def bytes(self) -> int:
        """Memory the kept trees hold, and the belief filter's worlds (``GameInfo.belief_filter``) if it has one."""
        kept = sum(forest.bytes for forest in self.forests)
        return kept + (self.filter.bytes if self.filter is not None else 0)
