"""The model endpoints of a run: checked before its folder is written, and how long each
model's calls may take (the manifest's `time_limits`)."""

from __future__ import annotations

from vqakit.runner._config import EvalConfig


def _roles(config: EvalConfig) -> list[tuple[str, str]]:
    """(how messages name it, spec) of every model the run calls."""
    roles = [("--model", config.model), ("--fallback", config.fallback)]
    roles += [(f"judge {name}", spec) for name, spec in config.judges.items()]
    return [(role, spec) for role, spec in roles if spec is not None]


def time_limits(config: EvalConfig) -> dict[str, dict[str, float | None]]:
    """The manifest's record of how long each model's calls may take: {role: {request_s,
    total_s}} for the model, the fallback and each judge."""
    from vqakit.models import effective_limits, parse_model_spec

    found = {}
    for role, spec in _roles(config):
        given = parse_model_spec(spec).limits
        limits = effective_limits(given, config.request_timeout_s, config.total_timeout_s)
        found[role.removeprefix("--")] = {"request_s": limits.request_s, "total_s": limits.total_s}
    return found


def check_endpoints(configs: list[EvalConfig]) -> list[str]:
    """Check, at once, that the endpoint of every model, fallback and judge of these runs answers
    (`vqakit.models.preflight`): PreflightError (one line) for one that cannot serve a run;
    returns notes (a server that answered a check with an error it may get over)."""
    from vqakit.models import preflight

    models = [(role, spec, config.request_timeout_s) for config in configs for role, spec in _roles(config)]
    return preflight(models)
