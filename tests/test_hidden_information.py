"""Hidden information as a property (docs/env.md, "Hidden information"): two deals that differ only in cards a player
has not seen give that player the same observations, infos, action masks, ``PlayerView``s, information states and
public histories at every decision, up to the end of its hand, whose showdown reveals. Held here for GinRummy-v0 in
every format, under every preset, with the information state and the match record, and for a dataset's steps;
``tests/test_hidden_envs.py`` holds the vector and PettingZoo envs to it, ``tests/test_hidden_worlds.py`` the
belief draws.

How the second deal is made: deal A is played first by seeded agents, every action logged, and every card the
player sees is noted (its hand and the discard pile, before every move of its hand). Deal B is deal A with every
card the player never saw moved to the place of another such card (the other hand's unseen cards and the stock
below what is drawn), so that every card drawn, discarded or shown is the same; in four players the other pairing's
deal, none of which the player sees, has its hearts, diamonds and clubs relabelled. The other agents replay A's
actions (relabelled likewise). Only an action that ends the hand (a knock, big gin, a take at the wall to knock)
depends on the hidden cards, so only such an action may be illegal in B: the comparison stops at the step that
ends the player's hand."""

from __future__ import annotations

import collections
import itertools

import gymnasium as gym
import numpy as np
import pytest

from gin_env.datasets.episodes import play_episode
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.roles import LISTED
from gin_env.game import actions, cards, engine, public_history
from gin_env.game.rules import PRESETS, Rules
from gin_env.table.formats import FourTable, make_table, resolve_format

#: Chance that a seeded agent ends the hand (knock, big gin) when it may: low, so that hands last.
END_PROB = 0.2
#: Chance that it draws from the stock when it may, so that unseen cards enter the hands.
STOCK_PROB = 0.7
#: Deals per (format, preset) in the default run, and under ``slow``.
DEALS, SLOW_DEALS = 3, 30
#: The formats of GinRummy-v0, as its arguments.
FORMATS = {"two players": {}, "three players": {"players": 3}, "four players": {"players": 4},
           "room (2, 1)": {"room": (2, 1)}, "room (2, 2)": {"room": (2, 2)}}
#: The suit relabelling of the other pairing's deal in four players: spades stay (Oklahoma doubles them, R46).
SUIT_MAP = (0, 2, 3, 1)


def choose(legal: list[int], rng: np.random.Generator) -> int:
    """A seeded legal action, biased toward the stock and away from ending the hand."""
    enders = [a for a in legal if a == actions.BIG_GIN or actions.is_knock(a)]
    if enders and rng.random() < END_PROB:
        return int(enders[rng.integers(len(enders))])
    if actions.DRAW_STOCK in legal and rng.random() < STOCK_PROB:
        return actions.DRAW_STOCK
    rest = [a for a in legal if a not in enders] or legal
    return int(rest[rng.integers(len(rest))])


def relabel_card(card: int) -> int:
    """``card`` with its suit relabelled by :data:`SUIT_MAP`; a joker has none (R62)."""
    if card >= cards.N_CARDS:
        return card
    return SUIT_MAP[card // cards.N_RANKS] * cards.N_RANKS + card % cards.N_RANKS


def relabel_action(action: int) -> int:
    """``action`` with its card relabelled by :data:`SUIT_MAP` (a joker action moves no suit)."""
    if action in (actions.DISCARD_JOKER, actions.KNOCK_JOKER):
        return action
    if actions.is_discard(action) or actions.is_knock(action):
        base = actions.KNOCK_BASE if actions.is_knock(action) else actions.DISCARD_BASE
        return base + relabel_card(actions.action_card(action))
    return action


def ends_hand(action: int, phase: int) -> bool:
    """Whether ``action`` is one whose legality reads the mover's hidden cards: it ends the hand."""
    return action == actions.BIG_GIN or actions.is_knock(action) or (
        phase == engine.WALL and action == actions.TAKE_DISCARD)


def hidden_shift(deck, seen: int, rng: np.random.Generator) -> list[int]:
    """``deck`` with every card outside ``seen`` (a card mask) moved to the place of another unseen card."""
    unseen = [c for c in rng.permutation(len(deck)).tolist() if not seen >> c & 1]
    moved = dict(zip(unseen, unseen[1:] + unseen[:1]))
    return [moved.get(int(c), int(c)) for c in deck]


class Watch:
    """What ``agent`` at ``table`` has seen of its first hand, and that hand's public events as it sees them,
    noted before every move (:meth:`before`)."""

    def __init__(self, table, agent: int) -> None:
        self.table, self.agent = table, agent
        self.seen, self.deck, self.start, self.events = 0, None, None, []
        #: The logged actions that replaying agents found illegal in the first hand, with the phase, in order.
        self.diverged: list[tuple[int, int]] = []

    def note(self):
        """Note what the agent sees now; the state of its first hand and its engine player, or None."""
        mine = self.table.hand_of(self.agent)
        if mine is None:
            return None
        state, player = mine
        if self.deck is None:
            self.deck, self.start = state.deck, (state.hands[player], state.dealer, player)
            self.events = list(public_history.deal_events(state))
        if state.deck != self.deck:
            return None  # a later hand: the comparison ends with the first
        pile = sum(1 << c for c in state.pile)
        self.seen |= state.hands[player] | pile | (0 if state.initial_upcard < 0 else 1 << state.initial_upcard)
        return mine

    def in_first_hand(self) -> bool:
        """Whether the agent's first hand is still in play (what follows its end may differ between the deals)."""
        mine = self.table.hand_of(self.agent)
        return mine is not None and mine[0].deck == self.deck and mine[0].phase != engine.OVER

    def before(self, action: int) -> None:
        """:meth:`note`, and the public event of ``action`` if it is a move of the agent's first hand."""
        mine = self.note()
        if mine is not None and mine[0] is self.table.state:
            self.events.append(public_history.public_event(mine[0], action, mine[1]))
            if actions.is_discard(action):  # face up even when it ends the hand (a dead hand, R36)
                self.seen |= 1 << actions.action_card(action, mine[0].hands[mine[0].current])

    def public_view(self, rules):
        """The player's view rebuilt from its dealt cards and the public events so far (``public_history``)."""
        own, dealer, player = self.start
        return public_history.player_view(rules, player, own, dealer, self.events)


class Scripted:
    """Another agent: plays :func:`choose` and logs its actions, or replays a log (through ``mapping``); where the
    logged action is not legal it plays its first legal action and notes the logged one on the watch."""

    def __init__(self, watch: Watch, log: list[int] | None = None, mapping=None) -> None:
        self.watch, self.log = watch, [] if log is None else log
        self.replay = None if log is None else collections.deque(log)
        self.mapping = mapping or (lambda a: a)

    def act(self, view, rng: np.random.Generator) -> int:
        """The next action, noted on the watch."""
        if self.replay is None:
            action = choose(view.legal_actions, rng)
            self.log.append(action)
        else:
            action = self.mapping(self.replay.popleft()) if self.replay else -1
            if action < 0 or not view.legal_mask[action]:
                if self.watch.in_first_hand():
                    self.watch.diverged.append((action, view.phase))
                action = view.legal_actions[0]
        self.watch.before(action)
        return action


def assert_same(a, b, where: str = "") -> None:
    """``a`` and ``b`` equal all the way down: dicts key by key, arrays by shape, dtype and value."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: keys {sorted(a)} != {sorted(b)}"
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b), f"{where}: {a} != {b}"
    elif isinstance(a, tuple | list):
        assert type(a) is type(b) and len(a) == len(b), f"{where}: {a} != {b}"
        names = getattr(a, "_fields", range(len(a)))
        for name, x, y in zip(names, a, b):
            assert_same(x, y, f"{where}.{name}")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def seat_roles(rules: Rules, fmt: dict, episode: str, seat: int) -> dict[str, list[int]]:
    """The agent indices of each role around a learner at ``seat``."""
    rules, room = resolve_format(rules, fmt.get("players"), fmt.get("room"))
    return make_table(rules, episode, room).seating(seat)[1]


class Game:
    """One GinRummy-v0 episode of a case: deal ``decks`` (one; two in four players), learner at ``seat``, the others
    :class:`Scripted` (logging, or replaying ``logs`` by role through ``mappings``)."""

    def __init__(self, case: dict, decks, dealer: int, logs=None, mappings=None) -> None:
        rules, fmt, seat = Rules.preset(case["preset"]), case["format"], case["seat"]
        self.watch = Watch(None, 0)
        self.agents = {role: [Scripted(self.watch, None if logs is None else logs[role][i],
                                       None if mappings is None else mappings[role][i]) for i in range(len(indices))]
                       for role, indices in seat_roles(rules, fmt, case["episode"], seat).items()}
        given = {role: agents if role in LISTED else agents[0] for role, agents in self.agents.items()}
        self.env = GinRummyEnv(rules, episode=case["episode"], learner_seat=seat, **fmt, **given,
                               information_state=case["information_state"], match_record=case["match_record"])
        self.table = self.watch.table = self.env.table
        self.watch.agent = self.table.seating(seat)[0]
        self.options = {"learner_seat": seat}
        if "deck" in self.table.deal_options:  # two players: the public way
            self.options.update(deck=decks[0], dealer=dealer)
        elif isinstance(self.table, FourTable):
            fix_first_deal(self.table, decks=tuple(decks))
        else:
            fix_first_deal(self.table, deck=decks[0], dealer=dealer)

    def observe(self, obs, info) -> dict:
        v = self.table.agent_view(self.env.learner)
        self.watch.note()
        return {"obs": obs, "info": info, "mask": self.env.action_masks(), "view": v,
                "public": self.watch.public_view(v.rules), "events": list(self.watch.events)}

    def play(self, seed: int, learner: list[int] | None, rng: np.random.Generator) -> tuple[list, list[int]]:
        """The player's decisions before the step that ends its first hand, and its actions up to that step
        (``learner`` replayed, or drawn from ``rng``)."""
        obs, info = self.env.reset(seed=seed, options=self.options)
        #: The agents of each pairing in the first deal (four players).
        self.pairings = self.table.game.seats if isinstance(self.table, FourTable) else None
        trace, moves = [self.observe(obs, info)], []
        while True:
            mask = self.env.action_masks()
            action = learner[len(moves)] if learner is not None else choose(np.flatnonzero(mask).tolist(), rng)
            moves.append(action)
            self.watch.before(action)
            obs, _, terminated, truncated, info = self.env.step(action)
            # A's last step ended the hand; in B the same step may not (a knock refused), and is not compared either.
            if terminated or truncated or "outcome" in info or "deal" in info or moves == learner:
                break
            trace.append(self.observe(obs, info))
        self.moves = moves
        return trace, moves


def fix_first_deal(table, **fixed) -> None:
    """Deal ``fixed`` (``deck``, ``dealer``; ``decks``) as ``table``'s first deal: the formats whose reset takes no
    deck. A second deal (the first ended before the player's first decision) raises ``Redealt``."""
    deal, calls = table.deal, []

    def fixed_deal(rng, **chosen):
        if calls:
            raise Redealt
        calls.append(fixed)
        deal(rng, **{**chosen, **fixed})

    table.deal = fixed_deal


class Redealt(Exception):
    """A scripted first deal ended before the player's first decision."""


def first_deal(case: dict, rng: np.random.Generator) -> tuple[list[list[int]], int]:
    """Random decks for a case (two in four players) and its dealer: a seat other than the learner's with three
    players (who deals sits out), else an engine player."""
    n_cards = Rules.preset(case["preset"]).deck.n_cards
    decks = [rng.permutation(n_cards).tolist() for _ in range(2 if case["format"].get("players") == 4 else 1)]
    if case["format"].get("players") == 3:
        return decks, (case["seat"] + 1 + int(rng.integers(2))) % 3
    return decks, int(rng.integers(2))


def hidden_twins(case: dict, seed: int) -> tuple[Game, list, Game, list] | None:
    """Deal A of ``case`` played from ``seed``, then deal B (module docstring) replaying it: both games and their
    traces; None where deal A ends before the player's first decision."""
    rng = np.random.default_rng(seed)
    decks, dealer = first_deal(case, rng)
    a = Game(case, decks, dealer)
    try:
        trace_a, moves = a.play(seed, None, rng)
    except (Redealt, ValueError) as error:
        if isinstance(error, ValueError) and "before the learner's first decision" not in str(error):
            raise
        return None
    own = 0 if a.pairings is None else next(p for p, seats in enumerate(a.pairings) if a.env.learner in seats)
    decks_b = [hidden_shift(d, a.watch.seen, rng) if p == own else [relabel_card(c) for c in d]
               for p, d in enumerate(decks)]
    mappings = {role: [None] * len(agents) for role, agents in a.agents.items()}
    if a.pairings is not None:  # four players: the agents of the other pairing play relabelled cards
        own = a.pairings[own]
        for role, indices in seat_roles(Rules.preset(case["preset"]), case["format"], case["episode"],
                                        case["seat"]).items():
            mappings[role] = [None if i in own else relabel_action for i in indices]
    logs = {role: [agent.log for agent in agents] for role, agents in a.agents.items()}
    b = Game(case, decks_b, dealer, logs, mappings)
    trace_b, _ = b.play(seed, moves, rng)
    return a, trace_a, b, trace_b


def assert_twins_agree(case: dict, seed: int) -> int:
    """The property for one deal pair of ``case``; returns the decisions compared."""
    twins = hidden_twins(case, seed)
    if twins is None:
        return 0
    a, trace_a, b, trace_b = twins
    assert a.watch.seen != cards.FULL_DECK
    assert len(trace_a) == len(trace_b)
    for step, (x, y) in enumerate(zip(trace_a, trace_b)):
        assert_same(x, y, f"{case} seed {seed}, decision {step}")
    # Once an ending action is refused, the hand goes on in B and later logged actions are out of step.
    assert all(ends_hand(action, phase) for action, phase in b.watch.diverged[:1]), b.watch.diverged
    return len(trace_a)


def cases(fmt_name: str, preset: str, deals: int) -> list[dict]:
    """``deals`` cases of a format and preset, each with its flags: hand and match episodes, the information state
    on every other deal, and the match record in every match where the format and preset offer it."""
    fmt, rules = FORMATS[fmt_name], Rules.preset(preset)
    seats = 2 if fmt.get("room") or not fmt else fmt["players"]
    out = []
    for i in range(deals):
        episode = ("hand", "match")[i % 2]
        record = episode == "match" and rules.target is not None and fmt.get("players", 2) == 2
        out.append({"format": fmt, "preset": preset, "episode": episode, "seat": i % seats,
                    "information_state": i % 3 != 1, "match_record": record})
    return out


def check_format(fmt_name: str, preset: str, deals: int) -> None:
    decisions = sum(assert_twins_agree(case, 1000 * i + 7) for i, case in enumerate(cases(fmt_name, preset, deals)))
    assert decisions >= deals, f"only {decisions} decisions compared"


@pytest.mark.parametrize(("fmt_name", "preset"), list(itertools.product(FORMATS, PRESETS)))
def test_unseen_cards_change_nothing_a_player_is_given(fmt_name, preset):
    """Observation (both parts of the information state), info, mask, PlayerView and public history are equal at
    every decision of deals that differ only in cards the player has not seen."""
    check_format(fmt_name, preset, DEALS)


@pytest.mark.slow
@pytest.mark.parametrize(("fmt_name", "preset"), list(itertools.product(FORMATS, PRESETS)))
def test_unseen_cards_change_nothing_over_many_deals(fmt_name, preset):
    check_format(fmt_name, preset, SLOW_DEALS)


class Dealt(gym.Wrapper):
    """A GinRummy-v0 whose every reset takes ``options`` (a dataset's episodes are reset with a seed alone)."""

    def __init__(self, env: gym.Env, options: dict) -> None:
        super().__init__(env)
        self.options = options

    def reset(self, *, seed=None, options=None):
        return self.env.reset(seed=seed, options=self.options)


class Replayed:
    """The recorded player of a dataset: ``moves`` in order, then its first legal action."""

    def __init__(self, moves: list[int]) -> None:
        self.moves = collections.deque(moves)

    def act(self, view, rng: np.random.Generator) -> int:
        return self.moves.popleft() if self.moves else view.legal_actions[0]


def sliced(stored, n: int):
    """The first ``n`` steps of a dataset episode's observations or infos."""
    if isinstance(stored, dict):
        return {key: sliced(value, n) for key, value in stored.items()}
    return stored[:n]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_dataset_step_carries_nothing_hidden(preset):
    """A dataset's stored observations and infos (``datasets.episodes.play_episode``) of deals that differ only in
    unseen cards are equal up to the end of the player's hand, and are what the env gave the player."""
    for i, case in enumerate(cases("two players", preset, DEALS)):
        case = {**case, "episode": "hand", "match_record": False}
        seed = 1000 * i + 11
        twins = hidden_twins(case, seed)
        if twins is None:
            continue
        a, trace_a, b, _ = twins
        logs = {role: [agent.log for agent in agents] for role, agents in a.agents.items()}
        stored = []
        for game in (a, b):
            again = Game(case, [game.options["deck"]], game.options["dealer"], logs)
            episode = play_episode(Dealt(again.env, again.options), Replayed(a.moves), seed)
            stored.append({"obs": sliced(episode.observations, len(trace_a)),
                           "info": sliced(episode.infos, len(trace_a))})
        assert_same(stored[0], stored[1], f"{case} seed {seed}")
        given = [x["obs"] for x in trace_a]
        if isinstance(given[0], dict):
            given = {key: np.stack([obs[key] for obs in given]) for key in given[0]}
        else:
            given = np.stack(given)
        assert_same(stored[0]["obs"], given)
        assert stored[0]["info"]["action_mask"].tolist() == [x["mask"].tolist() for x in trace_a]
