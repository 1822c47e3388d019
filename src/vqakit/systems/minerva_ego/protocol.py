"""Minerva-Ego's evaluation protocol: 64 uniform frames, numbered reasoning then an answer, and
breakdown rows of at least 50 questions."""

from vqakit.schema import Protocol

PROTOCOL = Protocol(frames="uniform:64", short_side=448, prompt="mcq_reasoning", min_group_size=50)
