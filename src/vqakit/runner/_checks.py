"""Everything a run needs, checked before its folder is written: a run that cannot work fails at
once with one plain line, and leaves nothing behind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from vqakit.extras import has_extra, install_line
from vqakit.files import did_you_mean
from vqakit.methods import Method, get_method
from vqakit.prompts import check_prompt
from vqakit.runner._config import EvalConfig, RunSetupError
from vqakit.schema import Benchmark, Fps, Protocol, Timestamps, Uniform, parse_sampling
from vqakit.scoring import group_keys, group_names, judges


@dataclass(frozen=True)
class CheckedRun:
    """What the checks found usable: the method, its validated options, and the protocol with
    the run's overrides."""

    method: Method
    options: BaseModel
    protocol: Protocol


def run_protocol(config: EvalConfig, benchmark: Benchmark) -> Protocol:
    """The benchmark's protocol with the run's overrides, validated."""
    overrides = {
        "frames": config.frames,
        "short_side": config.short_side,
        "prompt": config.prompt,
        "upscale": config.upscale,
        "input": config.input,
        "subtitles": config.subtitles,
    }
    merged = {**benchmark.card.protocol.model_dump(), **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return Protocol.model_validate(merged)
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        value = merged.get(field)
        message = str(problem["msg"]).removeprefix("Value error, ")
        raise RunSetupError(f"--{field.replace('_', '-')} {value!r}: {message}") from None


def _check_model(spec: str, role: str, *, need_key: bool = True) -> None:
    from vqakit.models import check_model_spec, redact_secrets

    try:
        check_model_spec(spec, need_key=need_key)
    except ValueError as error:  # a spec refused for the key in it is not printed with the key
        raise RunSetupError(f"{role} {redact_secrets(spec)!r}: {error}") from None


def _check_arguments(config: EvalConfig) -> None:
    """RunSetupError when an argument carries a key (`vqakit.models.credential_in_arguments`):
    arguments are stored with the run, so a key is refused, never stored, and the message says
    how to give it instead, without repeating the value."""
    from vqakit.models import credential_in_arguments

    given = [("--model-arg", "", config.model_args), ("--method-arg", "", config.method_args)]
    given += [("--judge-arg", f"{name}.", args) for name, args in config.judge_args.items()]
    for flag, prefix, arguments in given:
        found = credential_in_arguments(arguments)
        if found is not None:
            name, where = found
            raise RunSetupError(
                f"{flag} {prefix}{name}: an argument cannot carry a key ({where}): arguments are "
                "stored with every run (config.yaml, predictions, the response cache); give the key "
                "through its environment variable (VQAKIT_API_KEY for an OpenAI-compatible server; "
                "`vqakit models` lists each backend's)"
            )


def _check_settings(spec: str, settings: dict[str, Any], role: str) -> None:
    from vqakit.models import GenerationSettings

    try:
        GenerationSettings.model_validate(settings)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        raise RunSetupError(f"{role} {spec!r} settings: {problems}") from None


def _check_groups(config: EvalConfig, benchmark: Benchmark) -> None:
    for key in config.group_by:
        if not any(group_keys(sample, key) for sample in benchmark.samples):
            has = benchmark_group_names(benchmark)
            raise RunSetupError(
                f"--group-by {key}: no sample of {benchmark.card.name} has this metadata key or group; "
                f"{did_you_mean(key, has)}its samples have: {', '.join(has) or 'none'}"
            )


def benchmark_group_names(benchmark: Benchmark) -> list[str]:
    """The keys a run of this benchmark can be broken down by: the registered groups any sample
    has keys in, and every metadata key its samples set."""
    names = [name for name in group_names() if any(group_keys(s, name) for s in benchmark.samples)]
    for sample in benchmark.samples:
        meta = sample.metadata.model_dump(exclude_none=True, exclude_defaults=True)
        names += [key for key, value in meta.items() if _groupable(value)]
    return list(dict.fromkeys(names))


def _groupable(value: object) -> bool:
    """A metadata value results can be broken down by: a word or number, or a list of words."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(item, str) for item in value)
    return isinstance(value, str | int | float | bool) and value != ""


def samples_no_frames(spec_text: str) -> bool:
    """Whether a frame spec asks for no frame at all (`uniform:0`, `at:` with no time, `max=0`)."""
    spec = parse_sampling(spec_text)
    if isinstance(spec, Uniform):
        return spec.n == 0
    if isinstance(spec, Timestamps):
        return not spec.times_s
    return isinstance(spec, Fps) and spec.max_frames == 0


def check_run(
    config: EvalConfig, benchmark: Benchmark, *, allow_no_frames: bool = False, need_keys: bool = True
) -> CheckedRun:
    """Raise RunSetupError (or MethodSetupError) naming the first thing that cannot work.
    A frame spec that samples nothing is refused for a method that sends frames, unless
    `allow_no_frames` (the zero point of a frames sweep, which stands for the text-only control).
    `need_keys=False`: a missing API key is no problem (a plan of the run, which sends nothing)."""
    _check_arguments(config)
    protocol = run_protocol(config, benchmark)
    try:
        parse_sampling(protocol.frames)
    except ValueError as error:
        raise RunSetupError(f"--frames {protocol.frames!r}: {error}") from None
    try:
        check_prompt(protocol.prompt, benchmark.root)
    except ValueError as error:
        raise RunSetupError(f"--prompt: {error}") from None
    method = get_method(config.method)
    options = method.check(benchmark, config.method_args)
    if not allow_no_frames and samples_no_frames(protocol.frames) and method.sends_frames(options):
        raise RunSetupError(
            f"--frames {protocol.frames!r} samples no frames, so method {method.name} would send no "
            "video; for a text-only run use --method blind"
        )
    if method.needs_model and config.model is None:
        raise RunSetupError(f"method {method.name} needs --model (see `vqakit models`)")
    if config.engine == "ray" and not has_extra("ray"):
        raise RunSetupError(f"--engine ray needs the ray extra: {install_line('ray')}")
    if config.engine not in ("local", "ray"):
        raise RunSetupError(f"--engine {config.engine!r}: use local or ray")
    for spec, role, settings in (
        (config.model, "--model", config.model_args),
        (config.fallback, "--fallback", config.model_args),
    ):
        if spec is not None:
            _check_model(spec, role, need_key=need_keys)
            _check_settings(spec, settings, role)
    registered = judges()
    for name, spec in config.judges.items():
        _check_model(spec, f"judge {name}", need_key=need_keys)
        _check_settings(spec, config.judge_args.get(name, {}), f"judge {name}")
    unknown = sorted(name for name in config.judge_args if name not in registered)
    if unknown:
        known = ", ".join(sorted(registered))
        hint = did_you_mean(unknown[0], registered)
        raise RunSetupError(f"--judge-arg for unknown judge {', '.join(unknown)}; {hint}known: {known}")
    _check_groups(config, benchmark)
    if protocol.input == "video":
        _check_video_input(config, method, protocol)
    return CheckedRun(method, options, protocol)


def _check_video_input(config: EvalConfig, method: Method, protocol: Protocol) -> None:
    from vqakit.models import VIDEO_INPUT, parse_model_spec, video_input
    from vqakit.schema import Timestamps

    if isinstance(parse_sampling(protocol.frames), Timestamps):
        raise RunSetupError(
            f"--input video: frames {protocol.frames!r} are single times; a video needs a rate "
            "(--frames fps:F, or uniform:N over the window)"
        )
    if not method.takes_video:
        raise RunSetupError(f"--input video: method {method.name} sends frames only (use --method direct)")
    if config.model is None:
        return
    backend = parse_model_spec(config.model).backend
    if video_input(backend) is None:
        takes = ", ".join(f"{name}:" for name in VIDEO_INPUT)
        raise RunSetupError(
            f"--input video: {config.model!r} takes frames only; video goes to {takes} models "
            "(vLLM and SGLang through openai-compatible:, Gemini)"
        )
