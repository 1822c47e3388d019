"""MovieRecapsQA's evaluation defaults: the protocol of the benchmarks it makes, and the name of
its method (`settings`), kept apart from the method so that reading them imports no method."""

from vqakit.schema import Protocol

NAME = "movierecaps"
PROTOCOL = Protocol(frames="uniform:16", short_side=448, method=NAME, prompt="open_short")
"""16 frames of the setting's video, resized to a 448-pixel short side. `prompt` stays a generic
open-ended one so that `direct` also runs on the folder (on `videos[0]`, the recap segment)."""
