"""The replay viewer: a saved hand move by move on a rich console, both hands after every action, then the showdown.

    gin-env replay FILE [--step]

The file format and its checks are :mod:`gin_env.replay.replay_file`'s; this module only shows a checked replay.
"""

from __future__ import annotations

import sys

from gin_env.arguments import ArgumentParser
from gin_env.game import actions, cards, engine, rule_options
from gin_env.game.engine import HandState
from gin_env.optional import MissingExtra, require
from gin_env.replay.replay_file import MAX_BYTES, Replay, ReplayError, load
from gin_env.text import printable

#: Said once before the first step, when stepping through a hand.
STEP_HINT = "Step by step: Enter shows the next action; q then Enter stops."
#: The prompt after each step.
STEP_PROMPT = "(Enter: next, q: quit) "


def show(replay: Replay, console, wait=None) -> None:
    """Print the hand move by move on a rich ``console``, both hands after every action, then the showdown.

    ``wait``, if given, is called (like ``input``, with :data:`STEP_PROMPT`) after each action, to step through
    the hand, which :data:`STEP_HINT` explains first: an answer of ``q`` stops, and so does end of input."""
    # rich is needed only to show a replay, not to record or check one (evaluate.py and the env do that).
    from gin_env.ui import render

    Text = require("rich.text", "the replay viewer").Text

    names = replay.players
    states = replay.states()
    start = states[0]
    rules = replay.rules
    width = max(len(n) for n in names)

    def show_hands(state: HandState, actor: int | None, highlight: int) -> None:
        for p in (0, 1):
            line = render.plain(f"   {'›' if p == actor else ' '} {names[p]:<{width}}  ")
            mark = highlight if p == actor else engine.NO_CARD
            console.print(line.append_text(render.hand(state.hands[p], rules, mark)))

    where = f"hand {replay.hand_number}" if replay.hand_number is not None else "a hand"
    target = f" · game to {rules.target}" if rules.target is not None else ""
    console.rule(render.plain(f"Replay of {where} · {rule_options.label(rules)} rules{target}"))
    scores = f"; scores before the hand: {names[0]} {replay.scores[0]}, {names[1]} {replay.scores[1]}"
    console.print(render.plain(f"P1 {names[0]}, P2 {names[1]}; {names[replay.dealer]} deals"
                               f"{scores if replay.scores != (0, 0) else ''}."))
    if start.initial_upcard != engine.NO_CARD:
        console.print(Text("Upcard ").append_text(render.card(start.initial_upcard))
                      .append(f", knock limit {start.knock_limit}."))
    show_hands(start, None, engine.NO_CARD)
    if wait is not None:
        console.print(STEP_HINT, style="dim", markup=False)
    digits = len(str(len(replay.actions)))
    for k, (before, action, after) in enumerate(zip(states, replay.actions, states[1:]), start=1):
        line = Text(f"{k:>{digits}}. ").append_text(render.move(before, action, names[before.current], True))
        pile = f"top {cards.card_str(after.pile[-1])}" if after.pile else "empty"
        console.print(line.append(f"   (stock {engine.stock_size(after)}, pile {pile})", style="dim"))
        if after.phase != engine.OVER:
            drawn = before.deck[before.stock_top] if action == actions.DRAW_STOCK else engine.NO_CARD
            show_hands(after, before.current, after.taken if action == actions.TAKE_DISCARD else drawn)
        if wait is not None:
            try:
                if wait(STEP_PROMPT).strip().lower() == "q":
                    return
            except EOFError:
                return
    for line in render.showdown(states[-1], names):
        console.print(line)


def main(argv: list[str] | None = None, prog: str = "gin-env replay") -> int:
    """Run the command line; the exit code (0 shown, 2 a bad file or a missing extra)."""
    parser = ArgumentParser(prog=prog, description="Step through a saved Gin Rummy hand, showing both hands.",
                            epilog=f"A file over {MAX_BYTES:,} bytes is refused: no hand's replay comes near that "
                                   "size.")
    parser.add_argument("file", help="a replay saved by gin_env.ui.play, evaluate.py --replays or the env")
    parser.add_argument("--step", action="store_true", help="wait for Enter after each action (q then Enter stops)")
    args = parser.parse_args(argv)
    try:
        require("rich", "the replay viewer")
        from gin_env.ui import render

        console = render.console()
    except MissingExtra as missing:
        print(f"{prog}: error: {missing}", file=sys.stderr)
        return 2
    try:
        replay = load(args.file)
    except ReplayError as err:  # it may quote the file's path or fields: shown, never run
        print(f"{prog}: error: {printable(str(err))}", file=sys.stderr)
        return 2
    try:
        show(replay, console, console.input if args.step else None)
    except KeyboardInterrupt:
        console.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
