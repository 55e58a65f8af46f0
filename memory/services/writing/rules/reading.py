"""Reading one message: each statement clause is sorted into a slot, a share limit or a plain fact in the user's
words, then each becomes one Candidate.

A sentence's reading is shared by its clauses (a change marker, a reason, a hedge said once, a passing whim):
`_Sentence` carries it, so each step below is a function of one sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.text import has_chinese, split_sentences
from memory.services.writing.quantities import quantities, slot_amount
from memory.services.writing.rules.candidate import Candidate
from memory.services.writing.rules.clauses import content_terms, is_question, span, split_clauses, strip_ask_tail
from memory.services.writing.rules.injection import injection_kind, is_request
from memory.services.writing.rules.neighbours import NAMED_THING, apposed, lasting, pointed_at, short_state
from memory.services.writing.rules.numbers import share_limit
from memory.services.writing.rules.patterns import (
    ASKS_OPINION,
    BARE_AMOUNT,
    CHANGE,
    DANGLING,
    DATED,
    EXCLAIMED,
    FIRST_PERSON,
    HEDGE,
    IDENTIFIER_TALK,
    MULLING,
    NICKNAMED,
    OTHER_PEOPLE,
    PRICE,
    PUT_OFF,
    REASON,
    SPACED,
    STANDING,
    SUBJECT_EN,
    SUBJECT_ZH,
    SUBJECTLESS_PLAN,
    SUBJECTLESS_SELF,
    TO_THE_LISTENER,
    UNDECIDED,
    WHIM,
    generic_kind,
    kind_of,
)
from memory.services.writing.rules.render import PAST, render, third_person
from memory.services.writing.rules.slots import (
    BUSINESS_EN,
    BUSINESS_ZH,
    NUMERIC_SLOTS,
    PLACE_EN,
    PLACE_ZH,
    SIZE,
    head_count,
    place_in,
    slot_value,
)
from memory.services.writing.rules.whose import FAMILY, theirs
from memory.services.writing.topics import TOPIC_BY_SLOT, Topic, topics_in


@dataclass
class _Sentence:
    """One sentence being read: what holds for all its clauses, and what its clauses were sorted into."""

    text: str
    clauses: list[str]
    chinese: bool
    whim: bool
    change: re.Match | None
    reason: str
    standing: list[str]
    hedged: bool = False  # a clause that is only a hedge ("…, I think.") hedges the whole sentence
    by_slot: dict[str, list[str]] = field(default_factory=dict)
    generic: list[tuple[str, str]] = field(default_factory=list)  # (kind, clause): a fact in the user's words
    corrections_only: set[str] = field(default_factory=set)
    from_reply: set[str] = field(default_factory=set)  # slots answered by a bare amount after the assistant asked
    limits: list[tuple[str, float, str]] = field(default_factory=list)
    quotes: dict[str, str] = field(default_factory=dict)  # a clause read as other words -> the user's own

    @property
    def comma(self) -> str:
        return "，" if self.chinese else ", "


def read_message(text: str, previous_reply: str = "") -> list[Candidate]:
    """Candidate facts in one user message (offline rules); whims marked, questions and requests none."""
    chinese = has_chinese(text)
    out: list[Candidate] = []
    if injection_kind(text) == "markup":
        return out  # text shaped like a system prompt says nothing about the user, in any clause
    for sentence in split_sentences(text):
        clauses = split_clauses(sentence)
        if not clauses:
            continue
        found = _sentence_read(sentence, clauses, chinese=chinese, previous_reply=previous_reply)
        if not found and out and NAMED_THING.match(sentence.strip()):
            out[-1] = apposed(out[-1], sentence.strip(), chinese)
            continue
        spaced = [part for c in clauses for part in SPACED.split(c) if part.strip()]
        if not found and len(spaced) > len(clauses) and not NICKNAMED.match(sentence):
            # nothing read from the sentence whole: a space between Chinese runs may stand for a comma not typed
            # ("户口还在老家兰州 人在宁波住了六年了"), so it is read again clause by clause
            found = _sentence_read(sentence, spaced, chinese=chinese, previous_reply=previous_reply)
        out.extend(found)
    # "转行做产品，你觉得靠谱吗", "可能跳也可能不跳 看年终奖吧", "haven't decided": not yet a plan
    undecided = UNDECIDED.search(text) is not None
    if undecided or (MULLING.search(text) and ASKS_OPINION.search(text)):
        out = [
            c
            for c in out
            if not (MULLING.search(c.quote or c.content) or UNDECIDED.search(c.quote or c.content))
            and not (undecided and c.kind == "plan")
        ]
    # two slots of one clause said in the user's words ("我打算在杭州开一家面馆": business and place) are one note
    return [c for i, c in enumerate(out) if all(o.content != c.content for o in out[:i])]


def _sentence_read(sentence: str, clauses: list[str], *, chinese: bool, previous_reply: str) -> list[Candidate]:
    """The candidates of one sentence read as `clauses`."""
    s = _Sentence(
        text=sentence,
        clauses=clauses,
        chinese=chinese,
        whim=bool(WHIM.search(sentence)),
        change=CHANGE.search(sentence),
        reason=" ，".join(c for c in clauses if REASON.search(c)),
        # a standing instruction ("always answer me in bullet points", "以后回答我简短点", "never
        # suggest pork") is a durable preference about the user, though it is phrased as a request
        standing=[
            c
            for c in clauses
            if STANDING.search(c) and not OTHER_PEOPLE.search(c) and not c.rstrip().endswith(("?", "？"))
        ],
    )
    out: list[Candidate] = []
    for clause in _statements(s):
        _sort_clause(s, clause, previous_reply)
    if s.whim and len(s.generic) > 1:  # one passing idea, said in several clauses
        s.generic = [(s.generic[0][0], s.comma.join(c for _, c in s.generic))]
    for slot, slot_clauses in s.by_slot.items():
        candidate = _slot_candidate(s, slot, slot_clauses)
        if candidate is not None:
            out.append(candidate)
    out.extend(_limit_candidates(s))
    out.extend(_generic_candidates(s))
    return out


def _statements(s: _Sentence) -> list[str]:
    """The clauses that state something: no questions or requests (a tag question is cut off), standing
    instructions kept, clauses that are only a hedge taken out (they set `s.hedged`)."""
    statements = [c for c in (strip_ask_tail(c) for c in s.clauses) if c and not is_question(c) and not is_request(c)]
    statements += [c for c in s.standing if c not in statements]
    hedge_only = [c for c in statements if HEDGE.search(c) and len(content_terms(HEDGE.sub(" ", c))) == 0]
    s.hedged = bool(hedge_only)
    kept = [c for c in statements if c not in hedge_only]
    return pointed_at(kept, sentence=s.text, chinese=s.chinese, quotes=s.quotes)


def _sort_clause(s: _Sentence, clause: str, previous_reply: str) -> None:
    """Into a share limit, the slots it fills, or a plain fact (or nothing)."""
    if _about_others(clause) or EXCLAIMED.search(clause):
        return  # "my flatmate's uncle owns three restaurants in Lisbon": not the user's restaurants, nor city
    limit = share_limit(clause) if not s.whim else None
    if limit:
        s.limits.append((*limit, clause))
        return
    topics = _topics_of(clause, previous_reply, s.from_reply)
    if not topics:
        _sort_plain(s, clause)
        return
    for t in topics:
        s.by_slot.setdefault(t.slot, [])
        if clause not in s.by_slot[t.slot]:
            s.by_slot[t.slot].append(clause)


def _topics_of(clause: str, previous_reply: str, from_reply: set[str]) -> list[Topic]:
    """The slots a clause speaks of, by their words and by the shape of what it says (a place, a size, a
    business, a head count, a bare amount answering the assistant's question)."""
    if REASON.search(clause) and not FIRST_PERSON.search(clause):
        topics = [t for t in topics_in(clause) if t.kind == "constraint"]
    else:
        topics = topics_in(clause)
        if theirs(clause) and FAMILY.search(clause):  # "my wife works as a nurse": her job, not the user's
            topics = [t for t in topics if t.slot == "family"] or [TOPIC_BY_SLOT["family"]]
    if place_in(clause) and not theirs(clause):  # "my cousin Priya lives in Toronto", "my mate Dev …": not the user
        topics.append(TOPIC_BY_SLOT["location"])
    if SIZE.search(clause) and TOPIC_BY_SLOT["shop_size"] not in topics:
        topics.append(TOPIC_BY_SLOT["shop_size"])
    if BUSINESS_ZH.search(clause) or BUSINESS_EN.search(clause):
        topics.append(TOPIC_BY_SLOT["business"])
    if head_count(clause) and TOPIC_BY_SLOT["staff"] not in topics:
        topics.append(TOPIC_BY_SLOT["staff"])  # "Team of 4 people", "店里一共三个人"
    if not topics and previous_reply and BARE_AMOUNT.match(clause):
        # a bare amount answers the assistant's question about a slot ("预算多少？" "20万"), when its unit
        # fits that slot: "4 people" never answers a question about the budget
        asked = [t for t in topics_in(previous_reply) if t.slot in NUMERIC_SLOTS][:1]
        if asked and slot_amount(asked[0].slot, clause, keyword=True) is not None:
            topics = asked
            from_reply.add(asked[0].slot)
    return topics


# "I'm …", "I have …" with little after it: a trade or a condition ("I'm a carpenter", "I have asthma"), or how the
# user is right now ("I'm knackered", "I have a quick question")
def _about_others(clause: str) -> bool:
    """ "我同事的表哥据说在迪拜买了套房", "I think young people have it hard": about someone else or the world
    (memory.reading.about: cue words let the encoder be asked)."""
    from memory.reading.about import about_others, relative_news

    return about_others(clause) or relative_news(clause)


def _sort_plain(s: _Sentence, clause: str) -> None:
    """A clause with no slot: a fact in the user's words when it is about the user, else nothing."""
    kind = kind_of(clause)
    if s.whim:
        s.generic.append((kind or "plan", clause))
    elif (
        DANGLING.search(clause)
        or EXCLAIMED.search(clause)
        or (TO_THE_LISTENER.search(clause) and clause not in s.standing)
        or REASON.search(clause)
        or OTHER_PEOPLE.search(clause)
        or (
            len(content_terms(clause)) < (1 if s.chinese else 2)
            and not lasting(clause, chinese=s.chinese, alone=len(s.clauses) == 1, whim=s.whim)
        )
        or (short_state(clause) and not lasting(clause, chinese=s.chinese, alone=len(s.clauses) == 1, whim=s.whim))
    ):
        return
    elif clause in s.standing:
        s.generic.append((kind if kind in {"preference", "constraint"} else "preference", clause))
    elif not s.change and DATED.search(clause) and not IDENTIFIER_TALK.search(clause):
        s.generic.append(("plan", clause))  # "The wedding is on June 14th", "周二去见银行的人"
    elif (kind and FIRST_PERSON.search(clause)) or (
        not IDENTIFIER_TALK.search(clause) and (SUBJECT_ZH if s.chinese else SUBJECT_EN).search(clause)
    ):
        # "现在更喜欢绿色，不是蓝色了": a correction needs no subject to be about the user
        s.generic.append((kind or generic_kind(clause), clause))
    elif SUBJECTLESS_SELF.search(clause.strip()) and not IDENTIFIER_TALK.search(s.text):
        s.generic.append((kind or generic_kind(clause), clause))
    elif kind == "plan" and SUBJECTLESS_PLAN.search(clause) and not IDENTIFIER_TALK.search(s.text):
        if not PUT_OFF.search(clause):  # "下个月要去云南自驾", "planning to sell the car": the user's own plans
            s.generic.append(("plan", clause))
    elif s.change and not IDENTIFIER_TALK.search(clause):
        # "The bank meeting moved to Thursday": no subject, so it may only change a fact the user already gave
        # (memory.services.writing.writing), never stand alone
        s.corrections_only.add(clause)
        s.generic.append((kind or generic_kind(clause), clause))


def _slot_candidate(s: _Sentence, slot: str, slot_clauses: list[str]) -> Candidate | None:
    """The candidate for one slot of the sentence, or None when its clauses do not give it after all."""
    topic = TOPIC_BY_SLOT[slot]
    joined = s.comma.join(REASON.sub("", c) if REASON.search(c) and len(slot_clauses) == 1 else c for c in slot_clauses)
    quote = span(s.text, slot_clauses) or s.quotes.get(joined) or joined
    cm = CHANGE.search(joined)
    value = slot_value(
        topic,
        joined,
        cm.end() - 1 if cm else -1,  # the new value follows the marker
        keyword=True if slot in s.from_reply else None,
    )
    settled = _slot_kind_and_value(s, topic, joined, slot_clauses, value)
    if settled is None:
        return None
    kind, value = settled
    hedged = bool(HEDGE.search(joined)) or s.hedged
    if value is not None and hedged and "amount" in value:
        value["approx"] = True
    if slot in {"location", "business"} and not FIRST_PERSON.search(joined) and not SUBJECTLESS_SELF.search(joined):
        if not any(FIRST_PERSON.search(c) for c in s.clauses) and (not s.change or _SOMEONE_MOVED.search(joined)):
            return None  # "Ronan finally moved to Limerick": his move, not the user's
    content_quote = joined + (
        s.comma + s.reason if s.reason and not any(REASON.search(c) for c in slot_clauses) else ""
    )
    if slot == "business" and value and "business" in s.by_slot and "location" in s.by_slot:
        loc = PLACE_ZH.search(s.text) or PLACE_EN.search(s.text)
        if loc and s.chinese:
            value = dict(value, place=loc.group(1))
    content = render(slot, kind, value, content_quote if slot not in NUMERIC_SLOTS else joined, s.chinese)
    if PAST.search(joined) and not s.change:  # "I used to live in Toronto": a fact, never the slot's present value
        return Candidate(kind=kind, key="", content=content, value=None, confidence=0.85, quote=quote)
    confidence = 0.9 if s.change else 0.85
    if hedged:
        confidence = 0.6
    return Candidate(
        kind=kind,
        key=slot if kind == topic.kind else f"{kind}:{slot}",
        content=content,
        value=value,
        confidence=confidence,
        quote=quote,
        hedged=hedged,
        change=bool(s.change),
        whim=s.whim,
    )


# a named person's move ("Ronan finally moved to Limerick"), not a subjectless one of the user's ("Moved to Leeds!")
_SOMEONE_MOVED = re.compile(
    r"^\W*(?!(?:I|We|My|Our|Just|Finally|Recently|Moved|Relocated|Now|Also|So|Oh|Btw|Well|Actually)\b)[A-Z][a-z]+"
    r"\s+(?:(?:just|finally|recently|has|had|have)\s+)*(?:moved|relocated|went|left|lives|is living)\b"
)


def _slot_kind_and_value(
    s: _Sentence, topic: Topic, joined: str, slot_clauses: list[str], value: dict | None
) -> tuple[str, dict | None] | None:
    """The slot's kind (a plan or a decision about it, or the topic's own kind) and value, or None when the
    clauses name the slot without giving it (a number-less budget, a price, a floor instead of a place)."""
    slot = topic.slot
    kind = topic.kind
    marker = kind_of(joined)
    if marker in {"plan", "conclusion"} and slot not in NUMERIC_SLOTS:
        kind = marker
    if slot == "location":
        place = place_in(joined)
        if not place:  # "我住在12楼": where, but no place name: the user's words as a plain fact
            if (FIRST_PERSON.search(joined) or SUBJECTLESS_SELF.search(joined.strip())) and not s.whim:
                s.generic.extend(
                    (kind_of(c) or "profile", c) for c in slot_clauses if (kind_of(c) or "profile", c) not in s.generic
                )
            return None
        return kind, {"place": place}
    if slot == "business":
        m = BUSINESS_ZH.search(joined) or BUSINESS_EN.search(joined)
        if m:
            btype = m.group(1)
            btype = (
                btype.split("的")[-1]
                if s.chinese
                else re.sub(
                    r"^(?:\d+[\w-]*\s+)?(?:(?:square|sq)\s+)?(?:meters?|metres?|feet|foot|sqm|m2)?\s*", "", btype
                )
            )
            value = {"type": btype.strip()}
        elif len(s.by_slot) > 1 and kind not in {"plan", "conclusion"}:
            return None  # "my shop is 60 m²": the shop is only the subject of another slot's fact
        if kind == "business_status" and not m:
            kind = marker or "business_status"
        return kind, value
    if slot in NUMERIC_SLOTS and value is None:
        return None
    if topic.options and value is None and not FIRST_PERSON.search(joined) and not SUBJECTLESS_SELF.search(joined):
        return None
    if (
        topic.options
        and not s.change
        and not any(FIRST_PERSON.search(c) for c in s.clauses)
        and (PRICE.search(joined) or any(q.unit == "money" for q in quantities(joined)))
    ):
        return None  # "A latte costs 4.50 downstairs", "拿铁一杯 32 块": the price of a thing, not a taste
    return kind, value


def _limit_candidates(s: _Sentence) -> list[Candidate]:
    out = []
    for what, share, clause in s.limits:
        hedged = bool(HEDGE.search(clause)) or s.hedged
        out.append(
            Candidate(
                kind="constraint",
                key=f"limit:{what}"[:100],
                content=third_person(clause, s.chinese),
                value={"share": share},
                confidence=0.6 if hedged else 0.85,
                quote=s.quotes.get(clause, clause),
                hedged=hedged,
                change=bool(s.change),
                whim=s.whim,
            )
        )
    return out


def _generic_candidates(s: _Sentence) -> list[Candidate]:
    out = []
    for kind, clause in s.generic:
        hedged = bool(HEDGE.search(clause)) or s.hedged
        out.append(
            Candidate(
                kind=kind,
                key="",
                content=third_person(clause, s.chinese),
                value=None,
                confidence=0.6 if hedged else 0.75,
                quote=s.quotes.get(clause, clause),
                hedged=hedged,
                change=bool(s.change),
                whim=s.whim,
                extra={"needs_match": clause in s.corrections_only, "said_with": s.text} if s.change else {},
            )
        )
    return out
