"""`vqakit export-bench --format hf --split`: the rows are the split the card names (an import
records it: NExT-QA's val is never labelled test), or the one asked for; the dataset card's
license is a license id the Hub knows, or `other` with the text in LICENSE.md."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.tables._export_hf import hub_license

NEXTQA = Path(__file__).resolve().parents[2] / "docs/examples/datasets/nextqa"


def _header(folder: Path) -> dict:
    return yaml.safe_load((folder / "README.md").read_text().split("---")[1])


@pytest.fixture(scope="module")
def nextqa_val(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("nextqa") / "nextqa-val"
    result = CliRunner().invoke(
        main, ["import", "nextqa", str(NEXTQA), "--videos", str(NEXTQA / "NExTVideo"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def test_an_import_records_its_split_and_the_export_keeps_it(nextqa_val: Path, tmp_path: Path, monkeypatch):
    import datasets

    assert load_benchmark(str(nextqa_val)).card.split == "val"
    out = tmp_path / "hf"
    result = CliRunner().invoke(main, ["export-bench", str(nextqa_val), "--format", "hf", "--out", str(out)])
    assert result.exit_code == 0, result.output
    header = _header(out)
    assert header["configs"][0]["data_files"] == [
        {"split": "val", "path": ["data/val-00000-of-00001.parquet"]}
    ]
    assert header["dataset_info"]["splits"][0]["name"] == "val"
    assert header["license"] == "mit"  # "NExT-QA's terms (MIT for the annotations, ...)"
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    assert list(datasets.load_dataset(str(out))) == ["val"]


def test_split_asks_for_another_name_and_is_checked(tmp_path: Path):
    out = tmp_path / "hf"
    result = CliRunner().invoke(main, ["export-bench", "sample", "--format", "hf", "--out", str(out),
                                       "--split", "validation"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (out / "data/validation-00000-of-00001.parquet").is_file()
    bad = CliRunner().invoke(main, ["export-bench", "sample", "--format", "hf", "--out", str(tmp_path / "b"),
                                    "--split", "val/../x"])  # fmt: skip
    assert bad.exit_code == 1 and "a split name is letters, digits and _" in bad.output
    lmms = CliRunner().invoke(
        main,
        ["export-bench", "sample", "--format", "lmms-eval", "--out", str(tmp_path / "l"), "--split", "val"],
    )
    assert lmms.exit_code == 2 and "--split is for --format hf" in lmms.output


def test_without_a_split_on_the_card_the_rows_are_test(tmp_path: Path):
    result = CliRunner().invoke(
        main, ["export-bench", "sample", "--format", "hf", "--out", str(tmp_path / "hf")]
    )
    assert result.exit_code == 0 and (tmp_path / "hf/data/test-00000-of-00001.parquet").is_file()


@pytest.mark.parametrize(
    ("text", "license"),
    [
        ("Apache-2.0", "apache-2.0"),
        ("Apache License, Version 2.0", "apache-2.0"),
        ("CC BY-NC-SA 4.0", "cc-by-nc-sa-4.0"),
        ("cc-by-4.0 for the questions", "cc-by-4.0"),
        ("CC0", "cc0-1.0"),
        ("MIT for the annotations; videos from VidOR", "mit"),
        ("LGPL-3.0", "lgpl-3.0"),
        ("MIT or Apache-2.0", "other"),  # two: which one is for the data is for the text to say
        ("research use only; submit a request", "other"),
    ],
)
def test_known_license_ids_are_read_from_the_text(text, license):
    assert hub_license(text)["license"] == license


def test_any_other_license_is_other_with_its_text(tmp_path: Path):
    bench = tmp_path / "bench"
    shutil.copytree(load_benchmark("sample").root, bench)
    card = yaml.safe_load((bench / "benchmark.yaml").read_text())
    card["license"] = "Research use only; ask the authors before redistributing the clips."
    (bench / "benchmark.yaml").write_text(yaml.safe_dump(card, sort_keys=False))
    out = tmp_path / "hf"
    assert (
        CliRunner().invoke(main, ["export-bench", str(bench), "--format", "hf", "--out", str(out)]).exit_code
        == 0
    )
    header = _header(out)
    assert (header["license"], header["license_name"], header["license_link"]) == (
        "other",
        "other",
        "LICENSE.md",
    )
    assert (
        "Research use only; ask the authors before redistributing the clips."
        in (out / "LICENSE.md").read_text()
    )
