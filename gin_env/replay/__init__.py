"""Replays of single hands: the JSON file format and its validation (``replay_file``) and the recorder that writes
them while games are played (``recorder``). The viewer is :mod:`gin_env.ui.viewer` (``gin-env replay FILE``)."""

from gin_env.replay.replay_file import Replay, ReplayError, load, loads, record

__all__ = ["Replay", "ReplayError", "load", "loads", "record"]
