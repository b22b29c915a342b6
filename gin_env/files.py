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
* **No output is an input.** :func:`check_distinct` refuses an output path that names, by its real path or as a
  hard link, a file the command reads or another output, before any work.
* **Never an unbounded read.** :func:`read_text` refuses a file larger than the caller's limit (a wrong file as a
  replay is an error, not a process that grows until the machine stops); :func:`bounded_archive` checks a zip
  archive's entries and their sizes before any is decompressed (a zip bomb is refused, not expanded).
* **Only regular files are read.** :func:`check_input_file` and :func:`read_text` refuse a FIFO, a device or a
  socket (:class:`NotRegularFile`), which could block a reader forever or never end; :func:`read_text` checks the
  descriptor it reads from, so a file swapped after the check is refused too.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import stat
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping

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


class NotRegularFile(OSError, ValueError):
    """An input names a FIFO, a device or a socket, not a regular file: reading one could wait forever (a FIFO
    with no writer) or never end (``/dev/zero``). Both an ``OSError`` and a ``ValueError``, as the callers of
    :func:`check_input_file` and of :func:`read_text` expect."""


#: The kinds of file that are not regular ones, as :class:`NotRegularFile` names them.
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _check_regular(mode: int, name: str) -> None:
    """Raise :class:`NotRegularFile` naming ``name`` and its kind unless ``mode`` (a ``stat`` mode) is a regular
    file's."""
    if not stat.S_ISREG(mode):
        kind = next((kind for test, kind in _KINDS if test(mode)), "a special file")
        raise NotRegularFile(f"{name}: is {kind}, not a regular file")


def check_input_file(path: str | os.PathLike, option: str | None = None) -> None:
    """Raise ``OSError`` (or ``ValueError`` for an empty path) naming ``option`` when ``path`` is not a readable
    regular file (a symlink to one is): :class:`NotRegularFile` for a FIFO, a device or a socket."""
    path = os.fspath(path)
    if not path:
        raise ValueError(f"{option or 'input file'}: the path is empty")
    if os.path.isdir(path):
        raise IsADirectoryError(f"{_named(path, option)}: is a folder, not a file")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{_named(path, option)}: no such file")
    _check_regular(os.stat(path).st_mode, _named(path, option))
    if not os.access(path, os.R_OK):
        raise PermissionError(f"{_named(path, option)}: permission denied")


#: An option's paths for :func:`check_distinct`: one path, several, or None for an option not given.
Paths = str | os.PathLike | Iterable[str | os.PathLike] | None


def _given(paths: Mapping[str, Paths]) -> list[tuple[str, str]]:
    """(option, path) for each path of ``paths``, in order."""
    out = []
    for option, value in paths.items():
        if value is None:
            continue
        for path in [value] if isinstance(value, (str, os.PathLike)) else value:
            out.append((option, os.fspath(path)))
    return out


def same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file or folder: one real path (symlinks resolved), or one inode (a
    hard link, or the same file through another mount)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist: only its real path could have matched
        return False


def check_distinct(inputs: Mapping[str, Paths], outputs: Mapping[str, Paths],
                   advice: str = "give the output another path") -> None:
    """``ValueError`` in one line naming both options when a path of ``outputs`` is the same file
    (:func:`same_file`) as a path of ``inputs``, or as another output: a command would replace what it reads, or
    write one file twice. Both map an option to its path or paths; ``advice`` ends the message. Reads nothing,
    writes nothing."""
    written: list[tuple[str, str]] = []
    for option, path in _given(outputs):
        for other_option, other in _given(inputs) + written:
            if same_file(path, other):
                raise ValueError(f"{option} {path}: the same file as {other_option} {other}; {advice}")
        written.append((option, path))


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
    that is not a regular file (:class:`NotRegularFile`), before reading it whole (:func:`read_bytes`)."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} {os.fspath(path)}: not UTF-8 text") from None


#: The limits of an archive read (:func:`bounded_archive`), from the largest file the project writes: a training
#: checkpoint of a network whose actor holds ``agents.numpy_policy.MAX_WEIGHTS`` weights (the most a weights file
#: holds) takes some 500 MiB, 320 MiB of it in its largest entry (Adam's two moments). Such a file lists 6 entries,
#: the torch files in it (archives too) up to 70-odd, a weights file 20-odd; an entry of a list takes 46 bytes
#: and its name (under 100 bytes here), and the list's size is checked before Python reads it whole.
ARCHIVE_ENTRIES, DIRECTORY_BYTES_PER_ENTRY = 1_000, 1_024
ARCHIVE_ENTRY_BYTES, ARCHIVE_BYTES = 2**30, 2**31
#: How much of an entry is decompressed at a time: an entry that expands past its size is refused at once.
READ_CHUNK_BYTES = 2**20
#: The zip format's end record (its size without the comment after it), the zip64 locator just before it, and the
#: zip64 end record the locator points to.
_END_RECORD, _END_RECORD_BYTES, _MAX_COMMENT_BYTES = b"PK\x05\x06", 22, 65_535
_ZIP64_LOCATOR, _ZIP64_LOCATOR_BYTES = b"PK\x06\x07", 20
_ZIP64_END_RECORD, _ZIP64_END_RECORD_BYTES = b"PK\x06\x06", 56


def read_bytes(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, refusing with ``ValueError`` one of more than ``limit`` bytes before
    reading it (:class:`NotRegularFile` for anything but a regular file)."""
    path = os.fspath(path)
    check_input_file(path)
    # Opened without waiting (a FIFO with no writer would block the open itself) and checked by its descriptor, not
    # its name: a FIFO put in the file's place after check_input_file is refused, not read.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    chunks, size = [], 0
    with open(os.open(path, flags), "rb") as f:
        status = os.fstat(f.fileno())
        _check_regular(status.st_mode, f"{what} {path}")
        # In chunks: read(limit + 1) would take the memory of the limit at once, whatever the file's size.
        while status.st_size <= limit and size <= limit and (chunk := f.read(READ_CHUNK_BYTES)):
            chunks.append(chunk)
            size += len(chunk)
    if status.st_size > limit or size > limit:
        raise ValueError(f"{what} {path}: larger than {limit:,} bytes; not a {what}")
    return b"".join(chunks)


def _directory_bytes(data: bytes) -> int | None:
    """The largest size the zip archive ``data`` declares for its list of entries: in its end record, and in a
    zip64 end record where a locator says there is one, read both where the locator points and just before it
    (Python versions differ); None when ``data`` has no end record."""
    end = data.rfind(_END_RECORD, max(0, len(data) - _END_RECORD_BYTES - _MAX_COMMENT_BYTES))
    if end < 0 or len(data) < end + _END_RECORD_BYTES:
        return None
    sizes = [int.from_bytes(data[end + 12:end + 16], "little")]
    locator = end - _ZIP64_LOCATOR_BYTES
    if locator >= 0 and data[locator:locator + 4] == _ZIP64_LOCATOR:
        for record in (int.from_bytes(data[locator + 8:locator + 16], "little"), locator - _ZIP64_END_RECORD_BYTES):
            if record >= 0 and data[record:record + 4] == _ZIP64_END_RECORD:
                sizes.append(int.from_bytes(data[record + 40:record + 48], "little"))
    return max(sizes)


@contextlib.contextmanager
def bounded_archive(source: str | os.PathLike | bytes, name: str) -> Iterator[zipfile.ZipFile]:
    """The zip archive at the path ``source``, or in the bytes ``source``, open for the ``with`` block once its
    sizes are checked, before any entry is decompressed: the file (:data:`ARCHIVE_BYTES`), the list of entries
    (:data:`ARCHIVE_ENTRIES`), each entry's declared size (:data:`ARCHIVE_ENTRY_BYTES`) and their total. A path is
    read once: every entry read in the block comes from the bytes checked. ``ValueError`` naming ``name`` (and the
    entry) for an archive over a limit or no zip archive at all; read entries with :func:`read_entry`."""
    data = source if isinstance(source, bytes) else read_bytes(source, ARCHIVE_BYTES, "archive")
    directory = _directory_bytes(data)
    if directory is None:
        raise ValueError(f"{name}: not a zip archive")
    if directory > ARCHIVE_ENTRIES * DIRECTORY_BYTES_PER_ENTRY:
        raise ValueError(f"{name}: its list of entries takes {directory:,} bytes; an archive read here lists at most "
                         f"{ARCHIVE_ENTRIES:,} entries in {ARCHIVE_ENTRIES * DIRECTORY_BYTES_PER_ENTRY:,} bytes")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise ValueError(f"{name}: not a zip archive: {err}") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > ARCHIVE_ENTRIES:
            raise ValueError(f"{name}: holds {len(entries):,} entries; an archive read here holds at most "
                             f"{ARCHIVE_ENTRIES:,}")
        for entry in entries:
            if entry.file_size > ARCHIVE_ENTRY_BYTES:
                raise ValueError(f"{name}: its entry {entry.filename!r} expands to {entry.file_size:,} bytes; an "
                                 f"entry read here expands to at most {ARCHIVE_ENTRY_BYTES:,}")
        total = sum(entry.file_size for entry in entries)
        if total > ARCHIVE_BYTES:
            raise ValueError(f"{name}: its entries expand to {total:,} bytes; an archive read here expands to at "
                             f"most {ARCHIVE_BYTES:,}")
        yield archive


def read_entry(archive: zipfile.ZipFile, entry: str, name: str, limit: int = ARCHIVE_ENTRY_BYTES) -> bytes:
    """The bytes of ``entry`` of an archive open in :func:`bounded_archive`, decompressed a chunk at a time and
    refused (``ValueError`` naming ``name`` and the entry) when it declares more than ``limit`` bytes or expands
    past what it declares; ``KeyError`` when the archive has no such entry."""
    info = archive.getinfo(entry)
    if info.file_size > limit:
        raise ValueError(f"{name}: its entry {entry!r} expands to {info.file_size:,} bytes; at most {limit:,} here")
    limit = info.file_size
    chunks, size = [], 0
    try:
        with archive.open(info) as member:
            while chunk := member.read(READ_CHUNK_BYTES):
                size += len(chunk)
                if size > limit:
                    raise ValueError(f"{name}: its entry {entry!r} expands past the {limit:,} bytes it declares")
                chunks.append(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as err:
        raise ValueError(f"{name}: its entry {entry!r} is damaged: {err}") from None
    return b"".join(chunks)


def check_archive(data: bytes, name: str) -> None:
    """``ValueError`` naming ``name`` unless the zip archive in ``data`` is within :func:`bounded_archive`'s bounds
    and each of its entries expands to no more than it declares (:func:`read_entry`): the check before a reader
    that takes the archive whole (torch's) is given it."""
    with bounded_archive(data, name) as archive:
        for entry in archive.namelist():
            read_entry(archive, entry, name)


def _npy_header(member) -> tuple[tuple, bool, np.dtype]:
    """(shape, Fortran order, dtype) from the header of the ``.npy`` array that the open file ``member`` starts with."""
    version = np.lib.format.read_magic(member)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f"array format version {version}")
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    return read(member)


def npz_headers(path: str, what: str, names=None) -> dict[str, tuple[tuple, np.dtype]]:
    """(shape, dtype) of each array in the ``.npz`` file at ``path`` (of those among ``names`` that it holds, when
    given), by its name, from the headers alone, the archive bounded (:func:`bounded_archive`); ``ValueError``
    saying the file is not ``what`` when it is not an archive of arrays numpy can read."""
    headers = {}
    with bounded_archive(path, f"{path!r} is not {what}") as archive:
        members = archive.namelist()
        if names is not None:
            held = set(members)
            members = [name + ".npy" for name in names if name + ".npy" in held]
        try:
            for member_name in members:
                with archive.open(member_name) as member:
                    shape, _, dtype = _npy_header(member)
                headers[member_name.removesuffix(".npy")] = (shape, dtype)
        except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error) as err:  # a header numpy cannot read
            raise ValueError(f"{path!r} is not {what}: {err}") from err
    return headers


def npz_arrays(path: str, headers: Mapping[str, tuple[tuple, np.dtype]], what: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file at ``path`` named in ``headers`` (from :func:`npz_headers`, checked by the
    caller), each read from the archive bounded (:func:`bounded_archive`) and refused unless its header is still
    the one checked and its entry holds the bytes that header declares; ``ValueError`` saying the file is not
    ``what`` otherwise."""
    arrays, name = {}, f"{path!r} is not {what}"
    with bounded_archive(path, name) as archive:
        for key, (shape, dtype) in headers.items():
            if key + ".npy" not in archive.namelist():
                raise ValueError(f"{name}: the array {key} is gone after its header was checked")
            data = read_entry(archive, key + ".npy", name)
            member = io.BytesIO(data)
            try:
                header_shape, _, header_dtype = _npy_header(member)
                if (header_shape, header_dtype) != (shape, dtype):
                    raise ValueError(f"the array {key} changed after its header was checked")
                if math.prod(shape) * dtype.itemsize > len(data) - member.tell():
                    raise ValueError(f"the array {key} holds fewer bytes than its shape {shape} needs")
                member.seek(0)
                arrays[key] = np.lib.format.read_array(member, allow_pickle=False)
            except (OSError, EOFError, ValueError) as err:
                raise ValueError(f"{name}: {err}") from err
    return arrays
