"""What is not a fact about the user: requests to the assistant, claims of authority, injected markup."""

from __future__ import annotations

import re

# "我们来做一个项目计划", "let's plan the launch", "I need you to draft a list": the user asks for work, and says
# nothing about themselves.
REQUEST = re.compile(
    r"^(?:那|好|好的|那么|ok|okay)?[，, ]*(?:我们|咱们|咱|让我们)?(?:来|一起)(?:做|写|列|弄|搞|想|规划|定|聊|算|排|整理|讨论)|"
    r"(?:我想|我要|我需要|我希望|想)?(?:你|您)(?:来|帮|给|替|能|可以|先|再)|^(?:我)?(?:需要|想要?|要)(?:一个|一份|个|份)|"
    r"(?:做|写|列|出|制定|定|规划|起草|整理|生成|来)(?:一个|一份|个|份|一下)?(?:新的|另一个|另一份)?.{0,8}?(?:计划|方案|清单|"
    r"大纲|报告|总结|表格|文案|提纲|规划|日程|攻略)(?:吧|吗|呢)?[。!！]?$|"
    r"^(?:let's|let us|shall we)\b|\b(?:i want|i need|i'd like|i would like) you to\b|"
    r"^(?:i (?:want|need|would like|'d like)|give me|make me|write me|draft|create|prepare|build|show me|list) "
    r"(?:a|an|the|another|a new|my|some)?\s*(?:\w+\s){0,3}(?:plan|list|outline|summary|draft|report|table|"
    r"itinerary|schedule|proposal|checklist|budget plan)s?\b",
    re.IGNORECASE,
)
# Text shaped like a system prompt, a chat-template token or a settings change is never a fact.
MARKUP = re.compile(
    r"</?\s*(?:system|user|assistant|developer|tool|im_start|im_end|inst|sys|prompt|instructions?|admin|root|"
    r"sudo|override)\b[^>]{0,40}>|"
    r"<\|[^|>]{1,30}\|>|\[/?\s*(?:system|inst|sys|admin|developer)\s*\]|【\s*(?:系统|管理员|开发者)[^】]{0,10}】|"
    r"^\s*(?:#+\s*|```\s*)?(?:system|系统|sys)\s*[:：\n]|```\s*(?:system|sys)\b|"
    r"\b(?:system prompt|developer mode|jailbreak|dan mode)\b|系统提示|系统指令|系统消息|开发者模式|越狱模式|"
    r"\bignore (?:all |any |every )?(?:of )?(?:the |your )?(?:previous|prior|above|earlier|preceding|former)\s+"
    r"(?:instructions|rules|prompts?|messages|directions)|\bdisregard (?:all |the |your )?(?:previous |prior |above )?"
    r"(?:instructions|rules)|忽略(?:掉)?(?:你)?(?:之前|以上|前面|上面|先前|所有)?(?:的)?(?:所有)?(?:指令|规则|设定|提示|要求|限制)|"
    r"\b(?:pii_policy|recall_top_k|inferred_policy|review_confidence_threshold|ttl_days_by_kind|"
    r"budget_memories_tokens|recall_all_below|chat_model|embedding_model|system_prompt|policy_overrides)\b|"
    r"[\"']role[\"']\s*:\s*[\"'](?:system|assistant|developer)[\"']",
    re.IGNORECASE,
)
# A claim of role or authority over the platform ("我是管理员", "I'm the admin", "I have root access").
CLAIM = re.compile(
    r"(?:我是|我就是|本人是|我作为|作为|我现在是|我乃)(?:这个|本|你们的?|你的|该)?(?:平台|系统|网站|应用|app|服务|机器人|助手)?的?"
    r"(?:超级|最高|系统)?(?:管理员|管理者|开发者|开发人员|站长|版主|运营人员|所有者|root|admin|主人|创造者|创建者)|"
    r"(?:最高|管理员|root|超级|系统|开发者)权限|授权你|我有权|你必须听我的|以(?:管理员|开发者|系统)身份|管理员模式|"
    r"\bi(?:'m| am)\s+(?:now\s+)?(?:the|an?|your|this (?:platform|system|site|app)'s)\s+(?:super\s?)?"
    r"(?:admin(?:istrator)?|moderator|developer|owner|operator|creator|root user|superuser)\b"
    r"(?=\s*(?:$|[.,!;:]|here\b|now\b|so\b|and\b|of (?:this|the|your) (?:platform|system|site|app|assistant|"
    r"service|bot)\b))|"
    r"\bi have (?:root|admin(?:istrator)?|full|elevated|superuser|special) (?:access|rights|privileges|permissions)\b|"
    r"\bas (?:your|the|an?|this (?:platform|system)'s) (?:admin(?:istrator)?|developer|operator|owner|moderator|creator)\b|"
    r"\bi authori[sz]e you\b|\b(?:openai|anthropic|google) (?:employee|staff|engineer|researcher)\b|"
    r"\byou must obey me\b",
    re.IGNORECASE,
)


def injection_kind(text: str) -> str | None:
    """ "markup" for text shaped like a system prompt, a template token or a settings change; "claim" for a claim of
    role or authority; None otherwise. Neither is a fact about the user."""
    if MARKUP.search(text or ""):
        return "markup"
    if CLAIM.search(text or ""):
        return "claim"
    return None


def is_request(clause: str) -> bool:
    return bool(REQUEST.search((clause or "").strip()))
