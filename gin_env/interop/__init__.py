"""Bridges to other libraries: Stable-Baselines3 (``sb3``), RLlib (``rllib``) and OpenSpiel (``openspiel``, with
``openspiel_history`` reading an OpenSpiel game as gin-env states). Each imports its library through
:func:`gin_env.optional.require`."""
