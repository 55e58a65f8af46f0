"""Which of a user's notes a forget request (or a correction) names: by meaning, not by shared words.

The request's phrase ("my peanut thing", "我过敏那个") is compared with each of the user's forgettable notes by the
shipped multilingual encoder, with the words they share as a feature. A note is named when its score clears a
threshold; when the two best notes are about equally close and the request does not speak of a whole topic
("everything about my dog"), the reader does not guess: the turn asks which one was meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from memory.reading import cues
from memory.reading.domains import AREAS, area_named, area_shares, first_person
from memory.reading.facets import others_unnamed, someone_elses
from memory.reading.heads import head_missing
from memory.reading.intents import encode
from memory.reading.kinship import kin_mismatch, other_animal
from memory.reading.mentions import NAMED, residence
from memory.reading.phrases import forget_gist
from memory.reading.second import closer_than_the_rest

THRESHOLD = 0.45  # a note this close is what the request names
LOW = 0.25  # … and one this close, when no other note comes within GAP of it
GAP = 0.15
MARGIN = 0.15  # two notes this close to each other and over the threshold: ask which, unless a topic is named
ASK_FLOOR = 0.35  # a second note under this is not a rival worth asking about
TOPIC_KEEP = 0.3  # with a topic-wide request, every note within this of the best (and over LOW) goes
LEXICAL_WEIGHT = 0.15
SLOT_WEIGHT = 0.35  # the note's slot is the one the phrase names ("my commute" -> commute)
AREA_WEIGHT = 0.5  # the phrase and the note are about one area of life ("my health" / "takes amlodipine daily")
NAME_WEIGHT = 0.3  # the phrase says a name the note gives ("forget marcus" / "The user's ex is called Marcus")
KIN_MISMATCH = 0.35  # the phrase speaks of the user and the note of their people, or the other way round
OTHER_RELATIVE = 1.0  # a forget that names a relative never means a note of others only ("我表弟" / "用户的女儿")
SECOND_WEIGHT = 4.0  # per unit the second encoder finds a note closer than the median of the closest few
SECOND_TOP = 8
MAX_NOTES = 400  # a user's most recent forgettable notes that are compared (a forget names a recent fact)


@dataclass
class Targeting:
    """The notes a request names (`named`), or the two it could mean (`ask`), each as [(note, score)]."""

    named: list = field(default_factory=list)
    ask: list = field(default_factory=list)


HEAD_MISSING = 0.3  # the note shares a modifier of the phrase, not the thing it names


def _lexical(phrase: str, note) -> float:
    """The share of the phrase's terms the note holds (its words, and the slot's terms kept for keyword recall)."""
    from memory.services.vectors.embeddings import search_terms

    terms = set(search_terms(phrase))
    if not terms:
        return 0.0
    held = set(search_terms(note.content)) | set((getattr(note, "search_text", "") or "").split())
    # a lone Chinese character ("狗") is a word of its own, which the note's bigrams do not list
    return len({t for t in terms if t in held or (len(t) == 1 and t in note.content)}) / len(terms)


# a name as a note writes it: capitalised words in a row, not the sentence's first ("Cat Stevens", "Marcus")
_NAME_RUN = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*")


def _names_said(phrase: str, notes: list) -> set[str]:
    """The whole names the user's notes give that the phrase says, in any case ("forget marcus" / "ex is called
    Marcus"; not "my cat" / "listens to Cat Stevens"): a name picks out its notes better than meaning does."""
    names = {n.lower() for note in notes for n in _NAME_RUN.findall(note.content)}
    names |= {n for note in notes for n in NAMED.findall(note.content)}
    said = phrase.lower()
    return {n for n in names if (re.search(rf"(?<!\w){re.escape(n)}(?!\w)", said) if n.isascii() else n in said)}


def _holds_name(names: set[str], content: str) -> bool:
    """A Latin name as the note writes it, whole ("Google", not "Google Pixel"); a Chinese one anywhere in it
    ("乐乐" in "用户的儿子乐乐有自闭症", named by "用户的儿子叫乐乐")."""
    own = {n.lower() for n in _NAME_RUN.findall(content)}
    return any(n in own if n.isascii() else n in content for n in names)


def _slots(note) -> set[str]:
    """The note's slot and every slot its words are on ("用户的狗叫旺财" is on the pet slot, keyed or not)."""
    from memory.services.writing.topics import topics_in

    key = (getattr(note, "key", "") or "").split(":")[-1]
    return ({key} if key else set()) | {t.slot for t in topics_in(note.content)} | residence(note.content)


def notes_scored(phrase: str, notes: list, *, areas: bool = False, named: bool = False) -> list[tuple[object, float]]:
    """(note, score) for each note, best first: cosine of the phrase and the note, plus the features: the area of
    life both are about (memory.reading.domains: for a request that may name an area, `areas`), shared words, the
    slot the phrase names, a relative it does not (or a note about one of the user's people, when the phrase speaks
    of the user alone), and (for a phrase that names a thing, `named`: a forget, not a
    statement of a new value) a head the note lacks."""
    if not notes:
        return []
    from memory.services.writing.topics import query_topics

    vectors = encode([phrase] + [n.content for n in notes])
    sims = vectors[1:] @ vectors[0]
    shares = area_shares(encode([phrase] + [first_person(n.content) for n in notes])) if areas else np.zeros((1, 1))
    same_area = shares[1:] @ shares[0] if areas else np.zeros(len(notes))
    slots = set(query_topics(phrase)) | residence(phrase)
    names = _names_said(phrase, notes)
    scored = [
        (
            note,
            float(sim)
            + AREA_WEIGHT * float(area)
            + LEXICAL_WEIGHT * _lexical(phrase, note)
            + (SLOT_WEIGHT if _slots(note) & slots else 0.0)
            + (NAME_WEIGHT if _holds_name(names, note.content) else 0.0)
            - ((OTHER_RELATIVE if named else KIN_MISMATCH) if kin_mismatch(phrase, note.content) else 0.0)
            - (HEAD_MISSING if named and head_missing(phrase, note) else 0.0)
            - (KIN_MISMATCH if others_unnamed(phrase, note.content) else 0.0)
            - (OTHER_RELATIVE if named and someone_elses(phrase, note.content) else 0.0)
            - (KIN_MISMATCH if other_animal(phrase, note.content) else 0.0),
        )
        for note, sim, area in zip(notes, np.asarray(sims).tolist(), same_area.tolist(), strict=True)
    ]
    return sorted(scored, key=lambda pair: pair[1], reverse=True)


def _whole_topic(phrase: str, scored: list) -> list:
    """Every note a topic-wide request names: those within TOPIC_KEEP of the best, those holding every word of the
    phrase ("书法的事都忘掉": each note on calligraphy), and those naming what a named note names (the dog's
    walks go with the dog)."""
    best = scored[0][1]
    named = [(n, s) for n, s in scored if s >= LOW and (s >= best - TOPIC_KEEP or _lexical(phrase, n) >= 0.99)]
    names = set().union(*(set(NAMED.findall(n.content)) for n, _ in named)) if named else set()
    kept = {id(n) for n, _ in named}
    named += [(n, s) for n, s in scored if id(n) not in kept and any(name in n.content for name in names)]
    return named


_AND = re.compile(r"\s+(?:and|&|as well as|plus)\s+(?:the\s+|my\s+)?|和|跟|以及|还有|、", re.IGNORECASE)


# one person of the family, finer than _KIN's groups ("my dad" is not "my mum")
_PERSON = {
    "father": r"\b(?:dad|daddy|father|papa|pop)\b|爸|父亲",
    "mother": r"\b(?:mum|mom|mummy|mommy|mother|mama)\b|妈|母亲",
    "wife": r"\bwife\b|老婆|妻子|太太|媳妇",
    "husband": r"\bhusband\b|老公|丈夫",
    "son": r"\bsons?\b|儿子",
    "daughter": r"\bdaughters?\b|女儿|闺女",
    "cousin": r"\bcousins?\b|[表堂][哥姐弟妹]",
    "brother": r"\bbrothers?\b|(?<![表堂])[哥弟]",
    "sister": r"\bsisters?\b|(?<![表堂])[姐妹]",
    "partner": r"\b(?:partner|girlfriend|boyfriend|fianc[ée]e?)\b|男朋友|女朋友|对象|未婚[夫妻]",
    "grandmother": r"\b(?:grandma|grandmother|nan|nana|granny)\b|奶奶|外婆|姥姥",
    "grandfather": r"\b(?:grandpa|grandfather|grandad)\b|爷爷|外公|姥爷",
}
_PERSON_RX = {k: re.compile(v, re.IGNORECASE) for k, v in _PERSON.items()}
_PARENTS = re.compile(r"\bparents?'?\b|父母|爸妈|二老|双亲", re.IGNORECASE)  # both of them
AREA_LIST = list(AREAS)
AREA_SHARE = 0.5
_ONE_THING = {
    "vehicle",
    "home",
    "commute",
}  # "my car" is one car, not every note in its area  # a note this much in the area a request names goes with an area-wide forget


def _same_person(phrase: str, notes: list) -> list:
    """The notes about the one person the phrase names ("my dad": his age, his health, where he lives)."""
    people = {k for k, rx in _PERSON_RX.items() if rx.search(phrase)}
    if _PARENTS.search(phrase) and not people:
        return [
            (n, LOW) for n in notes if _PERSON_RX["father"].search(n.content) or _PERSON_RX["mother"].search(n.content)
        ]
    if len(people) != 1:
        return []
    rx = _PERSON_RX[people.pop()]
    return [(n, LOW) for n in notes if rx.search(n.content)]


def _same_area(phrase: str, notes: list) -> list:
    """The notes mostly in the area of life the phrase names ("my health info": blood pressure, an allergy)."""
    named = area_named(phrase)
    if not notes or named is None or named in _ONE_THING:
        return []
    shares = area_shares(encode([first_person(n.content) for n in notes]))
    area = AREA_LIST.index(named)
    if named == "family":  # "家里人的事": each note about a relative, whatever else it is about
        return [(n, LOW) for n in notes if any(rx.search(n.content) for rx in _PERSON_RX.values())]
    return [(n, LOW) for n, row in zip(notes, shares, strict=True) if row.argmax() == area and row[area] >= AREA_SHARE]


def notes_targeted(phrase: str, notes: list, *, topic_wide: bool, one_note: bool = False) -> Targeting:
    """Decide from the scores: the named notes, or the two to ask about, or nothing. A phrase that names two
    things ("the diet and the weight-loss stuff", "公司和住址") is two requests."""
    parts = [p.strip() for p in _AND.split(phrase) if len(p.strip()) >= 2]
    if len(parts) > 1:
        named: list = []
        ask: list = []
        found = [_targeted(part, notes, topic_wide=topic_wide, one_note=one_note) for part in parts]
        for one in found:
            named += [pair for pair in one.named if pair[0] not in [n for n, _ in named]]
            ask = ask or one.ask
        return Targeting(ask=ask) if ask and not named else Targeting(named=named)
    return _targeted(phrase, notes, topic_wide=topic_wide, one_note=one_note)


def _targeted(phrase: str, notes: list, *, topic_wide: bool, one_note: bool = False) -> Targeting:
    """The notes themselves first; when none stands out, or the phrase names a whole area of life ("my health
    stuff"), the areas the notes are about decide ("my medication" names "takes metformin for type 2 diabetes").
    A request for one note ("收入那条") gets one, or the question which."""
    found = _targeted_all(phrase, notes, topic_wide=topic_wide, one_note=one_note)
    if not one_note or len(found.named) < 2:
        return found
    ranked = sorted(found.named, key=lambda pair: pair[1], reverse=True)
    return Targeting(named=ranked[:1]) if ranked[0][1] - ranked[1][1] >= GAP else Targeting(ask=ranked[:2])


def _targeted_all(phrase: str, notes: list, *, topic_wide: bool, one_note: bool = False) -> Targeting:
    if not topic_wide:
        asked = _which_one(phrase, notes)
        if asked is not None:
            return asked
    if one_note and not topic_wide:  # "收入那条": one note of its area, found among the notes first
        found = _targeted_all(phrase, notes, topic_wide=False)
        alone = _decided(phrase, _second_opinion(phrase, notes_scored(phrase, notes, named=True), False), wide=False)
        return alone if alone.named or alone.ask else found
    wide = topic_wide or area_named(phrase) not in (None, *_ONE_THING)  # "my car" is one thing, not an area
    found = _decided(phrase, _second_opinion(phrase, notes_scored(phrase, notes, named=not wide), wide), wide=wide)
    if wide:  # "everything about my dad", "all my health info": each note about that person, or in that area
        held = {id(n) for n, _ in found.named}
        found.named += [
            (n, s)
            for n, s in _same_person(phrase, notes) + _same_area(phrase, notes)
            if id(n) not in held and not others_unnamed(phrase, n.content)  # "my health": not the brother's
        ]
        found.ask = [] if found.named else found.ask
    if found.named or found.ask:
        return found
    return _decided(phrase, notes_scored(phrase, notes, areas=True, named=not wide), wide=wide)


def _second_opinion(phrase: str, scored: list, wide: bool) -> list:
    """`scored` with the second encoder's word on the closest few (memory.reading.second), for a request that names
    one thing; a whole topic is the areas' to decide."""
    if wide or len(scored) < 2 or scored[0][1] < LOW:
        return scored  # the first encoder found nothing: a second one does not name a note on its own
    top = scored[:SECOND_TOP]
    shift = closer_than_the_rest(phrase, [n.content for n, _ in top])
    rescored = [
        (n, s + SECOND_WEIGHT * (d if s >= LOW else min(d, 0.0))) for (n, s), d in zip(top, shift, strict=True)
    ] + scored[SECOND_TOP:]
    return sorted(rescored, key=lambda pair: pair[1], reverse=True)


_ANIMAL = re.compile(r"\b(?:dogs?|cats?|pupp(?:y|ies)|kittens?|rabbits?|horses?)\b|狗|猫|兔|马", re.IGNORECASE)
_ONLY_WHO = re.compile(
    r"\b(?:my|our|the|about|one|note|entry|thing)\b|我家|我们|我|的|那条|这条|那个|一条|条|把", re.IGNORECASE
)
_WHICH = re.compile(r"\bwhich\b|哪", re.IGNORECASE)
WHICH_GAP = 0.2  # "which book I'm reading" between two notes this close: ask


def _which_one(phrase: str, notes: list) -> Targeting | None:
    """Ask instead of guessing when the phrase names only whom ("我哥那条", "my dog") and two notes are about such a
    one (大哥 and 二哥, two dogs), or asks "which" of two notes about equally close."""
    found = [m for m in (rx.search(phrase) for rx in [*_PERSON_RX.values(), _ANIMAL]) if m is not None]
    kinds = [m.re for m in found]
    if len(kinds) == 1:
        rest = re.sub(r"[\W_]", "", _ONLY_WHO.sub("", kinds[0].sub("", phrase)))
        named = found[0].group().lower().rstrip("s")  # "狗" asks between two dogs, not a dog and a cat
        such = [n for n in notes if kinds[0].search(n.content) and named in n.content.lower()]
        if not rest and len(such) >= 2:
            scored = notes_scored(phrase, such)
            return Targeting(ask=scored[:2])
    if _WHICH.search(phrase):
        scored = notes_scored(phrase, notes, named=True)
        if len(scored) > 1 and scored[0][1] - scored[1][1] < WHICH_GAP and scored[1][1] >= LOW:
            return Targeting(ask=scored[:2])
    return None


def _decided(phrase: str, scored: list, *, wide: bool) -> Targeting:
    if not scored or scored[0][1] < LOW:
        return Targeting()
    best = scored[0][1]
    second = scored[1][1] if len(scored) > 1 else -1.0
    if wide:
        return Targeting(named=_whole_topic(phrase, scored))
    both_hold_it = second >= LOW and _lexical(phrase, scored[0][0]) >= 0.99 and _lexical(phrase, scored[1][0]) >= 0.99
    if best < THRESHOLD and best - second < GAP and not both_hold_it:
        return Targeting()
    if (second >= ASK_FLOOR and second >= best - MARGIN) or both_hold_it:
        return Targeting(ask=scored[:2])  # two notes it could mean ("my brother": Tom or Sam?)
    return Targeting(named=scored[:1])


_TWO_THINGS = re.compile(r",\s*and (?:also )?|\band also\b|以及|还有|、", re.IGNORECASE)


# one note, said so ("收入那条", "the note about my cycle", "that one"): not every note of its area
_ONE_NOTE = re.compile(r"那条|这条|那一条|这一条|\b(?:the|that|this) (?:note|entry|one|bit|line)\b", re.IGNORECASE)
# every note the request could mean ("both my kids' names", "两个都删"): no question to ask
_ALL_OF_THEM = re.compile(
    r"\b(?:both|all \w+ of|each of|(?:those|these|the) (?:two|three|\d) (?:notes|entries|things|ones))\b|两个都|两条都|都删|全删|"
    r"[那这][两俩几三]条|[那这][两俩几三]个都",
    re.IGNORECASE,
)


def spared_removed(found: Targeting, spared: tuple[str, ...], notes: list) -> Targeting:
    """`found` without the notes the message says stay ("Jess can stay": the note that phrase names best). A
    question between a spared note and another one is answered by it."""
    keep = set()
    for phrase in spared:
        scored = notes_scored(phrase, notes)
        if scored and scored[0][1] >= LOW:
            keep.add(id(scored[0][0]))
    if not keep:
        return found
    named = [(n, s) for n, s in found.named if id(n) not in keep]
    ask = [(n, s) for n, s in found.ask if id(n) not in keep]
    return Targeting(ask=ask) if len(ask) == 2 and not named else Targeting(named=named or ask)


def user_notes_targeted(
    *, tenant, end_user, phrase: str, sentence: str = "", spared: tuple[str, ...] = ()
) -> Targeting:
    """The user's forgettable notes that `phrase` names (see notes_targeted), less those `spared`."""
    from memory.models import MemoryNote
    from memory.services.notes.notes import FORGETTABLE

    notes = list(
        MemoryNote.objects.for_tenant(tenant)
        .filter(end_user=end_user, status__in=FORGETTABLE)
        .order_by("-id")
        .only(
            "id",
            "content",
            "key",
            "kind",
            "value",
            "status",
            "search_text",
            "end_user_id",
            "tenant_id",
            "supersedes_id",
        )[:MAX_NOTES]
    )
    return targeted_among(notes, phrase=phrase, sentence=sentence, spared=spared)


def targeted_among(notes: list, *, phrase: str, sentence: str = "", spared: tuple[str, ...] = ()) -> Targeting:
    """user_notes_targeted over `notes` already read."""
    said = sentence or phrase
    wide = bool(cues.TOPIC_WIDE.search(said)) and not (_ONE_NOTE.search(said) and not _ALL_OF_THEM.search(said))
    gist = forget_gist(sentence) if sentence else ""
    if gist and _TWO_THINGS.search(gist) and not _AND.search(phrase):
        phrase = gist  # "Forget that I'm vegetarian, and also that I live in Galway": both
    found = notes_targeted(phrase, notes, topic_wide=wide, one_note=bool(_ONE_NOTE.search(said)))
    gist = forget_gist(sentence) if sentence and not (found.named or found.ask) else ""
    if gist and gist != phrase:
        found = notes_targeted(gist, notes, topic_wide=wide, one_note=bool(_ONE_NOTE.search(said)))
    if found.ask and _ALL_OF_THEM.search(said):
        found = Targeting(named=found.ask)  # "delete both my kids' names": both, no question
    return spared_removed(found, spared, notes)
