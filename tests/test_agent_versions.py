"""Versioned agent names: each loads and says its name, a plain name loads the newest version, an unknown version is
refused with the list of known names."""

from __future__ import annotations

import pytest

from gin_env import agents
from gin_env.agents.expert import ExpertAgent
from gin_env.agents.numpy_policy import SHIPPED, NumpyPolicyAgent
from gin_env.agents.search import SearchAgent

NEWEST = {"random": "random-v1", "simple": "simple-v1", "expert": "expert-v2", "search": "search-v2",
          "ppo": "ppo-v5", "ppo-expert": "ppo-expert-v1", "ppo-jokers": "ppo-jokers-v1", "knocker": "knocker-v1",
          "early-knocker": "early-knocker-v1", "gin-hunter": "gin-hunter-v1", "undercutter": "undercutter-v1",
          "exit": "exit-v1", "switch": "switch-v1"}


@pytest.mark.parametrize("name", agents.versioned_names())
def test_each_versioned_name_loads_and_carries_its_name(name):
    agent = agents.load(name)
    assert isinstance(agent, agents.Agent) and agent.name == name


@pytest.mark.parametrize(("plain", "newest"), NEWEST.items())
def test_a_plain_name_loads_its_newest_version(plain, newest):
    assert agents.versioned(plain) == newest
    plain_agent, versioned_agent = agents.load(plain), agents.load(newest)
    assert plain_agent.name == newest
    assert repr(plain_agent) == repr(versioned_agent)


def test_every_agent_has_its_versions_and_no_other_names():
    assert sorted(NEWEST) == agents.names()
    assert {agents.versioned(name) for name in agents.names()} <= set(agents.versioned_names())


def test_the_older_versions_play_as_documented():
    expert_v1 = agents.load("expert-v1")
    assert isinstance(expert_v1, ExpertAgent) and expert_v1.params.gin_weight == 0
    assert agents.load("expert-v2").params.gin_weight > 0
    search_v1 = agents.load("search-v1")
    assert isinstance(search_v1, SearchAgent)
    assert (search_v1.params.guide, search_v1.params.samples, search_v1.params.trust) == ("expert", 192, None)
    assert agents.load("search-v2").params.guide == "ppo-expert"
    assert agents.load("search-v1").params.jokers_guide == "expert"
    assert agents.load("search-v2").params.jokers_guide == "ppo-jokers"
    ppo = agents.load("ppo-v5")
    assert isinstance(ppo, NumpyPolicyAgent) and ppo.path == SHIPPED["ppo"]


@pytest.mark.parametrize(("name", "versions"), [("expert-v3", "expert has versions expert-v1, expert-v2"),
                                                ("ppo-expert-v2", "ppo-expert has versions ppo-expert-v1"),
                                                ("ppo-v1", "ppo has versions ppo-v5")])
def test_an_unknown_version_is_refused_with_the_known_names(name, versions):
    with pytest.raises(ValueError) as err:
        agents.load(name)
    message = str(err.value)
    assert message.startswith(f"unknown agent {name!r}; {versions}; known agents: ")
    for known in agents.names() + agents.versioned_names():
        assert known in message
    with pytest.raises(ValueError, match=f"unknown agent {name!r}"):
        agents.versioned(name)


def test_a_name_that_is_no_agent_lists_the_known_names_without_versions_of_its_own():
    with pytest.raises(ValueError, match=r"^unknown agent 'grandmaster-v1'; known agents: early-knocker, exit, expert, "
                                         r"gin-hunter, knocker, ppo, ppo-expert, ppo-jokers, random, search, simple, "
                                         r"switch, undercutter .*search-v2.*module:attr"):
        agents.load("grandmaster-v1")
