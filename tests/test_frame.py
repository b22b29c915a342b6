"""render_mode="rgb_array" (gin_env.ui.frame): the table as an RGB picture, numpy only, that Gymnasium's RecordVideo
records; the opponent's cards stay hidden until the showdown."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest

import gin_env  # noqa: F401 - registers GinRummy-v0
from gin_env.game import engine
from gin_env.game.rules import Rules
from gin_env.ui import frame


def _play(env, seed: int):
    """Random legal play to the end of an episode; every frame rendered on the way, the last info."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    frames, done, info = [env.render()], False, {}
    while not done:
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        frames.append(env.render())
    return frames, info


def test_frames_are_rgb_pictures_that_change_with_the_state():
    env = gym.make("GinRummy-v0", render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    frames, info = _play(env, 3)
    assert all(f.shape == (frame.HEIGHT, frame.WIDTH, 3) and f.dtype == np.uint8 for f in frames)
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))
    assert "outcome" in info


def test_the_opponent_hand_is_hidden_until_the_showdown_then_shown():
    state = engine.new_hand(Rules(), np.random.default_rng(5))
    other = engine.new_hand(Rules(), np.random.default_rng(6))
    assert other.hands[1] != state.hands[1]
    # The same table but other hidden cards for the opponent: the picture must not tell them apart.
    changed = dataclasses.replace(state, hands=(state.hands[0], other.hands[1]))
    names = ("LEARNER", "OPPONENT")
    rows = slice(frame.OPPONENT_ROW, frame.OPPONENT_ROW + frame.CARD_H)
    hidden = frame.draw(state, 0, names)
    assert np.array_equal(frame.draw(changed, 0, names), hidden)
    shown = frame.draw(dataclasses.replace(state, phase=engine.OVER), 0, names, result="GIN: LEARNER +25")
    assert not np.array_equal(shown[rows], hidden[rows])
    assert (shown == frame.GOLD).all(axis=2).any() and not (hidden == frame.GOLD).all(axis=2).any()


def test_the_showdown_frame_differs_and_shows_the_result():
    env = gym.make("GinRummy-v0", render_mode="rgb_array", opponent="simple")
    frames, info = _play(env, 11)
    last, before = frames[-1], frames[-2]
    assert info["outcome"] is not None
    assert (last == frame.GOLD).all(axis=2).any() and not (before == frame.GOLD).all(axis=2).any()
    rows = slice(frame.OPPONENT_ROW, frame.OPPONENT_ROW + frame.CARD_H)
    assert not np.array_equal(last[rows], before[rows])  # the opponent's cards turned face up


def test_match_frames_show_the_scores_and_the_font_refuses_unknown_characters():
    env = gym.make("GinRummy-v0", render_mode="rgb_array", episode="match", rules="eaai")
    frames, info = _play(env, 2)
    assert len(frames) > 10 and all(f.shape == (frame.HEIGHT, frame.WIDTH, 3) for f in frames)
    with pytest.raises(ValueError, match="font has no '@'"):
        frame.text(np.zeros((20, 40, 3), dtype=np.uint8), 0, 0, "@")


def test_record_video_writes_a_file(tmp_path):
    pytest.importorskip("moviepy")
    folder = tmp_path / "videos"
    env = gym.wrappers.RecordVideo(gym.make("GinRummy-v0", render_mode="rgb_array"), str(folder),
                                   episode_trigger=lambda episode: True, disable_logger=True)
    _play(env, 4)
    env.close()
    videos = list(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
