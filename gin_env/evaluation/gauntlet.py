"""The gauntlet (``gin-env evaluate AGENT --gauntlet``): one agent against opponents of distinct, documented styles,
each pair on duplicate games, to judge how robust its play is rather than how it fares against one opponent.

The members, in the report's order: four styles of the expert's play (``agents.styles``: knocks at the first
chance, knocks early with low deadwood only, waits for gin racing for it, waits for gin keeping deadwood least), the
EAAI simple player, the expert, the shipped PPO policy and the search.
"""

from __future__ import annotations

from gin_env import agents

#: The gauntlet's members by versioned name, so that a result names the opponents it was measured against.
GAUNTLET = ("knocker-v1", "early-knocker-v1", "gin-hunter-v1", "undercutter-v1", "simple-v1", "expert-v2",
            "ppo-v5", "search-v2")


def lineup_names(agent: str) -> list[str]:
    """``agent`` and then every gauntlet member but itself (a built-in name is compared by the version it loads)."""
    own = agents.versioned(agent) if agent in agents.AGENTS or agent in agents.VERSIONS else agent
    return [agent, *(member for member in GAUNTLET if member != own)]
