"""Records that flow between vqakit's stages, the benchmark card, and folder checks."""

from vqakit.schema._card import BenchmarkCard, Protocol, ReviewRecord, Source
from vqakit.schema._checks import Corpora, SampleCheck, register_sample_check, sample_checks
from vqakit.schema._corpus import Clip, Passage
from vqakit.schema._folder import (
    CARD,
    CLIPS,
    PASSAGES,
    SAMPLES,
    Benchmark,
    BenchmarkError,
    MediaChecker,
    Problem,
    check_folder,
    load_folder,
    safe_media_path,
)
from vqakit.schema._lengths import length_bucket, length_buckets
from vqakit.schema._media_checks import SampleMediaChecks
from vqakit.schema._official import OfficialColumn, OfficialSetting, OfficialTable
from vqakit.schema._prediction import NOT_APPLICABLE, Prediction, PredictionError
from vqakit.schema._sample import MAX_CHOICES, Metadata, NonEmpty, ObjectTrack, Sample, TrackPoint, VideoRef
from vqakit.schema._spec import Fps, SamplingSpec, Timestamps, Uniform, parse_sampling, sample_times
from vqakit.schema._trace import ObjectRef, TraceStep, find_objects, find_times, parse_clock, parse_trace
from vqakit.schema._warnings import benchmark_warnings

__all__ = [
    "CARD",
    "CLIPS",
    "MAX_CHOICES",
    "NOT_APPLICABLE",
    "PASSAGES",
    "SAMPLES",
    "Benchmark",
    "BenchmarkCard",
    "BenchmarkError",
    "Clip",
    "Corpora",
    "Fps",
    "MediaChecker",
    "Metadata",
    "NonEmpty",
    "ObjectRef",
    "ObjectTrack",
    "OfficialColumn",
    "OfficialSetting",
    "OfficialTable",
    "Passage",
    "Prediction",
    "PredictionError",
    "Problem",
    "Protocol",
    "ReviewRecord",
    "Sample",
    "SampleCheck",
    "SampleMediaChecks",
    "SamplingSpec",
    "Source",
    "Timestamps",
    "TraceStep",
    "TrackPoint",
    "Uniform",
    "VideoRef",
    "benchmark_warnings",
    "check_folder",
    "find_objects",
    "find_times",
    "length_bucket",
    "length_buckets",
    "load_folder",
    "parse_clock",
    "parse_sampling",
    "parse_trace",
    "register_sample_check",
    "safe_media_path",
    "sample_checks",
    "sample_times",
]
