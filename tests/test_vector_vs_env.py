"""GinRummy-v0 against the vector env, as tests/test_batch.py holds the engines to each other: given the same deals,
seats and actions, every game of ``GinRummyVectorEnv`` returns what a ``GinRummyEnv`` returns (observations, masks,
rewards, terminations, truncations, outcomes and match results), over 1,000 hands per preset as single-hand episodes,
1,000 in matches and, for presets with a target, 1,000 in matches with the match record in the observation. The
vector env's dealer rotation (``batch_table.next_dealers``) is held to ``match.next_dealer`` here, hand by hand, and
exhaustively below.

How the deals are shared: the vector env plays first; every seat it draws and every deck it deals is queued for the
game it belongs to, and each scalar env reads its game's queue through a stand-in for its random generator. The
first dealer of an episode is taken from the vector env too (it draws a cut as a fair coin, the scalar env cuts
cards: the same odds, not the same draws), so ``match.first_dealer`` reads the queue during the test. Every later
dealer is the scalar match's own choice (R44) and must agree with the vector env's."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

from gin_env.batch.hand_batch import NO_PLAYER
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import match
from gin_env.game.actions import (
    BIG_GIN,
    DISCARD_BASE,
    DISCARD_JOKER,
    DRAW_STOCK,
    KNOCK_BASE,
    KNOCK_JOKER,
    MAX_ACTIONS,
    N_ACTIONS,
    PASS,
    TAKE_DISCARD,
)
from gin_env.game.cards import N_CARDS, VALUES
from gin_env.game.rules import PRESETS, Rules
from gin_env.table import batched as batch_table

GAMES = 64
#: Hands per preset and case.
HANDS = 1000

#: A deterministic opponent's preference for each action (it plays the most preferred legal one): big gin, the
#: lowest knock, the costliest discard, then stock, upcard, pass. Under jokers (R72) the joker's knock and discard
#: come after every natural card's, as its id does; a game's preferences are the first ``rules.n_actions``.
_PREFERENCE = np.zeros(MAX_ACTIONS)
_PREFERENCE[BIG_GIN] = 10_000
_PREFERENCE[KNOCK_BASE:N_ACTIONS] = 5_000 - np.arange(N_CARDS)
_PREFERENCE[KNOCK_JOKER] = 5_000 - N_CARDS
_PREFERENCE[DISCARD_BASE:KNOCK_BASE] = 100 * np.array(VALUES) + np.arange(N_CARDS)
_PREFERENCE[DISCARD_JOKER] = 100 * Rules.preset("jokers").joker_value + N_CARDS
_PREFERENCE[[DRAW_STOCK, TAKE_DISCARD, PASS]] = [3, 2, 1]


def preferences(legal_mask: np.ndarray) -> np.ndarray:
    """:data:`_PREFERENCE` for legal masks of any game's action count."""
    return _PREFERENCE[:legal_mask.shape[-1]]


class Greedy:
    """The opponent both envs seat: a function of the legal actions alone, so its scalar and batched forms agree
    without sharing a random stream."""

    def act(self, view, rng) -> int:
        return int(np.where(view.legal_mask, preferences(view.legal_mask), -1).argmax())

    def act_batch(self, view, rng) -> np.ndarray:
        return np.where(view.legal_mask, preferences(view.legal_mask), -1).argmax(axis=1)


class Queued:
    """One scalar env's random generator, answering from what the vector env drew for that game: the opponent's
    stream seed (unused by ``Greedy``), the learner's seat, the first dealer and each deck, in order."""

    def __init__(self) -> None:
        self.events: collections.deque = collections.deque()

    def integers(self, high, size=None):
        assert size is None
        if high == 2**63:
            return 0
        kind, seat = self.events.popleft()
        assert kind == "seat", f"the scalar env drew a seat where the vector env did {kind}"
        return seat

    def first_dealer(self) -> int:
        kind, dealer = self.events.popleft()
        assert kind == "first_dealer", f"the scalar env cut for the dealer where the vector env did {kind}"
        return dealer

    def permutation(self, n: int) -> np.ndarray:
        kind, deck = self.events.popleft()
        assert kind == "deck", f"the scalar env dealt where the vector env did {kind}"
        return deck


def twin_envs(rules: Rules, episode: str, monkeypatch,
              match_record: bool = False) -> tuple[GinRummyVectorEnv, list[GinRummyEnv]]:
    venv = GinRummyVectorEnv(num_envs=GAMES, rules=rules, opponent=Greedy(), episode=episode,
                             match_record=match_record)
    envs = [GinRummyEnv(rules=rules, opponent=Greedy(), episode=episode, match_record=match_record)
            for _ in range(GAMES)]
    queues = [Queued() for _ in range(GAMES)]
    for env, queue in zip(envs, queues):
        env.np_random = queue
    table = venv.table
    new_games, deal = table.new_games, table.deal
    starting: set[int] = set()

    def queued_new_games(games, rng):
        for g in games:
            queues[g].events.append(("seat", int(venv.learner[g])))
        starting.update(games.tolist())
        new_games(games, rng)

    def queued_deal(games, dealers, rng):
        deal(games, dealers, rng)
        for g, dealer in zip(games.tolist(), dealers.tolist()):
            if g in starting:
                queues[g].events.append(("first_dealer", dealer))
                starting.discard(g)
            queues[g].events.append(("deck", table.batch.deck[g].astype(np.int64)))

    monkeypatch.setattr(table, "new_games", queued_new_games)
    monkeypatch.setattr(table, "deal", queued_deal)
    monkeypatch.setattr(match, "first_dealer", lambda rules, rng: rng.first_dealer())
    return venv, envs


def learner_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The greedy opponent's action in two games of three (so hands end soon), a random legal one otherwise."""
    keys = np.where(rng.random((masks.shape[0], 1)) < 2 / 3, preferences(masks), rng.random(masks.shape))
    keys[~masks] = -1.0
    return keys.argmax(axis=1)


def assert_same_step(i: int, scalar: tuple, vector: tuple, env: GinRummyEnv, venv: GinRummyVectorEnv) -> int:
    """Game ``i``'s step in both envs; returns the hands that ended in it (0 or 1 reported)."""
    obs, reward, terminated, truncated, info = scalar
    v_obs, v_reward, v_terminated, v_truncated, v_info = vector
    assert (terminated, truncated) == (v_terminated[i], v_truncated[i])
    assert reward == v_reward[i]
    ended = "outcome" in info
    assert ended == bool(v_info.get("_outcome_kind", np.zeros(GAMES, bool))[i])
    if ended:
        o = info["outcome"]
        assert (o["kind"], o["capped"], o["points"], info["hands_ended"], info["hand_points"]) == (
            v_info["outcome_kind"][i], v_info["outcome_capped"][i], v_info["outcome_points"][i],
            v_info["hands_ended"][i], v_info["hand_points"][i])
    assert ("match" in info) == bool(v_info.get("_match_scores", np.zeros(GAMES, bool))[i])
    if "match" in info:
        m, learner = info["match"], env.learner
        hands_won = (env.match.hands_won[learner], env.match.hands_won[1 - learner])
        assert (m["scores"], hands_won, m["final_totals"], m["abandoned"]) == (
            tuple(v_info["match_scores"][i]), tuple(v_info["match_hands_won"][i]),
            tuple(v_info["match_totals"][i]), bool(v_info["match_abandoned"][i]))
    if terminated or truncated:
        assert np.array_equal(obs, v_info["final_obs"][i])
    else:
        assert np.array_equal(obs, v_obs[i]) and np.array_equal(info["action_mask"], v_info["action_mask"][i])
        assert env.state.dealer == venv.batch.dealer[i], "dealer rotation (R44)"
    return int(ended)


#: (preset, episode, match_record): every preset in both episode kinds, and with the match record where the preset
#: plays games to a target (without one, a match is one hand and has no record).
CASES = [(preset, episode, False) for preset in PRESETS for episode in ("hand", "match")] + [
    (preset, "match", True) for preset in PRESETS if Rules.preset(preset).target is not None]


@pytest.mark.parametrize(("preset", "episode", "match_record"), CASES)
def test_vector_env_returns_what_the_scalar_env_returns(preset, episode, match_record, monkeypatch):
    rules = Rules.preset(preset)
    venv, envs = twin_envs(rules, episode, monkeypatch, match_record)
    rng = np.random.default_rng(17)
    v_obs, v_info = venv.reset(seed=17)
    for i, env in enumerate(envs):
        obs, info = env.reset()
        np.testing.assert_array_equal(obs, v_obs[i])
        np.testing.assert_array_equal(info["action_mask"], v_info["action_mask"][i])
    hands = matches = 0
    while hands < HANDS:
        chosen = learner_actions(venv.action_masks(), rng)
        vector = venv.step(chosen)
        for i, env in enumerate(envs):
            scalar = env.step(chosen[i])
            hands += assert_same_step(i, scalar, vector, env, venv)
            if scalar[2] or scalar[3]:
                matches += "match" in scalar[4]
                obs, info = env.reset()
                assert np.array_equal(obs, vector[0][i]) and np.array_equal(info["action_mask"],
                                                                            vector[4]["action_mask"][i])
    if episode == "match":
        assert matches >= 20, matches
    if match_record:
        assert venv.table.match_record.any(), "no hand was recorded"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_batched_dealer_rotation_is_match_next_dealer(preset):
    """R44 for every dealer and winner (None included) under every preset and every rotation setting."""
    for rotation, dead_dealer in itertools.product(("winner", "loser", "alternate"), ("same", "rotate")):
        rules = Rules.preset(preset, dealer_rotation=rotation, dead_hand_dealer=dead_dealer)
        cases = list(itertools.product((0, 1), (0, 1, None)))
        dealers = np.array([d for d, _ in cases])
        winners = np.array([NO_PLAYER if w is None else w for _, w in cases])
        expected = [match.next_dealer(rules, d, w) for d, w in cases]
        assert batch_table.next_dealers(rules, dealers, winners).tolist() == expected
