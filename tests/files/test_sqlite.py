"""Shared SQLite databases pick their journal by the file system they lie on."""

from __future__ import annotations

from pathlib import Path

from vqakit.files._sqlite import (
    _mounts,
    filesystem_type,
    journal_mode,
    on_network_filesystem,
    open_shared_database,
)

MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
40 22 0:35 / /mnt/team rw,relatime shared:20 - nfs4 server:/export rw,vers=4.2
41 40 0:36 / /mnt/team/local\\040disk rw shared:21 - xfs /dev/vdb rw
42 22 0:37 / /mnt/sshfs rw - fuse.sshfs user@host:/ rw
"""


def test_the_longest_mount_point_names_the_file_system(tmp_path: Path):
    info = tmp_path / "mountinfo"
    info.write_text(MOUNTINFO)
    _mounts.cache_clear()
    try:
        assert filesystem_type("/home/me/cache", info) == "ext4"
        assert filesystem_type("/mnt/team/cache", info) == "nfs4"
        assert filesystem_type("/mnt/team", info) == "nfs4"
        assert filesystem_type("/mnt/teamother", info) == "ext4"  # a prefix is not a parent
        assert filesystem_type("/mnt/team/local disk/x", info) == "xfs"  # escaped spaces
        assert on_network_filesystem("/mnt/team/x", info) and on_network_filesystem("/mnt/sshfs/x", info)
        assert not on_network_filesystem("/mnt/team/local disk/x", info)
        assert not on_network_filesystem("/x", tmp_path / "absent")  # unknown: local
    finally:
        _mounts.cache_clear()


def test_a_local_database_uses_the_write_ahead_log(tmp_path: Path):
    assert journal_mode(tmp_path / "db.sqlite") == "WAL"
    connection = open_shared_database(tmp_path / "deeper/db.sqlite")
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_database_on_a_network_file_system_uses_the_rollback_journal(tmp_path: Path, monkeypatch):
    import vqakit.files._sqlite as shared

    monkeypatch.setattr(shared, "on_network_filesystem", lambda path, mountinfo=None: True)
    connection = open_shared_database(tmp_path / "db.sqlite")
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
