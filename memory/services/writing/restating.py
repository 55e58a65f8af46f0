"""A fact said again in other words ("I'm Brighton-based btw" after "The user lives in Brighton", "香菜我真的一口都吃
不下" after "用户不吃香菜") is the note the user already has, not a second one.

The user's nearest notes (by the stored vectors) are compared with the candidate by the shipped encoder, both as
the user would say them (memory.reading.domains.first_person), and a note is the same fact when the likeness
clears RESTATED and nothing tells them apart: another relative, another name, another number. RESTATED was set on
pairs of one user's different facts written to be confusable (the understanding sets' notes: none of 483 reach
it once the guards apply) against pairs of restatements (about half reach it).
"""

from __future__ import annotations

import re

from django.db import connection

from core.text import has_chinese
from memory.models import MemoryNote
from memory.services.notes.notes import note_index_text
from memory.services.vectors.embeddings import embed_texts, search_terms

_PERSON = re.compile(r"用户|我们|咱们|我|俺|\b(?:the user'?s?|i'm|i've|i'd|i|my|me|we|our|us)\b", re.IGNORECASE)


def fact_terms(text: str) -> set[str]:
    """Content terms of a statement, without the person it is about (the user's words and the note's third person
    must compare alike: "我对猫过敏" / "用户对猫过敏")."""
    return set(search_terms(_PERSON.sub(" ", text or "")))


RESTATED = 0.73
# Below RESTATED, a statement that names the thing a note is about is still most often that fact told another way
# ("香菜我是真的一口都碰不了" / "用户不吃香菜": 0.73, "I don't drive" / "never learned to drive": 0.70), but now and then a
# second fact about it ("Amelia has asthma" / "Amelia is 6"). Of the development sets' pairs that name one thing, this
# band holds 61 restatements and 17 such second facts: the note keeps both wordings (memory.services.writing.writing),
# so neither a duplicate is left nor a fact lost.
RESTATED_DIFFERENTLY = 0.65
# Said with no word at all in common ("我滴酒不沾" / "用户不喝酒"), a restatement needs more likeness: of 1,679 pairs of
# one user's different facts sharing no word in the development sets, none reaches 0.65; of the 5 restatements, 2 reach
# this (the others, "teetotal" / "doesn't drink alcohol" among them, stay below 0.55, as they do for multilingual-e5).
RESTATED_IN_OTHER_WORDS = 0.75
NEAREST = 8
# A statement is also compared clause by clause: a fact told again is often one clause of a longer remark
# ("狗我是真怵 路上见了都绕着走" / "用户很怕狗": 0.50 whole, 0.74 its first clause). On the development sets' pairs this
# finds 35 more of 423 restatements at the same thresholds, and 8 more of 16,404 pairs of different facts, most of
# them changes or questions, which never reach this comparison.
_PARTS = re.compile(r"\s*[,，;；。.!！?？…]+\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
_DIGITS = re.compile(r"\d+")
# a relative or animal, with the rank that tells two of a kind apart ("大姐" / "二姐", "older brother" / "younger
# brother")
_RELATION = re.compile(
    r"\b(?:(?:older|younger|big|little|elder|eldest|youngest|twin) )?(?:wife|husband|spouse|partner|missus|missis|wifey|hubby|son|daughter|"
    r"kids?|child(?:ren)?|baby|mum|mom|mother|dad|father|parents?|brother|sister|grand(?:ma|mother|pa|father)|cousin|"
    r"aunt|uncle|nephew|niece|girlfriend|boyfriend|dog|cat|puppy|kitten|rabbit|hamster|parrot)s?\b"
    r"(?! tongue| language)|"  # a mother tongue is a language, not a mother
    r"老婆|老公|妻子|丈夫|爱人|媳妇|太太|儿子|女儿|闺女|孩子|宝宝|(?<![洋布])娃|爸爸|妈妈|父亲|母亲|父母|爷爷|奶奶|外婆|外公|女朋友|男朋友|"
    r"(?:大|二|三|四|小|亲|表|堂)?(?:哥哥?|姐姐?|弟弟?|妹妹?)|狗|(?<![夜熊])猫|兔子|仓鼠|鹦鹉",  # 夜猫子: a night owl
    re.IGNORECASE,
)


# one name for each relative however it is said ("老婆", "媳妇", "wife"): "孟佳是我媳妇儿" and "用户的老婆叫孟佳" name one
_SAME_RELATIVE = (
    ("wife", re.compile(r"wife|missus|missis|wifey|老婆|妻子|媳妇|太太|爱人", re.I)),
    ("husband", re.compile(r"husband|hubby|老公|丈夫", re.I)),
    ("mother", re.compile(r"mum|mom|mother|妈妈|母亲", re.I)),
    ("father", re.compile(r"dad|father|爸爸|父亲", re.I)),
    ("son", re.compile(r"^sons?$|儿子", re.I)),
    ("daughter", re.compile(r"daughters?|女儿|闺女", re.I)),
    ("child", re.compile(r"^(?:kids?|child(?:ren)?|baby)$|孩子|宝宝|娃", re.I)),
    ("dog", re.compile(r"^(?:dog|puppy)s?$|^狗$", re.I)),
    ("cat", re.compile(r"^(?:cat|kitten)s?$|^猫$", re.I)),
)


def _one_name(word: str) -> str:
    return next((name for name, rx in _SAME_RELATIVE if rx.search(word)), word.lower())


def relations_in(text: str) -> set[str]:
    """The relatives and animals a statement names ("wife", "儿子", "猫"), each by one name in either language."""
    return {_one_name(m) for m in _RELATION.findall(text or "")}


def told_apart(a: str, b: str) -> bool:
    """Something says two statements are about different things: the relatives they name, the names they give,
    the numbers they hold."""
    from memory.reading.kinship import kin
    from memory.reading.mentions import names_in

    if kin(a) != kin(b) or relations_in(a) != relations_in(b):
        return True
    names = (names_in(a), names_in(b))
    if names[0] and names[1] and not names[0] & names[1]:
        return True
    numbers = (set(_DIGITS.findall(a)), set(_DIGITS.findall(b)))
    return bool(numbers[0] and numbers[1] and numbers[0] != numbers[1])


# the frame a fact is said in ("likes", "在学", "every day"): two facts of one frame share it and nothing else
_FRAME = re.compile(
    r"^(?:like|likes|love|loves|enjoy|enjoys|prefer|play|plays|learn|learning|work|works|live|lives|has|have|got|"
    r"every|day|week|always|usual|usually|really|from|the|and|with|for|go|goe|goes|want|need|"
    r"喜欢|欢喝|欢吃|欢看|欢玩|欢听|爱喝|爱吃|爱看|在学|学习|每天|每周|周末|经常|平时|一直|最近|现在|工作|住在|在住|"
    r"喜爱|偏爱|热爱|比较|非常|特别|真的)$",
    re.IGNORECASE,
)


def shares_the_thing(a: str, b: str) -> bool:
    """Two statements name one thing: a content term in common beyond the frame they are said in ("喜欢喝茉莉花茶" /
    "喜欢喝龙井茶" share only the frame: two facts). Two things of one kind named by a shared word ("jasmine tea" /
    "green tea") still pass: the likeness threshold and the guards are left to tell those apart."""
    shared = {t for t in fact_terms(a) & fact_terms(b) if not _FRAME.match(t)}
    return bool(shared)


def adds_to(note_text: str, said: str) -> bool:
    """Whether a statement of a note's fact holds a number the note does not ("my vinyl collection is mostly 70s
    jazz" / "The user collects vinyl records"). New words alone do not count: a rewording always brings some."""
    return bool({t for t in fact_terms(said) - fact_terms(note_text) if t.isdigit()})


def restated_note(
    *, tenant, end_user, content: str, embedding_model: str, message=None, loosely: bool = False
) -> tuple[MemoryNote | None, bool]:
    """The user's active note that `content` says again in other words (not one written from `message` itself),
    and whether it clearly does. `loosely` also accepts a note that names the same thing in the band below
    RESTATED (RESTATED_DIFFERENTLY), which the caller keeps both wordings of."""
    from memory.reading.domains import first_person
    from memory.reading.intents import encode

    model, vectors = embed_texts(texts=[note_index_text(content=content, kind="", key="")], model=embedding_model)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM memory_memorynote WHERE tenant_id = %s AND end_user_id = %s AND status = %s "
            "AND embedding_model = %s AND embedding IS NOT NULL ORDER BY embedding <=> %s::vector LIMIT %s",
            [tenant.pk, end_user.pk, MemoryNote.Status.ACTIVE, model, str(vectors[0]), NEAREST],
        )
        ids = [row[0] for row in cur.fetchall()]
    notes_qs = MemoryNote.objects.for_tenant(tenant).filter(pk__in=ids).defer("embedding")
    if message is not None:
        notes_qs = notes_qs.exclude(source_messages=message)
    notes = list(notes_qs)
    terms = fact_terms(content)
    sharing = RESTATED_DIFFERENTLY if loosely else RESTATED
    # the same relative or animal named is the thing in common too ("用户很怕狗" / "狗我是真怵": no word shared)
    kin_of = relations_in(content)
    needed = {
        n.pk: sharing
        if shares_the_thing(n.content, content) or kin_of & relations_in(n.content)
        else RESTATED_IN_OTHER_WORDS
        for n in notes
        if not told_apart(n.content, content)
        and (shares_the_thing(n.content, content) or not terms & fact_terms(n.content))
    }  # two things said in one frame ("喜欢喝茉莉花茶" / "也喜欢喝普洱茶") share a word, but not the thing
    notes = [n for n in notes if n.pk in needed]
    if not notes:
        return None, False
    parts = [content] + [part for part in _PARTS.split(content) if part != content and fact_terms(part)]
    said = encode([first_person(p) for p in parts] + [first_person(n.content) for n in notes])
    likeness = [float(x) for x in (said[len(parts) :] @ said[: len(parts)].T).max(axis=1)]
    best = max(range(len(notes)), key=lambda i: likeness[i] - needed[notes[i].pk])
    if likeness[best] < needed[notes[best].pk]:
        return None, False
    return notes[best], likeness[best] >= min(RESTATED, needed[notes[best].pk])


def restatement_of(
    *, tenant, end_user, candidate, model: str, message=None, loosely: bool = False
) -> tuple[MemoryNote | None, bool]:
    """A note of an earlier message that the candidate says again (two clauses of one message are two facts), and
    whether it clearly does (restated_note)."""
    if candidate.change or candidate.whim:
        return None, False
    return restated_note(
        tenant=tenant,
        end_user=end_user,
        content=candidate.content,
        embedding_model=model,
        message=message,
        loosely=loosely,
    )


def both_wordings(old: MemoryNote, candidate) -> str:
    """One note that says what `old` said and what the candidate adds in its own words (RESTATED_DIFFERENTLY)."""
    first = old.content.strip()
    if not first.endswith(("。", "！", "？", ".", "!", "?")):
        first += "。" if has_chinese(first) else "."
    return f"{first}{'' if first.endswith(('。', '！', '？')) else ' '}{candidate.content.strip()}"


def one_of_many(*, tenant, end_user, candidate, model: str, message) -> MemoryNote | None:
    """The note a slot-of-many candidate says again in other words, if any: one of another slot, or one of its own
    slot that names something in common beyond the slot's own name ("mother tongue is Welsh" / "Welsh is my first
    language"), which then keeps both wordings: of one slot's many, a second is never put in the place of the first."""
    from memory.services.writing.topics import TOPIC_BY_SLOT

    said, _sure = restatement_of(
        tenant=tenant, end_user=end_user, candidate=candidate, model=model, message=message, loosely=True
    )
    if said is None or said.key != candidate.key:
        return said
    topic = TOPIC_BY_SLOT.get(candidate.key.split(":")[-1])
    slot_words = fact_terms(" ".join(topic.topic_words)) if topic else set()  # "exercise", not "yoga"
    if not (fact_terms(said.content) & fact_terms(candidate.content)) - slot_words - fact_terms("the user 用户"):
        return None
    candidate.extra = {**candidate.extra, "restates": said.pk, "also_says": True}  # joined when it is written
    return said


SAME_ATTRIBUTE = 0.6
# Two statements about one relative or animal say the same thing of them (an age, a school, a job: one replaces the
# other) when they are this alike, as the user would say them: "my daughter is 6" / "… is 7" 0.85, "goes to Oakfield
# Primary" / "started at Hillside Academy" 0.71, "我儿子在实验小学上学" / "转学去了育才小学" 0.76; two facts of one person
# stay under it: "does ballet" / "is allergic to peanuts" 0.36, "我老公在腾讯上班" / "不吃辣" 0.48, "我妈妈是会计" / "退休了"
# 0.57.


def same_attribute(note_text: str, candidate_text: str) -> bool:
    """Whether a statement about one of the user's people or animals says again, or anew, what a note said of them
    (the same thing of them), rather than a second thing about them."""
    from memory.reading.domains import first_person
    from memory.reading.intents import encode

    said = encode([first_person(note_text), first_person(candidate_text)])
    return float(said[0] @ said[1]) >= SAME_ATTRIBUTE
