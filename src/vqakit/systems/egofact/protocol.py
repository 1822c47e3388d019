"""EgoFact's evaluation protocol: 15 frames per clip, localization-first retrieval."""

from vqakit.schema import Protocol

PROTOCOL = Protocol(frames="uniform:15", method="rag+localize", prompt="mcq")
