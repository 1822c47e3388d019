"""What an OpenAI-compatible server says of the model it serves: its context length, where the
server reports one (vLLM's `/v1/models` lists `max_model_len` for each model: `ModelCard` in
vllm/entrypoints/openai/protocol.py). A metadata request, never a model call; a server that
does not answer or does not say gives None."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from vqakit.models._backends import backend_info
from vqakit.models._spec import parse_model_spec

log = logging.getLogger(__name__)


def served_context(spec_text: str, timeout_s: float = 5.0) -> int | None:
    """The context length (`max_model_len`) the server of this spec reports for its model, or
    None (a backend without a base URL, a server that does not answer or report one)."""
    from vqakit.models._openai import authorization

    spec = parse_model_spec(spec_text)
    if not backend_info(spec.backend).base_url or spec.base_url is None:
        return None
    from vqakit.models._http import HttpClient, HttpFailure  # the run's own lean client

    url = f"{str(spec.base_url).rstrip('/')}/models"
    headers = authorization(spec.backend, required=False)
    try:
        reply = asyncio.run(HttpClient().request("GET", url, timeout_s=timeout_s, headers=headers))
        if reply.status != 200:
            raise ValueError(f"HTTP {reply.status}")
        listing: Any = json.loads(reply.body)
    except (OSError, ValueError, TimeoutError, HttpFailure) as error:
        log.debug("%s: no model listing (%s)", url, error)
        return None
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    found = [entry for entry in entries if isinstance(entry, dict) and entry.get("id") == spec.model]
    if not found and len(entries) == 1 and isinstance(entries[0], dict):
        found = entries  # one model served, under another name
    length = found[0].get("max_model_len") if found else None
    return length if isinstance(length, int) and length > 0 else None
