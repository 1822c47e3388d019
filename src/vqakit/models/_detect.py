"""Open-vocabulary object detection (OWLv2 through transformers), for hints without tracks.

Spec: `owlv2:<hub id or folder>`. Detections below `threshold` (0.6 by default, as in
Minerva-Ego's practical setting) are dropped; boxes are in pixels of the given image.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image as PILImage

DEFAULT_THRESHOLD = 0.6


@dataclass(frozen=True)
class Detection:
    label: str
    box: tuple[float, float, float, float]
    score: float


def keep_detections(detections: list[Detection], threshold: float, categories: list[str]) -> list[Detection]:
    """Detections at or above the threshold whose label is one of the categories, best first."""
    wanted = set(categories)
    kept = [d for d in detections if d.score >= threshold and d.label in wanted]
    return sorted(kept, key=lambda d: -d.score)


class OpenVocabDetector:
    def __init__(self, spec: str, *, threshold: float = DEFAULT_THRESHOLD, device: str = "cpu") -> None:
        if not spec.startswith("owlv2:"):
            raise ValueError(f"unknown detector {spec!r}: use owlv2:<hub id or folder>")
        import torch
        from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor

        source = spec.split(":", 1)[1]
        self.spec, self.threshold, self.device, self.torch = spec, threshold, device, torch
        self.processor = AutoProcessor.from_pretrained(source)
        self.model = AutoModelForZeroShotObjectDetection.from_pretrained(source).to(device).eval()

    def raw_detections(self, image: np.ndarray, categories: list[str]) -> list[Detection]:
        """Every detection the model returns for the categories, before filtering."""
        if not categories:
            return []
        picture = PILImage.fromarray(image)
        inputs = self.processor(
            text=[categories], images=picture, return_tensors="pt", padding="max_length", truncation=True
        ).to(self.device)
        with self.torch.inference_mode():
            outputs = self.model(**inputs)
        # OWLv2 pads the image to a square (bottom and right): boxes come back on that square
        side = max(picture.height, picture.width)
        sizes = self.torch.tensor([[side, side]])
        result = self.processor.post_process_grounded_object_detection(
            outputs, threshold=0.0, target_sizes=sizes, text_labels=[categories]
        )[0]
        limits = (picture.width, picture.height, picture.width, picture.height)
        found = []
        for label, box, score in zip(
            result["text_labels"], result["boxes"].tolist(), result["scores"].tolist(), strict=True
        ):
            clipped = tuple(
                min(max(float(v), 0.0), float(limit)) for v, limit in zip(box, limits, strict=True)
            )
            inside = box[0] < picture.width and box[1] < picture.height and box[2] > 0 and box[3] > 0
            if inside:  # boxes entirely in the padding are dropped
                found.append(Detection(str(label), clipped, float(score)))  # type: ignore[arg-type]
        return found

    def detect(self, image: np.ndarray, categories: list[str]) -> list[Detection]:
        return keep_detections(self.raw_detections(image, categories), self.threshold, categories)
