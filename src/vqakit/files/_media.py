"""Media placed into a benchmark folder safely, from datasets laid out with symbolic links.

- `real_file(source)`: the source resolved to the regular file it names (absolute and relative
  links, links of links); anything else is an `InputError` naming the source.
- `MediaPlan`: {name under media/: real file}. One source keeps one name; two different files
  never share one, not even names that differ only in case (one file on a case-insensitive
  file system): the second becomes `name-2.ext`, so ids that differ keep different files.
  Callers name media after ids with `file_stem`, so the names do not depend on row order.
- `place_media(folder, plan)`: hard-links each real file into `folder/media/` (a copy where
  linking is impossible), or with `link=True` makes symbolic links to the absolute real paths
  (`--link-media`; the card must then say `linked_media: true`). It only writes into a folder
  that holds no symbolic link on the way (`refuse_links`).
- `staged_folder(out)`: a fresh temporary folder beside `out` that the caller fills; when the
  block ends without an error its entries replace those of `out` by renames (links already in
  `out` are renamed, never followed), else it is removed: nothing is left behind by a failure.
  Given the `OutFolder` that `check_out` accepted, it also writes the marker of the command
  (listing the files written) and carries over the user's files found under the entries it
  replaces (`vqakit.files._outputs`).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from vqakit.files._outputs import OutFolder, carry_foreign_files, owned_files, write_marker
from vqakit.files._problems import InputError


def real_file(source: str | Path) -> Path:
    """The regular file `source` names, every symbolic link followed; `InputError` naming the
    source when it is missing, a broken link or a loop, a folder, or not a regular file."""
    source = Path(source)
    try:
        resolved = source.resolve(strict=True)
        info = resolved.stat()
    except FileNotFoundError:
        broken = os.path.islink(source)
        raise InputError(f"{source}: {'a broken symbolic link' if broken else 'file not found'}") from None
    except (OSError, RuntimeError) as error:  # RuntimeError: a symbolic link loop (Python 3.11)
        raise InputError(
            f"{source}: cannot be followed ({getattr(error, 'strerror', None) or error})"
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{source}: is a folder, not a media file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{source}: is not a regular file")
    if not os.access(resolved, os.R_OK):
        raise InputError(f"{source}: cannot be read (permission denied)")
    return resolved


def media_name_problem(name: str) -> str | None:
    """Why `name` cannot be a path under media/ (absolute, `..`, empty parts, NUL), or None."""
    parts = name.split("/")
    if not name or "\x00" in name or "\\" in name or name.startswith("/"):
        return f"{name!r} is not a relative file name"
    if any(part in ("..", ".", "") for part in parts):
        return f"{name!r} may not hold '.', '..' or empty parts"
    return None


class MediaPlan:
    """Which real file goes where under media/: names unique per source file."""

    def __init__(self) -> None:
        self.files: dict[str, Path] = {}  # name under media/ -> real file
        self._names: dict[Path, str] = {}  # real file -> its name
        self._folded: set[str] = set()  # the names taken, case folded

    def add(self, name: str, source: str | Path) -> str:
        """Plan `source` (resolved, checked with `real_file`) under media/`name` and return the
        name it got: the name it already has, `name`, or `stem-2.ext`, `stem-3.ext`, ... when
        another file holds `name` (in any case)."""
        if problem := media_name_problem(name):
            raise InputError(f"{source}: cannot be placed: {problem}")
        real = real_file(source)
        if real in self._names:
            return self._names[real]
        path = PurePosixPath(name)
        chosen, number = name, 1
        while chosen.casefold() in self._folded:
            number += 1
            chosen = str(path.with_name(f"{path.stem}-{number}{path.suffix}"))
        self.files[chosen] = real
        self._names[real] = chosen
        self._folded.add(chosen.casefold())
        return chosen

    def subset(self, names: set[str]) -> dict[str, Path]:
        return {name: real for name, real in self.files.items() if name in names}


def refuse_links(folder: str | Path) -> None:
    """`InputError` when `folder` (which may not exist yet) holds a symbolic link at any depth:
    a write through it could land outside. The folder itself may be a link the user gave."""
    folder = Path(folder)
    if not folder.exists():
        return
    if not folder.is_dir():
        raise InputError(f"{folder}: exists and is not a folder")
    for parent, folders, files in os.walk(folder):
        for name in (*folders, *files):
            path = Path(parent) / name
            if path.is_symlink():
                raise InputError(
                    f"{path}: a symbolic link inside the output folder (to {os.readlink(path)}); "
                    "writing through it could land outside, so remove it or choose another --out"
                )


def _same_file(placed: Path, real: Path) -> bool:
    """Whether `placed` (never followed if it is a link) already holds `real`'s bytes."""
    try:
        have, want = placed.lstat(), real.stat()
    except OSError:
        return False
    if not stat.S_ISREG(have.st_mode):
        return False
    same_inode = (have.st_dev, have.st_ino) == (want.st_dev, want.st_ino)
    return same_inode or (have.st_size == want.st_size and have.st_mtime_ns == want.st_mtime_ns)


def link_or_copy(source: Path, target: Path) -> None:
    """`target` as a hard link of `source` (never following a link), or a copy across file systems."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


def place_media(
    folder: str | Path,
    plan: Mapping[str, Path],
    *,
    link: bool = False,
    reuse: str | Path | None = None,
) -> None:
    """Place each planned file at `folder/media/NAME`: a hard link of the real file (a copy
    across file systems), or with `link` a symbolic link to its absolute real path. A regular
    file already there holding the same file (same inode, or same size and time) is kept.
    `reuse`: another folder whose `media/NAME` of that kind is linked instead of copying again
    (a rerun over a copy). Refuses (`InputError`) a `folder` holding a symbolic link."""
    folder = Path(folder)
    refuse_links(folder)
    media = folder / "media"
    old = Path(reuse) / "media" if reuse is not None else None
    for name, source in plan.items():
        if problem := media_name_problem(name):
            raise InputError(f"{source}: cannot be placed: {problem}")
        real = real_file(source)
        target = media / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not link and _same_file(target, real):
            continue  # placed by an earlier run
        if target.is_symlink() or target.exists():
            target.unlink()
        if link:
            os.symlink(real, target)
        elif old is not None and not old.is_symlink() and _same_file(old / name, real) and _inside(old, name):
            os.link(old / name, target, follow_symlinks=False)
        else:
            link_or_copy(real, target)


def _inside(base: Path, name: str) -> bool:
    """Whether `base/name` is reached without following a link (so it is truly inside)."""
    path = base
    for part in PurePosixPath(name).parts[:-1]:
        path = path / part
        if path.is_symlink():
            return False
    return True


def _folder_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o777 & ~umask


@contextmanager
def staged_folder(
    out: str | Path, claimed: OutFolder | None = None, writer: str | None = None
) -> Iterator[Path]:
    """A fresh folder beside `out` to write into; on success each of its entries replaces the
    entry of that name in `out` (created when missing: then the whole folder is renamed into
    place at once), and entries of `out` not written are kept. On any error the staged folder
    is removed and `out` is as it was. With `claimed` (what `check_out` accepted for `writer`):
    the marker of `vqakit <writer>` listing the files staged is written with them, and files
    of `out` the earlier write did not list are carried into the new entries (or the write is
    refused, `OutFolderRefused`, when it would replace one)."""
    out = Path(out)
    if out.is_symlink():
        out = out.resolve()
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".staging", dir=out.parent))
    try:
        os.chmod(stage, _folder_mode())
        yield stage
        if writer is not None:
            write_marker(stage, writer, owned_files(stage))
            if claimed is not None:
                carry_foreign_files(claimed, stage, f"vqakit {writer}")
        if not out.exists():
            os.rename(stage, out)
            return
        replaced = Path(tempfile.mkdtemp(prefix=".replaced.", dir=stage))
        for entry in sorted(os.listdir(stage)):
            if entry == replaced.name:
                continue
            if os.path.lexists(out / entry):
                os.rename(out / entry, replaced / entry)  # a link is renamed, never followed
            try:
                os.rename(stage / entry, out / entry)
            except OSError as error:
                if error.errno != errno.EXDEV:  # `out` is a mount point: move across
                    raise
                shutil.move(stage / entry, out / entry)
    finally:
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)
