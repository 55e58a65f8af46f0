"""Headers of the context sections. The context builder writes them; the offline model reads them back, so the
offline reply can only use what was really sent."""

PINNED = "【已确认的关键信息 Pinned facts】"
MEMORIES = "【关于这位用户的长期记忆 What you remember about this user】"
TASK = "【进行中的任务 Task in progress】"
HINTS = "【本轮回复必须包含以下句子 Your reply must include these sentences verbatim】"
SUMMARY = "【之前对话的摘要 Summary of the earlier conversation】"
UNCOMPACTED = "【尚未压缩的更早消息要点 Earlier messages not yet compacted】"
TRUNCATED_NOTE_ZH = "【注意：这条消息太长，只发送了开头和结尾；原文已完整保存，共 {chars} 个字符。】"
TRUNCATED_NOTE_EN = (
    "[Note: this message was too long; only its beginning and end were sent. It is stored intact ({chars} characters).]"
)
ALL = (PINNED, MEMORIES, TASK, HINTS, SUMMARY, UNCOMPACTED)
