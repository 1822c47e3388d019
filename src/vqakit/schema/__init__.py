"""Records that flow between vqakit's stages, the benchmark card, and folder checks."""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_card": "BenchmarkCard Protocol ReviewRecord Source",
        "_checks": "Corpora SampleCheck register_sample_check sample_checks",
        "_corpus": "Clip Passage",
        "_folder": (
            "CARD CLIPS PASSAGES SAMPLES Benchmark BenchmarkError MediaChecker Problem check_folder "
            "load_folder safe_media_path"
        ),
        "_lengths": "length_bucket length_buckets",
        "_official": "OfficialColumn OfficialSetting OfficialTable",
        "_prediction": "NOT_APPLICABLE Prediction PredictionError",
        "_sample": "MAX_CHOICES Metadata NonEmpty ObjectTrack Sample TrackPoint VideoRef",
        "_spec": "Fps SamplingSpec Timestamps Uniform parse_sampling sample_times",
        "_trace": "ObjectRef TraceStep find_objects find_times parse_clock parse_trace",
        "_warnings": "benchmark_warnings",
        "_media_checks": "SampleMediaChecks",
        "_sample_file": "SampleFile SampleFileChanged SampleKeys digests_of sample_keys select_samples",
        "_sample_digest": "RESIDENT_UP_TO sample_digest",
    },
)
