"""Replays of the evaluation's games of three players and four players in two teams: :class:`FormatRecorder`
watches one game, action by action, and saves each hand as a replay file (the format of
:mod:`gin_env.replay.replay_file`, whose ``seats`` say which seats played the hand) as soon as it ends. The files are
named as the terminal game names its own (``gin-env play --save-replays``)."""

from __future__ import annotations

import os

from gin_env.game import engine
from gin_env.game.engine import HandState
from gin_env.replay import recorder, replay_file


class FormatRecorder:
    """Saves every hand of one game of three or four players to ``folder`` as ``{stem}-hand{n:03d}.json`` (three
    players: ``n`` is the hand's number in the game) or ``{stem}-deal{n:03d}-table{p}.json`` (four players: the hand
    of pairing ``p`` of deal ``n``, played at R54's table ``p``); ``names`` are the agents' names by seat, written as
    the hand's players."""

    def __init__(self, folder: str | os.PathLike, stem: str, names: list[str]) -> None:
        self.folder = folder
        self.stem = stem
        self.names = names
        #: Per hand in play, by its pairing (always 0 with three players): the hand as dealt and its actions so far.
        self._open: dict[int, tuple[HandState, list[int]]] = {}

    def __call__(self, game, seat: int, hand: HandState, action: int) -> None:
        """Note ``action`` of ``seat``, about to be played in ``hand`` of ``game`` (the game as it stands before it);
        the hand's replay is saved when this action ends it."""
        pairing = game.pairing_of(seat) if game.rules.players == 4 else 0
        start, played = self._open.setdefault(pairing, (hand, []))
        played.append(int(action))
        if engine.step(hand, action).phase == engine.OVER:
            del self._open[pairing]
            self._save(game, pairing, start, played)

    def _save(self, game, pairing: int, start: HandState, played: list[int]) -> None:
        """Save a finished hand; its number and the scores before it come from ``game``, which does not hold it
        yet."""
        name, number, seats, scores = recorder.hand_label(game, pairing)
        saved = replay_file.record(start, played, players=tuple(self.names[seat] for seat in seats),
                                   hand_number=number, scores=scores, seats=seats)
        saved.save(os.path.join(self.folder, f"{self.stem}-{name}.json"))
