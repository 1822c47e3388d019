"""The lowest layer: files on disk that survive kills, safe names, one hardened reader for every
input a user gives, and safe placement of media.

Writing (`_atomic`): `write_atomic` / `write_text_atomic` replace a file in one rename.
`cache_folder` is where the caches live (responses, frames). `slug` makes a readable file-name
part; `id_name` the name of a file that stands for an id (slug plus a digest of the whole id,
so distinct ids never share a file); `file_stem` the id itself where it is already a safe name.

Append-only JSONL logs (`_logs`: predictions, judgments, batch and build journals, answers), one
reader and one policy: `read_log(path, parse) -> LogContents` (records, and the (line, reason)
of every complete line that cannot be read); `LogContents.checked()` raises `BadLogLines` (an
`InputError` naming each FILE:LINE) when there are any; `LogAppender` appends whole synced lines
and is the only code that removes a torn last line; `set_aside_bad_lines` moves unreadable lines
into `<name>.set-aside.jsonl` beside the log when the user asks (`--set-aside-bad-lines`);
`set_aside_counts` counts them. No code path deletes or truncates a complete line.

Reading user inputs (every importer, loader and label map goes through these):

- `read_table(path, format="auto") -> Table`: CSV, TSV, JSONL or JSON (a list of records, an
  object of records, or one record) as `Record`s (`number`, `line`, `key`, `data` dict or None,
  `problem`; `row`: its line, else its position). `Table.rows` are the readable records,
  `Table.problems` the `InputProblem`s of the others, `Table.row_problems()` the same as
  `FILE:ROW[:COLUMN]: problem` lines (the table importer's form). `parse_table(text, path,
  format)` does the same for text already read; `sniff_format(text, path)` tells the format;
  `read_rows(path)` gives header-less CSV rows.
- `read_json(path)` / `parse_json(text)`: one JSON document; `read_yaml(path)` /
  `parse_yaml(text, path)`: YAML with the safe loader.
- `read_text(path, strict=True)`, `read_bytes(path)`, `decode(raw, path)`, `split_lines(text)`.
- `find_unusable(record) -> (field, problem) | None`: the first value of a record that cannot be
  kept. Call it on each record taken out of a `read_json` document (tables do it already).

What every reader guarantees: a byte-order mark is accepted (UTF-8, and UTF-16 text with one);
CR, LF and CR LF end lines; CSV cells may be as large as the file; nesting is bounded
(`MAX_DEPTH`); numbers beyond 64 bits or not finite, text with NUL characters, unpaired
surrogates or bytes that are not UTF-8 become `Unusable` values, so they are problems of their
record (skipped and listed as `FILE[:LINE][: record KEY]: field: problem`, `InputProblem`), never of
the file. A file that cannot be read at all is an `InputError` whose message names it (and the
line). `reading(path)` marks work on an input, so that even a bug names the file.

Shared databases (`_sqlite`): `open_shared_database` opens a SQLite file that several processes,
and hosts sharing a network file system, read and write (WAL locally, the rollback journal on a
network file system); `on_network_filesystem` tells which. `template_cache` keeps the pages'
compiled Jinja2 templates in the cache folder, where it is private.

Output folders (`_outputs`), the one policy of every command that writes a folder:
`check_out(out, writer, inputs=..., legacy=..., replaces=...)` refuses (`OutFolderRefused`, exit
2) an `--out` inside an input, holding an input it could delete, or existing and not written by
the same command (its `MARKER`, `.vqakit-output.json`, says who wrote it and which files);
`staged_folder(out, claimed, writer)` writes the marker and keeps the user's other files.

Placing media (`_media`): `real_file`, `MediaPlan`, `place_media`, `refuse_links`,
`link_or_copy` (a hard link, or a copy across file systems), `staged_folder` (write a folder in
a fresh temporary folder beside it, then rename into place).
"""

from vqakit.files._atomic import write_atomic, write_text_atomic
from vqakit.files._cache import cache_folder
from vqakit.files._decode import (
    LINE_BREAK,
    bad_byte,
    decode,
    find_bad_byte,
    read_bytes,
    read_text,
    split_lines,
)
from vqakit.files._gc import collector_paused
from vqakit.files._json import JSONError, parse_json, read_json
from vqakit.files._logs import (
    SET_ASIDE_OPTION,
    BadLogLines,
    LogAppender,
    LogContents,
    Parser,
    SetAside,
    is_set_aside_file,
    json_object,
    line_problem,
    read_log,
    require,
    set_aside_bad_lines,
    set_aside_counts,
    set_aside_path,
    sync_folder,
)
from vqakit.files._media import (
    MediaPlan,
    link_or_copy,
    media_name_problem,
    place_media,
    real_file,
    refuse_links,
    staged_folder,
)
from vqakit.files._names import ID_DIGEST, did_you_mean, file_stem, id_digest, id_name, slug
from vqakit.files._outputs import (
    IGNORED,
    MARKER,
    OutFolder,
    OutFolderRefused,
    check_out,
    is_listing_folder,
    owned_files,
    read_marker,
    write_marker,
    writing_folder,
)
from vqakit.files._problems import InputError, InputProblem, last_read, note_read, one_line, reading
from vqakit.files._sqlite import on_network_filesystem, open_shared_database
from vqakit.files._tables import (
    TABLE_FORMATS,
    Record,
    Row,
    Table,
    TableFormat,
    json_records,
    parse_rows,
    parse_table,
    read_rows,
    read_table,
    sniff_format,
)
from vqakit.files._templates import template_cache
from vqakit.files._values import MAX_DEPTH, Unusable, UnusableValueError, find_unusable, text_problem
from vqakit.files._yaml import parse_yaml, read_yaml, yaml_error_line

__all__ = [
    "ID_DIGEST",
    "IGNORED",
    "LINE_BREAK",
    "MARKER",
    "MAX_DEPTH",
    "SET_ASIDE_OPTION",
    "TABLE_FORMATS",
    "BadLogLines",
    "InputError",
    "InputProblem",
    "JSONError",
    "LogAppender",
    "LogContents",
    "MediaPlan",
    "OutFolder",
    "OutFolderRefused",
    "Parser",
    "Record",
    "Row",
    "SetAside",
    "Table",
    "TableFormat",
    "Unusable",
    "UnusableValueError",
    "bad_byte",
    "cache_folder",
    "check_out",
    "collector_paused",
    "decode",
    "did_you_mean",
    "file_stem",
    "find_bad_byte",
    "find_unusable",
    "id_digest",
    "id_name",
    "is_listing_folder",
    "is_set_aside_file",
    "json_object",
    "json_records",
    "last_read",
    "line_problem",
    "link_or_copy",
    "media_name_problem",
    "note_read",
    "on_network_filesystem",
    "one_line",
    "open_shared_database",
    "owned_files",
    "parse_json",
    "parse_rows",
    "parse_table",
    "parse_yaml",
    "place_media",
    "read_bytes",
    "read_json",
    "read_log",
    "read_marker",
    "read_rows",
    "read_table",
    "read_text",
    "read_yaml",
    "reading",
    "real_file",
    "refuse_links",
    "require",
    "set_aside_bad_lines",
    "set_aside_counts",
    "set_aside_path",
    "slug",
    "sniff_format",
    "split_lines",
    "staged_folder",
    "sync_folder",
    "template_cache",
    "text_problem",
    "write_atomic",
    "write_marker",
    "write_text_atomic",
    "writing_folder",
    "yaml_error_line",
]
