"""The words around a final answer, by language, for `_extract`: tables of regex source, and
the patterns compiled from them once, at import (at the end).

Replies are folded first (`FOLD`: full-width letters, digits and punctuation to ASCII, CJK
brackets and quotes to ASCII ones), so the tables use ASCII punctuation only. A label is a
letter or a one- or two-digit number; whether it names an option is decided by `_extract`.
"""

from __future__ import annotations

import re

FOLD = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {
    0x3000: " ",
    **dict.fromkeys(map(ord, "「」『』“”„"), '"'),
    **dict.fromkeys(map(ord, "‘’"), "'"),
    ord("【"): "[",
    ord("】"): "]",
    ord("〔"): "(",
    ord("〕"): ")",
    ord("。"): ".",
    ord("、"): ",",
}

# a label not glued to other ASCII letters or digits: B, (B), [3], ( 12 )
LABEL = r"(?<![A-Za-z0-9])(?:[(\[]\s*)?(?:[A-Za-z]|[1-9][0-9]?)(?:\s*[)\]])?(?![A-Za-z0-9])"
OPTION_WORDS = r"option|choice|letter|选项|選項|選択肢|オプション|선택지|보기|옵션"

# phrases the answer follows: "Answer: B", "答案是B", "答えはBです", "정답은 B입니다"
LEADING = {
    "en": [
        r"\b(?:final\s+answer|(?:correct|best|right)\s+(?:answer|option|choice)|answer|final\s+choice"
        r"|my\s+choice|the\s+option)\s*(?:(?:is|would\s+be|should\s+be|must\s+be|will\s+be)\b|[=:\-–—])",
        r"\bI(?:'ll|’ll|'d|’d|\s+will|\s+would|'m\s+going\s+with|\s+am\s+going\s+with)?\s+"
        r"(?:choose|pick|select|go\s+with|opt\s+for)\b",
    ],
    "zh": [
        r"(?:(?:最终|最終|正确|正確)\s*(?:的\s*)?)?答案(?:\s*(?:应该|應該|应|應))?(?:\s*(?:是|为|為|:))?",
        r"(?<![回解])答\s*:",
        r"(?:正确|正確|最佳)\s*(?:的\s*)?(?:选项|選項)\s*(?:是|为|為|:)",
        r"(?:选择|選擇|选|選)(?![项項择擇択])(?:\s*(?:选项|選項))?",
    ],
    "ja": [r"(?:答え|正解|回答|解答)\s*(?:は|:|として(?:は)?)(?:\s*選択肢)?"],
    "ko": [r"(?:정답|답변|답)\s*(?:은|는|:)(?:\s*(?:보기|선택지))?"],
}

# phrases that follow the label: "B is correct", "C seems right", "B是正确答案", "Bが正解です",
# "B가 정답입니다"
TRAILING = {
    "en": [
        r"\s+(?:is|would\s+be|must\s+be|should\s+be|(?:seems|appears)(?:\s+to\s+be)?|looks)\s+(?:the\s+)?"
        r"(?:(?:correct|best|final|right"
        r"(?!\s+(?:there|here|next|behind|beside|in|on|at|after|before|of|now)\b))"
        r"(?:\s+(?:answer|option|choice))?|answer)\b"
    ],
    "zh": [
        r"\s*(?:是|为|為)\s*(?:(?:最终|最終|正确|正確)\s*(?:的\s*)?)?(?:答案|选项|選項)",
        r"\s*(?:是\s*)?(?:正确|正確|对的|對的)",
    ],
    "ja": [r"\s*(?:が|は)\s*(?:正解|正しい|答え)", r"\s*を\s*選"],
    "ko": [r"\s*(?:가|이)\s*(?:정답|맞|옳)", r"\s*(?:를|을)\s*(?:선택|고르|골라)"],
}

# corrections, the answer follows: "not B but C", "不是B，而是C", "B가 아니라 C", "wait, it's C"
CORRECTIONS = [
    rf"\bnot\s+(?:option\s+)?{LABEL}\s*(?:,\s*)?but\s+(?:rather\s+)?",
    r"\b(?:actually|wait|no|correction|instead)\b[\s,:;.!—–-]+"
    r"(?:it(?:'s|’s|\s+is|\s+should\s+be|\s+must\s+be)|I(?:'ll|’ll|\s+will)\s+(?:go\s+with|choose|pick))\s",
    rf"不是\s*{LABEL}\s*(?:,\s*)?而是",
    rf"{LABEL}\s*(?:가|이)\s*아니(?:라|고)(?:\s*,)?",
]

# words that may stand between an answer phrase and its label: "the answer is, I think, C"
HEDGES = (
    r"therefore|thus|hence|so|probably|likely|most\s+likely|clearly|definitely|obviously"
    r"|I\s+(?:think|believe|guess|would\s+say)|it(?:'s|’s|\s+is)"
)

# a second label joined to the first: "B or C", "B (or C)", "B, or maybe C", "B和C", "BかC", "B 또는 C"
CONJUNCTIONS = r",|/|&|\bor\b|\band\b|或者?|和|与|與|または|か|또는|이나|및"

# a reply taking its answer back: "final answer: I cannot tell", "none of the options", "the
# answer cannot be determined", "Answer: unknown"; a hedge is not one ("I cannot be sure")
WITHDRAWALS = [
    r"\b(?:I|we)\s+(?:really\s+|honestly\s+|simply\s+)?(?:cannot|can't|can’t|can\s+not|could\s+not|couldn't"
    r"|couldn’t|am\s+unable\s+to|'m\s+unable\s+to|’m\s+unable\s+to|am\s+not\s+able\s+to|are\s+unable\s+to)\s+"
    r"(?:tell|determine|answer|say|decide|choose|pick|know|judge|identify|infer)\b",
    r"\b(?:cannot|can't|can’t|can\s+not|could\s+not|couldn't|couldn’t)\s+be\s+"
    r"(?:determined|answered|told|decided|inferred|known|identified)\b",
    r"\b(?:impossible|not\s+possible)\s+to\s+(?:tell|determine|answer|say|know|decide)\b",
    r"\bnone\s+of\s+(?:the\s+|these\s+|those\s+)?(?:options|choices|answers|above|alternatives)\b",
    r"\bno\s+(?:option|choice|answer)\s+(?:is\s+(?:correct|right)|fits|matches)\b"
    r"|\bno\s+(?:correct|valid|right)\s+(?:option|answer|choice)\b",
    r"\b(?:not|n't|n’t)\s+enough\s+(?:information|evidence|detail)|\binsufficient\s+(?:information|evidence)\b",
    r"\bI\s+(?:do\s+not|don't|don’t)\s+know\b",
    r"\b(?:final\s+)?(?:answer|choice)\s*(?:is\s*|[:=\-–—]\s*)(?:unknown|unclear|undetermined|uncertain"
    r"|not\s+sure|none|n/?a)\b",
    r"无法(?:确定|判断|回答)|無法(?:確定|判斷|回答)|判断できません|答えられません|알\s*수\s*없",
]
TENTATIVE = r"maybe|perhaps|possibly|even|also"

# negation just before a label or answer phrase: "not (B)", "不是B"
NEGATION_BEFORE = (
    r"(?:\b(?:not|isn't|is\s+not|cannot\s+be|can't\s+be|rule\s+out|ruled\s+out|eliminate|exclude)"
    r"|不是|不选|不選|排除|并非|並非|而非|ではなく)\s*(?:option\s+|choice\s+)?$"
)
# negation just after a label: "(B) is wrong", "D seems wrong", "C doesn't fit", "B가 아닙니다",
# "Bではありません", "B不对"
NEGATION_AFTER = (
    r"\s*(?:(?:is|was|seems|looks|appears)(?:\s+to\s+be)?\s+(?:not\b|incorrect|wrong|unlikely|ruled\s+out"
    r"|eliminated)|(?:is|was|does|do|did|can|could)n[’']t\b|(?:does|do|did)\s+not\b|can(?:not\b|\s+not\b"
    r"|\s+be\s+(?:ruled\s+out|eliminated))|(?:(?:이|가)\s*)?아[니닙님닌]|지\s*않|(?:では|じゃ)(?:な|あり)|不|错|錯)"
)

# after an article "a" a noun or adjective comes; after option A, one of these
AFTER_LABEL_A = (
    r"is|was|or|and|but|because|since|as|so|then|which|with|in|for|here|there|seems|would|should"
    r"|must|might|could|fits|matches|looks|to|of|at|on|by|from|that"
)
# after the pronoun "I" a verb comes; after option I, one of these
AFTER_LABEL_I = r"is|or|and|because|since|as|fits|matches|seems"

_I = re.IGNORECASE
_LEADING = [p for table in LEADING.values() for p in table]
_TRAILING = [p for table in TRAILING.values() for p in table]
# group 1: the text after an answer phrase, where the answer should be
ANSWER_AFTER = re.compile(rf"(?:{'|'.join([*_LEADING, *CORRECTIONS])})\s*(?=(.{{1,80}}))", _I)
# group 1: the label before a phrase that makes it the answer
ANSWER_BEFORE = re.compile(rf"((?:(?:{OPTION_WORDS})\s*)?{LABEL})(?:{'|'.join(_TRAILING)})", _I)
HEDGE = re.compile(rf"^[\s,:;.\-–—]*(?:(?:{HEDGES})\b[\s,:;]*)*", _I)
SECOND_LABEL = re.compile(
    rf"\s*\(?\s*(?:{CONJUNCTIONS})(?:\s*(?:{CONJUNCTIONS}))*\s*(?:(?:{TENTATIVE})\s+)?", _I
)
WITHDRAWN = re.compile("|".join(WITHDRAWALS), _I)
# a statement's value that takes the answer back: "Answer: unknown", "Final answer: I cannot tell"
WITHDRAWN_VALUE = re.compile(
    rf"(?:unknown|unclear|undetermined|uncertain|not\s+sure|none|n/?a)\b|{WITHDRAWALS[0]}", _I
)
# a second option offered beside the answer: "it could also be C", "C is also possible"
ALTERNATIVE = re.compile(
    rf"\b(?:could|might|may|can)\s+(?:also|equally|just\s+as\s+well)\s+be\s+((?:(?:{OPTION_WORDS})\s*)?{LABEL})"
    rf"|((?:(?:{OPTION_WORDS})\s*)?{LABEL})\s+(?:is|seems|looks|would\s+be)\s+(?:also|equally)\s+"
    r"(?:possible|plausible|correct|right|likely)",
    _I,
)
JOINED_BEFORE = re.compile(rf"{LABEL}\s*(?:{CONJUNCTIONS})\s*$", _I)
NEGATED_BEFORE = re.compile(NEGATION_BEFORE, _I)
NEGATED_AFTER = re.compile(NEGATION_AFTER, _I)
ARTICLE = re.compile(rf"\s+(?!(?:{AFTER_LABEL_A})\b)[a-z]")
PRONOUN = re.compile(rf"\s+(?!(?:{AFTER_LABEL_I})\b)[a-z]")
