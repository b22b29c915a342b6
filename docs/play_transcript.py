"""Print the transcript of a real game of ``gin-env play``, for the README.

The person's seat is played by the simple agent typing its choices as commands, with three slips on the way to
show the explanations (a typo, a knock that is not allowed, a card not held), through the same prompts and input
function a person uses; everything else is the program's own output.

    python docs/play_transcript.py [SEED [REPLAY_DIR]]
"""

from __future__ import annotations

import io
import sys

import numpy as np
from rich.console import Console

from gin_env import agents
from gin_env.game import cards, engine
from gin_env.game.actions import KNOCK_BASE, action_card
from gin_env.ui.commands import command
from gin_env.ui.terminal import TerminalGame


def _slip(state: engine.HandState, action: int, made: set[str]) -> str | None:
    """A wrong command to type before ``action``, each kind once: it gets an explanation and changes nothing."""
    if state.phase == engine.DRAW and "typo" not in made:
        made.add("typo")
        return "dr"
    if state.phase != engine.DISCARD:
        return None
    if "knock" not in made and not engine.legal_mask(state)[KNOCK_BASE + action_card(action)]:
        made.add("knock")
        return f"k {cards.card_str(action_card(action))}"
    if "knock" in made and "not held" not in made:
        made.add("not held")
        return next(cards.card_str(c) for c in range(cards.N_CARDS) if not state.hands[0] >> c & 1)
    return None


def transcript(seed: int, replay_dir: str | None = None) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
    agent, rng = agents.load("simple"), np.random.default_rng(seed)
    typed: list[str] = []
    made: set[str] = set()

    def input_fn(prompt: str) -> str:
        if not typed:
            action = agent.act(game.table.agent_view(0), rng)
            slip = _slip(game.table.state, action, made)
            typed.extend(([slip] if slip else []) + [command(action)])
        console.print(prompt + typed[0], markup=False)
        return typed.pop(0)

    game = TerminalGame("simple", "standard", input_fn, console, seed, replay_dir)
    game.run()
    return console.file.getvalue()


if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    sys.stdout.write(transcript(seed, sys.argv[2] if len(sys.argv) > 2 else None))
