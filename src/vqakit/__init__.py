"""vqakit: build, run and score video question-answering benchmarks."""

__version__ = "0.1.0"
