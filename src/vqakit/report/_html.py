"""`report.html`: one self-contained page per run (no network, no external files).

It shows the run's configuration, accuracy overall and per group with 95% intervals (table
and bar chart), chosen against gold letters, and a browser over samples: question, options
with gold and chosen marked, the raw reply, how the answer was read, and thumbnails of the
frames that were actually sent (re-decoded at their recorded times). Buttons filter to wrong,
abstained or failed samples.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

import yaml
from PIL import Image

from vqakit.report._retrieval import retrieval_detail, retrieval_sections, shown_clip
from vqakit.schema import Benchmark, Prediction, Sample
from vqakit.scoring import LETTERS

THUMB_SHORT_SIDE = 72

STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;color:#1d2330;max-width:1200px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px}
.meta{color:#566;font-size:13px} table{border-collapse:collapse;font-size:13px}
td,th{padding:3px 10px;border-bottom:1px solid #dde;text-align:left} th{background:#f3f4f8}
.num{text-align:right;font-variant-numeric:tabular-nums}
.sample{border:1px solid #dde;border-radius:6px;padding:10px 12px;margin:10px 0}
.sample.correct{border-left:5px solid #2a9d55} .sample.wrong{border-left:5px solid #d1453b}
.sample.abstained{border-left:5px solid #e0a526} .sample.error{border-left:5px solid #777}
.sample.unscored{border-left:5px solid #7a8bd6}
.opt.gold{font-weight:600} .opt.chosen{text-decoration:underline}
.reply{white-space:pre-wrap;background:#f6f7fa;padding:6px;font-size:12px;max-height:160px;overflow:auto}
.thumbs img{height:54px;margin:2px;border-radius:2px} .thumbs span{font-size:10px;color:#667}
.tag{display:inline-block;font-size:11px;padding:1px 6px;border-radius:8px;background:#eef;margin-right:4px}
button{margin-right:6px;padding:4px 10px;border:1px solid #99a;background:#fff;border-radius:4px}
button.on{background:#1d2330;color:#fff}
"""

SCRIPT = """
function show(kind){document.querySelectorAll('.sample').forEach(function(el){
 el.style.display=(kind==='all'||el.classList.contains(kind))?'':'none'});
 document.querySelectorAll('button[data-kind]').forEach(function(b){b.classList.toggle('on',b.dataset.kind===kind)});
 document.getElementById('shown').textContent=document.querySelectorAll('.sample:not([style*="none"])').length}
"""


def _e(text: Any) -> str:
    return html.escape(str(text))


def _bar_chart(rows: list[tuple[str, dict[str, Any]]], width: int = 640) -> str:
    """Horizontal bars of accuracy with 95% interval whiskers, as inline SVG."""
    rows = [(label, summary) for label, summary in rows if summary.get("accuracy") is not None]
    if not rows:
        return ""
    left, bar_width, height = 170, width - 280, 18
    parts = [f'<svg width="{width}" height="{len(rows) * (height + 6) + 24}" role="img">']
    for i, (label, summary) in enumerate(rows):
        y = i * (height + 6) + 4
        accuracy, (low, high) = summary["accuracy"], summary["ci95"]
        parts.append(
            f'<text x="{left - 6}" y="{y + 13}" font-size="11" text-anchor="end">{_e(label)[:28]}</text>'
        )
        parts.append(
            f'<rect x="{left}" y="{y}" width="{bar_width * accuracy:.1f}" height="{height}" fill="#6b8fd6"/>'
        )
        parts.append(
            f'<line x1="{left + bar_width * low:.1f}" x2="{left + bar_width * high:.1f}" '
            f'y1="{y + height / 2}" y2="{y + height / 2}" stroke="#1d2330" stroke-width="1.5"/>'
        )
        parts.append(
            f'<text x="{left + bar_width + 6}" y="{y + 13}" font-size="11">{100 * accuracy:.1f}% '
            f"(n={summary['n']})</text>"
        )
    axis_y = len(rows) * (height + 6) + 8
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = left + bar_width * tick
        parts.append(
            f'<text x="{x:.0f}" y="{axis_y + 10}" font-size="9" '
            f'text-anchor="middle">{int(tick * 100)}%</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _letters_chart(letters: dict[str, dict[str, int]]) -> str:
    keys = sorted(set(letters.get("chosen", {})) | set(letters.get("gold", {})))
    if not keys:
        return ""
    top = max([*letters.get("chosen", {}).values(), *letters.get("gold", {}).values(), 1])
    width = len(keys) * 56 + 40
    parts = [f'<svg width="{width}" height="160" role="img" viewBox="0 -10 {width} 160">']
    for i, key in enumerate(keys):
        for j, (kind, colour) in enumerate((("chosen", "#6b8fd6"), ("gold", "#c9cfdd"))):
            value = letters.get(kind, {}).get(key, 0)
            bar = 110 * value / top
            x = 20 + i * 56 + j * 20
            parts.append(f'<rect x="{x}" y="{120 - bar:.1f}" width="18" height="{bar:.1f}" fill="{colour}"/>')
            parts.append(
                f'<text x="{x + 9}" y="{116 - bar:.1f}" font-size="9" text-anchor="middle">{value}</text>'
            )
        parts.append(f'<text x="{20 + i * 56 + 19}" y="136" font-size="11" text-anchor="middle">{key}</text>')
    parts.append('<text x="20" y="148" font-size="9">blue: chosen, grey: gold</text></svg>')
    return "".join(parts)


def _shown_video(
    benchmark: Benchmark, sample: Sample, prediction: Prediction
) -> tuple[str, list[float]] | None:
    """(video path, frame times) of the frames to show: the sample's video, or for retrieval
    methods the gold clip's frames when it was retrieved, else the top clip's."""
    if prediction.retrieval is None:
        return (sample.videos[0].path, prediction.frames_s) if prediction.frames_s and sample.videos else None
    shown = shown_clip(sample, prediction)
    if shown is None or shown not in benchmark.clips:
        return None
    return benchmark.clips[shown].video.path, prediction.retrieval["frames_s"][shown]


def _thumbnails(benchmark: Benchmark, sample: Sample, prediction: Prediction) -> str:
    shown = _shown_video(benchmark, sample, prediction)
    if shown is None:
        return ""
    from vqakit.models import clock
    from vqakit.video import Resize, Timestamps, VideoError, sample_frames

    try:
        frames = sample_frames(
            benchmark.root / shown[0],
            Timestamps(tuple(shown[1])),
            resize=Resize(short_side=THUMB_SHORT_SIDE),
        )
    except VideoError as error:
        return f'<div class="meta">frames unavailable: {_e(error)}</div>'
    images = []
    for frame in frames:
        buffer = io.BytesIO()
        Image.fromarray(frame.image).save(buffer, format="JPEG", quality=70)
        data = base64.b64encode(buffer.getvalue()).decode()
        images.append(
            f'<figure style="display:inline-block;margin:0"><img src="data:image/jpeg;base64,{data}" '
            f'alt="frame at {frame.time_s:.2f}s"><br><span>{clock(frame.time_s)}</span></figure>'
        )
    return f'<div class="thumbs">{"".join(images)}</div>'


def _sample_card(benchmark: Benchmark, sample: Sample, prediction: Prediction, score: dict[str, Any]) -> str:
    status = score["status"]
    kind = ("correct" if score["correct"] else "wrong") if status == "answered" else status.split(":")[0]
    kind = kind.split(" ")[0]
    tags = [sample.metadata.category, *sample.metadata.skills]
    lines = [
        f'<div class="sample {kind} {"wrong" if kind in ("abstained", "error") else ""}">',
        f'<div><b>{_e(sample.id)}</b> <span class="tag">{_e(status)}</span>'
        + "".join(f'<span class="tag">{_e(t)}</span>' for t in tags if t)
        + "</div>",
        f"<p>{_e(sample.question)}</p>",
    ]
    if sample.choices is not None:
        for i, option in enumerate(sample.choices):
            classes = (
                ["opt"]
                + (["gold"] if i == sample.answer else [])
                + (["chosen"] if i == prediction.choice else [])
            )
            marks = (" ✓ gold" if i == sample.answer else "") + (
                " ← chosen" if i == prediction.choice else ""
            )
            lines.append(f'<div class="{" ".join(classes)}">{LETTERS[i]}. {_e(option)}{marks}</div>')
    else:
        lines.append(f'<div class="opt gold">reference: {_e(sample.answer)}</div>')
    lines.append(_thumbnails(benchmark, sample, prediction))
    if prediction.retrieval:
        lines.append(retrieval_detail(sample, prediction))
    if prediction.reply is not None:
        lines.append(f'<div class="reply">{_e(prediction.reply)}</div>')
    detail = prediction.extraction or ""
    if score.get("extracted_by") == "model extractor":
        detail = f"read by the model extractor ({detail})"
    if "judge_raw" in score:
        detail = f"judge said: {score['judge_raw']}"
    if prediction.error is not None:
        detail = f"error {prediction.error.type}: {prediction.error.message}"
    lines.append(f'<div class="meta">{_e(detail)}</div></div>')
    return "\n".join(lines)


RETRIEVAL_METHODS = ("rag", "rag+localize", "rag+split", "oracle-clip")


def _setup(config: dict[str, Any]) -> str:
    """What the model was shown, in one line: frames and prompt, or the retrieval settings."""
    if config["method"] not in RETRIEVAL_METHODS:
        return f"frames {config['protocol']['frames']}, prompt {config['protocol']['prompt']}"
    parts = [
        f"top {config.get('top_clips', 5)} clips" if config["method"] != "oracle-clip" else "gold clips",
        f"{config.get('caption_frames', 15)} frames per clip",
    ]
    if config["method"] in ("rag+localize", "rag+split"):
        parts.append(f"window {config.get('window_s', 5.0):g} s")
    if config["method"] == "rag+localize":
        parts.append(f"shift {config.get('shift_s', 1.0):g} s")
    parts.append(f"image embedder {config.get('image_embedder') or 'of the index'}")
    return ", ".join(parts)


def write_report(folder: str | Path, benchmark: Benchmark) -> Path:
    """Write `report.html` into a run folder from its config, results, predictions and scores."""
    folder = Path(folder)
    config = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    predictions = {
        p.sample_id: p for p in map(Prediction.model_validate_json, (folder / "predictions.jsonl").open())
    }
    scores = {row["sample_id"]: row for row in map(json.loads, (folder / "scores.jsonl").open())}
    overall = results["overall"]
    accuracy = "n/a" if overall["accuracy"] is None else f"{100 * overall['accuracy']:.1f}%"
    low, high = overall["ci95"]
    title = f"{config['bench']} · {config['method']}" + (
        f" · {config['model']}" if config.get("model") else ""
    )
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<div class="meta">{_e(_setup(config))}, benchmark hash {_e(config["benchmark_hash"])}</div>',
        f"<h2>Accuracy {accuracy}"
        + (
            ""
            if overall["accuracy"] is None
            else f" <span class='meta'>95% CI {100 * low:.1f}–{100 * high:.1f}, n={overall['n']}</span>"
        )
        + "</h2>",
        "<table><tr><th>outcome</th><th class='num'>samples</th></tr>"
        + "".join(f"<tr><td>{_e(k)}</td><td class='num'>{v}</td></tr>" for k, v in results["counts"].items())
        + "</table>",
    ]
    for group, buckets in results["groups"].items():
        body.append(f"<h2>By {_e(group)}</h2>")
        body.append(_bar_chart(list(buckets.items())))
        body.append(
            "<table><tr><th>" + _e(group) + "</th><th class='num'>n</th><th class='num'>accuracy</th>"
            "<th class='num'>95% CI</th></tr>"
            + "".join(
                f"<tr><td>{_e(k)}</td><td class='num'>{v['n']}</td><td class='num'>{100 * v['accuracy']:.1f}%"
                f"</td><td class='num'>{100 * v['ci95'][0]:.1f}–{100 * v['ci95'][1]:.1f}</td></tr>"
                for k, v in buckets.items()
            )
            + "</table>"
        )
    if "rubric" in results:
        body.append(
            "<h2>Reasoning rubric (0-2)</h2><table><tr><th>criterion</th><th class='num'>n</th>"
            "<th class='num'>mean</th><th class='num'>95% CI</th></tr>"
            + "".join(
                f"<tr><td>{_e(k.replace('_', ' '))}</td><td class='num'>{v['n']}</td><td class='num'>"
                + ("n/a" if v["mean"] is None else f"{v['mean']:.2f}")
                + f"</td><td class='num'>{v['ci95'][0]:.2f}–{v['ci95'][1]:.2f}</td></tr>"
                for k, v in results["rubric"].items()
            )
            + "</table>"
        )
    if "object_recall" in results:
        recall = results["object_recall"]
        rows = [("all", recall), *recall["by_category"].items()]
        body.append(
            "<h2>Object recall in the reasoning</h2><table><tr><th>category</th><th class='num'>n</th>"
            "<th class='num'>object level</th><th class='num'>noun level</th></tr>"
            + "".join(
                f"<tr><td>{_e(k)}</td><td class='num'>{v['n']}</td><td class='num'>{100 * v['object']:.1f}%"
                f"</td><td class='num'>{100 * v['noun']:.1f}%</td></tr>"
                for k, v in rows
            )
            + "</table>"
        )
    body.extend(retrieval_sections(results))
    body.append("<h2>Chosen and gold letters</h2>" + _letters_chart(results["letters"]))
    body.append(
        "<h2>Samples</h2><div>"
        + "".join(
            f'<button data-kind="{k}" onclick="show(\'{k}\')">{label}</button>'
            for k, label in (
                ("all", "all"),
                ("wrong", "wrong"),
                ("abstained", "abstained"),
                ("error", "failed"),
            )
        )
        + ' <span class="meta"><span id="shown"></span> shown</span></div>'
    )
    for sample in benchmark.samples:
        if sample.id in predictions and sample.id in scores:
            body.append(_sample_card(benchmark, sample, predictions[sample.id], scores[sample.id]))
    page = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{STYLE}</style></head><body>{''.join(body)}<script>{SCRIPT}show('all');</script></body></html>"
    )
    path = folder / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
