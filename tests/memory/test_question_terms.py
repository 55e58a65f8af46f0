"""A Chinese question is matched by its words: the bigrams that cross its word boundaries ("我之", "前说", "是怎")
are left out, so the notes that share only a question's framing are not keyword matches, and the notes holding its
words are found as before, for this user only."""

import pytest

from core.policy import memory_policy_for
from memory.services.notes.notes import memory_note_create
from memory.services.recall.query_terms import query_terms, question_terms
from memory.services.recall.recall import memory_recall
from memory.services.vectors.embeddings import search_terms
from tests.factories import EndUserFactory
from tests.memory.test_keyword_terms import KEYWORDS_ONLY

QUESTIONS = [
    # (question, terms it must keep, cross-word bigrams it must leave out)
    ("我之前说的魔术表演是怎么样的", {"魔术", "表演"}, {"我之", "前说", "的魔", "术表", "是怎"}),
    ("你还记得我女儿在学什么乐器吗", {"女儿", "乐器"}, {"你还", "儿在", "学什", "器吗"}),
    ("上次聊到我搬家去哪个城市了", {"搬家", "城市"}, {"我搬", "家去", "市了"}),
    ("我不吃辣吗", {"吃辣"}, {"我不", "辣吗"}),  # a one-character word reaches into its neighbour
    ("我住在杭州西湖边", {"杭州", "西湖"}, {"在杭", "州西"}),
    ("张伟周末喜欢去哪里爬山", {"张伟", "周末", "爬山"}, {"伟周", "末喜", "哪里"}),
    ("她现在读几年级了", {"年级"}, {"几年", "现在", "在读"}),  # the question character goes, what follows stays
    ("我之前說的魔術表演是怎麼樣的", {"魔術", "表演"}, {"我之", "前說", "怎麼", "麼樣"}),  # traditional
]


@pytest.mark.parametrize("question, kept, left_out", QUESTIONS, ids=[q for q, _, _ in QUESTIONS])
def test_a_chinese_questions_terms_are_its_words_not_the_bigrams_across_them(question, kept, left_out):
    terms = query_terms(question)
    assert kept <= set(terms), terms
    assert not left_out & set(terms), terms
    assert set(terms) <= set(search_terms(question))  # nothing a stored note could not hold


def test_english_and_numbers_keep_their_terms_and_the_size_counts_every_term():
    question = "Where did I park the car on 3rd street? 我的车停在哪"
    terms, size = question_terms(question)
    assert {"park", "car", "3", "street"} <= set(terms)
    assert size == len(set(search_terms(question))) > len(terms)
    assert question_terms("") == ([], 0)


def test_notes_sharing_only_a_questions_framing_are_not_keyword_matches(make_person):
    person = make_person(recall_all_below=0)
    framing = [
        "我之前说过周末要加班",
        "我之前说的那家店关门了",
        "是怎么回事我也说不清",
        "我之前说要早点睡觉",
    ]
    for content in framing + ["用户在公司年会上表演了魔术"]:
        memory_note_create(
            tenant=person.tenant,
            end_user=person.end_user,
            kind="profile",
            content=content,
            policy=memory_policy_for(tenant=person.tenant),
        )
    other = EndUserFactory(tenant=person.tenant)  # a second user of the same tenant, with the same words
    memory_note_create(
        tenant=person.tenant,
        end_user=other,
        kind="profile",
        content="用户的魔术表演很受欢迎",
        policy=memory_policy_for(tenant=person.tenant),
    )

    items = memory_recall(
        tenant=person.tenant,
        end_user=person.end_user,
        query="我之前说的魔术表演是怎么样的",
        k=5,
        touch=False,
        weights=KEYWORDS_ONLY,
        policy=memory_policy_for(tenant=person.tenant),
    )

    shown = [(i.content, i.score) for i in items]
    assert items[0].content == "用户在公司年会上表演了魔术" and items[0].score > 0, shown
    assert [i.content for i in items if i.score > 0] == ["用户在公司年会上表演了魔术"], shown
    assert "用户的魔术表演很受欢迎" not in [i.content for i in items]
    assert len(items) == 5  # exactly k: the user has five notes
