"""What a run is: the configuration saved as config.yaml, and what must match to resume one."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vqakit.files import did_you_mean
from vqakit.methods import get_method, option_names
from vqakit.scoring import judges


class RunSetupError(ValueError):
    """A run's settings are unusable; said before anything is written."""


# may change when resuming: how the work is spread and what is reported, not what is predicted
RESUMABLE_FIELDS = (
    "concurrency",
    "limit",
    "engine",
    "ray_address",
    "group_by",
    "keep_errors",
    "errors_as_wrong",
    "bench",  # the benchmark is identified by its content hash; its path may differ between places
    "judge_batch",  # batches change how judges' replies are fetched, not what they are
    "judge_batch_poll_s",
    "judge_batch_wait",
    "frame_cache",  # the frame store changes how frames are had, not which frames are sent
    "request_timeout_s",  # time limits change how long calls wait, not what they ask
    "total_timeout_s",
)

# Fields EvalConfig had before methods owned their options and judges were plug-ins. Run folders
# and code from then still load: these move into `method_args` when the method declares them
# (and are dropped otherwise: that method never read them); judge fields move into `judges`.
FIELDS_BEFORE_METHOD_ARGS = (
    "hints",
    "detector",
    "index",
    "text_embedder",
    "image_embedder",
    "top_clips",
    "window_s",
    "shift_s",
    "caption_frames",
    "approximate",
)


class EvalConfig(BaseModel):
    """Everything needed to rerun an evaluation. `method_args` are the method's own options
    (see `vqakit.methods.Method.options`); `judges` assigns a model spec to each judge by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bench: str
    method: str = "direct"
    model: str | None = None
    model_args: dict[str, Any] = {}  # generation settings of the model (vqakit.models.GenerationSettings)
    fallback: str | None = None  # model asked when the main model refuses or replies empty
    frames: str | None = None  # None: the benchmark protocol's
    short_side: int | None = None
    upscale: bool | None = None  # None: the protocol's (frames are never enlarged by default)
    prompt: str | None = None
    input: Literal["frames", "video"] | None = None  # None: the benchmark protocol's (frames)
    subtitles: bool | None = None  # show subtitle cues in the prompt; None: the protocol's
    concurrency: int = 8
    limit: int | None = None
    seed: int = 0
    engine: str = "local"  # "local" (asyncio in this process) or "ray" (samples as Ray tasks)
    ray_address: str | None = None  # existing Ray cluster; None starts a local instance
    group_by: tuple[str, ...] = ()  # metadata keys to break results down by, beyond the defaults
    judges: dict[str, str] = {}  # judge name -> model spec (e.g. {"open": "openai:gpt-4o-mini"})
    judge_args: dict[str, dict[str, Any]] = {}  # judge name -> generation settings of its model
    method_args: dict[str, Any] = {}  # the method's options, validated by the method
    reasoning_source: Literal["reply", "thinking", "both"] = (
        "reply"  # what judges and recall read as reasoning
    )
    keep_errors: bool = False  # resuming keeps samples that ended in an error instead of retrying them
    errors_as_wrong: bool = False  # score failed MCQ samples as wrong (the strict number)
    judge_batch: bool = False  # judges' calls go through the providers' batch APIs
    judge_batch_poll_s: float = Field(30.0, gt=0)  # seconds between polls of a running batch
    judge_batch_wait: bool = True  # False: submit (or poll once) and stop, leaving judgments pending
    frame_cache: bool = True  # keep encoded frames in the frame store of the cache folder
    # seconds one request / one call with its retries may take (None: 120 / 600; `?timeout=`
    # and `?total_timeout=` in a model's spec win for that model)
    request_timeout_s: float | None = Field(None, gt=0)
    total_timeout_s: float | None = Field(None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _earlier_fields(cls, data: Any) -> Any:
        return upgrade_config(data) if isinstance(data, dict) else data

    @field_validator("judges")
    @classmethod
    def _known_judges(cls, value: dict[str, str]) -> dict[str, str]:
        registered = judges()
        unknown = sorted(name for name in value if name not in registered)
        if unknown:
            hint = did_you_mean(unknown[0], registered)
            raise ValueError(
                f"unknown judge {', '.join(unknown)}; {hint}known: {', '.join(sorted(registered)) or 'none'}"
            )
        return {name: spec for name, spec in value.items() if spec}

    @field_validator("model_args")
    @classmethod
    def _model_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _settings(value)

    @field_validator("judge_args")
    @classmethod
    def _judge_settings(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {name: settings for name, given in value.items() if (settings := _settings(given))}

    def options(self) -> BaseModel:
        """The method's validated options (raises MethodSetupError naming a bad one)."""
        return get_method(self.method).parse_options(self.method_args)

    def time_limits(self) -> dict[str, float]:
        """The run's time limits as `Model` keyword arguments (those given)."""
        given = {"request_timeout_s": self.request_timeout_s, "total_timeout_s": self.total_timeout_s}
        return {key: value for key, value in given.items() if value is not None}


def _settings(given: dict[str, Any]) -> dict[str, Any]:
    """Generation settings as typed values, only those given (so `temperature=0.6` from the
    command line and `0.6` from Python are the same run)."""
    from vqakit.models import GenerationSettings

    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in GenerationSettings.model_validate(given).given().items()
    }


def upgrade_config(data: dict[str, Any]) -> dict[str, Any]:
    """A config in today's shape from one written by any earlier version (or given with the
    earlier keyword arguments); today's shape passes through unchanged."""
    data = dict(data)
    assigned = dict(data.pop("judges", None) or {})
    for name, judge in judges().items():
        if judge.legacy_option and judge.legacy_option in data:
            spec = data.pop(judge.legacy_option)
            if spec and name not in assigned:
                assigned[name] = spec
    earlier = {key: data.pop(key) for key in FIELDS_BEFORE_METHOD_ARGS if key in data}
    args = dict(data.pop("method_args", None) or {})
    if earlier:
        try:
            declared = option_names(get_method(data.get("method", "direct")).options)
        except ValueError:
            declared = set()
        for key, value in earlier.items():
            if key in declared:
                args.setdefault(key, value)
    return {**data, "judges": assigned, "method_args": args}


def identity(config: dict[str, Any]) -> dict[str, Any]:
    """What must match to resume a run: the saved config upgraded to today's shape, with the
    method's options filled in with their defaults (so `--top-clips 5` matches a run made
    without it), and options added after a run was saved taking their defaults."""
    upgraded = upgrade_config(config)
    defaults = {
        name: field.default
        for name, field in EvalConfig.model_fields.items()
        if not field.is_required() and name not in upgraded
    }
    merged = {**defaults, **upgraded}
    if isinstance(merged.get("protocol"), dict):
        merged["protocol"] = _protocol_with_defaults(merged["protocol"])
    try:
        method = get_method(merged["method"])
        merged["method_args"] = method.parse_options(merged["method_args"]).model_dump(mode="json")
    except ValueError:
        pass  # an unknown method or bad options stay as written, so they differ visibly
    _specs_without_limits(merged)
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in merged.items()
        if key not in RESUMABLE_FIELDS
    }


def _specs_without_limits(config: dict[str, Any]) -> None:
    """The model specs of a config without their time limits (`?timeout=`), which a resumed
    run may change."""
    from vqakit.models import without_limits

    for key in ("model", "fallback"):
        if isinstance(config.get(key), str):
            config[key] = without_limits(config[key])
    if isinstance(config.get("judges"), dict):
        config["judges"] = {
            name: without_limits(spec) if isinstance(spec, str) else spec
            for name, spec in config["judges"].items()
        }


def _protocol_with_defaults(protocol: dict[str, Any]) -> dict[str, Any]:
    """A saved protocol with fields added since it was saved taking their defaults."""
    from vqakit.schema import Protocol

    try:
        return Protocol.model_validate(protocol).model_dump()
    except ValidationError:
        return protocol


def make_config(settings: dict[str, Any]) -> EvalConfig:
    """An EvalConfig from settings, with problems said in one line each (RunSetupError)."""
    try:
        return EvalConfig(**settings)
    except ValidationError as error:
        problems = []
        for problem in error.errors():
            where = [str(part) for part in problem["loc"]] or ["settings"]
            where[0] = _FLAGS.get(where[0], where[0])
            problems.append(f"{' '.join(where)}: {str(problem['msg']).removeprefix('Value error, ')}")
        raise RunSetupError("; ".join(problems)) from None


# the command-line options that set these fields, to name them in messages
_FLAGS = {
    "model_args": "--model-arg",
    "judge_args": "--judge-arg",
    "method_args": "--method-arg",
    "judges": "--judge",
    "judge_batch_poll_s": "--judge-batch-poll",
    "request_timeout_s": "--request-timeout",
    "total_timeout_s": "--total-timeout",
}
