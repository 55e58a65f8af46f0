"""The example task types every assistant starts with (editable in the admin). Plain data, so that the data
migration and `task_types_install_examples` ship exactly the same thing.

Each required field: name, description, kind (name | date | count | amount | place | text; see
tasks.services.field_extraction) and aliases in both languages, so that "预算：20万" and "budget is 20k" both fill it.
"""

EXAMPLE_TASK_TYPES = [
    {
        "name": "项目计划",
        "trigger_phrases": ["项目计划", "项目规划", "项目方案", "做个计划", "做一个计划", "做计划"],
        "required_fields": [
            {
                "name": "项目名称",
                "description": "项目叫什么",
                "kind": "name",
                "aliases": ["项目名", "名称", "project name"],
            },
            {
                "name": "截止时间",
                "description": "什么时候必须完成",
                "kind": "date",
                "aliases": ["截止日期", "截止", "期限", "交付时间", "上线时间", "deadline", "due date"],
            },
            {
                "name": "团队规模",
                "description": "参与的人数",
                "kind": "count",
                "aliases": ["团队人数", "人数", "团队", "人手", "team size", "headcount"],
            },
            {
                "name": "预算",
                "description": "可用的资金",
                "kind": "amount",
                "aliases": ["经费", "费用", "资金", "budget"],
            },
        ],
        "completion_prompt": "根据收集到的信息生成项目计划：阶段与里程碑、人员分工、预算分配、主要风险。",
    },
    {
        "name": "Project plan",
        "trigger_phrases": [
            "project plan",
            "project planning",
            "plan a project",
            "plan for a project",
            "plan for my project",
            "plan my project",
        ],
        "required_fields": [
            {
                "name": "project name",
                "description": "what the project is called",
                "kind": "name",
                "aliases": ["name", "title", "项目名称"],
            },
            {
                "name": "deadline",
                "description": "when it must be done",
                "kind": "date",
                "aliases": ["due date", "due", "launch date", "截止时间"],
            },
            {
                "name": "team size",
                "description": "how many people work on it",
                "kind": "count",
                "aliases": ["team", "headcount", "people", "团队规模"],
            },
            {
                "name": "budget",
                "description": "the money available",
                "kind": "amount",
                "aliases": ["cost", "funding", "预算"],
            },
        ],
        "completion_prompt": "Write the project plan from the collected facts: phases and milestones, who does "
        "what, how the budget is split, the main risks.",
    },
]
