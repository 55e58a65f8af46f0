"""Builds bench/data/pii_adversarial.jsonl: identifiers said inside otherwise memorable sentences, in the forms
people really use, and bench/data/pii_lookalikes.jsonl: ordinary numbers and codes that must still be
stored. Run `python bench/data/build_pii_adversarial.py` to regenerate; the output is committed.

Each adversarial row follows the write-quality schema (bench/write_quality.py), so the write-quality workload
runs it as it runs its own set: `pii` lists the identifiers exactly as written; rows with `write: true` also say
a durable fact that must still be remembered once the identifier is kept out. Check digits are computed, not
invented (python-stdnum), so every card, ID and IBAN is one a validator would accept.
"""

from __future__ import annotations

import json
from pathlib import Path

from stdnum import luhn
from stdnum.cn import ric
from stdnum.kr import rrn

HERE = Path(__file__).resolve().parent


def cn_id(body17: str) -> str:
    return body17 + ric.calc_check_digit(body17 + "0")


def card(body: str) -> str:
    return body + luhn.calc_check_digit(body)


def kr_rrn(body12: str) -> str:
    return body12 + rrn.calc_check_digit(body12)


ID_A = cn_id("44030519900307123")
ID_B = cn_id("31010419851120456")
ID_C = cn_id("51010719770615001")
CARD_UNIONPAY = card("622202123456789012")
CARD_VISA = card("453201511283036")
RRN = kr_rrn("900101123456")

# (lang, text, [identifiers as written], fact): fact is None, or (kind, key) of a durable fact in the sentence.
ROWS = [
    # --- Chinese ------------------------------------------------------------------------------------------------
    ("zh", "我的手机是一三八零零一三八零零零，有事直接打。", ["一三八零零一三八零零零"], None),
    ("zh", "我是素食者，有急事打幺三九 幺二三四 五六七八。", ["幺三九 幺二三四 五六七八"], ("preference", "diet")),
    ("zh", "记一下我号码 138零零一三8000，晚上别打。", ["138零零一三8000"], None),
    ("zh", "联系我：１３９－１２３４－５６７８", ["１３９－１２３４－５６７８"], None),
    (
        "zh",
        "我在杭州开了一家咖啡馆，客户可以打 186.1234.5678 订位。",
        ["186.1234.5678"],
        ("business_status", "business"),
    ),
    ("zh", "备用号 135_1234_5678 也能找到我", ["135_1234_5678"], None),
    ("zh", "一五两零零零零一二三四是我老婆的号", ["一五两零零零零一二三四"], None),
    ("zh", "公司座机 021-6888 8888，白天有人接", ["021-6888 8888"], None),
    ("zh", "我不吃香菜。北京的办公室电话是 +86 (0)10 8888 6666", ["+86 (0)10 8888 6666"], ("preference", "food")),
    ("zh", "我的身份证是 110105 19491231 002X，帮我记住", ["110105 19491231 002X"], None),
    ("zh", f"证件号{ID_A}，办签证要用", [ID_A], None),
    ("zh", f"我老公的身份证 {ID_B[:6]}-{ID_B[6:14]}-{ID_B[14:]}", [f"{ID_B[:6]}-{ID_B[6:14]}-{ID_B[14:]}"], None),
    ("zh", f"我今年三十五岁，{ID_C}是我的身份证号。", [ID_C], None),
    (
        "zh",
        f"工资卡 {CARD_UNIONPAY[:4]} {CARD_UNIONPAY[4:8]} {CARD_UNIONPAY[8:12]} {CARD_UNIONPAY[12:16]} "
        f"{CARD_UNIONPAY[16:]}，月底发工资",
        [f"{CARD_UNIONPAY[:4]} {CARD_UNIONPAY[4:8]} {CARD_UNIONPAY[8:12]} {CARD_UNIONPAY[12:16]} {CARD_UNIONPAY[16:]}"],
        None,
    ),
    ("zh", "信用卡是 4111-1111-1111-1111，别搞错", ["4111-1111-1111-1111"], None),
    ("zh", "护照号码是 EA1234567，下个月去日本", ["EA1234567"], None),
    ("zh", "下周用 G12345678 出境，记一下", ["G12345678"], None),
    ("zh", "我开一辆白色的车，车牌京A12345", ["京A12345"], None),
    ("zh", "我的新能源车牌是粤B·D12345", ["粤B·D12345"], None),
    ("zh", "车是沪C 8K9Z2，停在地库", ["沪C 8K9Z2"], None),
    ("zh", "结果发到我的vx lina2024wx，谢谢", ["lina2024wx"], None),
    ("zh", "加我微信号：wxid_8a7b6c，方便沟通", ["wxid_8a7b6c"], None),
    ("zh", "我是做跨境电商的，微信 chen_lei88", ["chen_lei88"], ("business_status", "business")),
    ("zh", "QQ 123456789 可以找到我", ["123456789"], None),
    ("zh", "我的QQ号是87654321", ["87654321"], None),
    ("zh", "抖音号 dy_xiaoming01，欢迎关注", ["dy_xiaoming01"], None),
    ("zh", "我住在北京市朝阳区建国路88号3单元502室", ["建国路88号3单元502室"], None),
    ("zh", "公司在上海市徐汇区漕溪北路 1200 号，离地铁很近", ["漕溪北路 1200 号"], None),
    ("zh", "我家在3号楼2单元1101，快递放门口就行", ["3号楼2单元1101"], None),
    ("zh", "店在深圳南山区科苑路15号，欢迎来", ["科苑路15号"], None),
    ("zh", "服务器 IP 是 203.0.113.45，登录不上", ["203.0.113.45"], None),
    ("zh", "家里路由器的地址是 198.51.100.23", ["198.51.100.23"], None),
    ("zh", "邮箱 zhang.wei@example.cn，周报发这里", ["zhang.wei@example.cn"], None),
    ("zh", "我的邮箱是 li (at) example (dot) com", ["li (at) example (dot) com"], None),
    ("zh", "我的德国账户 DE89 3704 0044 0532 0130 00", ["DE89 3704 0044 0532 0130 00"], None),
    ("zh", "日本的手机是 090-1234-5678，出差时用", ["090-1234-5678"], None),
    ("zh", "香港号码 +852 9123 4567", ["+852 9123 4567"], None),
    ("zh", "我是台湾人，手机 0912-345-678", ["0912-345-678"], None),
    ("zh", "对公账户卡号 6217 0001 2345 6789 012，开票用", ["6217 0001 2345 6789 012"], None),
    ("zh", "小红书号：95001234，我在上面卖手工皂", ["95001234"], None),
    (
        "zh",
        "我在成都开火锅店，客户都加我telegram @hotpot_chengdu",
        ["@hotpot_chengdu"],
        ("business_status", "business"),
    ),
    ("zh", "我的驾驶证号 320102198001011234", ["320102198001011234"], None),
    ("zh", "一三九 一二三四 五六七八 是我的工作手机", ["一三九 一二三四 五六七八"], None),
    ("zh", "周报发 wang_fang@163.com 就行", ["wang_fang@163.com"], None),
    ("zh", "老家座机 (0571) 8765 4321，我妈常在家", ["(0571) 8765 4321"], None),
    ("zh", "加我 LINE：mei_tw88，我在台北做设计", ["mei_tw88"], None),
    ("zh", "美国的号码 +1 (415) 555-0134，出差时打", ["+1 (415) 555-0134"], None),
    ("zh", "我在上海开了家面包店，监控摄像头在 192.0.2.77 上", ["192.0.2.77"], ("business_status", "business")),
    # --- English ------------------------------------------------------------------------------------------------
    ("en", "Text the results to 07700 900123 when done.", ["07700 900123"], None),
    ("en", "I'm vegetarian, by the way; my mobile is +44 7700 900123.", ["+44 7700 900123"], ("preference", "diet")),
    (
        "en",
        "My number is oh seven seven double oh nine double oh one two three.",
        ["oh seven seven double oh nine double oh one two three"],
        None,
    ),
    (
        "en",
        "Call me on four one five, five five five, two six seven one.",
        ["four one five, five five five, two six seven one"],
        None,
    ),
    ("en", "My Japanese mobile is 090-1234-5678.", ["090-1234-5678"], None),
    ("en", "Office line (415) 555-2671, ask for the front desk.", ["(415) 555-2671"], None),
    ("en", "You can reach me at 415.555.2671 after six.", ["415.555.2671"], None),
    (
        "en",
        "I run a small bakery in Leeds; the shop phone is 0113 496 0000.",
        ["0113 496 0000"],
        ("business_status", "business"),
    ),
    ("en", "Ring me on 0412 345 678 when you land in Sydney.", ["0412 345 678"], None),
    ("en", "Berlin office: 030 12345678.", ["030 12345678"], None),
    ("en", "My French number is 06 12 34 56 78.", ["06 12 34 56 78"], None),
    ("en", "WhatsApp me at +91 98765 43210.", ["+91 98765 43210"], None),
    ("en", "My SSN is 078 05 1120, keep it for the tax forms.", ["078 05 1120"], None),
    ("en", "Social security 219-09-9999 for the form.", ["219-09-9999"], None),
    ("en", "Book the flight with passport C03005988.", ["C03005988"], None),
    ("en", "Renewing C03005988 next month, remind me.", ["C03005988"], None),
    ("en", "My passport number is 533380006.", ["533380006"], None),
    ("en", "Pay it into gb82 west 1234 5698 7654 32 please.", ["gb82 west 1234 5698 7654 32"], None),
    ("en", "My French account is FR14 2004 1010 0505 0001 3M02 606.", ["FR14 2004 1010 0505 0001 3M02 606"], None),
    ("en", "Dutch IBAN nl91abna0417164300 for refunds.", ["nl91abna0417164300"], None),
    ("en", f"Charge my card {CARD_VISA}.", [CARD_VISA], None),
    ("en", "The company card is 5500 0000 0000 0004.", ["5500 0000 0000 0004"], None),
    ("en", "Amex 3782 822463 10005 expires in May.", ["3782 822463 10005"], None),
    ("en", "I live at 221B Baker Street, London NW1 6XE.", ["221B Baker Street", "NW1 6XE"], None),
    ("en", "We moved to 742 Evergreen Terrace last spring.", ["742 Evergreen Terrace"], None),
    (
        "en",
        "Ship it to 1600 Pennsylvania Avenue NW, Washington, DC 20500.",
        ["1600 Pennsylvania Avenue", "DC 20500"],
        None,
    ),
    (
        "en",
        "I'm allergic to peanuts. Deliver to 42 wallaby way, Sydney.",
        ["42 wallaby way"],
        ("constraint", "allergy"),
    ),
    ("en", "Our studio is at Hauptstraße 5, 10115 Berlin.", ["Hauptstraße 5, 10115"], None),
    ("en", "My flat is at 12 rue de la Paix in Paris.", ["12 rue de la Paix"], None),
    ("en", "My car is a blue Golf, reg AB12 CDE.", ["AB12 CDE"], None),
    ("en", "The van's plate is B-MW 1234.", ["B-MW 1234"], None),
    ("en", "Park the rental, AB-123-CD, at the back.", ["AB-123-CD"], None),
    ("en", "My Dutch car is 12-ABC-3.", ["12-ABC-3"], None),
    ("en", "My telegram is @lina_w if you need me.", ["@lina_w"], None),
    ("en", "Instagram: jess.cooks, I post recipes there.", ["jess.cooks"], None),
    ("en", "LINE ID: taro_0712.", ["taro_0712"], None),
    ("en", "WeChat: lee_88, add me.", ["lee_88"], None),
    ("en", "My home IP is 203.0.113.45 if the VPN needs it.", ["203.0.113.45"], None),
    ("en", "The server is on 2001:db8::ff00:42:8329.", ["2001:db8::ff00:42:8329"], None),
    ("en", "My laptop's MAC is 00:1A:2B:3C:4D:5E.", ["00:1A:2B:3C:4D:5E"], None),
    ("en", "Email me at john.smith@example.com.", ["john.smith@example.com"], None),
    ("en", "Write to j.smith at example dot com.", ["j.smith at example dot com"], None),
    ("en", "My National Insurance number is QQ 12 34 56 C.", ["QQ 12 34 56 C"], None),
    ("en", f"My Korean resident number is {RRN[:6]}-{RRN[6:]}.", [f"{RRN[:6]}-{RRN[6:]}"], None),
    ("en", "I work night shifts as an ER nurse. Pager 1-800-555-0199.", ["1-800-555-0199"], ("profile", "occupation")),
]

# Ordinary numbers and codes people say: none of these is an identifier; each must be stored as written.
LOOKALIKES = [
    "预算 150 万左右",
    "每个月营业额大概 12 万",
    "店面 80 平米",
    "我们有 3 个员工",
    "2018 年开的店",
    "每天卖 300 杯咖啡",
    "月租 1.5 万",
    "身高 175，体重 65 公斤",
    "住 18 楼，没有电梯",
    "开了第 2 家分店",
    "今年 35 岁",
    "手机是 iPhone 15",
    "我在微信上卖货",
    "用 QQ 邮箱办公",
    "房子是 3室1厅，86 平米",
    "地铁 2号线 很方便",
    "第 3 季度要扩张",
    "营业额 1200000 元",
    "年销售额 3000 万",
    "客单价 68 元",
    "显卡是 RTX4090",
    "型号 X200 的咖啡机",
    "订单号 48213",
    "计划 2025年6月1日 开业",
    "下午 3:30 开会",
    "增长了 12.5%",
    "一两个月后再说",
    "三四个人就够了",
    "门店编号 A7",
    "批发价 ¥1380.00",
    "We have 3 employees.",
    "Our budget is $1,500,000.",
    "The shop is 1200 sqm.",
    "We opened in 1998.",
    "Daily sales are around 3k.",
    "I drive a Model 3.",
    "We are ISO 9001 certified.",
    "I'm on Python 3.11.7.",
    "Use version v1.2.3.4 of the app.",
    "Order #123456 was delivered.",
    "Opening on 2025-03-15, hopefully.",
    "The meeting is at 10:30.",
    "I sell SKU-48213 the most.",
    "We serve 200 customers a day.",
    "Rent is 2400 a month.",
    "I have 2 kids, 7 and 9.",
    "Room for 20 people.",
    "My M3 chip laptop is fast.",
    "We print on A4 paper.",
    "I fly a Boeing 737.",
    "PM2.5 is bad today.",
    "I run 3 shops on Main Street.",
    "My account is closed.",
    "Line 3 of the contract is wrong.",
    "We need 18 months to break even.",
    "The warehouse holds 25000 units.",
    "Prices went up 8 percent.",
    "I bought 4 tickets for the 7:45 show.",
    "我们这里3号开业",
    "知道5号要交报告",
    "频道3号的节目很好看",
    "第3单元讲的是分类",
    "We moved in on the 3rd, rent is 1800.",
    "Our Instagram is mostly food photos.",
    "The 5G rollout starts in 2026.",
]


def main() -> None:
    rows: list[dict] = []
    for n, (lang, text, pii, fact) in enumerate(ROWS, 1):
        for value in pii:
            assert value in text, (text, value)
        rid = f"pii-{lang}-{n:03d}"
        rows.append(
            {
                "id": rid,
                "lang": lang,
                "user": f"wq-{rid}",
                "text": text,
                "category": "pii",
                "write": fact is not None,
                "kind": fact[0] if fact else None,
                "key": fact[1] if fact else None,
                "durable": fact is not None,
                "hedged": False,
                "pii": pii,
                "fact": rid,
                "supersedes": None,
            }
        )
    (HERE / "pii_adversarial.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (HERE / "pii_lookalikes.jsonl").write_text(
        "".join(
            json.dumps(
                {"text": t, "lang": "zh" if any("\u4e00" <= c <= "\u9fff" for c in t) else "en"}, ensure_ascii=False
            )
            + "\n"
            for t in LOOKALIKES
        )
    )
    print(f"{sum(len(r['pii']) for r in rows)} identifiers in {len(rows)} sentences, {len(LOOKALIKES)} look-alikes")


if __name__ == "__main__":
    main()
