"""Secrets said in a message: passwords, PINs, API keys, recovery and one-time codes, answers to security questions.

A secret is kept out of memory the way an identifier is (memory.services.identifiers.pii calls `secret_spans`): the value is
redacted before anything is stored, embedded, summarised or logged, and the sentence that carries it is never read
as a fact (memory.reading.reader). Only the value after a label is a span; the label itself ("my wifi password")
says nothing secret.
"""

from __future__ import annotations

import re

# What names a secret, in English and Chinese. "code" alone is too common ("dress code", "zip code"): only the
# kinds of code that unlock something.
SECRET_LABEL = re.compile(
    r"(?:pass\s?(?:word|phrase|code)|\bpwd\b|(?<![A-Za-z])pin(?:\s?(?:code|number))?(?![A-Za-z])|\bpasscode\b|"
    r"\bapi[\s_-]?(?:key|token|secret)\b|\b(?:access|auth|bearer|secret|private)[\s_-]?(?:key|token)\b|\btoken\b|"
    r"\b(?:recovery|backup|one[\s-]?time|verification|security|2fa|otp|mfa|unlock|door|gate|alarm|safe|locker)"
    r"[\s-]?(?:code|key|phrase|pin|combination|combo)s?\b|\b(?:padlock|lock) (?:code|combination|combo)\b|"
    r"\bseed phrase\b|\botp\b|"
    r"\b(?:answer to (?:my|the) security question|security (?:question )?answer|mother'?s maiden name)\b|"
    r"密码|口令|密钥|秘钥|私钥|验证码|校验码|动态码|恢复码|备用码|助记词|(?:PIN|pin)码|安全问题(?:的)?答案|密保(?:问题)?(?:的)?答案|密保问题|"
    r"门禁码|开门密码|令牌|授权码|访问密钥|API\s?Key)",
    re.IGNORECASE,
)
_MARK = (
    r"(?P<m>\s*(?:is|was|are|'s|’s|=|:|：|是|为|改成了?|改为|换成了?|设成了?|设置成了?|就是|->|(?:我)?(?:填|写|答|设|选)的?是)\s*|"
    r"\s+|(?=\d)|(?<=[\u4e00-\u9fff])(?=[A-Za-z#@!$%^&*_+=]))"  # "密码lulu2023xx": Chinese runs into the value
)
_VALUE = r"[\"'“‘「]?(?P<v>[^\s\"'”’」，,。；;！？、()（）]{2,80})"
_ASIDE = (
    r"(?:\s*[(（][^)）]{0,60}[)）])?"  # "the answer to my security question (name of first pet) is …"
    r"(?:\s*[\"'“‘「][^\"'”’」]{1,40}[\"'”’」](?=\s*(?:我)?(?:填|写|答|设|选)的?是))?"  # "密保问题'…'我填的是…"
    r"(?:\s+(?:for|of|to|on|at)\s+(?:the\s+|my\s+|our\s+)?[A-Za-z][\w' -]{0,24}?(?=\s+(?:is|was|=|:)))?"
)  # "the door code for the building is …", "security answer for my bank is …"
_SECRET_VALUE = re.compile(rf"(?:{SECRET_LABEL.pattern}){_ASIDE}{_MARK}{_VALUE}", re.IGNORECASE)
# labels that also name harmless things ("my bus pass", "the dress code for the party", "the wifi is slow"): their
# value is a secret only when it looks like one (a digit or a symbol in it: "greenfrog88", "Kx9!mm", "1966")
WEAK_LABEL = re.compile(
    r"\b(?:pass|pw|login|log-?in|wifi|wi-fi|combo|combination|keypad|"
    r"(?!(?:zip|dress|post|postal|area|country|promo|discount|coupon|qr|bar|source|morse|colou?r|error|status|tax|"
    r"sort|swift|routing|product|language|genetic|moral|the|a|my|our|this|that|error|exit|cheat|"
    r"promotional|referral|gift|voucher|access)\b)[a-z]+[\s-]code|code(?=\s+(?:for|to|of|on|at)\s))\b"
)
_WEAK_VALUE = re.compile(
    rf"(?:{WEAK_LABEL.pattern})(?:\s+(?:for|to|of|on|at)\s+(?:the\s+|my\s+|our\s+)?[A-Za-z][\w' -]{{0,24}}?)?"
    r"(?P<m>\s*(?:is|was|'s|’s|=|:)\s*|\s+(?=\S*\d))" + _VALUE,  # "garage code 5582"
    re.IGNORECASE,
)
# a security question's answer, once the question is named ("密保问题母亲的名字 答案是张桂兰", "first pet question
# answer: Biscuit")
_ASKED = re.compile(r"\bquestions?\b|密保|安全问题|验证问题", re.IGNORECASE)
_ANSWER_VALUE = re.compile(r"(?:\banswer|答案)(?P<m>\s*(?:is|was|'s|=|:|：|是|为|就是)\s*)" + _VALUE, re.IGNORECASE)
_LOOKS_SECRET = re.compile(r"[\d_\-!@#$%^&*+=]")
# words that follow a label but are not its value ("my password is long", "密码是什么")
_NOT_VALUES = {
    "is",
    "was",
    "the",
    "my",
    "a",
    "an",
    "for",
    "and",
    "but",
    "too",
    "very",
    "really",
    "still",
    "changed",
    "reset",
    "expired",
    "changing",
    "new",
    "different",
    "wrong",
    "broken",
    "long",
    "short",
    "strong",
    "weak",
    "hard",
    "easy",
    "什么",
    "多少",
    "啥",
    "哪个",
    "忘了",
    "忘记了",
}


# the shapes of well-known keys and tokens, secret with or without a label
_KEY_SHAPE = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|sk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{16,}|"
    r"AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,})"
)


def _secret_matches(text: str) -> list[re.Match]:
    """The matches of a label and its value in `text`, each value checked: a word after a label that says nothing
    ("my password is long", "密码是什么"), or a harmless word after a weak label, is no value."""
    found = []
    for m in _SECRET_VALUE.finditer(text):
        value = m.group("v").rstrip(".!")
        if value.lower() in _NOT_VALUES or value.lower().startswith(("什么", "多少")):
            continue
        chinese_run = not m.group("m") and not value[:1].isdigit()  # "密码lulu2023xx"
        if not m.group("m").strip() and not chinese_run and not _LOOKS_SECRET.search(value):
            continue  # "I changed my password yesterday": a word after the label, not its value
        found.append(m)
    weak = [m for m in _WEAK_VALUE.finditer(text) if _LOOKS_SECRET.search(m.group("v").rstrip(".!"))]
    asked = [m for m in _ANSWER_VALUE.finditer(text)] if _ASKED.search(text) else []
    return sorted(found + weak + asked, key=lambda m: m.start())


def secret_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each secret value in `text` (the value after a secret's label, or a key of a known shape)."""
    spans = [m.span() for m in _KEY_SHAPE.finditer(text or "")]
    for m in _secret_matches(text or ""):
        value = m.group("v").rstrip(".!")
        spans.append((m.start("v"), m.start("v") + len(value)))
    return sorted(set(spans))


def mentions_secret(text: str) -> bool:
    """True when `text` names a kind of secret (a password, a PIN, an API key ...), with or without its value."""
    return bool(SECRET_LABEL.search(text or ""))


# what may open the rest of a sentence after a secret's value: a break, then a word that only joins ("…is Wobbles
# (first pet) - oh and we got a new hamster", "密保答案是红旗小学 顺便说下我女儿今年上初一了")
_AFTER_VALUE = re.compile(
    r"^[\"'”’」]?(?:\s*[(（][^)）]{0,60}[)）])?(?:\s*[,，;；。.!！…~-]+\s*|\s+[-–—]+\s*|\s+(?=[\u4e00-\u9fff])|"
    r"\s+(?=(?:and|but|oh|also|plus|btw|by the way|anyway)\b))",
    re.IGNORECASE,
)
_JOINING = re.compile(
    r"^(?:\s*(?:(?:and|but|oh|also|plus|btw|by the way|anyway|so)\b|对了|顺便(?:说下|说一下|提一下|一提|讲下)?|另外|还有|"
    r"然后|哦|噢)[\s,，:：]*)+",
    re.IGNORECASE,
)
_BEFORE_LABEL = re.compile(
    r"[,，;；。.!！…]\s*(?:(?:and|but|also|oh|btw|my|our|the)\s+)*[^,，;；。.!！…]*$", re.IGNORECASE
)


def secret_free_parts(sentence: str) -> list[str]:
    """What a sentence with a secret's value says besides it: the clause before the secret's label when a break
    ends it, and what follows the value when a break and a joining word open it. Words right after the value with
    no break ("my passphrase is correct horse battery staple") may be more of the secret and are left out."""
    found = _secret_matches(sentence or "")
    found = [m for i, m in enumerate(found) if not any(o.start() <= m.start() < o.end() for o in found[:i])]
    if not found:
        return [sentence]
    parts = []
    head = sentence[: found[0].start()]
    cut = _BEFORE_LABEL.search(head)
    if cut is not None:
        parts.append(head[: cut.start()])
    for m, following in zip(found, found[1:] + [None], strict=True):
        rest = sentence[m.end() : following.start() if following else len(sentence)]
        opening = _AFTER_VALUE.match(rest)
        if opening is not None:
            parts.append(_JOINING.sub("", rest[opening.end() :]))
    return [p.strip(" ,，;；-–—") for p in parts if p.strip(" ,，;；-–—") and not mentions_secret(p)]
