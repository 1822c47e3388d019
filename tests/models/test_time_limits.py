"""Time limits a user sets: in a spec (`?timeout=`, `?total_timeout=`) or for every model, kept
out of the cache key, and shown in `vqakit models`."""

from __future__ import annotations

import time

import pytest
from bad_servers import SilentServer
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.models import (
    Message,
    Model,
    ModelSpecError,
    RetryPolicy,
    TimeLimits,
    parse_model_spec,
    without_limits,
)


def test_a_spec_carries_its_time_limits_after_its_settings():
    spec = parse_model_spec("openai:gpt-4o?timeout=30&temperature=0.5&total_timeout=300")
    assert spec.limits == TimeLimits(30.0, 300.0)
    assert spec.settings.temperature == 0.5
    assert str(spec) == "openai:gpt-4o?temperature=0.5&timeout=30&total_timeout=300"
    assert parse_model_spec(str(spec)) == spec
    assert without_limits(str(spec)) == "openai:gpt-4o?temperature=0.5"
    assert without_limits("not a spec") == "not a spec"


@pytest.mark.parametrize(
    "query", ["timeout=0", "timeout=-1", "timeout=soon", "total_timeout=inf", "timeout=1&timeout=2"]
)
def test_a_bad_time_limit_is_refused(query):
    with pytest.raises(ModelSpecError, match="timeout"):
        parse_model_spec(f"openai:gpt-4o?{query}")


def test_the_spec_limit_wins_and_bounds_each_request():
    with SilentServer() as server:
        model = Model(
            f"openai-compatible:{server.url}#m?timeout=0.3",
            request_timeout_s=60,
            cache=False,
            retry=RetryPolicy(max_attempts=2, base_s=0.01, max_wait_s=0.01),
        )
        started = time.monotonic()
        completion = model.complete_sync([Message.user("hi")])
        took = time.monotonic() - started
        model.close()
    assert model.request_timeout_s == 0.3
    assert (
        completion.error.type == "timeout"
        and "no reply within 0.3s after 2 attempt(s)" in completion.error.message
    )
    assert took < 3


def test_the_total_limit_stops_the_retries():
    with SilentServer() as server:
        model = Model(
            f"openai-compatible:{server.url}#m?timeout=0.2&total_timeout=0.5",
            cache=False,
            retry=RetryPolicy(max_attempts=50, base_s=0.2, max_wait_s=0.2),
        )
        completion = model.complete_sync([Message.user("hi")])
        model.close()
    assert completion.error.type == "timeout" and completion.attempts < 5


def test_time_limits_are_not_part_of_the_cache_key():
    a = Model("openai-compatible:http://127.0.0.1:1/v1#m?timeout=5")
    b = Model("openai-compatible:http://127.0.0.1:1/v1#m?timeout=50&total_timeout=100")
    assert a._cache_spec == b._cache_spec == "openai-compatible:http://127.0.0.1:1/v1#m"


def test_models_lists_the_time_limits_with_their_defaults():
    listing = CliRunner().invoke(main, ["models"]).output
    assert "<any form>?timeout=S&total_timeout=S" in listing
    assert "(default 120)" in listing and "(default 600)" in listing and "--request-timeout" in listing
