"""Two players at a table: the game of one episode, seat by seat, for the envs and game loops over it.

This module owns what lies between the two-player rules (``engine``, ``match``) and an env's API: the episode kind
(a single hand is a match of one hand, ``match.new_match(single_hand=True)``, so both kinds take one code path), who
acts next, what each seat sees, each seat's reward for a step (hand points, and the end-of-game bonuses on the step
that ends the game), the outcome and match dicts of ``info``, the ansi text, and the two-player capabilities: the
record of each hand for a replay and the scene of a picture. :class:`Table` satisfies ``protocol.GameTable``, the
interface the formats' tables (``formats``) share; ``batched`` is its batched twin for the vector env.
"""

from __future__ import annotations

import numpy as np

from gin_env.game import cards, engine, match
from gin_env.game.observation import PlayerView, view
from gin_env.game.rules import Rules, format_name
from gin_env.table.checks import check_episode, seat_or_none
from gin_env.table.protocol import HandRecord, Scene

#: Labels of a hand outcome's sides, from the seat it is told to: its own, the other.
OUTCOME_SIDES = ("learner", "opponent")


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: "1 card", "0 cards", "31 cards"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# -----------------------------------------------------------------------------------------------------------------
# The game at the table
# -----------------------------------------------------------------------------------------------------------------

def outcome_info(outcome: engine.HandOutcome, player: int) -> dict:
    """A hand outcome told to ``player``: who won and knocked (``OUTCOME_SIDES``: its own side, the other, or None)
    and that player's signed points."""

    def side(p: int | None) -> str | None:
        return None if p is None else OUTCOME_SIDES[p != player]

    return {"kind": outcome.kind, "capped": outcome.capped, "winner": side(outcome.winner),
            "points": outcome.player_points(player), "knocker": side(outcome.knocker),
            "knocker_deadwood": outcome.knocker_deadwood, "defender_deadwood": outcome.defender_deadwood}


class Table:
    """One game of ``rules`` for two seats, dealt again by :meth:`deal`: ``episode="hand"`` plays one hand,
    ``"match"`` a game to the target. Seat ``p`` is player ``p`` of the engine."""

    #: Agents at the table: one per seat.
    n_agents = 2
    learner_seats = 2
    deal_options = ("deck", "dealer")
    render_modes = ("ansi", "rgb_array")

    def __init__(self, rules: Rules, episode: str) -> None:
        check_episode(episode)
        self.rules = rules
        self.episode = episode
        self.game: match.MatchState | None = None
        # For last_hand(): the hand in play as (its deal, match scores before it, its number in the game, the actions
        # of both players so far), and the last finished hand of the episode as the same tuple.
        self._hand: tuple[engine.HandState, tuple[int, int], int | None, list[int]] | None = None
        self._finished: tuple[engine.HandState, tuple[int, int], int | None, list[int]] | None = None

    @property
    def name(self) -> str:
        return format_name(self.rules.players)

    # --- the state --------------------------------------------------------------------------------------------------

    def deal(self, rng: np.random.Generator, *, deck=None, dealer: int | None = None) -> None:
        """Start the episode's game and deal its first hand; ``deck`` and ``dealer`` fix that hand."""
        self.game = match.new_match(self.rules, rng, dealer=dealer, deck=deck, single_hand=self.episode == "hand")
        self._finished = None
        self._start_hand()

    def _start_hand(self) -> None:
        """Start recording the hand now in play (just dealt) for :meth:`last_hand`."""
        self._hand = (self.game.hand, self.scores, self.hand_number, [])

    @property
    def state(self) -> engine.HandState | None:
        """The hand in play (the last hand once the game is over); None before the first deal."""
        return None if self.game is None else self.game.hand

    @property
    def match(self) -> match.MatchState | None:
        """The game to the target in a match episode; None in a single-hand episode."""
        return self.game if self.episode == "match" else None

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def scores(self) -> tuple[int, int]:
        """Match scores by seat; (0, 0) in a single-hand episode, where no score is kept."""
        return self.game.scores if self.episode == "match" else (0, 0)

    @property
    def hand_number(self) -> int | None:
        """The number of the hand in play within the game; None in a single-hand episode."""
        return len(self.game.history) + 1 if self.episode == "match" else None

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now."""
        return view(self.state, seat, self.scores, self.game.record)

    # --- playing ----------------------------------------------------------------------------------------------------

    def play(self, action: int, rng: np.random.Generator) -> engine.HandOutcome | None:
        """Apply the action of the seat to act (``engine.IllegalActionError`` with nothing changed when it is not
        legal, R18). Returns the outcome of a hand that ended, recorded in the game (the next hand dealt with
        ``rng`` if the game goes on), else None."""
        hands_before = len(self.game.history)
        self.game = match.step(self.game, action, rng)
        # Recorded once the engine has accepted it: a refused action is no part of the replay.
        self._hand[3].append(action)
        if len(self.game.history) == hands_before:
            return None
        self._finished = self._hand
        self._start_hand()
        return self.game.history[-1]

    def points(self, outcome: engine.HandOutcome | None, seat: int) -> int:
        """``seat``'s signed points for a step: the hand's points if one ended, and once the game is over, the
        end-of-game bonuses (game, box, shutout) as the final totals' difference beyond the hand points paid hand by
        hand. A step's reward is this over the env's ``reward_scale``."""
        return (0 if outcome is None else outcome.player_points(seat)) + (self.bonus(seat) if self.over else 0)

    def bonus(self, seat: int) -> int:
        """The end-of-game part of ``seat``'s margin (0 for a single hand or an abandoned game)."""
        totals, scores, other = match.final_totals(self.game), self.game.scores, 1 - seat
        return (totals[seat] - totals[other]) - (scores[seat] - scores[other])

    # --- the agents' interface every format shares (``protocol.GameTable``); here an agent is a seat ---------------

    @property
    def actor(self) -> int:
        """The agent to act: the seat to act."""
        # The game's hand read directly, here and below: an env asks these once per action.
        return self.game.hand.current

    def legal_mask(self) -> np.ndarray:
        return engine.legal_mask(self.game.hand)

    def agent_view(self, agent: int) -> PlayerView:
        """What ``agent`` may know now: its seat's view."""
        return view(self.game.hand, agent, self.scores, self.game.record)

    def hand_of(self, agent: int) -> tuple[engine.HandState, int]:
        """The hand in play, ``agent``'s seat its engine player."""
        return self.game.hand, agent

    def agent_points(self, outcome: engine.HandOutcome, agent: int) -> int:
        """``agent``'s points for a step that ended a hand: :meth:`points`."""
        return self.points(outcome, agent)

    def agent_info(self, outcome: engine.HandOutcome, agent: int, sides: tuple[str, str]) -> dict:
        """The info of ``agent`` for a step that ended a hand: the ``outcome`` (:func:`outcome_info`) and, once a
        match episode is over, the ``match`` (:meth:`match_info`)."""
        info = {"outcome": outcome_info(outcome, agent)}
        end = self.match_info(agent, sides)
        if end is not None:
            info["match"] = end
        return info

    def match_info(self, seat: int, sides: tuple[str, str]) -> dict | None:
        """The finished game told to ``seat`` (own numbers first; ``sides`` labels the winner: own, other); None
        unless a match episode is over."""
        if self.match is None or not self.over:
            return None
        m, other = self.game, 1 - seat
        totals = match.final_totals(m)
        winner = None if m.winner is None else sides[m.winner != seat]
        return {"scores": (m.scores[seat], m.scores[other]), "final_totals": (totals[seat], totals[other]),
                "winner": winner, "hands": len(m.history), "abandoned": m.abandoned}

    # --- text -------------------------------------------------------------------------------------------------------

    def text(self, names: tuple[str, str], *, viewer: int | None = None, deadwood=None,
             last_outcome: dict | None = None) -> str:
        """The table as ansi text, seats named by ``names`` (by seat). With ``viewer`` (a single-agent env): the
        other seat's hand above the viewer's, the pile spelled out, the knock limit, ``deadwood`` (the viewer's),
        the match scores and ``last_outcome`` (an :func:`outcome_info` dict). Without: each seat's hand and score."""
        s, scores = self.state, self.scores
        top = cards.card_str(s.pile[-1]) if s.pile else "--"

        def who(p: int) -> str:
            dealer = " (dealer)" if p == s.dealer else ""
            return names[p] + dealer if viewer is None else f"{names[p]:<8}{dealer}"

        lines = [f"Gin Rummy [{self.rules.name}]  phase: {engine.PHASE_NAMES[s.phase]}  to act: "
                 + (names[s.current] if viewer is None else who(s.current))]
        if viewer is None:
            lines += [f"  {who(p):<20} {cards.to_str(s.hands[p])}   score {scores[p]}" for p in (0, 1)]
            lines.append(f"  discard pile: top {top}, {counted(len(s.pile), 'card')}   "
                         f"stock: {counted(engine.stock_size(s), 'card')}")
            return "\n".join(lines)
        me, opp = viewer, 1 - viewer
        lines += [
            f"  {who(opp):<20} {cards.to_str(s.hands[opp])}",
            f"  {who(me):<20} {cards.to_str(s.hands[me])}",
            f"  discard pile: top {top}, {counted(len(s.pile), 'card')} ({' '.join(map(cards.card_str, s.pile))})",
            f"  stock: {counted(engine.stock_size(s), 'card')}   knock limit: {s.knock_limit}   "
            f"{names[me]} deadwood: {'?' if deadwood is None else deadwood}",
        ]
        if self.match is not None:
            lines.append(f"  match to {self.rules.target}: {names[me]} {scores[me]}, {names[opp]} {scores[opp]}")
        if last_outcome is not None:
            o = last_outcome
            lines.append(f"  last hand: {o['kind']}, winner {o['winner']}, {names[me]} points {o['points']:+d}")
        return "\n".join(lines)

    # --- one learner, the opponent inside the env's step ------------------------------------------------------------

    def seating(self, seat: int) -> tuple[int, dict[str, list[int]]]:
        """The learner is the agent of ``seat``, the opponent the other seat's."""
        return seat, {"opponent": [1 - seat]}

    def check_deal(self, *, deck=None, dealer=None) -> dict:
        """``deck`` as the card ids of the rules' deck (ids or names, top first, R10) and ``dealer`` as 0, 1 or None;
        errors name them."""
        return {"deck": None if deck is None else engine.deck_ids(deck, self.rules.deck),
                "dealer": seat_or_none(dealer, "dealer")}

    def deal_for(self, seat: int, rng: np.random.Generator, **fixed) -> None:
        """:meth:`deal`: either seat plays every hand."""
        self.deal(rng, **fixed)

    def learner_text(self, learner: int, others: dict, last_outcome: dict | None) -> str:
        """:meth:`text` from ``learner``'s seat, the seats named learner and opponent."""
        names = OUTCOME_SIDES if learner == 0 else OUTCOME_SIDES[::-1]
        return self.text(names, viewer=learner, deadwood=self.view(learner).deadwood, last_outcome=last_outcome)

    def last_hand(self, learner: int) -> HandRecord:
        """The last finished hand of the episode, its players named learner and opponent by ``learner``'s seat."""
        if self._finished is None:
            raise RuntimeError("no hand has finished in this episode yet: replay() returns the last finished hand")
        start, scores, number, hand_actions = self._finished
        players = OUTCOME_SIDES if learner == 0 else OUTCOME_SIDES[::-1]
        return HandRecord(start, tuple(hand_actions), players, number, scores)

    def scene(self, learner: int) -> Scene:
        scores = self.scores
        return Scene(self.state, learner, None if self.match is None else (scores[learner], scores[1 - learner]))
