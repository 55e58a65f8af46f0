"""A question's keyword terms: the terms of memory.services.vectors.embeddings.search_terms, with Chinese read by words.

Notes and messages are indexed on every CJK bigram of their text (search_terms). A question's bigrams that cross a
word boundary ("我之前说的魔术表演" -> "我之", "前说", "的魔", "术表") match nothing in particular, yet a user with
thousands of notes has hundreds holding each of them: they cost the keyword scan most of its time and dilute the
share of the question's terms a note holds. So a question's Chinese is segmented into words (rjieba, jieba's
dictionary and HMM, in Rust: about 5 us a sentence) and keeps the bigrams inside its words, plus the bigrams a
one-character word that is not a function character makes with its neighbours ("不吃" + "辣" -> "吃辣", "喝" + "茶"
-> "喝茶": a compound the dictionary split), or, between function characters, with those ("的车", "车和": the
notes about "用户的车" hold them). Function words and characters are left out. English and numbers are unchanged.

Only the question side changes: every bigram a word holds is also a bigram of the text it was stored with, so no
stored term is recomputed.
"""

from __future__ import annotations

import rjieba

from memory.services.vectors.embeddings import CJK_CHAR, STOP_BIGRAMS, TOKEN, search_terms

# One-character words that carry no fact: pronouns, particles, the copula, prepositions, question words, measures
# (simplified, then the traditional forms that differ).
_FUNCTION_CHARS = set(
    "我你您他她它咱的地得了着是在有和与及或也都就还又再才要会能可吗呢吧啊呀嘛哦么这那哪谁啥几之其此该"
    "把被给让对向从到于跟同比为以而但却并且个些只种次很太更最挺不没别请帮想问说讲叫去来做弄搞什怎"
    "著與還會嗎麼這誰幾該讓對從於為個隻種沒別請幫問說講來"
)
# Words of two or more characters that only frame a question ("你还记得我之前说的…是怎么样的吗"), simplified and
# traditional. A word that starts with a question character keeps only what follows it (几年级 -> 年级; 几号 -> none).
_FUNCTION_WORDS = set(
    "什么 怎么 怎么样 怎么办 为什么 是不是 有没有 能不能 可不可以 记得 还记得 告诉 知道 觉得 时候 的时候 那时 当时 "
    "现在 曾经 提过 提到 说过 讲过 聊过 问过 聊到 谈到 说到 讲到 来着 多少 如何 怎样 是否 一般 通常 平常 "
    "什麼 怎麼 怎麼樣 怎麼辦 為什麼 有沒有 記得 還記得 時候 的時候 當時 現在 曾經 提過 說過 講過 聊過 問過 談到 說到 "
    "講到 來著".split()
)
_QUESTION_CHARS = "几哪幾"


def _function_word(word: str) -> bool:
    return word in _FUNCTION_WORDS or word[0] in _QUESTION_CHARS


def _one_character_terms(word: str, before: str, after: str) -> list[str]:
    """The bigrams a one-character content word makes with its neighbouring words ("" at the run's ends): into
    a neighbour that is not a function word or character ("不吃" + "辣" -> "吃辣"); when it reaches none, with its
    one-character neighbours, function characters included ("的" + "车" + "和" -> "的车", "车和")."""
    sides = [(before[-1:] + word, before, before[-1:]), (word + after[:1], after, after[:1])]
    sides = [(pair, neighbour, char) for pair, neighbour, char in sides if neighbour]
    reached = [pair for pair, neighbour, char in sides if not _function_word(neighbour) and char not in _FUNCTION_CHARS]
    return reached or [pair for pair, neighbour, _ in sides if len(neighbour) == 1]


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    words = [w for w in rjieba.cut(run) if w]
    terms: list[str] = []
    for i, word in enumerate(words):
        if len(word) >= 2:
            if word[0] in _QUESTION_CHARS:
                word = word[1:]
            if word not in _FUNCTION_WORDS:
                terms.extend(word[j : j + 2] for j in range(len(word) - 1))
        elif word not in _FUNCTION_CHARS:
            before = words[i - 1] if i > 0 else ""
            after = words[i + 1] if i + 1 < len(words) else ""
            terms.extend(_one_character_terms(word, before, after))
    return [t for t in terms if t not in STOP_BIGRAMS]


def question_terms(text: str) -> tuple[list[str], int]:
    """A question's terms to match (see the module docstring: always a subset of search_terms(text)) and its size:
    how many distinct terms search_terms gives it. Recall's keyword evidence is a share of the size, so the bigrams
    left out take their noise with them without making each remaining term weigh more than when the weights were
    measured (docs/benchmarks-history.md "Recall, ninth round": the share of the kept terms alone lost 2 of 267 Chinese
    queries' top 5). One pass over the text; not cached: about 15 us a question, and a cache would keep questions'
    text in the process."""
    kept: list[str] = []
    every: list[str] = []
    rest: list[str] = []
    for token in TOKEN.findall((text or "").lower()):
        if CJK_CHAR.match(token):
            kept.extend(_cjk_terms(token))
            every.extend(search_terms(token))
        else:
            rest.append(token)
    words = search_terms(" ".join(rest))
    return list(dict.fromkeys(kept + words)), len(set(every + words))


def query_terms(text: str) -> list[str]:
    """The terms question_terms matches."""
    return question_terms(text)[0]
