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
    r"\b(?:recovery|backup|one[\s-]?time|verification|security|2fa|otp|mfa|unlock|door|gate|alarm|safe|locker|garage|shed|"
    r"lockbox|keypad|entry|building|front door|bike lock)"
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
    r"(?P<m>\s*(?:is|was|'s|’s|=|:)(?:\s+(?:now|still|currently))?\s*|\s+(?=\S*\d))" + _VALUE,  # "garage code 5582"
    re.IGNORECASE,
)
# a security question's answer, once the question is named ("密保问题母亲的名字 答案是张桂兰", "first pet question
# answer: Biscuit")
_ASKED = re.compile(r"\bquestions?\b|密保|安全问题|验证问题", re.IGNORECASE)
_ANSWER_VALUE = re.compile(
    r"(?:\banswer|答案)(?P<m>\s*(?:is|was|'s|=|:|：|是|为|就是)\s*|(?<=答案)(?=[^\s是为就：:，,。]))"
    + _VALUE,  # "答案宜宾"
    re.IGNORECASE,
)
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


def _says_nothing(m: re.Match) -> bool:
    value = m.group("v").rstrip(".!").lower()
    return value in _NOT_VALUES or value.startswith(("什么", "多少", "干嘛", "啥", "怎么", "哪", "忘"))


def _secret_matches(text: str) -> list[re.Match]:
    """The matches of a label and its value in `text`, each value checked: a word after a label that says nothing
    ("my password is long", "密码是什么"), or a harmless word after a weak label, is no value."""
    found = []
    for m in _SECRET_VALUE.finditer(text):
        value = m.group("v").rstrip(".!")
        if _says_nothing(m):
            continue
        chinese_run = not m.group("m") and not value[:1].isdigit()  # "密码lulu2023xx"
        if not m.group("m").strip() and not chinese_run and not _LOOKS_SECRET.search(value):
            continue  # "I changed my password yesterday": a word after the label, not its value
        found.append(m)
    weak = [m for m in _WEAK_VALUE.finditer(text) if _LOOKS_SECRET.search(m.group("v").rstrip(".!"))]
    asked = [m for m in _ANSWER_VALUE.finditer(text) if not _says_nothing(m)] if _ASKED.search(text) else []
    return sorted(found + weak + asked, key=lambda m: m.start())


def secret_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each secret value in `text`: the value after a secret's label, a key of a known shape, and
    in a sentence that names a secret, whatever there looks like one (secret_sentence_spans)."""
    spans = [m.span() for m in _KEY_SHAPE.finditer(text or "")]
    if not _MAY_TALK.search(text or ""):
        return spans + _for_a_login(text or "")  # most texts name no secret: the labels are not read
    for m in _secret_matches(text or ""):
        value = m.group("v").rstrip(".!")
        spans.append((m.start("v"), m.start("v") + len(value)))
    spans += secret_sentence_spans(text or "")
    return _merged(spans)


# a word every label above holds a part of: a text with none of them names no secret (a cheap first look; the
# labels' own patterns are slow to run over every message a recall shows)
_MAY_TALK = re.compile(
    r"\bpas{1,2}w|\bpass(?:code|phrase)?\b|\bpwd?\b|(?<![A-Za-z])pin(?![A-Za-z])|\bkeys?\b|key_|_key|keypad|token|"
    r"secret|\bcodes?\b|code\b|\block|lock\b|\bsafe\b|vault|alarm|intercom|gate|door|combo|combination|log-?in|wi-?fi|answer|maiden|security|"
    r"phrase|wallet|\botp\b|2fa|mfa|opens with|\bI put\b|密|碼|码|钥|锁|保险|助记|钱包|答案|题|门禁|组合|令牌|口令|短语",
    re.IGNORECASE,
)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(set(spans)):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


# What a sentence says when it is about a secret, beyond the labels above: misspelt labels, what a safe or a lock
# "opens with", a security question, a maiden name, backup codes, an access key.
SECRET_TALK = re.compile(
    rf"{SECRET_LABEL.pattern}|密马|密碼|蜜码|秘码|\bpas{{1,2}}w(?:or|ro|o|r)?d\b|access[\s_]?(?:key|token)|secret[\s_]?key|"
    r"client[\s_]secret|api[\s_]key|\b(?:backup|recovery|verification|one[\s-]?time|login|2fa) codes?\b|maiden name|"
    r"security (?:question|q)\b|\bopens with\b|\block\s?box\b|\b(?:[\w'-]+ )?lock\b|\bwallet (?:words|phrase)\b|"
    r"\b(?:safe|locker|vault|padlock|keypad|combo|combination|admin pw|login|key|token|secret)\b|"
    # a device's code said with the device alone: "the alarm at mum's is 2468" (not "my alarm is at 6:30")
    r"\b(?:alarm|intercom|gate|door)\b(?=[^.。!?？]{0,30}?(?:\bis|'s|=|:)\s*\d{4,8}\b(?![:.]\d))|"
    r"\bpwd?\b|答案[:：]|[那这]道?题|密保|组合|门禁|密码门|[挂门]锁|组合锁|密码锁|锁屏|保险[柜箱]|种子短语|助记|钱包|"
    r"(?<=[\u4e00-\u9fff])(?<![起号价页尺代])码(?![头农数字])|"
    r"\bcode (?:for|to|of|on) (?:the |my |our )?(?:[\w-]+ ){0,2}(?:gate|door|garage|lock|safe|alarm|locker|building|shed|"
    r"lockbox|keypad|box|flat|house|apartment|office)\b|\banswer\s*[=:：]|\banswered\b(?! to\b)|\bI put (?=['\"“‘])",
    re.IGNORECASE,
)
# in such a sentence, what looks like a secret: a token with a digit in it ("0922", "Mimi#Cat_77"), digits said
# apart ("6 6 0 2", "552 901", "27-14-08"), a quoted answer, what was "filled in" for a security question, a run of
# plain words given as a recovery phrase
_TOKEN = r"[A-Za-z0-9#@$%^&*_+=!~/.-]"
_TURN = r"[^。.!！?？,，\d]{0,6}\d[^。.!！?？,，]*"  # one number of a combination, with its direction
_LOOKS = (
    re.compile(rf"(?<!{_TOKEN})(?={_TOKEN}*\d){_TOKEN}{{3,}}"),
    re.compile(r"\d(?:[ -]\d){2,}|\d{2,}(?:[ -]\d{2,})+"),
    re.compile(r"[“\"‘「『](?P<v>[^”\"’」』]{1,40})[”\"’」』]|(?<![A-Za-z])'(?P<w>[^']{1,40})'(?![A-Za-z])"),
    re.compile(
        r"(?:填的是|填了|填的|写的是|写的|答的是|瞎填的|设的是|\banswered\b(?! to\b)|\bI put\b|\bput down\b|\banswer\s*[=:])"
        r"\s*[:：]?\s*(?P<v>(?:(?:Mr|Mrs|Ms|Dr)\.?\s+)?[^\s，,。.!！?？;；\"“”'‘’]{1,30})",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:phrase|words|助记词|seed)(?:\s*(?:is|are|:|：|是))+\s*(?P<v>[a-z]+(?:\s+[a-z]+){5,})", re.IGNORECASE
    ),
    re.compile(r"[:：]\s*(?P<v>[a-z]+(?:\s+[a-z]+){7,})"),  # "wallet words, in order: lemon attic purity …"
    # the numbers of a combination, however few digits each ("组合锁：右 18，左 42，右 7"), not the clause after them
    re.compile(rf"(?:组合锁?|combination|combo)\s*(?:is|是|为|[:：])?\s*(?P<v>{_TURN}(?:[,，]\s*{_TURN})*)", re.I),
    # the value said first, then what it is: "黄陂，这是我填的…密保", "Tulsa - that's my security answer"
    re.compile(r"^\s*(?P<v>[^，,\s][^，,]{0,11})[，,]\s*(?:这|那)个?是(?!不是|什么|啥)", re.IGNORECASE),
    re.compile(r"^\s*(?P<v>[^,\s][^,]{0,29}?),?\s+(?:-\s*)?that'?s (?:my|the|what)\b", re.IGNORECASE),
    # a name or a word given as the answer at the end of a sentence about a security question or a maiden name
    re.compile(
        r"(?:(?:maiden name|security (?:question|q)|answer)\b|密保|答案).{0,60}?(?:\bis|[:：=]|是|->|\s[—–-]+\s|[—–]+)\s*"
        r"(?P<v>(?:(?:Mr|Mrs|Ms|Dr)\.?\s+)?[A-Z\u4e00-\u9fff][^\s，,。.!！?？;；]{0,30}(?:\s+[A-Z][\w'-]*){0,2})"
        r"\s*[.。!！]?\s*$",
        re.IGNORECASE,
    ),
)
# the value said first and the label after it: "Blue-Heron-55. That's the password for the shared drive."
_POINTS_BACK = re.compile(r"^\W*(?:that'?s|that is|this is|it'?s|这是|那是|这个是|那个是)\b", re.IGNORECASE)
# a credential said with no label, only what it opens: "it's bluefin77 for the work laptop"
_LOGINS = r"(?:laptop|computer|pc|mac|account|email|bank|wifi|router|ipad|portal|login|vault|drive|server|nas)"
_FOR_A_LOGIN = re.compile(
    rf"\bit'?s (?P<v>\S*\d\S*) for (?:the |my |both |our )?(?:\w+ ){{0,2}}{_LOGINS}\b|"
    rf"\b{_LOGINS}\s*[:：]\s*(?P<w>\S*[\d#@$%^&*!]\S*)",  # "🔐 laptop: Pumpkin#Spice_8"
    re.IGNORECASE,
)
# a code, but not one of the harmless kinds ("error code 404", "the dress code", "I write Python 3.12 code")
_CODE_WORD = re.compile(r"\bcodes?\b", re.IGNORECASE)
_HARMLESS_CODE = re.compile(
    r"\b(?:error|zip|area|post|postal|dress|promo|discount|source|country|bar|qr|morse|status|tax|sort|product) codes?\b",
    re.IGNORECASE,
)
_PROGRAMMING = re.compile(
    r"\b(?:writ\w*|wrote|program\w*|python|java\w*|html|css|sql|source|github|repo|bug|compil\w*|review|snippet|"
    r"editor|develop\w*|engineer\w*)\b",
    re.IGNORECASE,
)


def _a_code(sentence: str) -> bool:
    codes = {m.end() for m in _CODE_WORD.finditer(sentence)}
    harmless = {m.end() for m in _HARMLESS_CODE.finditer(sentence)} if codes else set()
    return bool(codes - harmless) and not _PROGRAMMING.search(sentence)


_ALONE = re.compile(r"^\s*(?P<v>[^\s.。!！?？]{2,24}(?: [^\s.。!！?？]{2,24})?)\s*[.。!！]\s*$")
_GIVES_IT = re.compile(r"^\W*(?:it'?s|it is|is|就是|是|[:：])", re.IGNORECASE)
_ANSWER_AFTER = 40
_SENTENCE = re.compile(r"[^。！？；\n]+?(?:[。！？；\n]|[.!?](?=\s|$)|$)")


def _looks_secret(sentence: str, offset: int) -> list[tuple[int, int]]:
    spans = []
    for rx in _LOOKS:
        for m in rx.finditer(sentence):
            group = next((g for g in ("v", "w") if g in rx.groupindex and m.group(g)), None)
            start, end = m.span(group) if group else m.span()
            value = sentence[start:end].rstrip(".!~")
            if (
                value
                and not value.startswith(("干嘛", "什么", "啥", "怎么"))
                and not (group and SECRET_TALK.search(value))
            ):
                spans.append((offset + start, offset + start + len(value)))
    return spans


def _for_a_login(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _FOR_A_LOGIN.finditer(text):
        group = "v" if m.group("v") else "w"
        spans.append((m.start(group), m.start(group) + len(m.group(group).rstrip(".!"))))
    return spans


def secret_sentence_spans(text: str) -> list[tuple[int, int]]:
    """What looks like a secret in each sentence of `text` that talks about one (and in the sentence before it,
    when it points back at it), and a credential given for a login with no label."""
    spans = _for_a_login(text)
    if not (SECRET_TALK.search(text) or _CODE_WORD.search(text)):
        return spans  # most messages talk of no secret: no sentence to read
    sentences = list(_SENTENCE.finditer(text))
    for i, m in enumerate(sentences):
        if not (SECRET_TALK.search(m.group()) or _a_code(m.group())):
            continue
        spans += _looks_secret(m.group(), m.start())
        if i > 0 and _POINTS_BACK.search(m.group()):
            before = sentences[i - 1]
            spans += _looks_secret(before.group(), before.start())
            word = _ALONE.match(before.group())
            if word:  # a name or a word said alone before it: the answer itself
                spans.append((before.start() + word.start("v"), before.start() + word.end("v")))
        after = sentences[i + 1] if i + 1 < len(sentences) else None
        if after is not None and len(after.group()) <= _ANSWER_AFTER and _GIVES_IT.search(after.group()):
            spans += _looks_secret(after.group(), after.start())  # "my Spotify password? It's m0ondust_radio"
    return spans


def mentions_secret(text: str) -> bool:
    """True when `text` names a kind of secret (a password, a PIN, an API key ...), with or without its value."""
    return bool(SECRET_TALK.search(text or ""))


# what may open the rest of a sentence after a secret's value: a break, then a word that only joins ("…is Wobbles
# (first pet) - oh and we got a new hamster", "密保答案是红旗小学 顺便说下我女儿今年上初一了")
_AFTER_VALUE = re.compile(
    r"^[\"'”’」]?(?:\s*[(（][^)）]{0,60}[)）])?(?:\s*[,，;；。.!！…~、-]+\s*|\s+[-–—]+\s*|\s+(?=[\u4e00-\u9fff])|"
    r"\s+(?=(?:and|but|oh|also|plus|btw|by the way|anyway)\b))",
    re.IGNORECASE,
)
_JOINING = re.compile(
    r"^(?:\s*(?:(?:and|but|oh|also|plus|btw|by the way|anyway|so)\b|对了|顺便(?:说下|说一下|提一下|一提|讲下)?|另外|还有|"
    r"然后|哦|噢)[\s,，:：]*)+",
    re.IGNORECASE,
)
_BEFORE_LABEL = re.compile(
    r"[,，;；。.!！…、]\s*(?:(?:and|but|also|oh|btw|my|our|the)\s+)*[^,，;；。.!！…、]*$", re.IGNORECASE
)


def secret_free_parts(sentence: str, mask: str = "") -> list[str]:
    """What a sentence with a secret's value says besides it: the clause before the secret's label when a break
    ends it, and what follows the value when a break and a joining word open it. Words right after the value with
    no break ("my passphrase is correct horse battery staple") may be more of the secret and are left out. A value
    already replaced by `mask` counts as one, its label with it."""
    found = [m.span() for m in _secret_matches(sentence or "")]
    found += [m.span() for m in re.finditer(re.escape(mask), sentence or "")] if mask else []
    found.sort()
    found = [f for i, f in enumerate(found) if not any(o[0] <= f[0] < o[1] for o in found[:i])]
    if not found:
        return [sentence]
    parts = []
    head = sentence[: found[0][0]]
    cut = _BEFORE_LABEL.search(head)
    if cut is not None:
        parts.append(head[: cut.start()])
    for (_start, end), following in zip(found, found[1:] + [None], strict=True):
        rest = sentence[end : following[0] if following else len(sentence)]
        opening = _AFTER_VALUE.match(rest)
        if opening is not None:
            parts.append(_JOINING.sub("", rest[opening.end() :]))
    return [p.strip(" ,，;；-–—") for p in parts if p.strip(" ,，;；-–—") and not mentions_secret(p)]
