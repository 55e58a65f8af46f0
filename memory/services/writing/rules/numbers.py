"""Numbers in a clause: Chinese numerals as digits (on `cn2an`), and shares ("两成", "20%", "a quarter") with the
part of the spending they limit.
"""

from __future__ import annotations

import re

from core.text import cn_numerals_to_digits, share_of
from memory.services.writing.rules.patterns import FIRST_PERSON

# Chinese numerals to Arabic in running text: one implementation, in the shared toolkit.
to_digits = cn_numerals_to_digits


# A share limit on one part of the spending ("装修不超过两成", "keep marketing under 10% of the budget"): a constraint
# keyed by what it limits, so that a later "装修预算改成不超过三成" supersedes it.
_LIMIT_ZH = re.compile(
    r"^(?P<what>[\u4e00-\u9fff]{1,6}?)(?:的)?(?:预算|费用|开支|成本|支出|投入)?(?:要|得|必须|只能)?"
    r"(?:改成|改为|换成|调到|调成)?(?:不超过|不超|不能超过|不要超过|最多|至多|控制在)(?P<limit>.{1,12}?)"
    r"(?:以内|以下|之内)?[。！!]?$"
)
_LIMIT_EN = re.compile(
    r"^(?:keep |the |our |my )?(?P<what>[a-z][a-z ]{1,30}?) (?:budget |costs? |spend(?:ing)? )?"
    r"(?:must |should |has to |needs to |can )?(?:now |still |only )?(?:stay |be |go )?"
    r"(?:under|below|at most|no more than|"
    r"capped at|within) (?P<limit>.{1,30}?)[.!]?$",
    re.IGNORECASE,
)
# Shares ("两成", "20%", "a quarter"): the toolkit's reader.
ratio_of = share_of


def share_limit(clause: str) -> tuple[str, float] | None:
    """(what is limited, its share) for a clause that caps one part of the spending by a share."""
    m = _LIMIT_ZH.match(clause.strip()) or _LIMIT_EN.match(clause.strip())
    if not m:
        return None
    what = re.sub(r"\b(?:the|of|my|our)\b", " ", m.group("what")).strip()
    share = ratio_of(m.group("limit"))
    if not what or share is None or FIRST_PERSON.search(what) or not 0 < share <= 1:
        return None
    return what.lower(), round(share, 4)


def num_str(n: float) -> str:
    return f"{int(n)}" if float(n).is_integer() else f"{n:g}"
