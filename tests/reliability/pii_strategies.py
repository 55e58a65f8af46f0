"""Hypothesis strategies for personal identifiers and for ordinary numbers that must survive redaction."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from memory.services.identifiers.pii import ID_CHECK, ID_WEIGHTS

FULL_WIDTH = {str(d): chr(0xFF10 + d) for d in range(10)}


def to_full_width(text: str) -> str:
    return "".join(FULL_WIDTH.get(ch, ch) for ch in text)


def luhn_complete(body: str) -> str:
    """`body` plus the Luhn check digit."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def id_complete(body17: str) -> str:
    total = sum(int(d) * w for d, w in zip(body17, ID_WEIGHTS, strict=True))
    return body17 + ID_CHECK[total % 11]


digits = lambda n: st.text(alphabet=string.digits, min_size=n, max_size=n)  # noqa: E731 - a strategy shorthand, as hypothesis examples write them
separator = st.sampled_from(["", " ", "-"])


@st.composite
def cn_mobile(draw) -> str:
    prefix = draw(st.sampled_from(["", "+86 ", "+86", "86-", "+86-"]))
    second = draw(st.sampled_from("3456789"))
    rest = draw(digits(9))
    sep = draw(separator)
    return f"{prefix}1{second}{rest[:1]}{sep}{rest[1:5]}{sep}{rest[5:]}"


@st.composite
def cn_id_number(draw) -> str:
    region = draw(st.sampled_from(["110101", "310104", "440305", "510107", "330106"]))
    year = draw(st.integers(1930, 2020))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    seq = draw(digits(3))
    number = id_complete(f"{region}{year}{month:02d}{day:02d}{seq}")
    return number.lower() if draw(st.booleans()) else number


@st.composite
def bank_card(draw) -> str:
    length = draw(st.sampled_from([16, 16, 19, 15, 13]))
    first = draw(st.sampled_from(["4", "5", "62", "37"]))
    body = first + draw(digits(length - 1 - len(first)))
    number = luhn_complete(body)
    sep = draw(separator)
    if sep:
        number = sep.join(number[i : i + 4] for i in range(0, len(number), 4))
    return number


@st.composite
def email(draw) -> str:
    local = draw(
        st.text(alphabet=string.ascii_lowercase + string.digits + "._+", min_size=1, max_size=12).filter(
            lambda s: s[0] not in "._+" and s[-1] not in "._+"
        )
    )
    domain = draw(st.text(alphabet=string.ascii_lowercase + string.digits, min_size=2, max_size=10))
    tld = draw(st.sampled_from(["com", "cn", "org", "net", "com.cn", "io"]))
    return f"{local}@{domain}.{tld}"


@st.composite
def passport(draw) -> str:
    return draw(st.sampled_from("EGeg")) + draw(digits(8))


@st.composite
def intl_phone(draw) -> str:
    cc, groups = draw(
        st.sampled_from(
            [
                ("1", (3, 3, 4)),
                ("44", (4, 3, 3)),
                ("49", (3, 4, 4)),
                ("81", (2, 4, 4)),
                ("852", (4, 4)),
                ("33", (1, 2, 2, 2, 2)),
            ]
        )
    )
    sep = draw(st.sampled_from([" ", "-", ""]))
    parts = [draw(digits(n)) for n in groups]
    if groups[0] >= 3 and draw(st.booleans()):
        parts[0] = f"({parts[0]})"
    return f"+{cc}{sep or ' '}" + sep.join(parts)


identifier = st.one_of(
    cn_mobile().map(lambda v: ("cn_mobile", v)),
    cn_id_number().map(lambda v: ("cn_id_number", v)),
    bank_card().map(lambda v: ("bank_card", v)),
    email().map(lambda v: ("email", v)),
    passport().map(lambda v: ("passport", v)),
    intl_phone().map(lambda v: ("phone", v)),
)

ZH_TEMPLATES = [
    "我的手机号是{}，有事打给我。",
    "记一下：{}",
    "联系方式 {} 谢谢",
    "我叫小王，证件号{}，预算40万",
    "卡号：{}。",
    "你好{}你好",
    "请发邮件到{}。",
]
EN_TEMPLATES = [
    "My number is {}, call me.",
    "Reach me at {} any time.",
    "card {} expires soon",
    "Note: {}.",
    "id={} budget 400000",
    "({})",
]


@st.composite
def sentence_with_identifier(draw):
    kind, value = draw(identifier)
    if kind != "email" and draw(st.booleans()):
        value = to_full_width(value)
    template = draw(st.sampled_from(ZH_TEMPLATES + EN_TEMPLATES))
    return kind, value, template.format(value)


# --- ordinary numbers people say about their business: these must survive -----------------------------------
@st.composite
def ordinary_number_sentence(draw) -> tuple[str, str]:
    """(sentence, the number as written). Budgets, areas, dates, years, prices, order counts, durations."""
    choice = draw(st.integers(0, 9))
    n = draw(st.integers(1, 9_999_999))
    if choice == 0:
        number = f"{n}"
        text = f"预算大概{number}元"
    elif choice == 1:
        number = f"{draw(st.integers(5, 5000))}"
        text = f"店面面积{number}平方米"
    elif choice == 2:
        number = f"{draw(st.integers(1990, 2035))}年{draw(st.integers(1, 12))}月{draw(st.integers(1, 28))}日"
        text = f"我们计划{number}开业"
    elif choice == 3:
        number = f"{draw(st.integers(1990, 2035))}-{draw(st.integers(1, 12)):02d}-{draw(st.integers(1, 28)):02d}"
        text = f"Opening on {number}, hopefully."
    elif choice == 4:
        number = f"{draw(st.integers(1, 999))}.{draw(st.integers(0, 99)):02d}"
        text = f"A latte costs {number} yuan here."
    elif choice == 5:
        number = f"{n:,}"
        text = f"Our budget is {number} dollars."
    elif choice == 6:
        number = f"{draw(st.integers(1, 99999))}"
        text = f"每天大约{number}单外卖"
    elif choice == 7:
        number = f"{draw(st.integers(1, 20))}万"
        text = f"预算{number}，别超了"
    elif choice == 8:
        number = f"{draw(st.integers(1, 60))}"
        text = f"We need {number} months to break even, rent is {n} a year."
    else:
        number = f"{draw(st.integers(100000, 999999))}"
        text = f"Order #{number} was delivered."
    if draw(st.booleans()):
        text = to_full_width(text)
        number = to_full_width(number)
    return text, number


# --- issue 15: formats the first guard missed, generated (held out from bench/data/pii_adversarial.jsonl) -------
_SPOKEN_EN = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_SPOKEN_ZH = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"]


@st.composite
def spelled_cn_mobile(draw) -> str:
    number = "1" + draw(st.sampled_from("3456789")) + draw(digits(9))
    style = draw(st.sampled_from(["en", "zh", "yao", "mixed"]))
    out = []
    for i, d in enumerate(number):
        if style == "en":
            out.append(_SPOKEN_EN[int(d)] if d != "0" or draw(st.booleans()) else "oh")
        elif style in ("zh", "yao"):
            out.append(
                "幺"
                if style == "yao" and d == "1"
                else "两"
                if d == "2" and draw(st.booleans())
                else _SPOKEN_ZH[int(d)]
            )
        else:
            out.append(_SPOKEN_ZH[int(d)] if i % 2 else d)
    sep = " " if style == "en" else draw(st.sampled_from(["", " "]))
    return sep.join(out)


@st.composite
def national_phone(draw) -> str:
    """National formats with a trunk 0: UK mobile, JP mobile, DE Berlin, AU mobile, FR mobile."""
    kind = draw(st.sampled_from(["uk", "jp", "de", "au", "fr"]))
    if kind == "uk":
        return f"07{draw(st.sampled_from('3456789'))}{draw(digits(2))} {draw(digits(6))}"
    if kind == "jp":
        return f"0{draw(st.sampled_from('789'))}0-{draw(digits(4))}-{draw(digits(4))}"
    if kind == "de":
        return f"030 {draw(digits(8))}"
    if kind == "au":
        return f"04{draw(digits(2))} {draw(digits(3))} {draw(digits(3))}"
    return "0" + draw(st.sampled_from("67")) + " " + " ".join(draw(digits(2)) for _ in range(4))


@st.composite
def spaced_cn_id(draw) -> str:
    number = draw(cn_id_number()).upper()
    sep = draw(st.sampled_from([" ", "-", "  "]))
    return f"{number[:6]}{sep}{number[6:14]}{sep}{number[14:]}"


@st.composite
def licence_plate(draw) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    kind = draw(st.sampled_from(["cn", "uk", "fr"]))
    if kind == "cn":
        body = draw(
            st.text(alphabet=letters + string.digits, min_size=5, max_size=5).filter(
                lambda s: any(c.isdigit() for c in s)
            )
        )
        return draw(st.sampled_from("京沪粤川浙苏鲁鄂湘闽")) + draw(st.sampled_from(letters)) + body
    if kind == "uk":
        return (
            draw(st.text(alphabet=letters, min_size=2, max_size=2))
            + draw(digits(2))
            + " "
            + draw(st.text(alphabet=letters, min_size=3, max_size=3))
        )
    return (
        draw(st.text(alphabet=letters, min_size=2, max_size=2))
        + "-"
        + draw(digits(3))
        + "-"
        + draw(st.text(alphabet=letters, min_size=2, max_size=2))
    )


@st.composite
def public_ipv4(draw) -> str:
    first = draw(st.sampled_from([23, 45, 81, 101, 142, 185, 203, 211]))
    return ".".join(str(x) for x in [first] + [draw(st.integers(0, 255)) for _ in range(3)])


@st.composite
def handle_after_label(draw) -> str:
    name = draw(st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=8))
    return name + draw(st.sampled_from(["_", "", "."])) + draw(digits(draw(st.integers(2, 4))))


HELD_OUT_ZH = ["有事就打{}，随时都行", "我的车是{}，停在楼下", "备用联系方式{}", "{}是我身份证", "服务器{}连不上了"]
HELD_OUT_EN = [
    "Ping me on {} after lunch.",
    "My car, {}, is in the shop.",
    "Use {} for the form.",
    "The box at {} keeps rebooting.",
]
HANDLE_LABELS = ["微信 {}", "vx：{}", "加v {}", "WeChat: {}", "telegram {}", "QQ号 {}", "LINE ID {}"]

held_out_identifier = st.one_of(
    spelled_cn_mobile().map(lambda v: ("cn_mobile", v)),
    national_phone().map(lambda v: ("phone", v)),
    spaced_cn_id().map(lambda v: ("cn_id_number", v)),
    licence_plate().map(lambda v: ("licence_plate", v)),
    public_ipv4().map(lambda v: ("ip_address", v)),
)


@st.composite
def held_out_sentence(draw):
    if draw(st.integers(0, 5)) == 0:
        value = draw(handle_after_label())
        return "account_handle", value, draw(st.sampled_from(HANDLE_LABELS)).format(value) + "，有空聊"
    kind, value = draw(held_out_identifier)
    return kind, value, draw(st.sampled_from(HELD_OUT_ZH + HELD_OUT_EN)).format(value)
