"""The benchmarks' own evaluation code as a reference in `conformance.py`, run from a checkout
the user gives (`--official NAME=PATH`); nothing of it is copied into vqakit. Where the code is
a function inside a notebook or a script that loads a model first, only that function is taken
from the file (the notebook cell, or the function's source found with `ast`) and run alone.

- `nextqa`: doc-doc/NExT-QA, `eval_mc.py`'s `accuracy_metric` on a CSV of the questions and a
  results file `{question: {answer, prediction}}`. Its models classify, so it reads no text: it
  is given vqakit's reading of each reply (-1 for an abstention) and checks the table (columns,
  merges, the pooled total).
- `videomme`: thanku-all/parse_answer (the script Video-MME's README links), `eval_your_results.py`:
  its `extract_characters_regex` on each reply, then `eval_your_results` on the results file
  in its template's shape.
- `mvbench`: OpenGVLab/Ask-Anything, `video_chat2/mvbench.ipynb`: its `check_ans` on "(" and the
  reply's first line, as the notebook's `infer_mvbench` hands it over; Avg is correct over total,
  as its last cell computes it.
- `mlvu`: JUNJIE99/MLVU, `evaluation/multiple_choice_evaluation/choice_bench.py`: its
  `check_ans` on the reply; Avg is the mean of the task accuracies, as its `main` computes it.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import importlib.util
import io
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from conformance_peers import LETTERS, MLVU_TASKS, Outcome, Reference, _meta


def _function(path: Path, name: str) -> Any:
    """Function `name` defined in a .py file or a notebook's code cell, compiled alone."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text("utf-8"))["cells"]
        sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    else:
        sources = [path.read_text("utf-8")]
    for source in sources:
        tree = ast.parse(
            "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        )
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                namespace: dict[str, Any] = {}
                exec(compile(ast.Module([node], []), str(path), "exec"), namespace)
                return namespace[name]
    raise ValueError(f"{path}: no function {name}")


def _find(root: Path, *relative: str) -> Path:
    for candidate in [root, *(root / r for r in relative)]:
        if candidate.is_file():
            return candidate
    raise ValueError(f"{root}: none of {', '.join(relative)}")


def nextqa(root: Path, samples: list[Any], replies: dict[str, str], rows: dict[str, dict]) -> Reference:
    script = _find(root, "eval_mc.py").parent
    with tempfile.TemporaryDirectory() as folder:
        table, results = Path(folder) / "val.csv", Path(folder) / "results.json"
        with table.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["video", "qid", "type"])
            writer.writerows([f"q{i}", 0, _meta(s)["type"]] for i, s in enumerate(samples))
        chosen = {s.id: LETTERS.find(rows[s.id].get("chosen") or "?") for s in samples}
        results.write_text(
            json.dumps(
                {f"q{i}_0": {"answer": s.answer, "prediction": chosen[s.id]} for i, s in enumerate(samples)}
            )
        )
        code = f"from eval_mc import accuracy_metric; accuracy_metric({str(table)!r}, {str(results)!r})"
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=script, capture_output=True, text=True, check=True
        )
    lines = done.stdout.strip().splitlines()
    names, values = lines[0].split(), [float(v) / 100 for v in lines[1].split()]
    columns = dict(zip(names, values, strict=True))
    columns["All"] = float(lines[2].split(":")[1]) / 100
    outcomes = {s.id: Outcome(chosen[s.id] == s.answer, rows[s.id].get("chosen") or "") for s in samples}
    note = "eval_mc.py compares the option indices it is given (vqakit's readings): it checks the table"
    return Reference("official eval_mc.py", outcomes, columns["All"], "Acc", columns, note)


def videomme(root: Path, samples: list[Any], replies: dict[str, str], rows: dict[str, dict]) -> Reference:
    path = _find(root, "eval_your_results.py")
    spec = importlib.util.spec_from_file_location("_videomme_official", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcomes, entries = {}, []
    for s in samples:  # one entry per question copy: each copy has the duration dealt to it
        m, gold = _meta(s), LETTERS[s.answer]
        read = module.extract_characters_regex(replies[s.id])
        outcomes[s.id] = Outcome(None if read == "" else read == gold, read)
        question = {
            "question_id": s.id,
            "task_type": m["task_type"],
            "answer": gold,
            "response": replies[s.id],
        }
        entries.append(
            {
                "video_id": s.id,
                "duration": m["duration"],
                "domain": m["domain"],
                "sub_category": m["sub_category"],
                "missing": False,
                "questions": [question],
            }
        )
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results.json"
        results.write_text(json.dumps(entries))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            module.eval_your_results(
                str(results),
                video_types=["short", "medium", "long"],
                skip_missing=True,
                return_categories_accuracy=False,
            )
    overall = re.findall(r"Overall:\s+([\d.]+)%", printed.getvalue())
    columns = dict(
        zip(["Short", "Medium", "Long", "Overall"], [float(v) / 100 for v in overall], strict=True)
    )
    note = "leaves a reply it reads no letter from out of the accuracy"
    return Reference("official eval_your_results.py", outcomes, columns["Overall"], "Overall", columns, note)


def mvbench(root: Path, samples: list[Any], replies: dict[str, str], rows: dict[str, dict]) -> Reference:
    check_ans = _function(_find(root, "mvbench.ipynb", "video_chat2/mvbench.ipynb"), "check_ans")
    outcomes, by_task = {}, defaultdict(list)
    for s in samples:
        pred = (
            "(" + replies[s.id].strip().split("\n")[0]
        )  # the notebook's infer_mvbench: return_prompt + first line
        right = bool(check_ans(pred=pred, gt=f"({LETTERS[s.answer]}) {s.choices[s.answer]}"))
        outcomes[s.id] = Outcome(right)
        by_task[_meta(s)["task"]].append(right)
    columns = {task: sum(found) / len(found) for task, found in by_task.items()}
    headline = sum(o.correct for o in outcomes.values()) / len(outcomes)
    return Reference(
        "official mvbench.ipynb",
        outcomes,
        headline,
        "Avg",
        columns,
        "check_ans on '(' + the reply's first line",
    )


def mlvu(root: Path, samples: list[Any], replies: dict[str, str], rows: dict[str, dict]) -> Reference:
    check_ans = _function(
        _find(root, "choice_bench.py", "evaluation/multiple_choice_evaluation/choice_bench.py"), "check_ans"
    )
    outcomes, by_task = {}, defaultdict(list)
    for s in samples:
        right = bool(check_ans(pred=replies[s.id], gt=f"({LETTERS[s.answer]}) {s.choices[s.answer]}"))
        outcomes[s.id] = Outcome(right)
        task = _meta(s)["question_type"]
        by_task[MLVU_TASKS.get(task, task)].append(right)
    columns = {task: sum(found) / len(found) for task, found in by_task.items()}
    return Reference(
        "official choice_bench.py",
        outcomes,
        sum(columns.values()) / len(columns),
        "Avg",
        columns,
        "check_ans on the reply; Avg over the tasks present",
    )


RUNNERS = {"nextqa": nextqa, "videomme": videomme, "mvbench": mvbench, "mlvu": mlvu}
