"""One chat interface over model backends, with retries, time limits, a response cache and
structured output. Heavy SDKs are imported only by the backend that needs them."""

from vqakit.models._backends import BackendInfo, backend_info, backends, find_backend, register_backend
from vqakit.models._batch import PENDING as BATCH_PENDING
from vqakit.models._batch import Batcher, BatchingModel, deferred_calls
from vqakit.models._batch_journal import BatchJournal, StoredReply, parse_batch_event, parse_batch_reply
from vqakit.models._cache import ResponseCache, cache_key, default_cache_path
from vqakit.models._check import check_model_spec
from vqakit.models._detect import Detection, OpenVocabDetector, keep_detections
from vqakit.models._embed import (
    TEXT_EMBEDDER_FORMS,
    EmbeddingCache,
    ImageTextEmbedder,
    TextEmbedder,
    check_text_embedder,
    is_api_text_embedder,
)
from vqakit.models._embed_api import EmbeddingError
from vqakit.models._events import RetryEvent, watching_retries
from vqakit.models._images import (
    JPEG_QUALITY,
    EncodedImage,
    encode_jpeg,
    image_encoding,
    jpeg_encoder,
    pixel_hash,
    sent_jpeg,
)
from vqakit.models._limits import REQUEST_TIMEOUT_S, TOTAL_TIMEOUT_S, TimeLimits, effective_limits
from vqakit.models._messages import (
    CallError,
    Completion,
    Frames,
    Image,
    Message,
    Part,
    Text,
    Usage,
    Video,
    clock,
    frame_clocks,
)
from vqakit.models._model import Backend, Model, sent_encoding
from vqakit.models._preflight import PreflightError, preflight
from vqakit.models._retry import (
    BackendError,
    EndpointDown,
    RetryPolicy,
    parse_retry_after,
    stopping_failing_endpoints,
)
from vqakit.models._secrets import (
    api_key,
    credential_in_arguments,
    credential_in_spec,
    known_secrets,
    redact_known,
    redact_record,
    redact_secrets,
    remember_secret,
)
from vqakit.models._settings import GenerationSettings
from vqakit.models._spec import (
    SPEC_FORMS,
    ModelSpec,
    ModelSpecError,
    parse_model_spec,
    spec_forms,
    without_limits,
)
from vqakit.models._structured import complete_structured, parse_json_lenient
from vqakit.models._video import VIDEO_INPUT, video_input

__all__ = [
    "BATCH_PENDING",
    "JPEG_QUALITY",
    "REQUEST_TIMEOUT_S",
    "SPEC_FORMS",
    "TEXT_EMBEDDER_FORMS",
    "TOTAL_TIMEOUT_S",
    "VIDEO_INPUT",
    "Backend",
    "BackendError",
    "BackendInfo",
    "BatchJournal",
    "Batcher",
    "BatchingModel",
    "CallError",
    "Completion",
    "Detection",
    "EmbeddingCache",
    "EmbeddingError",
    "EncodedImage",
    "EndpointDown",
    "Frames",
    "GenerationSettings",
    "Image",
    "ImageTextEmbedder",
    "Message",
    "Model",
    "ModelSpec",
    "ModelSpecError",
    "OpenVocabDetector",
    "Part",
    "PreflightError",
    "ResponseCache",
    "RetryEvent",
    "RetryPolicy",
    "StoredReply",
    "Text",
    "TextEmbedder",
    "TimeLimits",
    "Usage",
    "Video",
    "api_key",
    "backend_info",
    "backends",
    "cache_key",
    "check_model_spec",
    "check_text_embedder",
    "clock",
    "complete_structured",
    "credential_in_arguments",
    "credential_in_spec",
    "default_cache_path",
    "deferred_calls",
    "effective_limits",
    "encode_jpeg",
    "find_backend",
    "frame_clocks",
    "image_encoding",
    "is_api_text_embedder",
    "jpeg_encoder",
    "keep_detections",
    "known_secrets",
    "parse_batch_event",
    "parse_batch_reply",
    "parse_json_lenient",
    "parse_model_spec",
    "parse_retry_after",
    "pixel_hash",
    "preflight",
    "redact_known",
    "redact_record",
    "redact_secrets",
    "register_backend",
    "remember_secret",
    "sent_encoding",
    "sent_jpeg",
    "spec_forms",
    "stopping_failing_endpoints",
    "video_input",
    "watching_retries",
    "without_limits",
]
