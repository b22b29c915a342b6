"""``GinRummy-v0``'s information state: the public events of the learner's hand as tokens
(``game.information_state``), kept around every action the env plays at its table, in every format.

The learner's hand is the one its seat plays (``GameTable.hand_of``): in four players its pairing's, in a room its
seat's, where a teammate's move is the seat's own (R59). Each action played in that hand adds the token of its
public event (``public_history.public_event``) as the learner sees it; each deal clears the history and adds the
upcard (``public_history.deal_events``). A three-player learner sitting a hand out has an empty history. Under rules
with jokers the tokens speak of a joker by its event, never by its id (R72), and the space takes the joker tokens
(``information_state.n_tokens``).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env.game.information_state import HISTORY_DTYPE, history_length, n_tokens, token
from gin_env.game.public_history import deal_events, public_event
from gin_env.table.checks import flag
from gin_env.table.protocol import GameTable


def check_flag(information_state) -> bool:
    """The ``information_state`` argument: a bool (``TypeError`` for anything else)."""
    return flag(information_state, "information_state")


def space(observation: gym.spaces.Box, length: int, vocabulary: int) -> gym.spaces.Dict:
    """The observation space with an information state: ``observation`` and a history of ``length`` tokens, each
    below ``vocabulary`` (``information_state.n_tokens(rules)``)."""
    history = gym.spaces.Box(0, vocabulary - 1, (length,), dtype=HISTORY_DTYPE)
    return gym.spaces.Dict({"observation": observation, "history": history})


def history(table: GameTable, information_state) -> LearnerHistory | NoHistory:
    """What ``GinRummy-v0`` keeps for its ``information_state`` argument (:func:`check_flag`) at ``table``."""
    return LearnerHistory(table) if check_flag(information_state) else NoHistory(table)


class NoHistory:
    """No information state: the observation space, the observations and the table's play as they are."""

    def __init__(self, table: GameTable) -> None:
        self.table = table

    def play(self, action: int, rng: np.random.Generator):
        return self.table.play(action, rng)

    def space(self, observation: gym.spaces.Box) -> gym.spaces.Box:
        return observation

    def observe(self, observation: np.ndarray) -> np.ndarray:
        return observation

    def dealt(self, learner: int) -> None:
        """Nothing to clear."""


class LearnerHistory:
    """The history of the learner's hand at ``table``: ``history_length(table.rules)`` tokens (``ValueError`` for
    rules whose hands have no bound)."""

    def __init__(self, table: GameTable) -> None:
        self.table = table
        self.length = history_length(table.rules)
        self.tokens = np.zeros(self.length, dtype=HISTORY_DTYPE)
        self.count = 0
        self.learner = 0

    def space(self, observation: gym.spaces.Box) -> gym.spaces.Dict:
        """The observation space: ``observation`` and the history."""
        return space(observation, self.length, n_tokens(self.table.rules))

    def observe(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """``observation`` with a copy of the history, as the space has them."""
        return {"observation": observation, "history": self.tokens.copy()}

    def dealt(self, learner: int) -> None:
        """A new hand (deal) at the table, ``learner`` the learner's agent: the history is its deal's."""
        self.learner = learner
        self.tokens[:self.count] = 0
        self.count = 0
        mine = self.table.hand_of(learner)
        if mine is not None:
            for event in deal_events(mine[0]):
                self._add(token(event, mine[1]))

    def play(self, action: int, rng: np.random.Generator):
        """``table.play(action, rng)``, the action's token added when it is played in the learner's hand, the
        history cleared for the next hand when the table deals one."""
        table = self.table
        mine, added = table.hand_of(self.learner), None
        if mine is not None and mine[0] is table.state:
            # Read before the move: the card a draw takes is the stock's top now.
            added = token(public_event(mine[0], action, mine[1]), mine[1])
        finished = table.play(action, rng)
        if added is not None:
            self._add(added)
        if finished is not None and not table.over:
            self.dealt(self.learner)
        return finished

    def _add(self, token_id: int) -> None:
        self.tokens[self.count] = token_id
        self.count += 1
