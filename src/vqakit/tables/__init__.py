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

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_export": "EXPORT_FORMATS export_benchmark",
        "_export_hf": "BenchExport export_hf",
        "_export_lmms": "export_lmms_eval",
        "_import": "ImportHooks TableImport default_card import_rows import_table",
        "_lmms_task": "LmmsEvalTask",
        "_mapping": "MappingError TableMapping load_mapping parse_mapping render template_columns",
        "_presets": "Preset PresetOption presets register_preset",
        "_source": "Source SourceError SourceRow read_source",
        "_found": "find_file",
    },
)
