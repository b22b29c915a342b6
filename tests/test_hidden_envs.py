"""Hidden information in the vector env and the PettingZoo env (docs/env.md, "Hidden information"): deals that
differ only in cards a player has not seen give that player the same observations, infos and masks at every
decision up to the end of its hand. The deals are made as in ``tests/test_hidden_information.py`` (its module
docstring): deal A played by seeded agents, deal B with the unseen cards moved, the others replaying A."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import actions, engine
from gin_env.game.rules import PRESETS, Rules
from tests.test_hidden_information import (
    FORMATS,
    Watch,
    assert_same,
    choose,
    ends_hand,
    first_deal,
    fix_first_deal,
    hidden_shift,
    relabel_action,
    relabel_card,
)

#: Games of the vector env per case; steps it is played at most (every first hand has ended long before).
GAMES, MAX_STEPS = 8, 400


class VectorWatch:
    """For each game of a vector env: the cards its learner has seen in its first hand, noted before every move,
    and the logged actions a replaying opponent found illegal there."""

    def __init__(self, venv: GinRummyVectorEnv, decks: np.ndarray) -> None:
        self.venv, self.decks = venv, decks
        self.seen = [0] * GAMES
        self.diverged: list[list[tuple[int, int]]] = [[] for _ in range(GAMES)]

    def in_first_hand(self, g: int) -> bool:
        b = self.venv.batch
        return np.array_equal(b.deck[g], self.decks[g]) and b.phase[g] != engine.OVER

    def before(self, g: int, action: int) -> None:
        if not self.in_first_hand(g):
            return
        state, p = self.venv.batch.hand_state(g), int(self.venv.learner[g])
        upcard = 0 if state.initial_upcard < 0 else 1 << state.initial_upcard
        self.seen[g] |= state.hands[p] | sum(1 << c for c in state.pile) | upcard
        if actions.is_discard(action):
            self.seen[g] |= 1 << actions.action_card(action, state.hands[state.current])


class BatchScripted:
    """The vector env's opponent: :func:`choose` per game, logged, or the logs replayed (first legal action where
    the logged one is not legal, noted on the watch)."""

    def __init__(self, logs: list[list[int]] | None = None) -> None:
        self.logs = [[] for _ in range(GAMES)] if logs is None else logs
        self.replay = None if logs is None else [collections.deque(log) for log in logs]
        self.watch: VectorWatch | None = None
        self.rng = np.random.default_rng(0)

    def act(self, view, rng: np.random.Generator) -> int:
        raise AssertionError("the vector env asks for batches only")

    def act_batch(self, view, rng: np.random.Generator) -> np.ndarray:
        venv = self.watch.venv
        b = venv.batch
        # The env asks for every game at the opponent's turn in a hand in play, in game order.
        games = np.flatnonzero((b.current != venv.learner) & (b.phase != engine.OVER))
        assert games.size == view.legal_mask.shape[0]
        chosen = []
        for row, g in enumerate(games.tolist()):
            legal = np.flatnonzero(view.legal_mask[row]).tolist()
            if self.replay is None:
                action = choose(legal, self.rng)
                self.logs[g].append(action)
            else:
                action = self.replay[g].popleft() if self.replay[g] else -1
                if action not in legal:
                    if self.watch.in_first_hand(g):
                        self.watch.diverged[g].append((action, int(b.phase[g])))
                    action = legal[0]
            self.watch.before(g, action)
            chosen.append(action)
        return np.array(chosen, dtype=np.int64)


def row(x, g: int):
    return {key: row(value, g) for key, value in x.items()} if isinstance(x, dict) else x[g]


def game_info(info: dict, g: int) -> dict:
    """Game ``g``'s part of a vector env's info: each key it holds (by its ``_`` mask) with its row."""
    return {key: row(value, g) for key, value in info.items()
            if not key.startswith("_") and (f"_{key}" not in info or info[f"_{key}"][g])}


def play_vector(kwargs: dict, decks: np.ndarray, seed: int, opponent: BatchScripted, learner=None):
    """A vector env with ``decks`` as every game's first deal: each game's decisions before the step that ends its
    first hand, and the learner's actions up to that step (``learner`` replayed, or drawn)."""
    venv = GinRummyVectorEnv(num_envs=GAMES, opponent=opponent, **kwargs)
    watch = opponent.watch = VectorWatch(venv, decks)
    deal, calls = venv.table.deal, []

    def fixed_deal(games, dealers, rng):
        deal(games, dealers, rng)
        if not calls:
            venv.batch.deal(games, decks[games], dealers)
        calls.append(games)

    venv.table.deal = fixed_deal
    obs, info = venv.reset(seed=seed)
    live = [watch.in_first_hand(g) for g in range(GAMES)]
    traces = [[(row(obs, g), game_info(info, g))] if live[g] else [] for g in range(GAMES)]
    moves = [[] for _ in range(GAMES)]
    rng = np.random.default_rng(seed)
    for _ in range(MAX_STEPS):
        if not any(live):
            break
        masks = venv.action_masks()
        chosen = masks.argmax(axis=1)
        for g in np.flatnonzero(live).tolist():
            legal = np.flatnonzero(masks[g]).tolist()
            chosen[g] = choose(legal, rng) if learner is None else learner[g][len(moves[g])]
            moves[g].append(int(chosen[g]))
            watch.before(g, int(chosen[g]))
        obs, _, terminated, truncated, info = venv.step(chosen)
        for g in np.flatnonzero(live).tolist():
            ended = terminated[g] or truncated[g] or info.get("_outcome_kind", np.zeros(GAMES, bool))[g]
            live[g] = not ended and (learner is None or len(moves[g]) < len(learner[g]))
            if live[g]:
                traces[g].append((row(obs, g), game_info(info, g)))
    return watch, traces, moves


VECTOR_CASES = [(preset, episode, information_state) for preset in PRESETS
                for episode, information_state in (("hand", False), ("match", True))]


@pytest.mark.parametrize(("preset", "episode", "information_state"), VECTOR_CASES)
def test_vector_env_shows_a_learner_nothing_hidden(preset, episode, information_state):
    kwargs = {"rules": preset, "episode": episode, "information_state": information_state,
              "match_record": episode == "match" and Rules.preset(preset).target is not None}
    rng = np.random.default_rng(31)
    decks = np.stack([rng.permutation(Rules.preset(preset).deck.n_cards) for _ in range(GAMES)])
    a = BatchScripted()
    watch_a, traces_a, moves = play_vector(kwargs, decks, 31, a)
    decks_b = np.array([hidden_shift(deck, seen, rng) for deck, seen in zip(decks.tolist(), watch_a.seen)])
    watch_b, traces_b, _ = play_vector(kwargs, decks_b, 31, BatchScripted(a.logs), moves)
    compared = 0
    for g in range(GAMES):
        if not traces_a[g]:
            continue  # its first hand ended before the learner's first decision and was dealt again
        assert len(traces_a[g]) == len(traces_b[g])
        assert_same(traces_a[g], traces_b[g], f"game {g}")
        assert all(ends_hand(action, phase) for action, phase in watch_b.diverged[g][:1]), watch_b.diverged[g]
        compared += len(traces_a[g])
    assert compared >= GAMES


def play_aec(case: dict, decks, dealer: int, seed: int, logged=None, mappings=None):
    """A PettingZoo game of ``case`` from ``decks``: what its observed agent (at ``case["seat"]``) is given after
    every action of its first hand (its observation, info, reward, termination) and who acts next, and every action
    in order (``logged`` replayed through ``mappings``, else drawn)."""
    pettingzoo = pytest.importorskip("gin_env.envs.pettingzoo")
    aec = pettingzoo.env(rules=case["preset"], episode=case["episode"], **case["format"])
    four = case["format"].get("players") == 4
    fix_first_deal(aec.table, **({"decks": tuple(decks)} if four else {"deck": decks[0], "dealer": dealer}))
    watch = Watch(aec.table, aec.table.seating(case["seat"])[0])
    me = aec.names[watch.agent]
    aec.reset(seed=seed)

    def given():
        return (aec.observe(me), aec.infos[me], aec.rewards[me], aec.terminations[me], aec.agent_selection)

    trace, played, rng = [given()], [], np.random.default_rng(seed)
    while watch.note() is not None and watch.in_first_hand():
        agent = aec.agent_selection
        legal = np.flatnonzero(aec.observe(agent)["action_mask"]).tolist()
        if logged is None:
            action = choose(legal, rng)
        else:
            if len(played) == len(logged):
                break
            action = mappings[agent](logged[len(played)][1])
            if action not in legal:
                watch.diverged.append((action, aec.table.hand_of(aec.names.index(agent))[0].phase))
                action = legal[0]
        played.append((agent, action))
        watch.before(action)
        aec.step(action)
        if not watch.in_first_hand():
            break
        trace.append(given())
    return watch, trace, played, aec


@pytest.mark.parametrize(("fmt_name", "preset"), list(itertools.product(FORMATS, PRESETS)))
def test_pettingzoo_shows_an_agent_nothing_hidden(fmt_name, preset):
    compared = 0
    for i, episode in enumerate(("hand", "match")):
        seats = 2 if "room" in FORMATS[fmt_name] else FORMATS[fmt_name].get("players", 2)
        case = {"format": FORMATS[fmt_name], "preset": preset, "episode": episode, "seat": i % seats}
        seed = 77 + i
        rng = np.random.default_rng(seed)
        decks, dealer = first_deal(case, rng)
        watch_a, trace_a, played, aec = play_aec(case, decks, dealer, seed)
        four = len(decks) == 2
        own = next(p for p, seats in enumerate(aec.table.game.seats) if watch_a.agent in seats) if four else 0
        decks_b = [hidden_shift(d, watch_a.seen, rng) if p == own else [relabel_card(c) for c in d]
                   for p, d in enumerate(decks)]
        mappings = collections.defaultdict(lambda: lambda a: a)
        if four:  # the agents of the other pairing play relabelled cards
            for name in aec.names:
                if aec.names.index(name) not in aec.table.game.seats[own]:
                    mappings[name] = relabel_action
        watch_b, trace_b, _, _ = play_aec(case, decks_b, dealer, seed, played, mappings)
        assert len(trace_a) == len(trace_b)
        assert_same(trace_a, trace_b, f"{case}")
        assert all(ends_hand(action, phase) for action, phase in watch_b.diverged[:1]), watch_b.diverged
        compared += len(trace_a)
    assert compared >= 2
