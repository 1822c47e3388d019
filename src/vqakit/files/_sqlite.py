"""SQLite databases that several processes, and several hosts, share: the response cache and the
frame store.

SQLite's write-ahead log keeps its index in shared memory, which only processes of one kernel
can share: on a network file system (NFS, SMB, Lustre, ...) two hosts of a Ray cluster would each
see their own index and corrupt the database. There the rollback journal is used instead, which
needs nothing but the file system's locks (NFS v4 has them). On a local file system WAL is kept:
readers never wait for the writer.
"""

from __future__ import annotations

import os
import sqlite3
from functools import lru_cache
from pathlib import Path

# Types of file systems whose files other machines write too (as /proc/self/mountinfo names them).
NETWORK_FILESYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "ncpfs",
        "afs",
        "9p",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
        "beegfs",
        "ocfs2",
        "gfs2",
        "fuse.sshfs",
        "fuse.glusterfs",
        "fuse.ceph-fuse",
        "fuse.juicefs",
        "fuse.s3fs",
        "fuse.gcsfuse",
        "fuse.rclone",
        "fuse.cephfs",
    }
)
MOUNTINFO = Path("/proc/self/mountinfo")


def _unescape(field: str) -> str:
    """mountinfo writes a space, tab, newline and backslash in a path as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


@lru_cache(maxsize=1)
def _mounts(mountinfo: Path = MOUNTINFO) -> tuple[tuple[str, str], ...]:
    """(mount point, file system type), longest mount point first; empty where unknown."""
    try:
        text = mountinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    found = []
    for line in text.splitlines():
        fields = line.split(" ")
        if "-" not in fields:
            continue
        separator = fields.index("-")
        if len(fields) < 5 or separator + 1 >= len(fields):
            continue
        found.append((_unescape(fields[4]), fields[separator + 1]))
    return tuple(sorted(found, key=lambda mount: len(mount[0]), reverse=True))


def filesystem_type(path: str | Path, mountinfo: Path = MOUNTINFO) -> str | None:
    """The type of the file system `path` lies on (`ext4`, `nfs4`, ...), or None where the
    system does not say (not Linux)."""
    where = os.path.realpath(path)
    for point, kind in _mounts(mountinfo):
        if where == point or where.startswith(point.rstrip("/") + "/"):
            return kind
    return None


def on_network_filesystem(path: str | Path, mountinfo: Path = MOUNTINFO) -> bool:
    return filesystem_type(path, mountinfo) in NETWORK_FILESYSTEMS


def journal_mode(path: str | Path) -> str:
    """WAL on a local file system; the rollback journal (DELETE) on a network one."""
    folder = Path(path).parent
    return "DELETE" if on_network_filesystem(folder) else "WAL"


def open_shared_database(
    path: str | Path, timeout: float = 30, check_same_thread: bool = True
) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), with the journal that suits
    the file system the database lies on."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(
        path, timeout=timeout, isolation_level=None, check_same_thread=check_same_thread
    )
    connection.execute(f"PRAGMA journal_mode={journal_mode(path)}")
    return connection
