"""The one policy for the folders commands write (`--out`): nothing a user owns is deleted or
replaced unless they asked for it.

`check_out(out, writer, inputs=..., legacy=...)` runs before a command does any work, and
refuses (`OutFolderRefused`: the CLI exits 2, nothing written), in one line that says what to
do instead:
- an `--out` that is one of the command's inputs or lies inside one (writing into what is read);
- an existing `--out` that holds one of the inputs where writing it could delete it (anywhere
  in it, or, when the command names the entries it `replaces`, inside one of those);
- an `--out` that exists, is not empty and was not written by the same command: its marker
  (`MARKER`, written with every folder these commands write) names another writer or there is
  none, and `legacy(out)` (how the command recognises a folder an earlier vqakit wrote before
  markers existed, e.g. a run folder's config.yaml) does not accept it.

A folder the same command wrote may be written again (re-importing replaces the benchmark at
once, as `staged_folder` does). The marker lists the files the command wrote; any other file
found under an entry being replaced is the user's and is carried over into the new folder
(`carry_foreign_files`), or, when the command would write a file of the same name, the whole
write is refused before anything changes.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vqakit.files._atomic import write_text_atomic

MARKER = ".vqakit-output.json"  # {"written_by": "vqakit import table", "vqakit", "at", "files"}
IGNORED = frozenset({".lock", ".DS_Store"})  # entries that do not make a folder "not empty"


class OutFolderRefused(Exception):
    """The `--out` given cannot be written by this command (the CLI exits 2; nothing was
    written). The message is one line that says what to do instead."""


@dataclass(frozen=True)
class OutFolder:
    """An `--out` that `check_out` accepted: `exists` (and holds something), who wrote it
    (`written_by`, None when new or recognised only by `legacy`), and `owned`: the files the
    earlier write listed (None: no list, every file there counts as the command's)."""

    path: Path
    exists: bool = False
    written_by: str | None = None
    owned: frozenset[str] | None = None


def read_marker(folder: str | Path) -> dict[str, Any] | None:
    """The marker of a folder a command wrote, or None (no marker, or one that is unreadable)."""
    try:
        data = json.loads((Path(folder) / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("written_by"), str) else None


def write_marker(folder: str | Path, writer: str, files: Iterable[str] | None = None) -> None:
    """Record in `folder` that `vqakit <writer>` wrote it, and which files (relative paths)."""
    from vqakit import __version__

    record: dict[str, Any] = {
        "written_by": f"vqakit {writer}",
        "vqakit": __version__,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if files is not None:
        record["files"] = sorted(files)
    write_text_atomic(Path(folder) / MARKER, json.dumps(record, indent=1) + "\n")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _resolved(path: str | Path) -> Path:
    return Path(os.path.abspath(Path(path).expanduser())).resolve()


def _entries(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name not in IGNORED)


def _shown(names: list[str], folder: Path) -> str:
    named = [name + ("/" if (folder / name).is_dir() else "") for name in names[:3]]
    return ", ".join(named) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def check_out(
    out: str | Path,
    writer: str,
    *,
    inputs: Iterable[str | Path | None] = (),
    legacy: Callable[[Path], bool] | None = None,
    replaces: Iterable[str] | None = None,
    kind: str = "folder",
) -> OutFolder:
    """Whether `vqakit <writer>` may write the folder `out` (see the module's docstring);
    `OutFolderRefused` when it may not. `replaces`: the entries of `out` the command writes
    anew (None: any); `kind` names what it writes in messages ("benchmark folder")."""
    out = Path(out)
    where = _resolved(out)
    command = f"vqakit {writer}"
    for given in inputs:
        if given is None:
            continue
        source = _resolved(given)
        if _inside(where, source):
            same = "is" if where == source else "lies inside"
            raise OutFolderRefused(
                f"--out {out} {same} the input {given}: {command} does not write into what it reads; "
                f"choose a --out outside {given}"
            )
        replaced = [where] if replaces is None else [where / entry for entry in replaces]
        if where.is_dir() and any(_inside(source, entry) for entry in replaced):
            raise OutFolderRefused(
                f"--out {out} holds the input {given}, which writing {out} could delete; "
                f"choose a --out that does not hold {command}'s inputs"
            )
    if not os.path.lexists(out):
        return OutFolder(out)
    if not out.is_dir():
        raise OutFolderRefused(f"--out {out} exists and is not a folder; choose a new folder for the {kind}")
    names = _entries(out)
    if not names:
        return OutFolder(out)
    marker = read_marker(out)
    if marker is not None:
        if marker["written_by"] != command:
            raise OutFolderRefused(
                f"--out {out} was written by `{marker['written_by']}`, not `{command}`; choose a new "
                f"folder for the {kind} (or remove {out} yourself if it can go)"
            )
        files = marker.get("files")
        owned = frozenset(f for f in files if isinstance(f, str)) if isinstance(files, list) else None
        return OutFolder(out, True, command, owned)
    if legacy is not None and legacy(out):
        return OutFolder(out, True)
    raise OutFolderRefused(
        f"--out {out} exists and holds files {command} did not write ({_shown(names, out)}); nothing "
        f"there is replaced: choose a new folder for the {kind}, or an empty one"
    )


def owned_files(folder: Path) -> list[str]:
    """Every file under `folder` (relative POSIX paths), the marker left out."""
    found = []
    for parent, _folders, files in os.walk(folder):
        for name in files:
            relative = (Path(parent) / name).relative_to(folder).as_posix()
            if relative != MARKER:
                found.append(relative)
    return found


def carry_foreign_files(out: OutFolder, stage: Path, command: str) -> None:
    """Before `stage`'s entries replace those of `out.path`: move every file under an entry
    being replaced that the earlier write did not list (`out.owned`) into the same place in
    `stage`, so that it survives. `OutFolderRefused` when `stage` holds a file of that name
    (the write would replace the user's file); nothing has changed then."""
    if not out.exists or out.owned is None:
        return
    moves: list[tuple[Path, Path]] = []
    for entry in sorted(os.listdir(stage)):
        target = out.path / entry
        if entry == MARKER or target.is_symlink() or not os.path.lexists(target):
            continue
        found_files = (
            [target]
            if not target.is_dir()
            else [Path(parent) / name for parent, _folders, files in os.walk(target) for name in files]
        )
        for found in found_files:
            relative = found.relative_to(out.path).as_posix()
            if relative in out.owned:
                continue
            if os.path.lexists(stage / relative):
                raise OutFolderRefused(
                    f"{found} was not written by {command}, and writing {out.path} again would "
                    f"replace it; move it out of {out.path}, or choose another --out"
                )
            moves.append((found, stage / relative))
    for found, kept in moves:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(found, kept)  # a rename: `stage` is beside `out` (a copy across a mount point)


@contextmanager
def writing_folder(
    out: str | Path,
    writer: str,
    *,
    inputs: Iterable[str | Path | None] = (),
    legacy: Callable[[Path], bool] | None = None,
    kind: str = "folder",
    list_files: bool = False,
) -> Iterator[Path]:
    """For a command that writes its files straight into `out` (frames, hints, an alignment, an
    export, a sweep): `check_out` first, then the block writes into `out` (created), then, even
    when the block fails half-way (so that the same command may write it again), the marker;
    with `list_files` it lists what the command owns there: every file but the user's found
    before (for a command that removes its own earlier files)."""
    claimed = check_out(out, writer, inputs=inputs, legacy=legacy, kind=kind)
    path = claimed.path
    foreign = (
        set(owned_files(path)) - claimed.owned if claimed.exists and claimed.owned is not None else set()
    )
    path.mkdir(parents=True, exist_ok=True)
    try:
        yield path
    finally:
        write_marker(path, writer, set(owned_files(path)) - foreign)


def is_listing_folder(listing: str, *suffixes: str) -> Callable[[Path], bool]:
    """A `legacy` test: a folder holding `listing` and otherwise only files ending in `suffixes`
    (what `vqakit frames` or `vqakit hints` wrote before folders carried a marker)."""

    def test(folder: Path) -> bool:
        names = _entries(folder)
        return listing in names and all(
            name == listing or (name.lower().endswith(suffixes) and (folder / name).is_file())
            for name in names
        )

    return test
