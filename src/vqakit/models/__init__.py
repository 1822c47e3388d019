"""One chat interface over model backends, with retries, time limits, a response cache and
structured output. Heavy SDKs are imported only by the backend that needs them."""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_backends": "BackendInfo backend_info backends find_backend register_backend",
        "_batch": "PENDING as BATCH_PENDING Batcher BatchingModel deferred_calls",
        "_batch_journal": "BatchJournal StoredReply parse_batch_event parse_batch_reply",
        "_cache": "ResponseCache cache_key default_cache_path",
        "_check": "check_model_spec",
        "_detect": "Detection OpenVocabDetector keep_detections",
        "_embed": (
            "TEXT_EMBEDDER_FORMS EmbeddingCache ImageTextEmbedder TextEmbedder check_text_embedder "
            "is_api_text_embedder"
        ),
        "_embed_api": "EmbeddingError",
        "_events": "RetryEvent watching_retries",
        "_images": (
            "JPEG_QUALITY EncodedImage encode_jpeg image_encoding jpeg_encoder pixel_hash"
            " sent_jpeg shrunk_size"
        ),
        "_messages": "CallError Completion Frames Image Message Part Text Usage Video clock frame_clocks",
        "_model": "Backend Model sent_encoding",
        "_retry": "BackendError RetryPolicy parse_retry_after EndpointDown stopping_failing_endpoints",
        "_secrets": (
            "api_key credential_in_spec redact_known redact_secrets remember_secret "
            "credential_in_arguments known_secrets redact_record"
        ),
        "_settings": "GenerationSettings",
        "_spec": "SPEC_FORMS ModelSpec ModelSpecError parse_model_spec spec_forms without_limits",
        "_structured": "complete_structured parse_json_lenient",
        "_video": "VIDEO_INPUT video_input",
        "_limits": "REQUEST_TIMEOUT_S TOTAL_TIMEOUT_S TimeLimits effective_limits",
        "_preflight": "PreflightError preflight",
        "_image_tokens": (
            "TEXT_RULE RequestLimits TokenRule image_token_rule register_image_tokens"
            " register_request_limits request_limits text_tokens"
        ),
        "_served": "served_context",
    },
)
