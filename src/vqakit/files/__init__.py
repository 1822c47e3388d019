"""The lowest layer: files on disk that survive kills, safe names, one hardened reader for every
input a user gives, and safe placement of media.

Writing (`_atomic`): `write_atomic` / `write_text_atomic` replace a file in one rename;
`append_synced` / `complete_lines` keep append-only JSONL whole across kills. `cache_folder` is
where the caches live (responses, frames). `slug` makes a
file-name part.

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

Placing media (`_media`): `real_file`, `MediaPlan`, `place_media`, `refuse_links`,
`link_or_copy` (a hard link, or a copy across file systems), `staged_folder` (write a folder in
a fresh temporary folder beside it, then rename into place).
"""

from vqakit.files._atomic import append_synced, complete_lines, write_atomic, write_text_atomic
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
from vqakit.files._media import (
    MediaPlan,
    link_or_copy,
    media_name_problem,
    place_media,
    real_file,
    refuse_links,
    staged_folder,
)
from vqakit.files._names import slug
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
    "LINE_BREAK",
    "MAX_DEPTH",
    "TABLE_FORMATS",
    "InputError",
    "InputProblem",
    "JSONError",
    "MediaPlan",
    "Record",
    "Row",
    "Table",
    "TableFormat",
    "Unusable",
    "UnusableValueError",
    "append_synced",
    "bad_byte",
    "cache_folder",
    "collector_paused",
    "complete_lines",
    "decode",
    "find_bad_byte",
    "find_unusable",
    "json_records",
    "last_read",
    "link_or_copy",
    "media_name_problem",
    "note_read",
    "on_network_filesystem",
    "one_line",
    "open_shared_database",
    "parse_json",
    "parse_rows",
    "parse_table",
    "parse_yaml",
    "place_media",
    "read_bytes",
    "read_json",
    "read_rows",
    "read_table",
    "read_text",
    "read_yaml",
    "reading",
    "real_file",
    "refuse_links",
    "slug",
    "sniff_format",
    "split_lines",
    "staged_folder",
    "template_cache",
    "text_problem",
    "write_atomic",
    "write_text_atomic",
    "yaml_error_line",
]
