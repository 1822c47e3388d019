"""The construction kit shared by benchmark builders.

- `BuildJournal` + `ModelSteps`: structured model steps, journaled in `calls.jsonl` so that a
  rerun reuses every step it completed before (same step, item and exact request).
- `StageLog` + `write_stage_report`: per-stage in/out counts, a drop log with reasons
  (`drops.jsonl`) and the stage report (`stages.json`, `report.md`); `nothing_built(log)` is the
  error of a build that kept nothing, pointing at them.
- `balance_letters`, `letter_spread`, `seeded_random`: gold letters spread evenly, reproducibly.
- `blind_check`, `check_mcq`: ask a model a multiple-choice question (text only, or with
  evidence) and compare its pick with the expected option. Default prompts: `builder_blind_check`,
  `builder_mcq_check`; a builder passes its own prompt names to keep its own wording.
- `write_benchmark_folder`: card, samples, corpora and media, validated, then renamed into
  place; `prepare_media`: a build's media checked and placed before its first model step.
- `check_benchmark_out`, `start_build`: the `--out` policy of every importer and builder (new,
  empty, or written by the same command; never inside an input), checked before any work;
  `set_aside_journal_lines`: a build journal's unreadable lines moved aside on request.
- `InputError`, `read_records`, `list_videos`: inputs read with errors naming file and line.
- `register_evidence`: what a system's builder used for a sample, shown to reviewers.
"""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_checks": "BLIND_PROMPT CHECK_PROMPT MCQCheck blind_check check_mcq",
        "_evidence": "Evidence EvidenceHook EvidenceLine evidence_hooks register_evidence",
        "_inputs": "VIDEO_SUFFIXES InputError list_videos read_records",
        "_journal": "BuildJournal parse_call set_aside_journal_lines",
        "_letters": "OptionPool PlacedOptions balance_letters letter_spread seeded_random",
        "_stages": "DropLog NothingBuilt Stage StageLog nothing_built stage_report write_stage_report",
        "_steps": "ModelSteps StepResult",
        "_writer": (
            "check_benchmark_out prepare_media set_aside_build_journal start_build write_benchmark_folder"
        ),
    },
)
