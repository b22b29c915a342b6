"""gin-env agents inside OpenSpiel's ``gin_rummy`` (the optional extra ``openspiel``).

This module owns :class:`GinEnvBot`, a ``pyspiel.Bot`` that seats any gin-env agent in OpenSpiel, and
:func:`play_hand`, a game played to its end by bots; the translation of OpenSpiel's ids and of a game's history into
our engine is :mod:`gin_env.interop.openspiel_history`'s (:class:`~gin_env.interop.openspiel_history.History`).

OpenSpiel splits what our engine does in one step into several moves. Its knock is a sequence: ``Knock``, then the
knock card, then the knocker's melds one by one and ``Pass``; then the defender's layoffs one card at a time,
``Pass``, its own melds, ``Pass``. Our engine scores the knock at once with the exact showdown (R22, R28). The bot
plays that sequence so that OpenSpiel lays down what our showdown chose: the knocker's melds of the engine's
auto-arrangement (R22; its tie-break reads the defender's cards, as the engine's showdown does), and as defender the
optimal joint layoffs and own melds against the melds the knocker declared (R28). docs/openspiel.md lists where the
two games still differ.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env import agents
from gin_env.game import actions, cards, engine, observation, solver
from gin_env.interop.openspiel_history import (
    CHANCE,
    OS_DRAW_STOCK,
    OS_DRAW_UPCARD,
    OS_KNOCK,
    OS_PASS,
    RULES,
    History,
    action_ids,
    openspiel_pieces,
    os_knock_cards,
    pyspiel,
)
from gin_env.table.checks import agent_action


def play_hand(state, bots, rng: np.random.Generator) -> list[float]:
    """Play ``state`` to its end as OpenSpiel's ``evaluate_bots`` does (chance outcomes drawn from ``rng`` with their
    probabilities, the player to act's ``step``, the other bots informed) and return the returns. Unlike it, no
    ``restart_at``: OpenSpiel's gin rummy simple bot does not implement it, so give fresh or restarted bots."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(outcomes, p=probs))
            for bot in bots:
                bot.inform_action(state, CHANCE, action)
        else:
            player = state.current_player()
            action = bots[player].step(state)
            for other, bot in enumerate(bots):
                if other != player:
                    bot.inform_action(state, player, action)
        state.apply_action(action)
    return list(state.returns())


class GinEnvBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` that plays a gin-env agent as ``player_id`` in OpenSpiel's ``gin_rummy`` (defaults). The agent
    is a name, model path or ``module:attr`` (``agents.load``), an ``Agent`` class or object, or a function
    ``(view, rng) -> action`` (``agents.as_agent``); ``seed`` seeds the generator it is given.

    At each play decision it replays the game's history through our engine, asks the agent with the player's
    :class:`observation.PlayerView`, and plays the agent's action. A ``KNOCK(c)`` becomes OpenSpiel's ``Knock`` and
    then ``c``; when OpenSpiel refuses that knock (its 11-card deadwood is inexact, docs/openspiel.md) the bot
    discards ``c`` instead and counts it in ``refused_knocks``. In the lay-down it plays our exact showdown;
    ``refused_layoffs`` holds the cards of its last lay-down as defender that OpenSpiel would not take as layoffs."""

    def __init__(self, agent, game, player_id: int, *, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        self._ids = action_ids(game)
        if player_id not in (0, 1):
            raise ValueError(f"player_id must be 0 or 1, got {player_id!r}")
        self.player_id = player_id
        self.agent = agents.load(agent) if isinstance(agent, (str, os.PathLike)) else agents.as_agent(agent)
        # OpenSpiel's gin_rummy deals no jokers: a network that plays them (another observation and 110 actions,
        # docs/rules.md section 17) is refused here, in one line, before the game starts.
        check_rules = getattr(self.agent, "check_rules", None)
        if check_rules is not None:
            check_rules(RULES)
        self._rng = np.random.default_rng(seed)
        self.refused_knocks = 0
        self._history = History(self._ids)
        self._knock_card = engine.NO_CARD
        self.refused_layoffs: tuple[int, ...] = ()

    def restart_at(self, state) -> None:
        self._history = History(self._ids)
        self._knock_card = engine.NO_CARD
        self.refused_layoffs = ()

    def inform_action(self, state, player_id, action) -> None:
        """Nothing to do: ``step`` reads the whole history."""

    def step(self, state) -> int:
        if state.current_player() != self.player_id:
            raise ValueError(f"GinEnvBot plays player {self.player_id}, but player {state.current_player()} is to act")
        history = self._history.update(state)
        if history is not self._history:
            self.restart_at(state)
        self._history = history
        legal = state.legal_actions()
        if history.decision:
            return self._play(state, history, legal)
        if history.knocker == self.player_id:
            return self._knock_move(history, legal)
        return self._defend(history, legal)

    def _ask(self, history: History) -> int:
        view = observation.view(history.hand, self.player_id)
        action = agent_action(self.agent, self.agent.act(view, self._rng))
        if not 0 <= action < actions.N_ACTIONS or not view.legal_mask[action]:
            raise ValueError(f"agent {self.agent!r} chose {action}, which is not legal here; legal: "
                             f"{[actions.name(a) for a in view.legal_actions]}")
        return action

    def _play(self, state, history: History, legal: list[int]) -> int:
        action = self._ask(history)
        at_wall = history.hand.phase == engine.WALL
        os_action = {actions.TAKE_DISCARD: OS_KNOCK if at_wall else OS_DRAW_UPCARD, actions.DRAW_STOCK: OS_DRAW_STOCK,
                     actions.PASS: OS_PASS}.get(action)
        if os_action is None and history.knocker is not None:
            os_action = self._ids.to_openspiel[actions.action_card(action)]  # the knock card after the wall take
        elif os_action is None:
            card = self._ids.to_openspiel[actions.action_card(action)]
            os_action = card
            if actions.is_knock(action):
                if card in os_knock_cards(state):
                    self._knock_card, os_action = card, OS_KNOCK
                else:
                    self.refused_knocks += 1
        if os_action not in legal:
            raise ValueError(f"OpenSpiel does not allow {actions.name(action)} here (its move {os_action})")
        return os_action

    def _knock_move(self, history: History, legal: list[int]) -> int:
        """The knock card, then the melds of our engine's showdown (R22), then Pass."""
        if history.knock_card == engine.NO_CARD:
            if self._knock_card in legal:
                return self._knock_card
            # Another player chose Knock for this seat (the bot took over mid-hand): the best card OpenSpiel allows.
            hand = history.hand.hands[self.player_id]
            return min((a for a in legal if a < cards.N_CARDS),
                       key=lambda a: (solver.deadwood(hand & ~(1 << self._ids.to_ours[a])), a))
        for meld in history.hand.outcome.knocker_melds:
            for piece in openspiel_pieces(meld):
                action = self._ids.meld_actions[piece]
                if piece not in history.declared and action in legal:
                    return action
        return OS_PASS

    def _defend(self, history: History, legal: list[int]) -> int:
        """Layoffs, then own melds: the joint optimum of R28 against the melds the knocker declared."""
        defender = history.hand.hands[self.player_id]
        if history.layoff_stage:
            plan = self._planned_layoffs(history, defender)
            for card in cards.to_ids(plan & ~history.laid_off):
                if self._ids.to_openspiel[card] in legal:
                    return self._ids.to_openspiel[card]
            self.refused_layoffs = tuple(cards.to_ids(plan & ~history.laid_off))
            return OS_PASS
        melded = 0
        for m in history.defender_melds:
            melded |= m
        melds, _ = solver.arrangement(defender & ~history.laid_off & ~melded)
        for meld in melds:
            for piece in openspiel_pieces(meld):
                action = self._ids.meld_actions[piece]
                if action in legal:
                    return action
        return OS_PASS

    def _planned_layoffs(self, history: History, defender: int) -> int:
        knocker_hand = history.hand.hands[history.knocker]
        declared = [cards.to_ids(m) for m in history.declared]
        show = solver.showdown(knocker_hand, defender, layoffs=RULES.layoffs, arrangement=declared)
        return cards.to_mask(show.layoffs)

    def __repr__(self) -> str:
        return f"GinEnvBot({self.agent!r}, player_id={self.player_id})"
