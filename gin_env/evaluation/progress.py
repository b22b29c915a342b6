"""The evaluation's progress bar: games counted one by one as they end, in whichever process plays them, and a rate
(and so an ETA) measured on the games alone.

Two things would otherwise make the first ETA wrong by an order of magnitude: a bar that moves by whole chunks
(a hundred deals, minutes of play with a slow agent) jumps rather than flows, and the wait before the first game
(starting worker processes, imports, numba's cache, loading a model with torch: up to half a minute) is no measure
of how fast games are played. So the bar counts single games, and its clock for the rate starts at the first one.
Hidden (``--no-progress``), it needs no tqdm; shown without tqdm installed, it is one line saying how to get it, and
the games are played all the same (a bar is no output the user asked for).
"""

from __future__ import annotations

import sys
import time

from gin_env.optional import EXTRAS, MissingExtra, require

#: tqdm's weight of the latest rate in its moving average: games are of even length, so a short memory is enough
#: and the ETA follows a change of pace (a slow pair after a fast one) within seconds.
SMOOTHING = 0.3


class Progress:
    """A bar of ``total`` ``unit``\\ s (duplicate games), labelled ``desc``, shown on stderr when ``show`` and tqdm is
    installed; a context manager."""

    def __init__(self, total: int, unit: str, show: bool, desc: str = "evaluating") -> None:
        self.done = 0
        self.bar = None
        if not show:
            return
        try:
            tqdm = require("tqdm", "the progress bar").tqdm
        except MissingExtra:
            print(f"{desc}: no progress bar without tqdm (pip install 'gin-env[{EXTRAS['tqdm']}]' shows one)",
                  file=sys.stderr)
        else:
            self.bar = tqdm(total=total, unit=unit, desc=desc, smoothing=SMOOTHING)

    def to(self, done: int) -> None:
        """``done`` games are played in all."""
        if done <= self.done:
            return
        if self.bar is not None and self.done == 0:
            # tqdm's next sample of the rate spans the time and the count since its last print: the start-up wait
            # and these first games, unless its clock starts now (public attributes of tqdm). Not drawn until that
            # sample is taken, as the rate tqdm would show meanwhile is the overall average, wait included.
            self.bar.last_print_t = time.time()
            self.bar.update(done)
            self.bar.last_print_n = done
        elif self.bar is not None:
            self.bar.update(done - self.done)
        self.done = done

    def add(self, games: int = 1) -> None:
        """``games`` more games are played."""
        self.to(self.done + games)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
