"""Answer extraction: a table of reply styles seen from real models, each with why it is expected.

The large table lives in `extraction_cases.yaml` (reply, option count, expected label, deciding
rule); the cases below are the older in-line table and checks of the API and the CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.scoring import LETTERS, extract_choice, format_options

ROOT = Path(__file__).resolve().parents[2]
FIVE = ["the knife", "the red pepper", "a wooden spoon", "the kettle", "nothing"]
SIX = [
    "It should be locked by the front wheel only.",
    "The lock should pass through the frame.",
    "It should sit tilted back.",
    "It should sit level above the eyebrows.",
    "A lit roof sign means taken.",
    "A lit roof sign means free.",
]

# (reply, n_choices, expected letter or None, reason)
CASES: list[tuple[str, int, str | None, str]] = [
    # bare labels
    ("B", 5, "B", "single letter"),
    ("b", 5, "B", "lower-case single letter"),
    ("(C)", 5, "C", "parenthesised letter"),
    ("D.", 5, "D", "letter with full stop"),
    ("[E]", 5, "E", "bracketed letter"),
    ("  A  ", 5, "A", "letter with whitespace"),
    ("Option B", 5, "B", "'Option' then letter"),
    ("option d", 5, "D", "lower-case 'option d'"),
    ("Choice C", 5, "C", "'Choice' then letter"),
    ("Answer: E", 5, "E", "'Answer:' then letter"),
    ("F", 5, None, "letter outside the five options"),
    ("F", 6, "F", "sixth letter with six options"),
    ("H", 8, "H", "eighth letter with eight options"),
    ("Z", 5, None, "not an option letter"),
    ("**B**", 5, "B", "markdown bold letter"),
    ("`C`", 5, "C", "code-marked letter"),
    ("## D", 5, "D", "markdown heading letter"),
    ("B!", 5, "B", "letter with exclamation"),
    # leading label with text
    ("B) the red pepper", 5, "B", "label then option text"),
    ("C. a wooden spoon", 5, "C", "label with dot then text"),
    ("(A) the knife, because it is on the board", 5, "A", "parenthesised label then explanation"),
    ("D: the kettle", 5, "D", "label with colon"),
    ("[B] red pepper", 5, "B", "bracketed label then text"),
    ("E) nothing happens", 5, "E", "last option with text"),
    # tagged answers
    ("The answer is B.", 5, "B", "'the answer is'"),
    ("The correct answer is (C).", 5, "C", "'the correct answer is (X)'"),
    ("The best answer is D", 5, "D", "'the best answer is'"),
    ("Final answer: A", 5, "A", "'Final answer:'"),
    ("Final Answer - E", 5, "E", "'Final Answer -'"),
    ("final answer = C", 5, "C", "'final answer ='"),
    ("**Answer:** B", 5, "B", "bold 'Answer:' tag"),
    ("**Final answer: (D)**", 5, "D", "bold final answer in parentheses"),
    ("Answer: Option C", 5, "C", "'Answer: Option C'"),
    ("answer: c", 5, "C", "lower-case tagged letter"),
    ("<answer>B</answer>", 5, "B", "answer tags"),
    ("<answer> (E) </answer>", 5, "E", "answer tags with spaces and parentheses"),
    ("Reasoning here.\n<answer>A</answer>", 5, "A", "answer tag after reasoning"),
    ("\\boxed{C}", 5, "C", "LaTeX boxed letter"),
    ("So we get $\\boxed{D}$.", 5, "D", "boxed inside math"),
    ("\\boxed{\\text{B}}", 5, "B", "boxed text letter"),
    ('{"Answer": "B", "Explanation": "the pepper is cut"}', 5, "B", "EgoFact JSON reply"),
    ('{"answer": "D"}', 5, "D", "lower-case JSON key"),
    ('```json\n{"Answer": "C", "Explanation": "x"}\n```', 5, "C", "JSON in a code fence"),
    ('{"final_answer": "E"}', 5, "E", "final_answer JSON key"),
    ("I choose B.", 5, "B", "'I choose'"),
    ("I would choose (D) here.", 5, "D", "'I would choose'"),
    ("I'll go with... I pick C", 5, "C", "'I pick'"),
    ("I select option A.", 5, "A", "'I select option'"),
    ("The right answer would be E.", 5, "E", "'would be'"),
    ("The answer should be B", 5, "B", "'should be'"),
    ("My choice: D", 5, "D", "'My choice:'"),
    ("The correct option is C", 5, "C", "'correct option is'"),
    ("Answer is therefore B.", 5, "B", "'is therefore'"),
    ("ANSWER: D", 5, "D", "upper-case tag"),
    ("Answer:\nB", 5, "B", "tag and letter on separate lines"),
    # reasoning then answer: the last statement wins
    ("Option A is tempting, but the knife is not used. The answer is B.", 5, "B", "answer after discussion"),
    (
        "Let's check each option. (A) no. (B) no. (C) yes.\nFinal answer: C",
        5,
        "C",
        "final tag after walkthrough",
    ),
    ("Answer: A\nWait, I made a mistake. Answer: D", 5, "D", "corrected answer, last one counts"),
    (
        "At 00:12 the person picks up the pepper (B). Then they cut it. So the answer is B.",
        5,
        "B",
        "timestamped reasoning then answer",
    ),
    (
        "1. The person opens the drawer.\n2. They take the knife.\nAnswer: A",
        5,
        "A",
        "numbered reasoning then answer",
    ),
    (
        "Step 1: look.\nStep 2: compare with options C and D.\nFinal answer: D",
        5,
        "D",
        "two options discussed, final tag decides",
    ),
    # think blocks
    ("<think>Maybe A? No, C.</think>C", 5, "C", "answer after think block"),
    ("<think>Option A looks right.</think>\nThe answer is D.", 5, "D", "think block mentions another option"),
    ("<think>long reasoning about (B)</think>\n\n**Answer: E**", 5, "E", "think then bold answer"),
    ("<thinking>hmm</thinking>B", 5, "B", "thinking tags"),
    ("<reasoning>the knife is used</reasoning><answer>A</answer>", 5, "A", "reasoning tags then answer tag"),
    ("<think>I think the answer is B but I am still", 5, None, "unclosed think block, no final answer"),
    ("<think></think>C", 5, "C", "empty think block"),
    ("</think>D", 5, "D", "stray closing think tag"),
    # restating an option's text
    ("the red pepper", 5, "B", "exact option text"),
    ("The Red Pepper.", 5, "B", "option text, different case and punctuation"),
    ("They pick up a wooden spoon.", 5, "C", "sentence containing exactly one option"),
    ("It is the kettle that whistles.", 5, "D", "option text inside a sentence"),
    ("The lock should pass through the frame.", 6, "B", "six-option statement restated"),
    ("Both the knife and the kettle are used.", 5, None, "two option texts, ambiguous"),
    ("A spoon.", 5, None, "partial option text is not enough"),
    # single marked mention
    ("Looking at the frames, (C) matches best.", 5, "C", "one parenthesised label in prose"),
    ("I believe option D fits the video.", 5, "D", "'option D' in prose"),
    ("Clearly [B] is shown at 01:20.", 5, "B", "bracketed label in prose"),
    ("It has to be choice E.", 5, "E", "'choice E' in prose"),
    ("Not (A), and the frames show (B).", 5, "B", "negated mention is ignored"),
    # must abstain
    ("", 5, None, "empty reply"),
    ("   \n ", 5, None, "whitespace only"),
    ("I cannot determine the answer from the frames.", 5, None, "declines to answer"),
    ("I'm sorry, I can't help with that.", 5, None, "refusal"),
    ("A or C.", 5, None, "two letters offered"),
    ("The answer is A or C.", 5, None, "tagged answer names two options"),
    ("The answer is B and D.", 5, None, "tagged answer names two options with 'and'"),
    ("(A) and (C) both seem plausible.", 5, None, "two marked mentions, no decision"),
    ("A person is walking in the video.", 5, None, "article 'A' is not option A"),
    ("A man picks something up.", 5, None, "article at sentence start"),
    ("There is not enough information.", 5, None, "no option"),
    ("None of the above.", 5, None, "'none of the above' is not an option"),
    ("The video shows a kitchen.", 5, None, "description without an answer"),
    ("42", 5, None, "number without numbered options"),
    ("The answer is 3.", 5, None, "number in letter mode"),
    ("Answer: Z", 5, None, "tag with invalid letter"),
    ("Answer: unknown", 5, None, "tag without an option"),
    ("I think it might be something else entirely.", 5, None, "hedge without option"),
    ("Options (A), (B), (C), (D) and (E) are listed.", 5, None, "all options listed"),
    ("B or maybe D", 5, None, "hedged between two letters"),
    ("F) something", 5, None, "leading label outside range"),
    # Minerva-Ego style numbered options
    ("(3)", 5, "C", "numbered: parenthesised number"),
    ("3", 5, "C", "numbered: bare number"),
    ("Answer: (2)", 5, "B", "numbered: tagged number"),
    ("The answer is 5.", 5, "E", "numbered: 'the answer is 5'"),
    ("Final answer: option 4", 5, "D", "numbered: 'option 4'"),
    ("(1) the knife", 5, "A", "numbered: leading label with text"),
    ("6", 5, None, "numbered: out of range"),
    ("0", 5, None, "numbered: zero is not an option"),
    ("B", 5, "B", "numbered: a letter is read by position"),
    (
        "1. I see the kettle.\n2. It boils.\nAnswer: (4)",
        5,
        "D",
        "numbered reasoning steps then tagged answer",
    ),
    ("(2) or (4)", 5, None, "numbered: two options"),
    ("<answer>5</answer>", 5, "E", "numbered: answer tag"),
]

NUMBERED = {case[3] for case in CASES if case[3].startswith("numbered")}

# the same question answered in many house styles, for every letter
STYLES = [
    ("{L}", "bare letter"),
    ("({L})", "parenthesised"),
    ("Answer: {L}", "answer tag"),
    ("The answer is {L}.", "sentence"),
    ("**{L}**", "bold"),
    ("<answer>{L}</answer>", "answer tags"),
    ('{{"Answer": "{L}"}}', "json"),
    ("Final answer: ({L})", "final answer"),
]
GENERATED = [
    (style.format(L=letter), 5, letter, f"{name}, letter {letter}")
    for style, name in STYLES
    for letter in "ABCDE"
]


@pytest.mark.parametrize(("reply", "n", "expected", "reason"), CASES + GENERATED, ids=lambda v: str(v)[:40])
def test_table(reply, n, expected, reason):
    numbered = reason in NUMBERED
    choices = FIVE if n == 5 else SIX if n == 6 else None
    result = extract_choice(reply, n, choices=choices, numbered=numbered)
    assert result.letter == expected, f"{reason}: got {result.letter} by {result.rule} ({result.reason})"


def test_the_table_is_broad():
    assert len(CASES) + len(GENERATED) >= 150
    assert sum(1 for case in CASES if case[2] is None) >= 25


def test_rules_are_reported():
    assert extract_choice("The answer is B.", 5).rule == "tagged"
    assert extract_choice("(C)", 5).rule == "bare"
    assert extract_choice("B) the red pepper", 5, choices=FIVE).rule == "leading"
    assert extract_choice("a wooden spoon", 5, choices=FIVE).rule == "option_text"
    abstained = extract_choice("A or C.", 5)
    assert abstained.choice is None and abstained.rule == "abstain" and abstained.reason


def test_bad_arguments():
    with pytest.raises(ValueError, match="between 1 and 26"):
        extract_choice("A", 0)
    with pytest.raises(ValueError):
        extract_choice("A", 27)
    with pytest.raises(ValueError):
        extract_choice("A", 5, choices=["x", "y"])
    with pytest.raises(ValueError, match="letters"):
        extract_choice("A", 3, letters="AB")
    with pytest.raises(ValueError, match="letters"):
        extract_choice("A", 2, letters="AA")
    with pytest.raises(ValueError, match="letters"):
        extract_choice("A", 2, letters="A1")


# --- the case table: tests/scoring/extraction_cases.yaml ---

TABLE: list[dict] = yaml.safe_load(Path(__file__).with_name("extraction_cases.yaml").read_text("utf-8"))
RULES = {"tagged", "bare", "last_line", "trailing", "leading", "option_text", "single_mention", "abstain"}
KEYS = {"reply", "n", "expected", "rule", "note", "choices", "numbered", "letters", "lang", "class"}
# the reply shapes of the audit against a peer's labelled suite (issue 18), each a `class`
CLASSES = {
    "leading_prose",
    "trailing_label",
    "colon_label",
    "unclosed_tag",
    "korean_option",
    "one_option",
    "peer_shapes",
    "hard_negative",
    # replies that do not commit (issue 28)
    "two_answers",
    "withdrawn",
    "malformed_tag",
}


@pytest.mark.parametrize("case", TABLE, ids=[f"{i}-{case['reply'][:30]!r}" for i, case in enumerate(TABLE)])
def test_case_table(case):
    result = extract_choice(
        case["reply"],
        case["n"],
        choices=case.get("choices"),
        numbered=case.get("numbered", False),
        letters=case.get("letters"),
    )
    assert (result.letter, result.rule) == (case["expected"], case["rule"]), (
        f"{case.get('note')}: got {result.letter} by {result.rule} ({result.reason})"
    )


def test_case_table_is_well_formed():
    for case in TABLE:
        assert set(case) <= KEYS and {"reply", "n", "expected", "rule"} <= set(case), case
        assert case["rule"] in RULES and (case["expected"] is None) == (case["rule"] == "abstain"), case
        assert case.get("choices") is None or len(case["choices"]) == case["n"], case
        assert case.get("letters") is None or len(case["letters"]) == case["n"], case
        assert case.get("class", "base") in {"base", *CLASSES}, case
    replies = Counter((case["reply"], case["n"], case.get("numbered"), case.get("letters")) for case in TABLE)
    assert [reply for reply, count in replies.items() if count > 1] == []


def test_case_table_covers_the_rules_languages_and_option_counts():
    assert len(TABLE) >= 300
    rules = Counter(case["rule"] for case in TABLE)
    assert set(rules) == RULES and min(rules.values()) >= 10
    assert rules["abstain"] >= 80
    languages = Counter(case.get("lang", "en") for case in TABLE)
    assert set(languages) == {"en", "zh", "ja", "ko"} and min(languages.values()) >= 20
    assert {case["n"] for case in TABLE} == set(range(1, 27))
    assert sum(1 for case in TABLE if case.get("numbered")) >= 20
    assert sum(1 for case in TABLE if case.get("letters")) >= 10
    assert sum(1 for case in TABLE if case.get("choices")) >= 20
    assert sum(1 for case in TABLE if "negat" in case.get("note", "")) >= 10


def test_agreement_with_the_labelled_cases_per_class():
    """benchmarks/extraction_agreement.py over every labelled case: at least 95% overall and in
    each class of the audit (the table test above asks each case to pass, rule included)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "extraction_agreement.py"), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    agreement = json.loads(done.stdout)["agreement"]
    assert set(agreement) == {"all", "base", *CLASSES}
    assert sum(agreement[name][1] for name in CLASSES) >= 80
    for name, (agreeing, total) in agreement.items():
        assert total >= (10 if name != "all" else 500) and agreeing / total >= 0.95, (name, agreeing, total)


# --- policies, by example ---


def test_the_last_explicit_final_answer_wins():
    reply = "I first thought B; on a second look the answer is C."
    assert extract_choice(reply, 4).letter == "C"
    assert extract_choice("Answer: A\nAnswer: D", 4).letter == "D"


def test_an_invalid_final_answer_abstains_instead_of_falling_back():
    for reply in ["(B) fits. Answer: F", "(B) fits. <answer></answer>", "(B) fits. \\boxed{}"]:
        result = extract_choice(reply, 4)
        assert result.choice is None and result.rule == "abstain" and "valid option" in result.reason


def test_an_echo_of_the_options_is_no_answer():
    echo = format_options(["red", "blue", "green"])
    assert extract_choice(echo, 3).reason == "the reply only repeats the option list"
    assert extract_choice(echo + "\nI am not sure.", 3).reason.startswith("the reply repeats the option list")
    assert extract_choice(echo + "\nAnswer: B", 3).letter == "B"


def test_a_leading_letter_before_prose_is_a_label_only_where_no_article_or_pronoun_stands():
    assert extract_choice("a because two people are talking", 4).letter == "A"
    assert extract_choice("A, since nothing else matches", 4).letter == "A"
    assert extract_choice("B the red pepper is cut", 4).letter == "B"
    for reply in ["a dog is shown", "A dog runs because it is scared.", "a bit of both"]:
        assert extract_choice(reply, 4).choice is None, reply
    assert extract_choice("I because the bike is last", 12).letter == "I"
    for reply in ["I was not able to see it.", "I would say the kettle.", "I, for one, cannot tell."]:
        assert extract_choice(reply, 12).choice is None, reply
    assert extract_choice("B and C both match because the man moves.", 4).choice is None
    assert extract_choice("a, b and c all appear", 4).reason == "the reply opens with several options"
    assert extract_choice("C a wooden spoon", 3, choices=["a knife", "a pan", "a wooden spoon"]).letter == "C"
    assert extract_choice("B cells attack the virus", 4).choice is None


def test_a_closing_label_after_a_comma_semicolon_or_dash():
    assert extract_choice("He takes out milk, C.", 4).rule == "trailing"
    assert extract_choice("The kettle is touched last; d", 4).letter == "D"
    assert extract_choice("The options are A, B, C.", 4).choice is None
    assert extract_choice("The sign on the door says: X", 26).choice is None
    assert extract_choice("B because the cup is red, C.", 4).reason == (
        "the reply opens with one option and ends with another"
    )


def test_an_unclosed_answer_tag_is_a_final_answer():
    assert (extract_choice("<answer> c", 4).letter, extract_choice("<answer> c", 4).rule) == ("C", "tagged")
    assert extract_choice("<answer>B</answer> then <answer>D", 4).letter == "D"
    assert "valid option" in extract_choice("(B) looks likely. <answer>", 4).reason


def test_a_one_option_alphabet_reads_its_label_or_nothing():
    assert extract_choice("A", 1).letter == "A"
    assert extract_choice("The answer is C.", 1, letters="C").letter == "C"
    assert extract_choice("the red cup", 1, choices=["the red cup"]).letter == "A"
    for reply in ["B", "Answer: B", "A man is walking.", "I don't know."]:
        assert extract_choice(reply, 1).choice is None, reply


def test_sparse_letters_index_into_the_labels():
    result = extract_choice("Answer: X", 4, letters="acxz")
    assert (result.choice, result.letter) == (2, "X")
    assert extract_choice("Answer: B", 4, letters="ACXZ").choice is None


def test_twenty_six_options():
    assert LETTERS == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    choices = [f"object {i}" for i in range(26)]
    for index, letter in enumerate(LETTERS):
        assert extract_choice(f"The answer is ({letter}).", 26).choice == index
        assert extract_choice(f"({index + 1})", 26, numbered=True).choice == index
    assert format_options(choices).splitlines()[-1] == "Z. object 25"
    assert format_options(["x", "y"], letters="QZ") == "Q. x\nZ. y"
    with pytest.raises(ValueError):
        format_options([*choices, "one too many"])


# --- the CLI ---


def _cli(args: list[str], lines: list[dict]):
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    return CliRunner().invoke(main, ["extract", *args], input=stdin)


def test_cli_letters_and_numbered():
    lines = [{"response": "Answer: X"}, {"response": "B"}, {"response": "(Z) fits best"}]
    result = _cli(["--letters", "ACXZ"], lines)
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.output.splitlines()] == [
        {"choice": "X"},
        {"choice": None},
        {"choice": "Z"},
    ]
    result = _cli(["--choices", "26", "--numbered"], [{"response": "(12)"}, {"response": "答案是Z"}])
    assert [json.loads(line) for line in result.output.splitlines()] == [{"choice": "L"}, {"choice": "Z"}]


def test_cli_one_option():
    lines = [{"response": "A"}, {"response": "B"}, {"response": "<answer> a"}]
    result = _cli(["--choices", "1"], lines)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["choice"] for line in result.output.splitlines()] == ["A", None, "A"]
    result = _cli(["--letters", "c"], [{"response": "c:"}, {"response": "A"}])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["choice"] for line in result.output.splitlines()] == ["C", None]


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--choices", "4", "--letters", "ABCD"],
        ["--choices", "27"],
        ["--choices", "0"],
        ["--letters", "AA"],
        ["--letters", ""],
    ],
)
def test_cli_needs_one_valid_option_set(args):
    result = _cli(args, [{"response": "A"}])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_cli_names_a_bad_choices_list():
    result = _cli(["--choices", "3"], [{"response": "A", "choices": ["x", "y"]}])
    assert result.exit_code == 1 and "line 1" in result.output


def test_cli_reads_and_writes_jsonl():
    lines = [{"response": "The answer is (B)."}, {"response": "no idea"}, {"response": "D"}]
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "extract", "--choices", "5"],
        input="\n".join(json.dumps(line) for line in lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"choice": "B"},
        {"choice": None},
        {"choice": "D"},
    ]


def test_cli_names_the_bad_line():
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "extract", "--choices", "5"],
        input='{"response": "A"}\nnot json\n',
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and "line 2" in result.stderr and "Traceback" not in result.stderr


def test_answer_tags_are_found_in_one_pass():
    """`<answer>(.*?)</answer>` scanned to the end of the reply from every opening tag that is
    never closed: 20,000 of them took 29 s. The tags are now found in one pass."""
    import re
    import time

    from vqakit.scoring._extract_patterns import closed_answers

    regex = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
    for reply in (
        "<answer>B</answer>",
        "x <ANSWER> a </Answer> then <answer>\nC\n</answer> <answer> d",
        "<answer><answer>B</answer></answer>",
        "</answer><answer>",
        "no tag",
    ):
        assert closed_answers(reply) == [(m.start(), m[1]) for m in regex.finditer(reply)]
    hostile = "<answer> A " * 40_000 + "<answer>\nC"
    started = time.monotonic()
    assert extract_choice(hostile, 4).choice == 2  # what follows the last tag, never closed
    assert time.monotonic() - started < 15  # a guard against the quadratic scan (minutes), not a timing
