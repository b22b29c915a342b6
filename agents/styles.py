"""Style agents: the expert's play with its knock schedule and its race for gin set to one distinct style each, the
opponents of the evaluation's gauntlet (``gin-env evaluate AGENT --gauntlet``).

Each keeps the expert's discards (one-draw lookahead, the charge for feeding the opponent) and its draws, so the
styles differ in when they knock and what they discard for, not in how well they keep a hand:

=================  ========================================================  ========================================
name               knocks                                                    discards for
=================  ========================================================  ========================================
``knocker``        at the first chance: any legal knock, at once             least deadwood (no race for gin)
``early-knocker``  only early and with low deadwood: up to 5 right after     least deadwood, then the race for gin
                   the deal, falling to gin only over 10 stock draws
``gin-hunter``     only with gin                                             the race for gin from the first draw,
                                                                             twice as eager as the expert's
``undercutter``    only with gin                                             least deadwood: it sits low and waits
                                                                             for a knock it can undercut
=================  ========================================================  ========================================

The knocker is what a knock-eager player does to the expert's waiting; the early knocker punishes slow starts and
nothing else; the gin hunter and the undercutter both never knock short of gin, but the one plays for gin outs and
the other for low deadwood, so a knocker against the undercutter is undercut more often. docs/agents.md measures
each style against the expert.
"""

from __future__ import annotations

from gin_env.agents.expert import ExpertAgent, ExpertParams

#: A knock threshold above any hand's deadwood: the expert caps it at the hand's knock limit (R20, R46), so a player
#: with it knocks whenever a knock is legal.
ANY_KNOCK = 100.0
#: The early knocker's threshold right after the deal, and the stock draws over which it falls to gin only.
EARLY_KNOCK, EARLY_FADE_DRAWS = 5.0, 10.0
#: Deadwood points per unit of chance that the next draw makes gin: the gin hunter's race, twice the expert's.
HUNTER_GIN_WEIGHT = 2 * ExpertParams().gin_weight
#: Stock draws after which the gin hunter and the undercutter play their discards as waiting players (the race for
#: gin starts then); they never knock short of gin from the deal on.
WAIT_FROM_DRAW = 1.0


def knocker() -> ExpertAgent:
    """``knocker-v1``: knocks whenever a knock is legal, at once, with least-deadwood discards."""
    return ExpertAgent(ExpertParams(early_knock=ANY_KNOCK, late_knock=ANY_KNOCK, gin_weight=0.0))


def early_knocker() -> ExpertAgent:
    """``early-knocker-v1``: knocks only in its first draws and only with low deadwood, then waits for gin."""
    return ExpertAgent(ExpertParams(early_knock=EARLY_KNOCK, fade_draws=EARLY_FADE_DRAWS, late_knock=0.0))


def gin_hunter() -> ExpertAgent:
    """``gin-hunter-v1``: never knocks short of gin and discards to race for it."""
    return ExpertAgent(ExpertParams(early_knock=0.0, fade_draws=WAIT_FROM_DRAW, late_knock=0.0,
                                    gin_weight=HUNTER_GIN_WEIGHT))


def undercutter() -> ExpertAgent:
    """``undercutter-v1``: never knocks short of gin and keeps its deadwood least, to undercut a knocker."""
    return ExpertAgent(ExpertParams(early_knock=0.0, fade_draws=WAIT_FROM_DRAW, late_knock=0.0, gin_weight=0.0))
