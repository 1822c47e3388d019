"""Write the corpus and samples of the shipped `sample` benchmark.

Run from the repository root after scripts/make_sample_clips.py:
    python scripts/make_sample_benchmark.py
The questions were written after looking at frames of each video; every answer can be checked
by watching the video. Object tracks of the synthetic clips are computed from the same scene
data that rendered them, so they are right to the pixel.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from make_sample_clips import FPS, SCENES, object_id

ROOT = Path(__file__).resolve().parents[1] / "src/vqakit/benchmarks/sample"
SCENE = {scene.name: scene for scene in SCENES}


def oid(scene: str, name: str) -> str:
    return object_id(scene, name)


def track(scene_name: str, shape_name: str, times: list[float]) -> dict:
    """Boxes of one synthetic shape at the given times (snapped to frame times)."""
    scene = SCENE[scene_name]
    shape = next(s for s in scene.shapes if s.name == shape_name)
    points = []
    for t in times:
        t = round(round(t * FPS) / FPS, 2)
        assert shape.visible(t), (shape_name, t)
        points.append({"time_s": t, "box": list(shape.box(t))})
    return {"id": oid(scene_name, shape_name), "label": shape_name.split()[0], "points": points}


def video(path: str, start: float | None = None, end: float | None = None) -> list[dict]:
    ref: dict = {"path": f"media/{path}"}
    if start is not None:
        ref["start_s"] = start
    if end is not None:
        ref["end_s"] = end
    return [ref]


PASSAGES = [
    {
        "id": "howto-lock-bicycle",
        "title": "How to lock a bicycle in the street",
        "text": "Choose a fixed object that cannot be lifted or cut easily, such as a metal railing or a bike stand. "
        "Pass a U-lock through the frame and the rear wheel and around the fixed object, so that a thief "
        "cannot take the frame or the expensive back wheel. Locking only the front wheel is a mistake: it "
        "comes off in seconds with its quick-release lever and the rest of the bike goes. Keep the lock off "
        "the ground, where it is easier to break.",
    },
    {
        "id": "howto-fit-helmet",
        "title": "How to fit a cycling helmet",
        "text": "Put the helmet on level, with its front edge about two fingers' width above your eyebrows; tilted "
        "back it leaves the forehead unprotected. Adjust the side straps so they form a V just below each "
        "ear. Buckle the chin strap so that no more than one finger fits between the strap and your chin. "
        "Replace a helmet after any crash, even when no damage shows.",
    },
    {
        "id": "howto-hail-taxi",
        "title": "How to hail a taxi",
        "text": "Stand on the kerb at a place where a driver can pull over safely, away from bus stops and junctions. "
        "Look for the roof sign: when it is lit, the cab is usually free to hire; when it is dark, it is "
        "already taken or off duty. Raise your arm clearly as the taxi approaches and wait for it to stop "
        "before you step towards the road.",
    },
    {
        "id": "howto-traffic-light",
        "title": "How to drive through a junction with traffic lights",
        "text": "Stop at the line while the light is red. Move off on green only when the junction ahead is clear. "
        "Amber (yellow) after green means stop: you may continue only if you are so close to the line "
        "that stopping would be unsafe. Never speed up to beat an amber light.",
    },
    {
        "id": "howto-read-globe",
        "title": "How to read a globe",
        "text": "A globe is turned like the Earth, from west to east, which is why the Sun appears to rise in the "
        "east. Lines of longitude run from pole to pole and lines of latitude run parallel to the equator. "
        "Seen from above the equator with north at the top, places move from left to right as the globe "
        "turns. The night side of a satellite image of the globe shows cities as clusters of lights.",
    },
    {
        "id": "howto-care-rabbit",
        "title": "How to feed a pet rabbit",
        "text": "Most of a rabbit's diet should be fresh hay, which keeps its teeth worn down and its gut moving. "
        "Add a handful of leafy greens each day and only a little pellet food. Carrots and fruit are "
        "treats, high in sugar, to give sparingly. Always leave clean water out.",
    },
    {
        "id": "howto-wear-suit",
        "title": "How to wear a suit and tie",
        "text": "The tip of a tie should reach the middle of the belt buckle. Fasten the top button of a two-button "
        "jacket when standing and undo it when sitting. The shirt collar should sit flat under the jacket "
        "collar, with about a centimetre of shirt cuff showing at the sleeve.",
    },
]

CLIPS = [
    {
        "id": "clip-pedestrians-a",
        "video": {"path": "media/pedestrians.mp4", "start_s": 0.0, "end_s": 30.0},
        "description": "A fixed camera looks down on a campus path between lawns; people walk past alone and in pairs.",
    },
    {
        "id": "clip-pedestrians-b",
        "video": {"path": "media/pedestrians.mp4", "start_s": 30.0, "end_s": 60.0},
        "description": "The same campus path; two people leave the path and cross the lawn near a tripod.",
    },
    {
        "id": "clip-pedestrians-c",
        "video": {"path": "media/pedestrians.mp4", "start_s": 60.0, "end_s": 79.5},
        "description": "The same campus path; a person in a dark coat walks down across the lawn.",
    },
    {
        "id": "clip-bikes",
        "video": {"path": "media/bikes.mp4"},
        "description": "City street shots: traffic, a taxi roof sign, a cyclist in a helmet, bikes at railings and a wall.",
    },
    {
        "id": "clip-bunny",
        "video": {"path": "media/bigbuckbunny.mp4"},
        "description": "An animated big grey rabbit climbs out of a burrow on a grassy hill and stretches.",
    },
    {
        "id": "clip-world",
        "video": {"path": "media/world.mp4"},
        "description": "The Earth at night turns once, city lights passing across the globe.",
    },
    {
        "id": "clip-thanks",
        "video": {"path": "media/thanks.mp4"},
        "description": "A title card: yellow text THANKS FOR WATCHING slides in and out on a dark background.",
    },
    {
        "id": "clip-workbench",
        "video": {"path": "media/synthetic/workbench.mp4"},
        "description": "Synthetic: a red circle slides right, a blue square vanishes, captions STEP 1 and STEP 2.",
    },
    {
        "id": "clip-counting",
        "video": {"path": "media/synthetic/counting.mp4"},
        "description": "Synthetic: green dots appear one per second, then two of them vanish.",
    },
    {
        "id": "clip-crossing",
        "video": {"path": "media/synthetic/crossing.mp4"},
        "description": "Synthetic: a traffic light cycles and a white car crosses while it is green.",
    },
]

W, C, X = "workbench", "counting", "crossing"

SAMPLES = [
    # --- pedestrians.mp4 (campus path, 79.5 s) ---
    {
        "id": "ped-viewpoint",
        "videos": video("pedestrians.mp4"),
        "question": "How is the camera placed in this video?",
        "choices": [
            "It is carried by someone walking along the path",
            "It is fixed, looking down on the path from above",
            "It is mounted on a car driving past",
            "It pans left and right to follow people",
            "It is at ground level on the lawn",
        ],
        "answer": 1,
        "metadata": {"category": "camera", "skills": ["spatial perception"], "modality": "visual"},
    },
    {
        "id": "ped-vehicle",
        "videos": video("pedestrians.mp4"),
        "question": "What vehicle is parked in front of the brick building at the back of the scene?",
        "choices": ["A red bus", "A white van", "A black motorbike", "A yellow taxi", "A green tractor"],
        "answer": 1,
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "ped-sign",
        "videos": video("pedestrians.mp4"),
        "question": "What is fixed to the lamp post in the middle of the scene?",
        "choices": ["A clock", "A red stop sign", "A small teal sign", "A loudspeaker", "A bicycle"],
        "answer": 2,
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "ped-tripod",
        "videos": video("pedestrians.mp4"),
        "question": "What stands on the lawn to the right of the lamp post, below the path?",
        "choices": ["A bench", "A tripod", "A rubbish bin", "A dog", "A bicycle"],
        "answer": 1,
        "metadata": {
            "category": "object",
            "skills": ["object recognition", "spatial perception"],
            "modality": "visual",
        },
    },
    {
        "id": "ped-barrier",
        "videos": video("pedestrians.mp4"),
        "question": "What marks off the paved area behind the path, near the top left of the scene?",
        "choices": [
            "A brick wall",
            "Red and white tape with orange cones",
            "A wooden fence",
            "A hedge",
            "Parked bicycles",
        ],
        "answer": 1,
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "ped-lawn-walkers",
        "videos": video("pedestrians.mp4"),
        "question": "After about 50 seconds, two people leave the path. Where do they walk?",
        "choices": [
            "Into the brick building",
            "Across the lawn in the foreground",
            "Along the road to the right",
            "Towards the white van",
            "Up the stairs on the left",
        ],
        "answer": 1,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "action recognition"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "ped-lawn-when",
        "videos": video("pedestrians.mp4"),
        "question": "When do people first walk on the lawn in the foreground instead of the path?",
        "choices": [
            "In the first 10 seconds",
            "Around 25 seconds",
            "Around 52 seconds",
            "In the last 5 seconds",
            "Nobody walks on the lawn",
        ],
        "answer": 2,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "event occurrence"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "ped-surface",
        "videos": video("pedestrians.mp4"),
        "question": "What do most of the people walk on?",
        "answer": "A grey paved path that curves between the lawns.",
        "facts": ["Most people walk on a paved path.", "The path runs between areas of grass."],
        "metadata": {"category": "scene", "skills": ["spatial perception"], "modality": "visual"},
    },
    {
        "id": "ped-yellow-object",
        "videos": video("pedestrians.mp4"),
        "question": "What lies on the grass in the lower left corner of the scene?",
        "answer": "A yellow piece of clothing or cloth lying flat on the grass.",
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    # --- bigbuckbunny.mp4 (5.3 s) ---
    {
        "id": "bunny-animal",
        "videos": video("bigbuckbunny.mp4"),
        "question": "What animal is the character in this clip?",
        "choices": ["A bear", "A rabbit", "A squirrel", "A sheep", "A mouse"],
        "answer": 1,
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "bunny-after-exit",
        "videos": video("bigbuckbunny.mp4"),
        "question": "What does the character do after it has climbed out of its burrow?",
        "choices": [
            "It eats a carrot",
            "It stretches its arms and yawns",
            "It runs away down the hill",
            "It goes back into the burrow",
            "It waves at a bird",
        ],
        "answer": 1,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "action recognition"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "bunny-origin",
        "videos": video("bigbuckbunny.mp4"),
        "question": "Where does the character come out from?",
        "answer": "From a burrow, a hole in a grassy hillside.",
        "facts": ["The character comes out of a hole.", "The hole is in a grassy hillside."],
        "metadata": {
            "category": "scene",
            "skills": ["action recognition", "spatial perception"],
            "modality": "visual",
        },
    },
    {
        "id": "bunny-style",
        "videos": video("bigbuckbunny.mp4"),
        "question": "What kind of footage is this?",
        "choices": [
            "Live-action nature film",
            "Computer animation",
            "A puppet show",
            "Security camera footage",
            "A drawing on paper being filmed",
        ],
        "answer": 1,
        "metadata": {"category": "scene", "skills": ["object recognition"], "modality": "visual"},
    },
    # --- bikes.mp4 (10 s, several shots) ---
    {
        "id": "bikes-roof-sign",
        "videos": video("bikes.mp4"),
        "question": "What word is written on the roof sign of the car shown at about 3 seconds?",
        "choices": ["POLICE", "TAXI", "HOTEL", "PIZZA", "BUS", "STOP"],
        "answer": 1,
        "metadata": {
            "category": "reading",
            "skills": ["reading", "object recognition"],
            "hop": 1,
            "grounding": "local",
            "modality": "visual",
        },
    },
    {
        "id": "bikes-helmet",
        "videos": video("bikes.mp4"),
        "question": "What does the cyclist seen standing next to a shop at about 5 seconds wear on his head?",
        "choices": ["A cap", "Nothing", "A cycling helmet", "A hood", "Headphones only"],
        "answer": 2,
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "bikes-before-taxi",
        "videos": video("bikes.mp4"),
        "question": "Before the car roof sign with a word on it comes into view, who passes between the cars in traffic?",
        "choices": [
            "A woman with an umbrella",
            "A man in a dark suit and striped tie",
            "A child on a scooter",
            "A police officer",
            "A cyclist in a helmet",
            "Nobody, only empty road",
        ],
        "answer": 1,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "object recognition"],
            "hop": 1,
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "bikes-after-taxi",
        "videos": video("bikes.mp4"),
        "question": "What is shown right after the close-up of the car's roof sign?",
        "choices": [
            "A bus stop",
            "The back of a car with its brake light on and a cyclist beside a shop",
            "A man in a suit",
            "A bicycle against a wall",
            "An empty zebra crossing",
        ],
        "answer": 1,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "bikes-last-shot",
        "videos": video("bikes.mp4"),
        "question": "What stands against the wall in the last shot of the video?",
        "answer": "An old bicycle with a grey cover over its rear carrier, behind a metal bollard.",
        "facts": ["A bicycle stands against a wall.", "A bollard stands in front of it."],
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "bikes-railing",
        "videos": video("bikes.mp4", 5.0, 7.5),
        "question": "In this part of the video, what is attached to the green metal railing?",
        "choices": ["A bicycle", "A flag", "A shopping bag", "A dog lead", "A sign"],
        "answer": 0,
        "metadata": {"category": "object", "skills": ["object recognition"], "modality": "visual"},
    },
    # --- world.mp4 (30 s) ---
    {
        "id": "world-what",
        "videos": video("world.mp4"),
        "question": "What does the video show?",
        "choices": [
            "The Moon during an eclipse",
            "The Earth at night turning, with city lights",
            "A ball rolling on a table",
            "Mars seen from a rover",
            "The Sun's surface",
        ],
        "answer": 1,
        "metadata": {"category": "scene", "skills": ["object recognition"], "modality": "visual"},
    },
    {
        "id": "world-direction",
        "videos": video("world.mp4"),
        "question": "Which way do the continents move across the globe as it turns?",
        "choices": [
            "From left to right",
            "From right to left",
            "From top to bottom",
            "From bottom to top",
            "They do not move",
        ],
        "answer": 0,
        "metadata": {
            "category": "motion",
            "skills": ["spatial perception", "temporal reasoning"],
            "modality": "visual",
        },
    },
    {
        "id": "world-order",
        "videos": video("world.mp4"),
        "question": "In which order do these regions pass through the middle of the globe?",
        "choices": [
            "North America, Europe and Africa, Asia",
            "Asia, Europe and Africa, North America",
            "Europe and Africa, Asia, North America",
            "Asia, North America, Europe and Africa",
            "North America, Asia, Europe and Africa",
        ],
        "answer": 1,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "object recognition"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "world-americas-time",
        "videos": video("world.mp4"),
        "question": "At about what time is North America in the middle of the globe?",
        "choices": ["0 s", "5 s", "10 s", "17 s", "29 s"],
        "answer": 3,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "object recognition"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "world-subtitles-joke",
        "videos": video("world.mp4"),
        "subtitles": "media/s1.srt",
        "question": "According to the subtitles, why did the tomato turn red?",
        "answer": "Because it saw the salad dressing.",
        "facts": ["The tomato saw the salad dressing."],
        "metadata": {"category": "subtitles", "skills": ["reading"], "modality": "subtitles"},
    },
    # --- thanks.mp4 (7 s title card) ---
    {
        "id": "thanks-text",
        "videos": video("thanks.mp4"),
        "question": "What text is shown in the video?",
        "choices": ["THE END", "THANKS FOR WATCHING", "SUBSCRIBE NOW", "COMING SOON", "TO BE CONTINUED"],
        "answer": 1,
        "metadata": {"category": "reading", "skills": ["reading"], "modality": "visual"},
    },
    {
        "id": "thanks-colour",
        "videos": video("thanks.mp4"),
        "question": "What colour is the text, and on what background?",
        "answer": "Yellow text on a dark blue-grey background.",
        "facts": ["The text is yellow.", "The background is dark blue-grey."],
        "metadata": {
            "category": "reading",
            "skills": ["reading", "object recognition"],
            "modality": "visual",
        },
    },
    {
        "id": "thanks-end",
        "videos": video("thanks.mp4"),
        "question": "What is on screen in the last second of the video, after the text has gone?",
        "choices": [
            "A logo",
            "Only the plain dark background",
            "A photo of a person",
            "Credits scrolling",
            "The same text in red",
        ],
        "answer": 1,
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "state changes"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "thanks-vtt",
        "videos": video("thanks.mp4"),
        "subtitles": "media/s2.vtt",
        "question": "What does the last subtitle cue say, and when does it start?",
        "answer": "中文測試, starting at 2.0 seconds.",
        "metadata": {
            "category": "subtitles",
            "skills": ["reading", "temporal reasoning"],
            "modality": "subtitles",
        },
    },
    # --- synthetic: workbench (12 s) ---
    {
        "id": "wb-circle-motion",
        "videos": video("synthetic/workbench.mp4"),
        "question": "What does the red circle do between 4 and 7 seconds?",
        "choices": [
            "It moves to the right and stops near the right edge",
            "It disappears",
            "It turns blue",
            "It moves up to the caption",
            "It stays where it is",
        ],
        "answer": 0,
        "reasoning": f"1. At 00:00 the red circle {oid(W, 'circle')} rests at the lower left of the frame.\n"
        f"2. From 00:04 to 00:07 {oid(W, 'circle')} slides to the right.\n"
        f"3. After 00:07 it stays near the right edge, so it moved right and stopped.",
        "objects": [track(W, "circle", [0, 4, 7, 11.96])],
        "metadata": {
            "category": "motion",
            "skills": ["action recognition", "temporal reasoning"],
            "modality": "visual",
        },
    },
    {
        "id": "wb-disappears-after",
        "videos": video("synthetic/workbench.mp4"),
        "question": "Which object disappears after the red circle has stopped moving?",
        "choices": [
            "The red circle",
            "The blue square",
            "The yellow bar",
            "The STEP 2 caption",
            "Nothing disappears",
        ],
        "answer": 1,
        "reasoning": f"1. The red circle {oid(W, 'circle')} moves from 00:04 to 00:07 and then stops.\n"
        f"2. The blue square {oid(W, 'square')} is visible from 00:00 until it vanishes at 00:09.\n"
        f"3. The yellow bar {oid(W, 'bar')} stays until the end, and so does STEP 2, so the square is "
        f"the object that disappears after the circle stops.",
        "objects": [track(W, "circle", [4, 7]), track(W, "square", [0, 8.96]), track(W, "bar", [2, 11.96])],
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "event occurrence"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "wb-caption-before",
        "videos": video("synthetic/workbench.mp4"),
        "question": "Which caption is on screen before the red circle starts to move?",
        "choices": ["STEP 1", "STEP 2", "STEP 3", "START", "No caption"],
        "answer": 0,
        "metadata": {
            "category": "reading",
            "skills": ["reading", "temporal reasoning"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "wb-appears-during-step1",
        "videos": video("synthetic/workbench.mp4"),
        "question": "Which object appears while the caption STEP 1 is still shown?",
        "choices": [
            "A blue square",
            "A yellow bar",
            "A second red circle",
            "A green dot",
            "A white rectangle",
        ],
        "answer": 1,
        "reasoning": f"1. STEP 1 is shown from 00:00 to 00:03.\n"
        f"2. The yellow bar {oid(W, 'bar')} appears at 00:02, to the right of the blue square "
        f"{oid(W, 'square')}, which was there from the start.",
        "objects": [track(W, "bar", [2, 3]), track(W, "square", [0, 3])],
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "event occurrence"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "wb-all-changes",
        "videos": video("synthetic/workbench.mp4"),
        "question": "List, in order, everything that changes in this clip.",
        "answer": "A yellow bar appears (2 s), the STEP 1 caption goes (3 s), the red circle slides right (4-7 s), "
        "STEP 2 appears (6 s) and the blue square vanishes (9 s).",
        "facts": [
            "A yellow bar appears at about 2 s.",
            "The caption STEP 1 disappears at about 3 s.",
            "The red circle moves to the right between 4 s and 7 s.",
            "The caption STEP 2 appears at about 6 s.",
            "The blue square disappears at about 9 s.",
        ],
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "event occurrence", "state changes"],
            "modality": "visual",
        },
    },
    # --- synthetic: counting (10 s) ---
    {
        "id": "count-end",
        "videos": video("synthetic/counting.mp4"),
        "question": "How many green dots are visible at the end of the video?",
        "choices": ["2", "3", "4", "5", "6"],
        "answer": 2,
        "reasoning": "1. One green dot appears each second from 00:01 to 00:06, six in a row.\n"
        f"2. At 00:08 the second dot {oid(C, 'dot 2')} and the fifth dot {oid(C, 'dot 5')} vanish.\n"
        "3. Six minus two leaves four dots until the end at 00:10.",
        "objects": [track(C, "dot 2", [2, 7.96]), track(C, "dot 5", [5, 7.96])],
        "metadata": {
            "category": "counting",
            "skills": ["counting", "temporal reasoning"],
            "modality": "visual",
        },
    },
    {
        "id": "count-max",
        "videos": video("synthetic/counting.mp4"),
        "question": "What is the largest number of green dots visible at the same time?",
        "choices": ["3", "4", "5", "6", "7"],
        "answer": 3,
        "metadata": {"category": "counting", "skills": ["counting"], "modality": "visual"},
    },
    {
        "id": "count-which-vanish",
        "videos": video("synthetic/counting.mp4"),
        "question": "After the dots stop appearing, which of them disappear, counting from the left?",
        "choices": [
            "The first and the last",
            "The second and the fifth",
            "The third and the fourth",
            "Only the sixth",
            "All of them",
        ],
        "answer": 1,
        "reasoning": f"1. The sixth and last dot {oid(C, 'dot 6')} appears at 00:06.\n"
        f"2. At 00:08 the dots in the second ({oid(C, 'dot 2')}) and fifth ({oid(C, 'dot 5')}) "
        "positions from the left disappear; the others stay.",
        "objects": [track(C, "dot 6", [6, 9.96]), track(C, "dot 2", [2, 7.96]), track(C, "dot 5", [5, 7.96])],
        "metadata": {
            "category": "counting",
            "skills": ["counting", "spatial perception", "temporal reasoning"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "count-rate",
        "videos": video("synthetic/counting.mp4"),
        "question": "How often does a new dot appear, and over what time span?",
        "answer": "One new dot every second, from 1 s to 6 s.",
        "facts": ["A new dot appears every second.", "Dots appear from 1 s to 6 s."],
        "metadata": {
            "category": "counting",
            "skills": ["counting", "temporal reasoning"],
            "modality": "visual",
        },
    },
    # --- synthetic: crossing (9 s) ---
    {
        "id": "cross-light-at-start",
        "videos": video("synthetic/crossing.mp4"),
        "question": "Which light is lit when the white car starts to move?",
        "choices": ["Red", "Yellow", "Green", "Red and yellow together", "No light"],
        "answer": 2,
        "reasoning": f"1. The car {oid(X, 'car')} waits at the left while the light shows red, 00:00 to 00:03.\n"
        f"2. At 00:03 the light turns green and {oid(X, 'car')} starts moving right.",
        "objects": [track(X, "car", [0, 3, 6])],
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "cause and effect"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "cross-after-yellow",
        "videos": video("synthetic/crossing.mp4"),
        "question": "What does the car do after the light turns yellow?",
        "choices": [
            "It reverses",
            "It stays still at the right side",
            "It starts crossing",
            "It speeds up",
            "It leaves the frame to the left",
        ],
        "answer": 1,
        "reasoning": f"1. The car {oid(X, 'car')} crosses from 00:03 to 00:06 while the light is green.\n"
        f"2. The light turns yellow at 00:06, when {oid(X, 'car')} has reached the right side.\n"
        f"3. From 00:06 to 00:09 it does not move.",
        "objects": [track(X, "car", [3, 6, 8.96])],
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "action recognition"],
            "grounding": "temporal",
            "modality": "visual",
        },
    },
    {
        "id": "cross-sequence",
        "videos": video("synthetic/crossing.mp4"),
        "question": "In what order does the traffic light show its colours?",
        "answer": "Red, then green, then yellow, then red again.",
        "facts": ["The light starts red.", "It turns green.", "It then turns yellow.", "It ends red."],
        "metadata": {
            "category": "temporal",
            "skills": ["temporal reasoning", "state changes"],
            "modality": "visual",
        },
    },
    # --- two-hop (video + how-to passage), EgoFact style: pairs of (counterfactual, factual) ---
    {
        "id": "hop2-bike-lock",
        "videos": video("bikes.mp4"),
        "gold_clips": ["clip-bikes"],
        "gold_passages": ["howto-lock-bicycle"],
        "question": "When you secure the object leaning against the wall in the last shot, which statement is true?",
        "choices": [
            "Locking only its front wheel is enough, because that wheel cannot be removed.",
            "The lock should pass through its frame and rear wheel and around a fixed object.",
            "It should sit tilted back so that the forehead stays uncovered.",
            "It should sit level, about two fingers' width above the eyebrows.",
            "When its roof sign is lit, it is already taken.",
            "When its roof sign is lit, it is usually free to hire.",
        ],
        "answer": 1,
        "metadata": {
            "category": "two-hop",
            "skills": ["object recognition"],
            "hop": 2,
            "grounding": "local",
            "modality": "passages",
            "pairs": [
                {"object": "bicycle", "passage": "howto-lock-bicycle", "counterfactual": 0, "factual": 1},
                {"object": "helmet", "passage": "howto-fit-helmet", "counterfactual": 2, "factual": 3},
                {"object": "taxi", "passage": "howto-hail-taxi", "counterfactual": 4, "factual": 5},
            ],
        },
    },
    {
        "id": "hop2-helmet",
        "videos": video("bikes.mp4"),
        "gold_clips": ["clip-bikes"],
        "gold_passages": ["howto-fit-helmet"],
        "question": "Right after the close-up of a car's roof sign, a cyclist appears. When you put on the object "
        "he wears on his head, which statement is true?",
        "choices": [
            "It should sit tilted back so that the forehead stays uncovered.",
            "It should sit level, about two fingers' width above the eyebrows.",
            "Its tip should reach well below the belt buckle.",
            "Its tip should reach the middle of the belt buckle.",
            "Locking only its front wheel is enough, because that wheel cannot be removed.",
            "The lock should pass through its frame and rear wheel and around a fixed object.",
        ],
        "answer": 1,
        "metadata": {
            "category": "two-hop",
            "skills": ["object recognition", "temporal reasoning"],
            "hop": 2,
            "grounding": "temporal",
            "modality": "passages",
            "pairs": [
                {"object": "helmet", "passage": "howto-fit-helmet", "counterfactual": 0, "factual": 1},
                {"object": "tie", "passage": "howto-wear-suit", "counterfactual": 2, "factual": 3},
                {"object": "bicycle", "passage": "howto-lock-bicycle", "counterfactual": 4, "factual": 5},
            ],
        },
    },
    {
        "id": "hop2-taxi",
        "videos": video("bikes.mp4"),
        "gold_clips": ["clip-bikes"],
        "gold_passages": ["howto-hail-taxi"],
        "question": "Just before the cyclist in a helmet appears, a car with a sign on its roof is shown. When you "
        "want to hire such a vehicle, which statement is true?",
        "choices": [
            "When its roof sign is lit, it is already taken.",
            "When its roof sign is lit, it is usually free to hire.",
            "Amber after green means you should speed up to get through.",
            "Amber after green means you should stop unless you are too close to stop safely.",
            "Most of its diet should be carrots.",
            "Most of its diet should be fresh hay.",
        ],
        "answer": 1,
        "metadata": {
            "category": "two-hop",
            "skills": ["reading", "temporal reasoning"],
            "hop": 2,
            "grounding": "temporal",
            "modality": "passages",
            "pairs": [
                {"object": "taxi", "passage": "howto-hail-taxi", "counterfactual": 0, "factual": 1},
                {
                    "object": "traffic light",
                    "passage": "howto-traffic-light",
                    "counterfactual": 2,
                    "factual": 3,
                },
                {"object": "rabbit", "passage": "howto-care-rabbit", "counterfactual": 4, "factual": 5},
            ],
        },
    },
    {
        "id": "hop2-traffic-light",
        "videos": video("synthetic/crossing.mp4"),
        "gold_clips": ["clip-crossing"],
        "gold_passages": ["howto-traffic-light"],
        "question": "The device at the top right tells the white car when to go. When driving up to it, which "
        "statement is true?",
        "choices": [
            "Amber after green means you should speed up to get through.",
            "Amber after green means you should stop unless you are too close to stop safely.",
            "When its roof sign is lit, it is already taken.",
            "When its roof sign is lit, it is usually free to hire.",
            "It turns from east to west, so the Sun rises in the west.",
            "It turns from west to east, so the Sun rises in the east.",
        ],
        "answer": 1,
        "metadata": {
            "category": "two-hop",
            "skills": ["object recognition", "cause and effect"],
            "hop": 2,
            "grounding": "local",
            "modality": "passages",
            "pairs": [
                {
                    "object": "traffic light",
                    "passage": "howto-traffic-light",
                    "counterfactual": 0,
                    "factual": 1,
                },
                {"object": "taxi", "passage": "howto-hail-taxi", "counterfactual": 2, "factual": 3},
                {"object": "globe", "passage": "howto-read-globe", "counterfactual": 4, "factual": 5},
            ],
        },
    },
    {
        "id": "hop2-globe",
        "videos": video("world.mp4"),
        "gold_clips": ["clip-world"],
        "gold_passages": ["howto-read-globe"],
        "question": "About the object that turns in this video, which statement is true?",
        "choices": [
            "It turns from east to west, so the Sun rises in the west.",
            "It turns from west to east, so the Sun rises in the east.",
            "Most of its diet should be carrots.",
            "Most of its diet should be fresh hay.",
            "Locking only its front wheel is enough, because that wheel cannot be removed.",
            "The lock should pass through its frame and rear wheel and around a fixed object.",
        ],
        "answer": 1,
        "metadata": {
            "category": "two-hop",
            "skills": ["object recognition", "spatial perception"],
            "hop": 2,
            "grounding": "local",
            "modality": "passages",
            "pairs": [
                {"object": "globe", "passage": "howto-read-globe", "counterfactual": 0, "factual": 1},
                {"object": "rabbit", "passage": "howto-care-rabbit", "counterfactual": 2, "factual": 3},
                {"object": "bicycle", "passage": "howto-lock-bicycle", "counterfactual": 4, "factual": 5},
            ],
        },
    },
    {
        "id": "hop2-rabbit",
        "videos": video("bigbuckbunny.mp4"),
        "gold_clips": ["clip-bunny"],
        "gold_passages": ["howto-care-rabbit"],
        "question": "After the animal in this clip climbs out of its burrow, it stretches. If you kept such an "
        "animal as a pet, which statement is true?",
        "choices": [
            "Most of its diet should be carrots.",
            "Most of its diet should be fresh hay.",
            "Its tip should reach well below the belt buckle.",
            "Its tip should reach the middle of the belt buckle.",
            "It should sit tilted back so that the forehead stays uncovered.",
            "It should sit level, about two fingers' width above the eyebrows.",
        ],
        "answer": 1,
        "metadata": {
            "category": "two-hop",
            "skills": ["object recognition"],
            "hop": 2,
            "grounding": "temporal",
            "modality": "passages",
            "pairs": [
                {"object": "rabbit", "passage": "howto-care-rabbit", "counterfactual": 0, "factual": 1},
                {"object": "tie", "passage": "howto-wear-suit", "counterfactual": 2, "factual": 3},
                {"object": "helmet", "passage": "howto-fit-helmet", "counterfactual": 4, "factual": 5},
            ],
        },
    },
]


def balance_letters(sample: dict, slot: int) -> dict:
    """Put the gold option at position `slot` (mod the option count) and shuffle the others with
    a seed from the sample id, so gold letters are spread evenly over A, B, C, ...

    Options that read as an ordered scale (counts, times) keep their order; two-hop pair
    indices follow their statements.
    """
    choices = sample.get("choices")
    if not choices or all(re.fullmatch(r"[\d.]+( s)?", c) for c in choices):
        return sample
    others = [i for i in range(len(choices)) if i != sample["answer"]]
    random.Random(hashlib.sha256(sample["id"].encode()).digest()).shuffle(others)
    order = others[:]
    order.insert(slot % len(choices), sample["answer"])
    new_index = {old: new for new, old in enumerate(order)}
    shuffled = {**sample, "choices": [choices[i] for i in order], "answer": new_index[sample["answer"]]}
    pairs = sample.get("metadata", {}).get("pairs")
    if pairs:
        remapped = [{**pair, "counterfactual": new_index[pair["counterfactual"]], "factual": new_index[pair["factual"]]}
                    for pair in pairs]
        shuffled["metadata"] = {**sample["metadata"], "pairs": remapped}
    return shuffled


# Questions about one moment of a video cut into several corpus clips: the clip holding it.
GOLD_CLIP_OVERRIDES = {"ped-lawn-walkers": ["clip-pedestrians-b"], "ped-lawn-when": ["clip-pedestrians-b"]}


# EgoFact families for the video-only questions whose answer is an object at one moment (local)
# or next to another event (temporal): hop 1, reported with the two-hop ones as hop x grounding.
ONE_HOP = {
    "local": ["ped-vehicle", "ped-sign", "ped-tripod", "ped-barrier", "bunny-animal", "bikes-helmet",
              "bikes-railing", "bikes-roof-sign"],
    "temporal": ["bikes-before-taxi", "bikes-after-taxi", "wb-disappears-after", "wb-caption-before",
                 "wb-appears-during-step1"],
}


def with_family(sample: dict) -> dict:
    grounding = next((g for g, ids in ONE_HOP.items() if sample["id"] in ids), None)
    if grounding is None:
        return sample
    return {**sample, "metadata": {**sample.get("metadata", {}), "hop": 1, "grounding": grounding}}


def with_gold_clips(sample: dict) -> dict:
    """Name the corpus clips that show what a question is about (for retrieval methods and their
    success rates): an explicit override, else every clip of the sample's video that overlaps
    the sample's window (questions about a whole scene are answerable from any of its clips)."""
    if sample.get("gold_clips") or not sample.get("videos"):
        return sample
    if sample["id"] in GOLD_CLIP_OVERRIDES:
        return {**sample, "gold_clips": GOLD_CLIP_OVERRIDES[sample["id"]]}
    ref = sample["videos"][0]
    start, end = ref.get("start_s") or 0.0, ref.get("end_s") or float("inf")
    gold = [
        clip["id"]
        for clip in CLIPS
        if clip["video"]["path"] == ref["path"]
        and (clip["video"].get("start_s") or 0.0) < end
        and start < (clip["video"].get("end_s") or float("inf"))
    ]
    return {**sample, "gold_clips": gold} if gold else sample


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def main() -> int:
    write_jsonl(
        ROOT / "corpus/passages.jsonl",
        [{**p, "source": "written for vqakit's sample benchmark"} for p in PASSAGES],
    )
    write_jsonl(ROOT / "corpus/clips.jsonl", CLIPS)
    write_jsonl(ROOT / "samples.jsonl", [with_family(with_gold_clips(balance_letters(sample, slot))) for slot, sample in enumerate(SAMPLES)])
    print(f"wrote {len(SAMPLES)} samples, {len(CLIPS)} clips, {len(PASSAGES)} passages under {ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
