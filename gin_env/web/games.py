"""One game of the web table, in any format, its agents played by agent objects or by people.

This module owns a game as the web serves it: the table of its format (``gin_env.table.formats.make_table``, the
table the envs and the terminal game play), the agents' moves until a person must act, a person's move checked by
the engine before it is played, the stop after every finished hand (the deal, with four players) so that a person
sees the showdown before the next one (:meth:`Game.next_hand`), the frames each receiver may be sent (``wire``'s,
built from the receiver's own view or the public table) and a replay of every finished hand in the served folder.
The deals and the agents draw from separate generators, as in the terminal game, so the deals never depend on how
anyone plays. Nothing here reads the clock.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env.game import engine, four_players, match, three_players
from gin_env.game.rules import Rules
from gin_env.replay import recorder, replay_file
from gin_env.table.checks import agent_action, check_episode, is_legal
from gin_env.table.formats import make_table
from gin_env.web import wire

#: The public moves of a table's hand kept for its frames' ``log``.
LOG_LENGTH = 12
#: Each format's final totals with the end-of-game bonuses, by the table's ``rules.players``.
FINAL_TOTALS = {2: match.final_totals, 3: three_players.final_totals, 4: four_players.final_totals}


class Game:
    """One game of ``rules`` for ``episode`` ("hand": one hand, one deal with four players; "match": a game to the
    target), dealt from ``seed``. ``players`` and ``names`` are by agent index of the table (one per seat; a room's
    members, seat 0's first, with ``room`` = (k0, k1)): an agent object (``act(view, rng)``) or None for a person,
    and a name. With ``replay_folder`` every finished hand is saved there as ``{rules}-seed{seed}-{a}-vs-{b}-
    hand{n:03d}.json`` (four players: ``-deal{n:03d}-table{p}``), checked before the first deal; ``prefix``
    replaces the part before ``-hand``. With ``members`` each replay also names who made each of its actions (the
    ``by`` of :meth:`act`, else the agent's name): a room of people (``gin_env.web.rooms``) sets it."""

    def __init__(self, rules: Rules, *, players, names, episode: str = "hand", seed: int = 0,
                 replay_folder: str | os.PathLike | None = None, room: tuple[int, int] | None = None,
                 prefix: str | None = None, members: bool = False) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        check_episode(episode)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        self.rules, self.episode, self.seed = rules, episode, seed
        self.table = make_table(rules, episode, room)
        self._seat_agents(players, names)
        self.replay_folder, self.members = replay_folder, bool(members)
        self.prefix = recorder.run_prefix(rules, seed, tuple(self.seat_name(s) for s in range(self._seats))) \
            if prefix is None else str(prefix)
        if replay_folder is not None:
            recorder.make_folder(replay_folder, (self.prefix + "-",), "the replay folder")
        deal_seed, agent_seed = np.random.SeedSequence(seed).spawn(2)
        self.deal_rng, self.agent_rng = np.random.default_rng(deal_seed), np.random.default_rng(agent_seed)
        self.table.deal(self.deal_rng)
        #: The replay paths written, in order.
        self.saved: list[str] = []
        #: The finished hands of the hand (deal) in play or just ended: (pairing, final state, names by engine
        #: player, seats by engine player).
        self.finished: list[tuple[int, engine.HandState, tuple[str, str], tuple[int, int]]] = []
        #: A hand (deal) has ended and the game waits for :meth:`next_hand` before any move.
        self.waiting = False
        #: A deal ended in a game no person plays: its showdowns stay in ``finished`` until the next move is played,
        #: so that a watcher sees them.
        self._shown = False
        self._start_records()

    # --- who sits where ---------------------------------------------------------------------------------------------

    def _seat_agents(self, players, names) -> None:
        players, names = tuple(players), tuple(str(n) for n in names)
        for what, given in (("players", players), ("names", names)):
            if len(given) != self.table.n_agents:
                raise ValueError(f"{what} must give one entry per agent of {self.table.name} "
                                 f"({self.table.n_agents}), got {len(given)}")
        self.players, self.names = players, names

    def reseat(self, players, names) -> None:
        """Who plays each agent index from the next hand on, and their names (as the constructor takes them): only
        while a finished hand waits for :meth:`next_hand`; ``ValueError`` naming the problem, nothing changed."""
        if not self.waiting:
            raise ValueError("the seats change only between hands, while a finished hand waits for next_hand()")
        self._seat_agents(players, names)

    @property
    def _seats(self) -> int:
        return 2 if hasattr(self.table, "room") else self.table.n_agents

    def seat_of(self, agent: int) -> int:
        """The seat of an agent index: itself, but in a room the seat its member holds."""
        return self.table.seat_of(agent) if hasattr(self.table, "room") else agent

    def seat_name(self, seat: int) -> str:
        """A seat's name: its agent's, or in a room its members' joined by " & "."""
        if hasattr(self.table, "room"):
            return " & ".join(n for a, n in enumerate(self.names) if self.seat_of(a) == seat)
        return self.names[seat]

    def _hands(self) -> dict[int, engine.HandState]:
        """The hands of the game in play, by pairing (one but with four players)."""
        game = self.table.game
        return dict(enumerate(game.hands)) if self.rules.players == 4 else {0: game.hand}

    def _hand_seats(self, pairing: int, game=None) -> tuple[int, int]:
        """The seats of engine players 0 and 1 in pairing ``pairing``'s hand of ``game`` (the table's by default)."""
        game = self.table.game if game is None else game
        return {3: lambda: game.seats, 4: lambda: game.seats[pairing]}.get(self.rules.players, lambda: (0, 1))()

    def _hand_names(self, pairing: int, game=None) -> tuple[str, str]:
        a, b = self._hand_seats(pairing, game)
        return self.seat_name(a), self.seat_name(b)

    def _pairing_of(self, agent: int) -> int | None:
        """The pairing ``agent`` plays in now; None while it sits the hand out (three players)."""
        seat = self.seat_of(agent)
        for pairing in self._hands():
            if seat in self._hand_seats(pairing):
                return pairing
        return None

    @property
    def people(self) -> tuple[int, ...]:
        """The agent indices a person plays."""
        return tuple(a for a, p in enumerate(self.players) if p is None)

    # --- playing ----------------------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def actor(self) -> int | None:
        """The agent index to act; None once the game is over or while it waits for :meth:`next_hand`."""
        return None if self.over or self.waiting else self.table.actor

    def view(self, agent: int):
        """``agent``'s ``PlayerView`` now (None while it sits the hand out): what a hint may read."""
        return self.table.agent_view(self._agent(agent))

    def advance(self, max_moves: int | None = None) -> list[dict]:
        """Play agents' moves until a person must act, a hand (deal) ends with a person in the game, the game is
        over, or ``max_moves`` are played; the moves played, each as :meth:`_play` returns it."""
        played = []
        while self.actor is not None and self.players[self.actor] is not None:
            if max_moves is not None and len(played) >= max_moves:
                break
            agent = self.actor
            bot = self.players[agent]
            played.append(self._play(agent_action(bot, bot.act(self.table.agent_view(agent), self.agent_rng))))
        return played

    def act(self, agent: int, action, by: str | None = None) -> dict:
        """A person's ``action`` (an id) for agent index ``agent``, checked by the engine's legal mask before it is
        played; ``ValueError`` naming the problem (game over, waiting for the next hand, not a person's seat, not
        its turn, an action that is not legal) and nothing changes. ``by`` names who makes the move when not the
        agent's name (a room's member, a bot playing a late member's turn): the log and the replay say it. The
        move, as :meth:`_play` returns it."""
        agent = self._agent(agent)
        if self.over:
            raise ValueError("the game is over")
        if self.waiting:
            raise ValueError("the hand is over: the next hand starts with next_hand()")
        if self.players[agent] is not None:
            raise ValueError(f"agent {agent} ({self.names[agent]}) is played by an agent, not by a person")
        if agent != self.actor:
            raise ValueError(f"it is not {self.names[agent]}'s turn: {self.names[self.actor]} acts")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an int id, got {action!r}")
        if not is_legal(int(action), self.table.legal_mask()):
            raise ValueError(f"action {action!r} is not legal now: legal are {self.view(agent).legal_actions}")
        return self._play(int(action), by)

    def next_hand(self) -> None:
        """Go on after a hand (deal) that ended: ``ValueError`` unless the game waits for it."""
        if not self.waiting:
            raise ValueError("no finished hand waits: the game goes on by itself")
        self.waiting = False
        self.finished = []

    def _agent(self, agent) -> int:
        if isinstance(agent, bool) or not isinstance(agent, (int, np.integer)) or not 0 <= agent < len(self.players):
            raise ValueError(f"agent must be an index 0..{len(self.players) - 1}, got {agent!r}")
        return int(agent)

    def _play(self, action: int, by: str | None = None) -> dict:
        """Play the legal ``action`` of the agent to act (made by ``by``, else by the agent's name): log it, save a
        hand it ends and wait after a hand (deal) that ends with a person in the game. Returns ``{"agent": int,
        "name": str (who made it), "table": pairing, "text": the move in a spectator's words}``."""
        agent, state, before = self.table.actor, self.table.state, self.table.game
        if self._shown:
            self.finished, self._shown = [], False
        pairing = self._pairing_of(agent)
        name = self.names[agent] if by is None else str(by)
        said = wire.public_move(state, action, name)
        # Played first: an action the engine refuses (an agent's) leaves the records and the logs as they were.
        finished = self.table.play(action, self.deal_rng)
        self._records[pairing][1].append(action)
        self._records[pairing][2].append(name)
        self._logs[pairing].append(said)
        after = engine.step(state, action)
        if after.phase == engine.OVER:
            self.finished.append((pairing, after, self._hand_names(pairing, before), self._hand_seats(pairing, before)))
            if self.replay_folder is not None:
                self._save(pairing, before)
        if finished is not None:
            self.waiting = bool(self.people) and not self.over
            self._shown = not self.waiting and not self.over
            if not self.over:
                self._start_records()
        return {"agent": agent, "name": name, "table": pairing, "text": said.text()}

    def _start_records(self) -> None:
        """Start the records (the deal, the actions) and the logs of the hands just dealt."""
        self._records = {t: (hand, [], []) for t, hand in self._hands().items()}
        self._logs: dict[int, list[wire.Said]] = {t: [] for t in self._records}

    def _save(self, pairing: int, game) -> None:
        """Save pairing ``pairing``'s finished hand; ``game`` is the game before its last action."""
        start, played, made_by = self._records[pairing]
        stem, number, seats, scores = recorder.hand_label(game, pairing)
        saved = replay_file.record(start, played, players=self._hand_names(pairing, game), hand_number=number,
                                   scores=scores, seats=seats, members=made_by if self.members else None)
        path = os.path.join(self.replay_folder, f"{self.prefix}-{stem}.json")
        saved.save(path)
        self.saved.append(path)

    # --- frames -----------------------------------------------------------------------------------------------------

    def _header(self) -> dict:
        """What every receiver is sent: ``type`` "game"; ``format`` (words); ``rules`` (the preset's name);
        ``episode``; ``names`` (by agent index); ``seats`` (seat names); ``scores`` [{"name": str, "score": int}]
        (by seat, by team with four players; zeros in a single hand); ``target`` (int or None); ``hand_number``
        (the hand's, the deal's with four players); ``actor`` (the name of the agent to act, or None); ``waiting``
        (a hand ended: the next starts with ``next_hand``); ``over``; ``result`` (None until the game is over, then
        ``{"winner": name or None, "final_totals": [{"name", "score"}]}``, the totals with R41-R43's bonuses)."""
        game, four = self.table.game, self.rules.players == 4
        labels = [f"{self.seat_name(0)} & {self.seat_name(2)}", f"{self.seat_name(1)} & {self.seat_name(3)}"] \
            if four else [self.seat_name(s) for s in range(self._seats)]
        result = None
        if self.over:
            totals = FINAL_TOTALS[self.rules.players](game)
            result = {"winner": None if game.winner is None else labels[game.winner],
                      "final_totals": [{"name": n, "score": int(t)} for n, t in zip(labels, totals)]}
        target = None if self.table.match is None else (self.rules.team_target if four else self.rules.target)
        return {"type": "game", "format": self.table.name, "rules": self.rules.name, "episode": self.episode,
                "names": list(self.names), "seats": [self.seat_name(s) for s in range(self._seats)],
                "scores": [{"name": n, "score": int(s)} for n, s in zip(labels, self.table.scores)],
                "target": target, "hand_number": game.deal if four else len(game.history) + (not self.over),
                "actor": None if self.actor is None else self.names[self.actor], "waiting": self.waiting,
                "over": self.over, "result": result}

    def _showdowns(self, agent: int | None, you: str | None = None) -> tuple[list[dict], list[dict]]:
        """The showdowns of the finished hands ``agent`` may see (None: a spectator sees all), told to ``you``, and
        the results of the others (four players: the other table's, in public words: ``names``, ``kind``,
        ``winner``, ``points``)."""
        shown, results = [], []
        for _, final, names, seats in self.finished:
            if agent is None or self.rules.players != 4 or self.seat_of(agent) in seats:
                shown.append(wire.showdown(final, names, you))
            else:
                o = final.outcome
                results.append({"names": list(names), "kind": o.kind, "points": o.points,
                                "winner": None if o.winner is None else names[o.winner]})
        return shown, results

    def frame(self, agent: int, you: str | None = None) -> dict:
        """What agent index ``agent`` may know now, told to ``you`` (the receiver's name, the agent's by default: a
        room's member whose seat several share is not the seat): :meth:`_header` and ``agent``, ``seat``, ``you``
        (the agent's name); ``view`` (``wire.seat_frame`` of its hand, own name first; ``moves`` only on its turn), None
        while the game waits or it sits the hand out; ``tables`` ([``wire.public_frame``] of the hand it sits out,
        else []); ``log`` (the public moves of its table's hand, the last ``LOG_LENGTH``, ``you``'s own as "you
        ..."); ``showdowns``
        ([``wire.showdown``] of the finished hands it sat at or watched) and ``results`` (the other table's
        results with four players)."""
        agent = self._agent(agent)
        you = self.names[agent] if you is None else you
        out = self._header()
        pairing = self._pairing_of(agent)
        view = None if self.waiting else self.table.agent_view(agent)
        tables = []
        if view is not None:
            names = self._hand_names(pairing)
            own = self._hand_seats(pairing).index(self.seat_of(agent))
            view = wire.seat_frame(view, (names[own], names[1 - own]), may_act=agent == self.actor)
            # The table's view names the rules' target even for a single hand, which has none.
            view["target"] = out["target"]
        elif not self.waiting:
            tables = [wire.public_frame(self.table.state, self._hand_names(0))]
        shown, results = self._showdowns(agent, you)
        log = [said.text(you) for said in self._logs[0 if pairing is None else pairing][-LOG_LENGTH:]]
        out.update(agent=agent, seat=self.seat_of(agent), you=self.names[agent], view=view, tables=tables, log=log,
                   showdowns=shown, results=results)
        return out

    def spectator_frame(self) -> dict:
        """What a spectator may know: :meth:`_header`; ``tables`` ([``wire.public_frame``] of every hand in play,
        [] while the game waits); ``log`` (each table's public moves); ``showdowns`` (every finished hand's);
        ``view`` None."""
        return self._table_frame(wire.public_frame, None)

    def owner_frame(self) -> dict:
        """Every card, for a game that no person plays (a watched game): :meth:`spectator_frame` with
        ``wire.open_frame`` tables; ``ValueError`` when a person plays."""
        if self.people:
            raise ValueError(f"{self.names[self.people[0]]} is a person at this table: no frame shows every hand")
        return self._table_frame(wire.open_frame, None)

    def _table_frame(self, tell, agent: int | None) -> dict:
        out = self._header()
        tables = [] if self.waiting else [tell(hand, self._hand_names(t)) for t, hand in self._hands().items()]
        shown, results = self._showdowns(agent)
        out.update(view=None, tables=tables, log=[said.text() for t in sorted(self._logs) for said in
                                                  self._logs[t][-LOG_LENGTH:]], showdowns=shown, results=results)
        return out
