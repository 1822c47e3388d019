"""The builders' model steps on the Ray engine: the InstructionBench build with its model calls
run as Ray tasks (`runner.on_engine`) writes the same benchmark as the build in this process.
The scripted models (test doubles, `test_build.ScriptedModel`) travel to the workers as
themselves, so the driver's copies see no call: every step ran on the cluster."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from test_build import ANNOTATIONS, CONFIG, VIDEOS, scripted_models  # noqa: E402

from vqakit.runner import RayModel, on_engine  # noqa: E402
from vqakit.systems.instructionbench.builder import build_instructionbench  # noqa: E402
from vqakit.video import write_index_clip  # noqa: E402

SRC = Path(__file__).resolve().parents[3] / "src"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("videos")
    for name, (seconds, fps) in VIDEOS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        write_index_clip(folder / name, seconds=seconds, fps=fps, width=96, height=64, gop=10)
    return folder


def test_model_steps_on_ray_build_the_same_benchmark(clips, tmp_path):
    writer, checkers = scripted_models()
    local = build_instructionbench(
        ANNOTATIONS, clips, tmp_path / "local", llm=writer, checkers=checkers, config=CONFIG
    )
    # workers import the test doubles from this folder
    path = os.pathsep.join([str(Path(__file__).parent), str(SRC), os.environ.get("PYTHONPATH", "")])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    try:
        remote_writer, remote_checkers = scripted_models()
        on_ray = [on_engine(model, "ray") for model in (remote_writer, *remote_checkers)]
        assert all(isinstance(model, RayModel) for model in on_ray)
        distributed = build_instructionbench(
            ANNOTATIONS, clips, tmp_path / "ray", llm=on_ray[0], checkers=on_ray[1:], config=CONFIG
        )
    finally:
        ray.shutdown()
    assert remote_writer.calls == 0 and on_ray[0].remote_calls == writer.calls > 0  # all on the workers
    assert sum(m.remote_calls for m in on_ray[1:]) == sum(c.calls for c in checkers) > 0
    assert (distributed.open_ended, distributed.mcq, distributed.clips) == (
        local.open_ended,
        local.mcq,
        local.clips,
    )
    for name in ("samples.jsonl", "benchmark.yaml"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
    # drops are logged as steps finish, in either build's own order
    drops = [
        sorted((tmp_path / name / "build/drops.jsonl").read_text().splitlines()) for name in ("ray", "local")
    ]
    assert drops[0] == drops[1] and drops[0]


def test_engine_names_are_checked():
    with pytest.raises(ValueError, match="unknown engine"):
        on_engine(object(), "spark")
    model = object()
    assert on_engine(model, "local") is model
