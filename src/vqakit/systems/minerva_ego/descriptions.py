"""The description a reference trace writes around each object id, for object-level recall.

Traces name an object in two ways, often both: by its id (`mat-eba912ec072326a3`, numbered
`knife2-067f49caca9d1aff`, quoted `"chopping board-0123456789abcdef"`) and by the words
written around the id: `a green and white mat (mat-eba912ec072326a3)`, `the second knife
('knife2-067f49caca9d1aff')`, `the red pepper-1f2e3d4c5b6a7980`. For each id this module
finds, over all its mentions, the longest description:

- an id in brackets or quotes right after a noun phrase that ends in the id's head noun: that
  phrase (`green and white mat`, `second knife`, `lemons`);
- an id in running text or in quotes after adjectives: those words and the id's name
  (`red pepper` from `the red pepper-...`);
- otherwise the id's name (`fridge`, `left half of apple`).

A phrase is read backwards from the id over at most eight words and is kept only where it
starts after a determiner (`a`, `the`, `this`, `my`, a number, `the user's`, ...), and an
`of` phrase is followed through its determiner (`left half of an apple`). A phrase that starts
after anything else (a verb, a pronoun, punctuation) may hold a verb, so only the head noun is
taken from it (`I grab knife (knife-...)` gives `knife`). `A and B` is kept when both are
modifiers (`green and white mat`), not when B is the head noun (`knife and fork (fork-...)`
gives `fork`).

The head noun (noun level) is the last word of the id's name without trailing digits
(`knife2` -> `knife`, `chopping_board` -> `board`).
"""

from __future__ import annotations

import re

from vqakit.schema import ObjectRef

_WINDOW = 160  # characters before a mention that are read
_MAX_WORDS = 8
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’\-][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
_ID_TOKEN = re.compile(r"-[0-9a-f]{16}$")
_OPENERS = "\"'“”‘’([ \t"
_BRACKETS = "(["


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DETERMINERS = _word_set(
    "a an the this that these those my your his her its our their another some each every any "
    "both either same which what whose one two three four five six seven eight nine ten"
)
_PREPOSITIONS = _word_set(
    "in into on onto from with at by under over inside behind near beside beneath underneath for up "
    "down out off around across through toward towards between above below against via about "
    "without within among along past"
)
# "the edge of the table": the table, not its edge ("half of an apple" stays one description)
_PLACES = _word_set(
    "edge side top bottom front back middle centre center corner end rest inside outside left right"
)
# words that start a clause rather than a noun phrase: subjects, adverbs, common trace verbs
_CLAUSE = _word_set(
    "i he she it they we you me him them us user person wearer then also again just still now when "
    "while as so but or if because after before until opens take takes took put puts pick picks "
    "place places pour pours cuts use uses see sees saw notice notices watch watches grab grabs "
    "hold holds held move moves wash washes rinse rinses closes get gets got remove removes touch "
    "touches add adds fill fills leave leaves carry carries return returns wipe wipes stir stirs "
    "slice slices chop chops peel peels throw throws threw drop drops turn turns switch switches shave "
    "shaves grate grates dries eat eats ate drink drinks drank find finds found bring brings "
    "brought sets reach reaches push pushes pull pulls lift lifts keep keeps kept is are was were "
    "be been has have had"
)


_ARTICLES = {"a", "an", "the"}
_COPIED_ID = re.compile(r"\d*-[0-9a-f]{16}\b")
_IRREGULAR = {
    "knives": "knife",
    "leaves": "leaf",
    "halves": "half",
    "loaves": "loaf",
    "shelves": "shelf",
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "potatoes": "potato",
    "tomatoes": "tomato",
}
_KEEP = {"glass", "gas", "lens", "bus", "dress", "press", "grass", "class", "this", "is", "was", "has", "its"}


def singular(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _KEEP or len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Text as words for matching: lower case, `_` and `-` as spaces, an object id as its name
    (`knife2-067f49caca9d1aff` -> `knife`), punctuation and articles dropped, each word singular."""
    text = _COPIED_ID.sub("", text.lower()).replace("_", " ").replace("-", " ")
    return [singular(w) for w in re.findall(r"[a-z0-9]+", text) if w not in _ARTICLES]


def name_words(name: str) -> list[str]:
    """The words of an id's name: `_` and `-` as spaces, trailing digits of a numbered name
    dropped (`knife2` -> `knife`), lower case."""
    parts = re.findall(r"[a-z0-9]+", name.lower().replace("_", " "))
    stripped = [part.rstrip("0123456789") or part for part in parts]
    return [part for part in stripped if not part.isdigit()]


def head_noun(ref: ObjectRef) -> str:
    words = name_words(ref.name)
    return words[-1] if words else ""


def _phrase(before: str, head_inside: bool) -> list[str]:
    """The noun phrase that ends where `before` ends (see the module docstring). `head_inside`:
    the phrase's last word is the head noun (the id follows it in brackets), else the id's
    name follows the phrase."""
    tokens = _TOKEN.findall(before[-_WINDOW:])
    if len(before) > _WINDOW and tokens:
        tokens = tokens[1:]  # the first may be cut
    heads = 1 if head_inside else 0
    collected: list[str] = []
    i = len(tokens) - 1
    while i >= 0:
        token = tokens[i]
        low = token.lower()
        if low in _DETERMINERS or low.endswith(("'s", "’s", "s'", "s’")) or low.isdigit():
            if collected and i > 1 and tokens[i - 1].lower() == "of" and tokens[i - 2].lower() not in _PLACES:
                collected.append(token)  # "half of an apple": the phrase goes on
                i -= 1
                continue
            break
        head = head_inside and not collected  # the head noun may be any word ("switch", "watch")
        if (
            not token[0].isalnum()
            or _ID_TOKEN.search(low)
            or low in _PREPOSITIONS
            or (low in _CLAUSE and not head)
        ):
            return collected[:heads]  # no determiner: only the head noun is safe
        if low == "and" and len(collected) <= heads:
            return collected[:heads]  # "knife and fork": two things, not one description
        collected.append(token)
        if len(collected) > _MAX_WORDS:
            return collected[:heads]
        i -= 1
    else:
        return collected[:heads]  # no determiner before the start of the text
    phrase = list(reversed(collected))
    while phrase and phrase[0].lower() in ("and", "of"):
        phrase = phrase[1:]
    return phrase


def _mention_description(text: str, start: int, ref: ObjectRef) -> list[str]:
    before = text[max(0, start - _WINDOW - 8) : start]
    stripped = before.rstrip(_OPENERS)
    opener = before[len(stripped) :]
    head = head_noun(ref)
    if opener.strip():
        phrase = _phrase(stripped, head_inside=True)
        last = name_words(phrase[-1])[-1:] if phrase else []
        if last and singular(last[0]) == singular(head):
            return phrase
        if any(bracket in opener for bracket in _BRACKETS):
            return []
    return [*_phrase(stripped, head_inside=False), *name_words(ref.name)]


def describe_objects(text: str, refs: list[ObjectRef]) -> dict[str, str]:
    """The description of each id (by `ObjectRef.id`): the longest one written at any of its
    mentions, else its name."""
    found: dict[str, str] = {}
    for ref in refs:
        best: list[str] = []
        for match in re.finditer(rf"(?<![\w-]){re.escape(ref.id)}", text):
            words = _mention_description(text, match.start(), ref)
            if len(words) > len(best):
                best = words
        found[ref.id] = " ".join(best or name_words(ref.name))
    return found
