"""The format keys of Rules (R49, R57) and the two-player-only batched engine and vector env."""

from __future__ import annotations

import pytest

from gin_env.batch.hand_batch import HandBatch
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game.rules import PRESETS, Rules


def test_r49_players_default_two_and_every_preset_is_two_player():
    assert Rules().players == 2 and Rules().team_target == 125
    assert {name: r.players for name, r in PRESETS.items()} == {name: 2 for name in PRESETS}
    assert Rules.preset("foony", players=4).players == 4


@pytest.mark.parametrize("bad", [1, 5, 0, True, 3.0, "3", None])
def test_r49_players_must_be_two_three_or_four(bad):
    with pytest.raises(ValueError, match=r"rules key 'players' must be one of 2, 3, 4 \(R49\)"):
        Rules(players=bad)


@pytest.mark.parametrize("bad", [0, -125, 125.0, True, None])
def test_r57_team_target_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="rules key 'team_target'"):
        Rules(team_target=bad)


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"players": 3}, "three players"), ({"players": 4}, "four players in two teams"),
    ({"room": (2, 1)}, "a room of 2 and 1 members"), ({"rules": Rules(players=4)}, "four players"),
])
def test_vector_env_refuses_other_formats_by_name(kwargs, named):
    with pytest.raises(ValueError, match=f"two-player games only, not {named}"):
        GinRummyVectorEnv(2, **kwargs)


def test_batched_engine_refuses_other_formats_by_name():
    with pytest.raises(ValueError, match=r"two-player games only; rules.players=3 is three players \(R50-R53\)"):
        HandBatch(Rules(players=3), 2)
