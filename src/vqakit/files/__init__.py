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
`set_aside_counts` counts them; `UnreadableLog` is a log that cannot be opened. `SharedLog`
(`_shared_log`) is a log that threads and processes read and append to at once (the studio's
people's logs): locked, followed as it grows, written through `LogAppender`. No code path
deletes or truncates a complete line.

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

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_atomic": "write_atomic write_text_atomic",
        "_cache": "cache_folder",
        "_decode": "LINE_BREAK bad_byte decode find_bad_byte read_bytes read_text split_lines",
        "_gc": "collector_paused",
        "_json": "JSONError parse_json read_json",
        "_logs": (
            "SET_ASIDE_OPTION BadLogLines LogAppender LogContents Parser is_set_aside_file read_log "
            "set_aside_path sync_folder UnreadableLog LogReader"
        ),
        "_log_lines": "json_object line_problem require",
        "_set_aside": "SetAside set_aside_bad_lines set_aside_counts",
        "_media": (
            "MediaPlan link_or_copy media_name_problem place_media real_file refuse_links staged_folder"
        ),
        "_names": "slug ID_DIGEST did_you_mean file_stem id_digest id_name",
        "_outputs": (
            "IGNORED MARKER OutFolder OutFolderRefused check_out is_listing_folder owned_files "
            "read_marker write_marker writing_folder"
        ),
        "_problems": "InputError InputProblem last_read note_read one_line reading",
        "_shared_log": "SharedLog SharedLogWriter",
        "_sqlite": "on_network_filesystem open_shared_database",
        "_tables": (
            "TABLE_FORMATS Record Row Table TableFormat json_records parse_rows parse_table read_rows "
            "read_table sniff_format"
            " jsonl_record"
        ),
        "_templates": "template_cache",
        "_values": "MAX_DEPTH Unusable UnusableValueError find_unusable text_problem",
        "_yaml": "parse_yaml read_yaml yaml_error_line",
    },
)
