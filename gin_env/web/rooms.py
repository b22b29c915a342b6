"""Rooms of people at the web table: members who hold seats by secret tokens, spectators, R58's turns, and a bot for
empty seats and late turns.

This module owns a room as the web serves it: who is in it (:class:`Member`: a name, a token from ``secrets``, a
seat or none), the limits (members, spectators, names), who takes each turn and when a bot takes it instead, and
what each member and spectator is sent. The game itself is a :class:`~gin_env.web.games.Game` of two players (a
room of R58: each seat's members take its turns in order, cycling, across hands) or of three or four players (one
person per seat; more people join as spectators). The engine checks every move (``Game.act``); a move here is
refused first unless its member takes the turn now.

A hand's members are fixed when it starts: who joins or leaves during a hand takes or gives up turns from the next
one, and when the members differ from the last hand's the turn order is drawn again (the room's generator) and the
turns start again from each seat's first member. An empty seat is played by the bot. A member who is away
(disconnected, or gone) when a turn of theirs is due keeps the seat until they leave; once :data:`TURN_TIMEOUT_S`
has passed on the room's clock since the turn (or the absence) began, :meth:`Room.tick` has the bot play that turn,
and between hands it starts the next hand after the same time. Nothing here sleeps or starts a thread: the app calls
``tick``. Every finished hand is saved as a replay whose ``members`` name who made each action, so a person's
dataset (``gin-env dataset --from-replays``) holds their own turns only. Hints are no part of a room.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gin_env.game.room import MAX_MEMBERS, RoomTurns
from gin_env.game.rules import Rules
from gin_env.replay import recorder
from gin_env.replay.fields import MAX_NAME_LENGTH
from gin_env.table.checks import agent_action, check_episode
from gin_env.table.formats import resolve_format
from gin_env.text import printable, quoted
from gin_env.web.frames import MAX_NAME
from gin_env.web.games import Game

#: Seconds an away member's turn waits before the bot plays it, and a finished hand before the next starts.
TURN_TIMEOUT_S = 30.0
#: The most spectators a room holds besides its members: each is sent a frame after every move.
MAX_SPECTATORS = 200
#: Random bytes of a member's token and of a room's invite (``secrets.token_urlsafe``): unguessable.
TOKEN_BYTES = 24
#: Random bytes of a room's id, which names it in links and in its replays' file names; it admits nobody.
ROOM_ID_BYTES = 9
#: The name a room refuses: each member reads their own moves as "you ...", so would everyone read that member's.
YOU = "you"


def check_name(name) -> str:
    """A person's name: text of 1..``frames.MAX_NAME`` visible characters, no control character, no space at
    either end, not :data:`YOU`; ``ValueError`` naming the problem."""
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise ValueError(f"a name is 1..{MAX_NAME} characters of visible text, got {quoted(name)}")
    if printable(name) != name:
        raise ValueError(f"a name holds no control characters, got {quoted(name)}")
    if name != name.strip():
        raise ValueError(f"a name neither starts nor ends with a space, got {quoted(name)}")
    if name.casefold() == YOU:
        raise ValueError(f"the name {quoted(name)} would read as everyone's own in a room: choose another")
    return name


def seat_label(names) -> str:
    """A seat's name from its members' names, joined by " & " while that fits a replay's player name."""
    joined = " & ".join(names)
    return joined if len(joined) <= MAX_NAME_LENGTH else f"{names[0]} & {len(names) - 1} others"


@dataclass(eq=False)
class Member:
    """A person in a room: ``name``; ``token``, the secret that is this member (:meth:`Room.reconnect`); ``seat``,
    the seat held (from the next hand when taken mid-hand), None for a spectator; ``away_since``, the room's clock
    when they went away (None while connected); ``left``; ``notice``, what the room said on joining."""

    name: str
    token: str = field(repr=False)
    seat: int | None
    away_since: float | None = None
    left: bool = False
    notice: str = ""


class Room:
    """A room of people playing ``rules`` (``players``: 2 for a room of R58, 3 or 4 for one person per seat; None:
    ``rules.players``) for ``episode`` ("hand" or "match"); ``bot`` (an agent object, named ``bot_name``) plays
    empty seats and away members' late turns. ``clock`` gives the seconds :meth:`tick` compares with
    ``turn_timeout_s``; ``max_members`` bounds the seats' members (R58's bound at most), ``max_spectators`` the
    others; ``seed`` fixes the deals, the turn orders and the bot's choices; with ``replay_folder`` every finished
    hand is saved there. Every argument is checked before anything else."""

    def __init__(self, rules: Rules, *, players: int | None = None, episode: str = "match", bot, bot_name: str = "bot",
                 clock: Callable[[], float] = time.monotonic, turn_timeout_s: float = TURN_TIMEOUT_S,
                 max_members: int = MAX_MEMBERS, max_spectators: int = MAX_SPECTATORS, seed: int | None = None,
                 replay_folder=None) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        self.rules, _ = resolve_format(rules, players, None)
        self.players = self.rules.players
        check_episode(episode)
        if not callable(getattr(bot, "act", None)):
            raise ValueError(f"bot must be an agent with act(view, rng), got {type(bot).__name__}")
        if isinstance(turn_timeout_s, bool) or not isinstance(turn_timeout_s, (int, float)) \
                or not math.isfinite(turn_timeout_s) or turn_timeout_s <= 0:
            raise ValueError(f"turn_timeout_s must be a number of seconds > 0, got {quoted(turn_timeout_s)}")
        for what, value, top in (("max_members", max_members, MAX_MEMBERS), ("max_spectators", max_spectators, None)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (top and value > top):
                raise ValueError(f"{what} must be an int 1..{top or ''}, got {quoted(value)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be an int >= 0 or None, got {quoted(seed)}")
        self.episode, self.bot, self.bot_name, self.clock = episode, bot, check_name(bot_name), clock
        self.turn_timeout_s, self.max_members, self.max_spectators = float(turn_timeout_s), max_members, max_spectators
        self.id, self.invite = secrets.token_urlsafe(ROOM_ID_BYTES), secrets.token_urlsafe(TOKEN_BYTES)
        form = "" if self.players == 2 else f"-players{self.players}"
        self._prefix = f"{recorder.file_stem(self.rules.name)}{form}-room-{self.id}"
        self.replay_folder = replay_folder
        if replay_folder is not None:
            recorder.check_folder(replay_folder, (self._prefix + "-",), "the replay folder")
        order_seed, game_seed, bot_seed = np.random.SeedSequence(seed).spawn(3)
        self._order_rng, self._game_rng = np.random.default_rng(order_seed), np.random.default_rng(game_seed)
        self._bot_rng = np.random.default_rng(bot_seed)
        self._members: dict[str, Member] = {}
        #: The game in play (None before the first :meth:`start`) and how many games the room has started.
        self.game, self.games = None, 0
        #: The hand's members of each seat in turn order, fixed when it started; R58's turns over them.
        self._lineup: tuple[tuple[Member, ...], ...] = ()
        self._turns = RoomTurns((1,) * self.players, (0,) * self.players)
        #: Who was waited on at the last change, and since when (the room's clock).
        self._waiting_on, self._since = None, 0.0

    # --- members ----------------------------------------------------------------------------------------------------

    def check_invite(self, invite) -> None:
        """``ValueError`` unless ``invite`` is this room's invite token (compared in constant time)."""
        if not isinstance(invite, str) or not secrets.compare_digest(invite.encode(), self.invite.encode()):
            raise ValueError("that is not this room's invite")

    def _holders(self, seat: int) -> list[Member]:
        """Who holds ``seat`` from the next hand, in the order they joined."""
        return [m for m in self._members.values() if m.seat == seat]

    def _bot_label(self, seat: int) -> str:
        return self.bot_name if self.players == 2 else f"{self.bot_name} {seat + 1}"

    def join(self, name, as_player: bool, seat: int | None = None) -> Member:
        """A new member named ``name`` (:func:`check_name`; a name another member or the bot has is refused): a
        player of ``seat`` (None: in a room of R58 the seat with fewer members, else the first free seat) from the
        next hand on, or a spectator. With three or four players, a player who finds every seat taken joins as a
        spectator, and the member's ``notice`` says so. ``ValueError`` naming the problem (a full room, a taken
        seat or name) and nothing changes."""
        name = check_name(name)
        taken = {m.name.casefold() for m in self._members.values()} | {self._bot_label(s).casefold()
                                                                 for s in range(self.players)}
        if name.casefold() in taken:
            raise ValueError(f"the name {quoted(name)} is taken in this room: choose another")
        if not as_player and seat is not None:
            raise ValueError("a spectator holds no seat")
        seat, notice = self._free_seat(seat) if as_player else (None, "")
        if seat is not None and sum(m.seat is not None for m in self._members.values()) >= self.max_members:
            raise ValueError(f"the room's seats hold {self.max_members} members already (R58): join as a spectator")
        if seat is None and sum(m.seat is None for m in self._members.values()) >= self.max_spectators:
            raise ValueError(f"the room holds {self.max_spectators} spectators already")
        member = Member(name, secrets.token_urlsafe(TOKEN_BYTES), seat, notice=notice)
        self._members[member.token] = member
        return member

    def _free_seat(self, seat) -> tuple[int | None, str]:
        """The seat a new player takes, and a notice when they watch instead (every seat of three or four taken)."""
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < self.players):
            raise ValueError(f"seat must be 0..{self.players - 1} or None, got {quoted(seat)}")
        if self.players == 2:
            return (min((0, 1), key=lambda s: len(self._holders(s))) if seat is None else seat), ""
        free = [s for s in range(self.players) if not self._holders(s)]
        if seat is not None and seat not in free:
            raise ValueError(f"seat {seat} is taken by {self._holders(seat)[0].name}: one person per seat with "
                             f"{self.players} players")
        if not free:
            return None, "every seat is taken: you watch as a spectator"
        return (free[0] if seat is None else seat), ""

    def _member(self, token) -> Member:
        member = self._members.get(token) if isinstance(token, str) else None
        if member is None:
            raise ValueError("no member of this room holds that token")
        return member

    def reconnect(self, token) -> Member:
        """The member ``token`` is, back: their seat (or place among the spectators) is theirs again."""
        member = self._member(token)
        member.away_since = None
        return member

    def disconnect(self, token) -> None:
        """Mark the member away: they keep their seat, and a turn of theirs goes to the bot after the timeout."""
        member = self._member(token)
        if member.away_since is None:
            member.away_since = self.clock()

    def leave(self, token) -> None:
        """The member leaves: their token admits no one from now on, their seat is given up from the next hand
        and their turns in the hand in play go to the bot after the timeout."""
        self.disconnect(token)
        self._members.pop(token).left = True

    # --- hands ------------------------------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """"open" (no game yet), "playing", "between" (a finished hand waits) or "over"."""
        if self.game is None:
            return "open"
        return "over" if self.game.over else "between" if self.game.waiting else "playing"

    def _player(self, token) -> Member:
        member = self._member(token)
        if member.seat is None:
            raise ValueError(f"{member.name} watches: only a seat's member may do that")
        return member

    def start(self, token) -> None:
        """Start a game (a member with a seat asks): while the room is open or its last game is over."""
        self._player(token)
        if self.state not in ("open", "over"):
            raise ValueError(f"a game is in play: the room is {self.state}")
        lineup = self._draw_lineup()
        players, names = self._seating(lineup)
        self.games += 1
        self.game = Game(self.rules, players=players, names=names, episode=self.episode,
                         seed=int(self._game_rng.integers(2**32)), replay_folder=self.replay_folder,
                         prefix=f"{self._prefix}-game{self.games:03d}", members=True)
        self._begin(lineup, True, self.clock())

    def next_hand(self, token=None) -> None:
        """Deal the next hand (a seat's member asks; ``tick`` passes no token): its members are the seats' now,
        their order drawn again when they changed since the last hand."""
        if token is not None:
            self._player(token)
        self._next_hand(self.clock())

    def _next_hand(self, now: float) -> None:
        if self.state != "between":
            raise ValueError(f"no finished hand waits: the room is {self.state}")
        wanted = tuple(frozenset(self._holders(s)) for s in range(self.players))
        if not any(wanted):
            raise ValueError("nobody holds a seat: the next hand waits for a player")
        redrawn = wanted != tuple(frozenset(seat) for seat in self._lineup)
        lineup = self._draw_lineup() if redrawn else self._lineup
        if redrawn:
            self.game.reseat(*self._seating(lineup))
        self.game.next_hand()
        self._begin(lineup, redrawn, now)

    def _draw_lineup(self) -> tuple[tuple[Member, ...], ...]:
        """Each seat's holders in an order drawn by the room's generator (R58)."""
        if not any(self._holders(s) for s in range(self.players)):
            raise ValueError("nobody holds a seat: a hand needs a player")
        return tuple(tuple(self._holders(s)[i] for i in self._order_rng.permutation(len(self._holders(s))))
                     for s in range(self.players))

    def _seating(self, lineup) -> tuple[list, list[str]]:
        """The game's players (None for a person's seat, else the bot) and seat names for ``lineup``."""
        return ([None if members else self.bot for members in lineup],
                [seat_label([m.name for m in members]) if members else self._bot_label(s)
                 for s, members in enumerate(lineup)])

    def _begin(self, lineup, redrawn: bool, now: float) -> None:
        """Play the hand just dealt with ``lineup``, its turns from each seat's first member when ``redrawn``."""
        self._lineup = lineup
        if redrawn:
            self._turns = RoomTurns(tuple(max(1, len(m)) for m in lineup), (0,) * self.players)
        self.game.advance()
        self._note(now)

    # --- turns ------------------------------------------------------------------------------------------------------

    def acting(self) -> Member | None:
        """The member who takes the turn now (R58); None when the bot's seat acts or no hand is in play."""
        if self.state != "playing" or not self._lineup[self.game.actor]:
            return None
        seat = self.game.actor
        return self._lineup[seat][self._turns.member(seat)]

    def _note(self, now: float) -> None:
        """Restart the timeout's clock when whom the room waits on changed."""
        acting = self.acting()
        key = (self.state, self.games, self.game.actor, None if acting is None else acting.token)
        if key != self._waiting_on:
            self._waiting_on, self._since = key, now

    def _move(self, action: int, by: str, now: float) -> None:
        """Play ``action`` for the seat to act (checked by the engine), made by ``by``; pass the seat's turn on to
        its next member when the other seat moves next or the hand ended (R58); then the bots' moves."""
        seat = self.game.actor
        self.game.act(seat, action, by=by)
        ended = self.state != "playing"
        self._turns = self._turns.after(seat, ended or self.game.actor != seat)
        if not ended:
            self.game.advance()
        self._note(now)

    def act(self, token, action) -> None:
        """The member ``token`` plays ``action`` (an id): ``ValueError`` naming the problem (no hand in play, not
        their turn by R58, an action the engine refuses) and nothing changes."""
        member = self._member(token)
        if self.state != "playing":
            raise ValueError(f"no hand is in play: the room is {self.state}")
        acting = self.acting()
        if acting is not member:
            who = self._bot_label(self.game.actor) if acting is None else acting.name
            raise ValueError(f"it is not {member.name}'s turn: {who} acts")
        self._move(action, member.name, self.clock())

    def deadline(self) -> float | None:
        """When (the room's clock) the bot plays the turn now due or the next hand starts; None while the room
        waits on a member who is here, or on nothing."""
        acting = self.acting()
        if self.state == "between":
            return self._since + self.turn_timeout_s
        if acting is None or acting.away_since is None:
            return None
        return max(self._since, acting.away_since) + self.turn_timeout_s

    def tick(self, now: float | None = None) -> bool:
        """Play what is overdue at ``now`` (the room's clock by default): an away member's turn by the bot, the next
        hand after a finished one. True when anything was played."""
        now = self.clock() if now is None else now
        changed = False
        while (due := self.deadline()) is not None and now >= due:
            if self.state == "between":
                if not any(self._holders(s) for s in range(self.players)):
                    break
                self._next_hand(now)
            else:
                seat = self.game.actor
                view = self.game.view(seat)
                self._move(agent_action(self.bot, self.bot.act(view, self._bot_rng), "bot"),
                           self._bot_label(seat), now)
            changed = True
        return changed

    # --- frames -----------------------------------------------------------------------------------------------------

    def watches(self, token) -> bool:
        """Whether the member ``token`` holds no seat: their frame is :meth:`spectator_frame`, every spectator's."""
        return self._member(token).seat is None

    def frame_for(self, token) -> dict:
        """What the member ``token`` may know now: a seat's member in the hand, ``Game.frame`` of the seat told to
        them (R59, ``moves`` only on their turn, their own moves as "you ..."); a spectator, :meth:`spectator_frame`;
        a member who joined mid-hand a spectator's frame until their first hand. With ``room``: :meth:`_info`."""
        return self._frame(None if self.watches(token) else self._member(token))

    def spectator_frame(self) -> dict:
        """What a spectator may know (``Game.spectator_frame``: both hands only once over), ``room``: :meth:`_info`."""
        return self._frame(None)

    def _seat_in_hand(self, member: Member) -> int | None:
        return next((s for s, members in enumerate(self._lineup) if member in members), None)

    def _frame(self, member: Member | None) -> dict:
        seat = None if member is None else self._seat_in_hand(member)
        if seat is None:
            out = {"type": "room"} if self.game is None else self.game.spectator_frame()
        else:
            out = self.game.frame(seat, member.name)
            if out["view"] is not None and self.acting() is not member:
                out["view"]["moves"] = []
        out["room"] = self._info(member)
        return out

    def _info(self, member: Member | None) -> dict:
        """The room as a member with a seat (None: any spectator, who learned their name and notice on joining) may
        see it: ``id``, ``state``, ``players``, ``rules``, ``episode``; ``you``, ``seat`` and ``notice`` (the
        member's, None for a spectator); ``to_act`` (the name of
        the member or bot to act, or None); ``seats``: per seat ``{"seat", "bot" (the bot plays it this hand),
        "order": [{"name", "away", "left"}] (this hand's members in turn order, the next to take the seat's turn
        first), "joining": [names who play from the next hand]}``; ``spectators`` (int); ``turn_timeout_s``;
        ``seconds_left`` (until the bot plays an away member's turn or the next hand starts, or None)."""
        acting, due = self.acting(), self.deadline()
        seats = []
        for s in range(self.players):
            members = self._lineup[s] if self._lineup else ()
            first = self._turns.member(s) if members else 0
            order = [members[(first + i) % len(members)] for i in range(len(members))]
            seats.append({"seat": s, "bot": self.game is not None and not members,
                          "order": [{"name": m.name, "away": m.away_since is not None, "left": m.left} for m in order],
                          "joining": [m.name for m in self._holders(s) if m not in members]})
        to_act = acting.name if acting else (self._bot_label(self.game.actor) if self.state == "playing" else None)
        return {"id": self.id, "state": self.state, "players": self.players, "rules": self.rules.name,
                "episode": self.episode, "you": None if member is None else member.name,
                "seat": None if member is None else member.seat, "notice": None if member is None else member.notice,
                "to_act": to_act, "seats": seats, "spectators": sum(m.seat is None for m in self._members.values()),
                "turn_timeout_s": self.turn_timeout_s,
                "seconds_left": None if due is None else max(0.0, due - self.clock())}
