"""A benchmark as an lmms-eval task (`vqakit export-bench BENCH --format lmms-eval`).

```
<task>.yaml                        the task: rows from the Parquet file beside it (lmms-eval
                                   resolves `data_files` against the YAML's folder), the
                                   functions of utils.py, one metric (`vqakit_accuracy`)
utils.py                           binds vqakit's `LmmsEvalTask` to this folder
vqakit_task.json                   the protocol the functions follow: frames, short side, where
                                   the media are, how options are numbered
data/test-00000-of-00001.parquet   the rows of the `hf` export plus `prompt`: the exact text
                                   vqakit sends for the sample (question, options, subtitles)
media/...                          the videos and subtitles, with --with-media
```

Run it with `lmms-eval eval --include_path DIR --tasks <task> --model ...` where vqakit is
installed (utils.py reads replies with vqakit's answer extraction and samples the protocol's
frames with vqakit's exact sampler). The prompt, the answer reading and the accuracy are
vqakit's; what differs is only the model wrapper lmms-eval puts around them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from vqakit import __version__
from vqakit.files import write_text_atomic
from vqakit.methods import MethodContext, build_prompt
from vqakit.schema import Benchmark
from vqakit.tables._export_hf import BenchExport, write_shards
from vqakit.tables._export_rows import benchmark_rows, copy_media, remove_folder_files
from vqakit.tables._lmms_task import TASK_FILE

METRIC = "vqakit_accuracy"

UTILS = '''"""lmms-eval task functions for a benchmark exported by vqakit {version}: they render, sample and
read answers exactly as vqakit does (see vqakit.tables.LmmsEvalTask). Needs vqakit installed."""

from pathlib import Path

from vqakit.tables import LmmsEvalTask

_task = LmmsEvalTask(Path(__file__).resolve().parent)

doc_to_visual = _task.doc_to_visual
doc_to_text = _task.doc_to_text
doc_to_target = _task.doc_to_target
process_results = _task.process_results
aggregate = _task.aggregate
'''

TASK = """# An lmms-eval task exported by vqakit {version} from the benchmark {name!r}.
# Run: lmms-eval eval --include_path {folder} --tasks {task} --model ... (vqakit must be installed)
task: {task}
dataset_path: parquet
dataset_kwargs:
  data_files:
    test:
{shards}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: !function utils.doc_to_target
process_results: !function utils.process_results
generation_kwargs:
  max_new_tokens: 1024
  temperature: 0
  do_sample: false
metric_list:
  - metric: {metric}
    aggregation: !function utils.aggregate
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    visual: {visual}  # frames: vqakit's protocol frames ({frames}); video: the file, sampled by lmms-eval
    pre_prompt: ""
    post_prompt: ""
metadata:
  version: 1
  vqakit_version: "{version}"
  benchmark: {name!r}
"""


def task_name(benchmark: Benchmark) -> str:
    """`vqakit_<name>` as lmms-eval task names are written (lower case, underscores)."""
    return "vqakit_" + (re.sub(r"[^a-z0-9]+", "_", benchmark.card.name.lower()).strip("_") or "benchmark")


def export_lmms_eval(
    benchmark: Benchmark,
    out: str | Path,
    *,
    with_media: bool = False,
    task: str | None = None,
    visual: str = "frames",
    frames: str | None = None,
) -> BenchExport:
    """Write `benchmark` as an lmms-eval task folder at `out` (see the module's docstring);
    `frames` replaces the protocol's frame spec (e.g. `uniform:8` for a lighter setting)."""
    out = Path(out)
    task = task or task_name(benchmark)
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", task):
        raise ValueError(f"task name {task!r}: use letters, digits, '_', '-' and '.'")
    rows, _ = benchmark_rows(benchmark)
    protocol = benchmark.card.protocol
    if frames is not None:
        from vqakit.schema import Protocol

        protocol = Protocol.model_validate({**protocol.model_dump(), "frames": frames})
    context = MethodContext(root=benchmark.root, protocol=protocol)
    for row, sample in zip(rows, benchmark.samples, strict=True):
        row["prompt"] = build_prompt(sample, context)
    remove_folder_files(out, ["data"])
    shards = write_shards(rows, out / "data")
    media = "media" if with_media else str((benchmark.root / "media").resolve())
    settings = {
        "benchmark": benchmark.card.name,
        "media": media,
        "frames": protocol.frames,
        "short_side": protocol.short_side,
        "numbered": "numbered" in protocol.prompt,
        "visual": visual,
        "metric": METRIC,
        "vqakit_version": __version__,
    }
    write_text_atomic(out / TASK_FILE, json.dumps(settings, indent=1) + "\n")
    write_text_atomic(out / "utils.py", UTILS.format(version=__version__))
    listed = "\n".join(f"      - {path.relative_to(out).as_posix()}" for path in shards)
    text = TASK.format(
        version=__version__,
        name=benchmark.card.name,
        folder=out,
        task=task,
        shards=listed,
        metric=METRIC,
        visual=visual,
        frames=protocol.frames,
    )
    write_text_atomic(out / f"{task}.yaml", text)
    placed = copy_media(benchmark, rows, out) if with_media else 0
    files = [*shards, out / f"{task}.yaml", out / "utils.py", out / TASK_FILE]
    return BenchExport(out, len(rows), files, placed)
