"""Files the commands read and write, under one set of rules.

* **Checked before any work.** :func:`check_output_file` and :func:`check_output_folder` refuse a path that cannot
  be written, with a message that names the option, before a command plays a game or trains a step.
* **One rule for missing folders.** A command creates no folder but the one it is told to write into: the folder of
  an output *file* must exist; an output *folder* (``--run-dir``, ``--replays``) may be new, but its parent must
  exist. A typo in a path is an error, not a new tree of folders.
* **Never half a file.** :func:`atomic_write` and :func:`atomic_path` write to a temporary name beside the target
  and rename it into place, so an interrupt or an error leaves the old file (or none), never a truncated one.
* **Arrays checked before they are read.** :func:`npz_headers` reads the shapes and types of an ``.npz`` file's
  arrays from their headers, so a weights file of the wrong network is refused before its arrays are loaded.
* **Never an unbounded read.** :func:`read_text` refuses a file larger than the caller's limit (``/dev/zero`` as a
  replay is an error, not a process that grows until the machine stops).
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from collections.abc import Iterator

import numpy as np


def _named(path: str | os.PathLike, option: str | None) -> str:
    return f"{option} {os.fspath(path)}" if option else os.fspath(path)


def check_output_file(path: str | os.PathLike, option: str | None = None) -> None:
    """Raise ``OSError`` (or ``ValueError`` for an empty path) naming ``option`` when ``path`` cannot be written as a
    file: an empty name, a folder in its place, a missing folder, no permission. Nothing is created."""
    path = os.fspath(path)
    if not path:
        raise ValueError(f"{option or 'output file'}: the path is empty")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(f"{_named(path, option)}: is a folder, not a file")
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{_named(path, option)}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PermissionError(f"{_named(path, option)}: permission denied")


def check_output_folder(path: str | os.PathLike, option: str | None = None) -> None:
    """Raise ``OSError`` (or ``ValueError`` for an empty path) naming ``option`` when ``path`` cannot be used as an
    output folder: an empty name, a file in its place, a missing parent folder, no permission. Nothing is created."""
    path = os.fspath(path)
    if not path:
        raise ValueError(f"{option or 'output folder'}: the path is empty")
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(f"{_named(path, option)}: is a file, not a folder")
    target = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(target):
        raise FileNotFoundError(f"{_named(path, option)}: the folder {target} does not exist")
    if not os.access(target, os.W_OK | os.X_OK):
        raise PermissionError(f"{_named(path, option)}: permission denied")


def check_input_file(path: str | os.PathLike, option: str | None = None) -> None:
    """Raise ``OSError`` (or ``ValueError`` for an empty path) naming ``option`` when ``path`` is not a readable
    file."""
    path = os.fspath(path)
    if not path:
        raise ValueError(f"{option or 'input file'}: the path is empty")
    if os.path.isdir(path):
        raise IsADirectoryError(f"{_named(path, option)}: is a folder, not a file")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{_named(path, option)}: no such file")
    if not os.access(path, os.R_OK):
        raise PermissionError(f"{_named(path, option)}: permission denied")


def temporary_name(path: str | os.PathLike) -> str:
    """A name beside ``path`` for writing it: hidden, unique to this process, with the same ending (libraries such as
    SB3's ``save`` and matplotlib's ``savefig`` choose a format, or add a suffix, by the ending)."""
    folder, base = os.path.split(os.fspath(path))
    stem, ending = os.path.splitext(base)
    return os.path.join(folder, f".{stem}.{os.getpid()}.tmp{ending}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary name to write ``path`` under (for writers that take a path), then rename it to ``path``.
    On an error, or when nothing was written, the temporary file is removed and ``path`` is left as it was."""
    path = os.fspath(path)
    temporary = temporary_name(path)
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator:
    """Open a temporary file beside ``path`` for writing (``mode`` ``"w"`` or ``"wb"``) and rename it to ``path`` when
    the block ends without an error."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as temporary, open(temporary, mode, encoding=None if "b" in mode else encoding) as f:
        yield f


def write_json(path: str | os.PathLike, data, indent: int = 1) -> None:
    """``data`` as indented JSON at ``path``, whole or not at all (:func:`atomic_write`)."""
    with atomic_write(path) as f:
        json.dump(data, f, indent=indent)


def read_text(path: str | os.PathLike, limit: int, what: str = "file") -> str:
    """The text of ``path`` (UTF-8), refusing with ``ValueError`` a file of more than ``limit`` bytes, or anything
    that is not a regular file, before reading it whole."""
    path = os.fspath(path)
    check_input_file(path)
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{what} {path}: larger than {limit:,} bytes; not a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} {path}: not UTF-8 text") from None


def npz_headers(path: str, what: str, names=None) -> dict[str, tuple[tuple, np.dtype]]:
    """(shape, dtype) of each array in the ``.npz`` file at ``path`` (of those among ``names`` that it holds, when
    given), by its name, from the headers alone; ``ValueError`` saying the file is not ``what`` when it is not an
    archive of arrays numpy can read."""
    headers = {}
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.namelist()
            if names is not None:
                held = set(members)
                members = [name + ".npy" for name in names if name + ".npy" in held]
            for member_name in members:
                with archive.open(member_name) as member:
                    version = np.lib.format.read_magic(member)
                    if version not in ((1, 0), (2, 0)):
                        raise ValueError(f"array format version {version}")
                    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                        np.lib.format.read_array_header_2_0
                    shape, _, dtype = read(member)
                headers[member_name.removesuffix(".npy")] = (shape, dtype)
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as err:  # not a zip, or a header numpy cannot read
        raise ValueError(f"{path!r} is not {what}: {err}") from err
    return headers


def npz_arrays(path: str, names, what: str) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the ``.npz`` file at ``path`` (headers checked by the caller); ``ValueError`` saying
    the file is not ``what`` when the archive is damaged past its headers."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in names}
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path!r} is not {what}: {err}") from err
