"""A benchmark as a Hugging Face dataset folder (`vqakit export-bench BENCH --format hf`).

```
README.md                               dataset card: the Hub's YAML header (license, configs,
                                        dataset_info with the features), then what the columns are
data/<split>-00000-of-0000N.parquet     the rows (`_export_rows`), in shards of at most 10,000
corpus/clips-*.parquet, passages-*     the retrieval corpora, if any (configs `clips`, `passages`)
vqakit/mapping.yaml                     reads the rows back: vqakit import table DIR --map
                                        DIR/vqakit/mapping.yaml --videos DIR/media (or BENCH/media)
vqakit/corpus/*.jsonl                   the corpora in vqakit's own form, which the mapping reads
media/...                               the videos and subtitles, with --with-media
```

`datasets.load_dataset(DIR)` reads it as one split, named by `--split` (default: the split the
card names, as an import records it, else `test`); so does the Hub once uploaded.
Videos are referenced by their path under `media/` (the benchmark's, or the export's with
`--with-media`), never embedded in the Parquet files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from vqakit.files import write_atomic, write_text_atomic
from vqakit.schema import Benchmark
from vqakit.tables._export_rows import (
    benchmark_rows,
    copy_corpus,
    copy_media,
    corpus_rows,
    export_mapping,
    remove_folder_files,
)

SHARD_ROWS = 10_000
SPLIT = "test"


@dataclass
class BenchExport:
    out: Path
    rows: int
    files: list[Path]
    media: int = 0  # media files placed with --with-media


def arrow_table(rows: list[dict[str, Any]]) -> Any:
    """The rows as one Arrow table; a column whose values Arrow cannot type together (mixed
    kinds across samples) is written as JSON text."""
    import json

    import pyarrow as pa

    try:
        return pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    columns: dict[str, Any] = {}
    for name in rows[0]:
        values = [row.get(name) for row in rows]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            columns[name] = pa.array([None if v is None else json.dumps(v) for v in values], pa.string())
    return pa.table(columns)


def write_shards(rows: list[dict[str, Any]], folder: Path, split: str = SPLIT) -> list[Path]:
    """Parquet shards `split-0000i-of-0000N.parquet` under `folder`, at most SHARD_ROWS rows each."""
    import pyarrow.parquet as pq

    table = arrow_table(rows)
    count = max(1, -(-table.num_rows // SHARD_ROWS))
    paths = []
    for index in range(count):
        path = folder / f"{split}-{index:05d}-of-{count:05d}.parquet"
        part = table.slice(index * SHARD_ROWS, SHARD_ROWS)
        write_atomic(path, lambda out, part=part: pq.write_table(part, out))
        paths.append(path)
    return paths


def _features(table: Any) -> list[dict[str, Any]]:
    """The Hub's `dataset_info.features` list for an Arrow schema."""
    from datasets import Features

    return Features.from_arrow_schema(table.schema)._to_yaml_list()


# license ids the Hub knows (huggingface.co/docs/hub/repositories-licenses), as a card may name them
HUB_LICENSES = (
    "apache-2.0", "mit", "bsd-2-clause", "bsd-3-clause", "bsl-1.0", "isc", "mpl-2.0", "unlicense",
    "zlib", "gpl-2.0", "gpl-3.0", "lgpl-2.1", "lgpl-3.0", "agpl-3.0", "epl-2.0", "eupl-1.2", "wtfpl",
    "cc0-1.0", "cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0", "cc-by-sa-3.0", "cc-by-sa-4.0",
    "cc-by-nc-2.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0", "cc-by-nc-nd-3.0",
    "cc-by-nc-nd-4.0", "cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0", "cdla-permissive-2.0",
    "cdla-sharing-1.0", "odc-by", "odbl", "pddl", "openrail", "llama2", "llama3", "gemma",
)  # fmt: skip
LICENSE_FILE = "LICENSE.md"  # the card's license text, where it names no license the Hub knows


def hub_license(text: str) -> dict[str, str]:
    """The Hub's license fields for a card's license text: the one known license id it names
    (`Apache-2.0`, `CC BY-NC-SA 4.0`, `MIT for the annotations, ...`), else `other`, named
    `other` and linked to LICENSE.md, which holds the text as written."""
    words = text.lower().replace("_", " ")
    words = re.sub(r"\bapache(?: license)?,?(?: version)?[ -]+2\.0", "apache-2.0", words)
    words = re.sub(
        r"\bcc[ -]+by((?:[ -]+(?:nc|nd|sa))*)[ -]+(\d\.\d)",
        lambda m: "-".join(["cc-by", *m.group(1).replace("-", " ").split(), m.group(2)]),
        words,
    )
    words = re.sub(r"\bcc0\b(?![-.]1)|\bcc[ -]zero\b", "cc0-1.0", words)
    found = {
        license
        for license in HUB_LICENSES
        if re.search(rf"(?<![\w.-]){re.escape(license)}(?![\w-]|\.\d)", words)
    }
    if len(found) == 1:
        return {"license": found.pop()}
    return {"license": "other", "license_name": "other", "license_link": LICENSE_FILE}


def dataset_card(
    benchmark: Benchmark,
    rows: list[dict[str, Any]],
    shards: list[Path],
    out: Path,
    corpus: list[Path],
    split: str = SPLIT,
) -> str:
    """README.md: the Hub's YAML header and a description of the columns."""
    card = benchmark.card
    table = arrow_table(rows)
    configs: list[dict[str, Any]] = [
        {
            "config_name": "default",
            "data_files": [{"split": split, "path": [str(p.relative_to(out)) for p in shards]}],
        }
    ]
    configs += [
        {
            "config_name": path.stem.split("-")[0],
            "data_files": [{"split": split, "path": str(path.relative_to(out))}],
        }
        for path in corpus
    ]
    header: dict[str, Any] = {
        **hub_license(card.license),
        "pretty_name": card.name,
        "task_categories": ["video-text-to-text"],
        "tags": ["video", "question-answering", "vqakit"],
        "configs": configs,
        "dataset_info": {
            "features": _features(table),
            "splits": [{"name": split, "num_bytes": table.nbytes, "num_examples": len(rows)}],
            "dataset_size": table.nbytes,
        },
    }
    hidden = sum(1 for row in rows if row["answer_text"] is None)
    lines = [
        "---",
        yaml.safe_dump(header, sort_keys=False).rstrip(),
        "---",
        "",
        f"# {card.name}",
        "",
        card.description.strip(),
        "",
        f"Exported by vqakit from the benchmark folder `{card.name}` (version {card.version}): "
        f"{len(rows)} questions{f', {hidden} with hidden answers' if hidden else ''}.",
        "",
        "| column | what it holds |",
        "|---|---|",
        "| `id` | the sample id |",
        "| `question` | the question as shown to a model |",
        "| `options` | the options of a multiple-choice question, lettered A, B, ... (empty: open-ended) |",
        "| `answer` | the correct option's index from 0 (null: open-ended or hidden) |",
        "| `answer_text` | the correct option's text, or the open-ended reference answer (null: hidden) |",
        "| `video` | the video's path under `media/` |",
        "| `start`, `end` | the part of the video the question is about, seconds (null: all of it) |",
        "| `subtitles` | the subtitle file's path under `media/`, if any |",
        "| `facts`, `reasoning` | atomic facts of the answer; a reference reasoning trace |",
        "| `objects`, `gold_clips`, `gold_passages` | object tracks (JSON); retrieval gold ids |",
        "| others | the sample's metadata, one column per key |",
        "",
        f"License of the annotations: {card.license}",
        "",
        "Read it back as a vqakit benchmark with "
        "`vqakit import table DIR --map DIR/vqakit/mapping.yaml --videos DIR/media`; "
        f"its protocol (frames `{card.protocol.frames}`, prompt `{card.protocol.prompt}`) "
        "is in that mapping's card.",
    ]
    if card.homepage:
        lines += ["", f"Homepage: {card.homepage}"]
    if card.citation:
        lines += ["", "```bibtex", card.citation.strip(), "```"]
    return "\n".join(lines) + "\n"


def check_split(split: str) -> str:
    """A split name the Hub and `datasets` take (`val`, `test`, `validation.v2`), else ValueError."""
    if not re.fullmatch(r"\w+(\.\w+)*", split):
        raise ValueError(f"split {split!r}: a split name is letters, digits and _ (e.g. val, test)")
    return split


def export_hf(
    benchmark: Benchmark, out: str | Path, *, with_media: bool = False, split: str | None = None
) -> BenchExport:
    """Write `benchmark` as a Hugging Face dataset folder at `out` (see the module's docstring);
    its rows are the split `split` (default: the card's, else `test`)."""
    out = Path(out)
    split = check_split(split or benchmark.card.split or SPLIT)
    rows, metadata = benchmark_rows(benchmark)
    remove_folder_files(out, ["data", "corpus", "vqakit"])
    shards = write_shards(rows, out / "data", split)
    corpus = [
        path
        for name, table in corpus_rows(benchmark).items()
        for path in write_shards(table, out / "corpus", name)
    ]
    copied = copy_corpus(benchmark, out / "vqakit" / "corpus")
    write_text_atomic(out / "README.md", dataset_card(benchmark, rows, shards, out, corpus, split))
    other = hub_license(benchmark.card.license)["license"] == "other"
    if other:  # the text as written, where the YAML header can only say `other`
        write_text_atomic(out / LICENSE_FILE, f"# License\n\n{benchmark.card.license.strip()}\n")
    mapping = export_mapping(benchmark, metadata)
    write_text_atomic(
        out / "vqakit" / "mapping.yaml", yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True)
    )
    placed = copy_media(benchmark, rows, out) if with_media else 0
    files = [*shards, *corpus, *copied, out / "README.md", out / "vqakit" / "mapping.yaml"]
    files += [out / LICENSE_FILE] if other else []
    return BenchExport(out, len(rows), files, placed)
