"""The evaluation's games of three players and four players in two teams (docs/rules.md R49-R57), and their numbers.

A line-up of three players is three agents, each game played in all three rotations of the seats on the same deal
sequence; of four players, two agents A and B, each game played as team A+A (seats 0 and 2) against B+B and again
with the teams' seats swapped (duplicate). Each rotation is a seating of the game. The deals of game ``g`` come from
one generator seeded by ``(seed, g)`` (the first dealer's cut, then one shuffle per hand, or two per deal), which
nothing an agent does changes; each seat's agent draws from its own ``(seed, g, seating, seat)`` generator. The
games run through the table layer (``make_table``) as the envs do.

Numbers per agent (three players) or team (four players), over all seatings of all games: the game win rate (the
games it won; an abandoned game, R19a, or a single hand nobody won counts for nobody) and the points per deal (its
signed hand points, or its team's netted deal results, R56, over the hands or deals of the game, a hand sat out
counting 0). Their 95% intervals take the game (all its seatings) as the unit (``stats.side_stats``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gin_env.evaluation.format_replays import FormatRecorder
from gin_env.evaluation.stats import N_SIDE_COLUMNS
from gin_env.game import four_players
from gin_env.game.rules import Rules
from gin_env.replay import recorder
from gin_env.table.checks import agent_action
from gin_env.table.formats import make_table

#: Domain tags of the generators of one seed (distinct from ``duel``'s, which never meet these).
_DEAL_STREAM, _AGENT_STREAM = 10, 11
#: Seatings of every game, by the number of players.
SEATINGS = {3: 3, 4: 2}

#: Called before every action with the game as it stands, the seat to act, the hand it acts in and its action: the
#: hook for recording replays (``FormatRecorder``).
Observer = Callable[[object, int, object, int], None]


def play_format_game(rules: Rules, seat_agents, seed: int, game: int, seating: int,
                     observer: Observer | None = None) -> dict:
    """Game ``game`` of ``rules.players`` with ``seat_agents[s]`` in seat ``s``; its winner (seat or team, None),
    each seat's points (three players) or each team's (four players), and the hands or deals played."""
    table = make_table(rules, "match" if rules.target is not None else "hand")
    rng = np.random.default_rng([seed, _DEAL_STREAM, game])
    table.deal(rng)
    rngs = [np.random.default_rng([seed, _AGENT_STREAM, game, seating, seat]) for seat in range(rules.players)]
    while not table.over:
        seat = table.actor
        agent = seat_agents[seat]
        action = agent_action(agent, agent.act(table.agent_view(seat), rngs[seat]))
        if observer is not None:
            observer(table.game, seat, table.state, action)
        table.play(action, rng)
    g = table.game
    if rules.players == 3:
        points = [sum(h.points(seat) for h in g.history) for seat in range(3)]
    else:
        net = sum(d.net for d in g.history)
        points = [net, -net]
    return {"winner": g.winner, "points": points, "deals": len(g.history), "abandoned": g.abandoned}


def seat_sides(players: int, seating: int) -> list[int]:
    """The side (index into the line-up) seated at each seat: three players rotate the agents round the table;
    four players seat side 0's agent in seats 0 and 2 in the first seating, in seats 1 and 3 in the second."""
    if players == 3:
        return [(seat + seating) % 3 for seat in range(3)]
    return [(four_players.team(seat) + seating) % 2 for seat in range(4)]


def play_games(rules: Rules, side_agents, seed: int, games: range, replays: str | None = None,
               names: tuple[str, ...] = (), on_game: Callable[[], None] | None = None) -> np.ndarray:
    """Play ``games`` of the line-up ``side_agents`` in all their seatings, saving every hand in ``replays`` when
    asked (as ``{run_prefix}-game{g:05d}-seating{s}-...``, the agents named by ``names``) and calling ``on_game()``
    after each game; ``(len(games), seatings, sides, N_SIDE_COLUMNS)`` numbers (``stats.SIDE_WON`` ..
    ``SIDE_DEALS``)."""
    players = rules.players
    stem = None if replays is None else recorder.run_prefix(rules, seed, names)
    out = np.zeros((len(games), SEATINGS[players], len(side_agents), N_SIDE_COLUMNS))
    for i, game in enumerate(games):
        for seating in range(SEATINGS[players]):
            seat_side = seat_sides(players, seating)
            observer = None if replays is None else \
                FormatRecorder(replays, f"{stem}-game{game:05d}-seating{seating}", [names[s] for s in seat_side])
            result = play_format_game(rules, [side_agents[s] for s in seat_side], seed, game, seating, observer)
            _store(out[i, seating], result, seat_side, players)
        if on_game is not None:
            on_game()
    return out


def _store(row: np.ndarray, result: dict, seat_side: list[int], players: int) -> None:
    """One seating's result per side: won, points, deals."""
    if players == 3:
        for seat, side in enumerate(seat_side):
            row[side] = (result["winner"] == seat, result["points"][seat], result["deals"])
        return
    for team in (0, 1):
        side = seat_side[team]  # seat 0 is team 0's, seat 1 team 1's
        row[side] = (result["winner"] == team, result["points"][team], result["deals"])
