"""Benchmarks as tables: published releases in, shareable datasets out.

- `import_table` (`vqakit import table`): a table of questions (Parquet, CSV, TSV, JSONL, JSON, a
  Hugging Face `datasets` folder or a hub snapshot of Parquet shards, read locally) and a folder
  of videos to a benchmark folder, by a mapping file (`TableMapping`, `load_mapping`). Rows that
  cannot be used are listed as `FILE:ROW:COLUMN: problem`; missing videos are listed, never fatal.
  Every file is read by the hardened reader of `vqakit.files` (Parquet cells get its checks).
  `import_rows` with `ImportHooks` is the same import for rows a preset builds itself.
- Presets (`register_preset`, `presets`): published benchmarks' release layouts, registered by
  benchmark systems; `vqakit import <preset>` is generated from them.
- `export_benchmark` (`vqakit export-bench`): a benchmark as a Hugging Face dataset folder
  (`hf`: Parquet shards and a dataset card) or an lmms-eval task (`lmms-eval`: task YAML,
  utils.py bound to `LmmsEvalTask`, the rows with vqakit's rendered prompts).
"""

from vqakit.tables._export import EXPORT_FORMATS, export_benchmark
from vqakit.tables._export_hf import BenchExport, export_hf
from vqakit.tables._export_lmms import export_lmms_eval
from vqakit.tables._found import find_file
from vqakit.tables._import import ImportHooks, TableImport, default_card, import_rows, import_table
from vqakit.tables._lmms_task import LmmsEvalTask
from vqakit.tables._mapping import (
    MappingError,
    TableMapping,
    load_mapping,
    parse_mapping,
    render,
    template_columns,
)
from vqakit.tables._presets import Preset, PresetOption, presets, register_preset
from vqakit.tables._source import Source, SourceError, SourceRow, read_source

__all__ = [
    "EXPORT_FORMATS",
    "BenchExport",
    "ImportHooks",
    "LmmsEvalTask",
    "MappingError",
    "Preset",
    "PresetOption",
    "Source",
    "SourceError",
    "SourceRow",
    "TableImport",
    "TableMapping",
    "default_card",
    "export_benchmark",
    "export_hf",
    "export_lmms_eval",
    "find_file",
    "import_rows",
    "import_table",
    "load_mapping",
    "parse_mapping",
    "presets",
    "read_source",
    "register_preset",
    "render",
    "template_columns",
]
