"""One writer at a time: :func:`held_lock` holds a lock file for a ``with`` block and refuses a second process in
one line that names the holder, and :func:`holding` checks again under the lock what the command checked before.
The system releases a lock when its process ends, however it ends, so a killed command leaves nothing locked; the
next holder takes over the file it left.

``gin-env train``, ``train_rllib.py`` and the expert iteration of ``experiments/`` lock their run folder,
``gin-env dataset`` the id it writes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

#: The most bytes of a lock file read back: the process id its holder wrote there.
LOCK_HOLDER_LIMIT = 32
#: Tries to lock a lock file that holders keep removing between our opening it and locking it; each removal means
#: a run just ended, so a second try all but always finds the file in place.
LOCK_TRIES = 5


def _try_lock(file) -> bool:
    """Take an exclusive lock on the open ``file`` without waiting; whether it was free."""
    if os.name == "nt":
        import msvcrt

        try:
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def held_lock(path: str | os.PathLike, busy: Callable[[str], str]) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created when missing) for the ``with`` block, and remove the file
    at its end. When another process holds it, ``ValueError`` with the line ``busy(holder)``, ``holder`` naming that
    process (``"process 1234"``). The lock goes with the process: however it ends, the system releases it, and the
    next holder takes over the file a killed one left."""
    for _ in range(LOCK_TRIES):
        with open(path, "a+", encoding="utf-8") as file:
            if not _try_lock(file):
                raise ValueError(busy(_holder(file)))
            if not _names(file, path):  # its holder removed it as we opened it: lock the file now at ``path``
                continue
            file.seek(0)
            file.truncate()
            file.write(str(os.getpid()))
            file.flush()
            try:
                yield
            finally:
                # Removed while still held, so the next process makes a new file: no one is left locking this one.
                with contextlib.suppress(OSError):  # Windows keeps an open file
                    os.unlink(path)
            return
    raise ValueError(busy("another process"))


class Refused(ValueError):
    """A lock another process holds, or what was checked found changed once the lock is held: the command stops in
    one line, before its work."""


@contextlib.contextmanager
def holding(lock: contextlib.AbstractContextManager, recheck: Callable[[], T]) -> Iterator[T]:
    """Hold ``lock`` (a :func:`held_lock`) for the ``with`` block and yield ``recheck()``, called under it: what the
    command checked before may have changed until then (another run wrote there). :class:`Refused` when the lock is
    held elsewhere or ``recheck`` raises ``ValueError`` or ``OSError``; errors of the block itself pass as they are."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(lock)
            checked = recheck()
        except (ValueError, OSError) as err:
            raise Refused(str(err)) from None
        yield checked


def _holder(file) -> str:
    """Who holds the lock on ``file``: the process whose id it holds, as far as it can be read."""
    file.seek(0)
    try:
        written = file.read(LOCK_HOLDER_LIMIT).strip()
    except OSError:  # Windows refuses to read a locked region
        written = ""
    return f"process {written}" if written.isdigit() else "another process"


def _names(file, path: str | os.PathLike) -> bool:
    """Whether ``path`` is still the open ``file``."""
    try:
        return os.path.samestat(os.fstat(file.fileno()), os.stat(path))
    except FileNotFoundError:
        return False
