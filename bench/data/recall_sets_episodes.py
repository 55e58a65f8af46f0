"""The episodic multi-session sets (source of bench/data/recall_episodic_{en,zh}.jsonl; see build_recall_sets.py).

Per user: a few dated sessions of user/assistant chat ("u"/"a"), several on the same thread spread over time and
others about unrelated things, and questions whose answer lies in one or more named sessions (LongMemEval's kind:
single-session facts, a thread that continues across sessions, an update of an earlier fact). The questions do
not repeat the sessions' wording. Written for this set; nothing comes from the seeds, LoCoMo or LongMemEval.
"""

EN = [
    {
        "user": "ep-en-olivia",
        "sessions": [
            {
                "id": "s1",
                "date": "2025-01-12T19:02:00Z",
                "turns": [
                    (
                        "u",
                        "We finally decided to redo the kitchen. I'm leaning towards white oak cabinets and a quartz countertop.",
                    ),
                    ("a", "That's a warm, timeless combination. Have you settled on a budget and a builder yet?"),
                    (
                        "u",
                        "Around $35k. Our contractor is Marco, he did my neighbour's bathroom, and he says six weeks.",
                    ),
                    (
                        "a",
                        "Six weeks is realistic for a full kitchen if the materials arrive on time. Plan for a temporary cooking corner.",
                    ),
                    (
                        "u",
                        "Yeah, going a month and a half without an oven is going to hurt. We'll live on the air fryer.",
                    ),
                    (
                        "a",
                        "An air fryer and a kettle get most families through it. Keep a box of paper plates handy too.",
                    ),
                ],
            },
            {
                "id": "s2",
                "date": "2025-02-03T17:40:00Z",
                "turns": [
                    ("u", "Ava's science fair was today! She built a little car that runs on a solar panel."),
                    ("a", "How exciting! How did the judges like it?"),
                    (
                        "u",
                        "She took second place out of forty projects. The winner made a water filter from sand and charcoal.",
                    ),
                    ("a", "Second out of forty is a great result. She must be proud of herself."),
                    ("u", "She already wants to make the car faster for next year."),
                    ("a", "A lighter chassis and a better gear ratio would be a fun next step for her."),
                ],
            },
            {
                "id": "s3",
                "date": "2025-02-20T08:15:00Z",
                "turns": [
                    ("u", "My shoulder has been killing me since I overdid it at tennis, so I finally saw a physio."),
                    ("a", "Good call. What did they find?"),
                    ("u", "A strained rotator cuff. I'm booked for sessions every Monday and Thursday for six weeks."),
                    ("a", "Twice a week is a common schedule for that. Are you doing exercises at home as well?"),
                    ("u", "Resistance band stuff, every morning. And no tennis until April."),
                    ("a", "Keep at the band work; it is usually what makes the biggest difference."),
                ],
            },
            {
                "id": "s4",
                "date": "2025-03-15T20:30:00Z",
                "turns": [
                    (
                        "u",
                        "Ugh, the renovation is behind. The quartz slab showed up with a crack right down the middle.",
                    ),
                    ("a", "That's frustrating. Is the supplier replacing it?"),
                    ("u", "Yes, but it pushes everything back. Marco now says we'll be done on April 10."),
                    ("a", "Annoying, but at least the new slab will be perfect. Did the cabinets go in already?"),
                    ("u", "Cabinets are in and they look gorgeous. Just waiting on the top and the backsplash."),
                    ("a", "Then you are in the home stretch. April will come quickly."),
                ],
            },
            {
                "id": "s5",
                "date": "2025-04-02T12:05:00Z",
                "turns": [
                    ("u", "For our tenth anniversary in October, James and I want to go to Kyoto."),
                    (
                        "a",
                        "October is a lovely time there, the autumn leaves are starting. Where would you like to stay?",
                    ),
                    ("u", "A traditional ryokan with a private bath, maybe two nights, then a hotel near Gion."),
                    ("a", "That's a good mix. Ryokans book up early for autumn, so reserve soon."),
                ],
            },
            {
                "id": "s6",
                "date": "2025-01-25T10:10:00Z",
                "turns": [
                    ("u", "Ava wants to start tennis lessons like me. Is eight too young?"),
                    (
                        "a",
                        "Not at all, eight is a great age. Look for a club with a mini-tennis programme and lighter balls.",
                    ),
                    ("u", "The club near us has Saturday morning groups for kids, I'll sign her up."),
                    (
                        "a",
                        "Group lessons are a fun way to start; she can switch to private coaching later if she loves it.",
                    ),
                ],
            },
            {
                "id": "s7",
                "date": "2025-03-01T21:00:00Z",
                "turns": [
                    (
                        "u",
                        "What's a good weeknight dinner that doesn't need an oven? We're still camping in the living room.",
                    ),
                    (
                        "a",
                        "A stir-fry in the electric wok, or tacos with a slow-cooker filling, both work without an oven.",
                    ),
                    ("u", "Tacos it is. James will be thrilled, he could eat them every day."),
                ],
            },
            {
                "id": "s8",
                "date": "2025-04-20T16:45:00Z",
                "turns": [
                    ("u", "My book club picked a thriller this month, The Silent Patient. Have you heard of it?"),
                    ("a", "Yes, it's a psychological thriller with a famous twist. No spoilers!"),
                    ("u", "We meet at Karen's place on the last Thursday of the month."),
                    ("a", "That gives you about two weeks to finish it. Enjoy the discussion."),
                ],
            },
            {
                "id": "s9",
                "date": "2025-02-10T18:30:00Z",
                "turns": [
                    ("u", "My sister is redoing her bathroom and her builder quoted twelve weeks. That seems slow?"),
                    (
                        "a",
                        "For a bathroom it is on the long side; it may include moving the plumbing. Did she get a second quote?",
                    ),
                    ("u", "She did, the other one wanted $18k and couldn't start until summer."),
                    ("a", "Then the first builder might still be the better deal if he can start now."),
                ],
            },
            {
                "id": "s10",
                "date": "2025-03-28T07:20:00Z",
                "turns": [
                    ("u", "Ava's class is going on a field trip to the science museum next week."),
                    ("a", "Fun! Do you need to sign a permission slip or pack a lunch?"),
                    ("u", "Both, and they need a parent volunteer, so I said yes."),
                ],
            },
        ],
        "questions": [
            ("Who is doing the work on my kitchen and how long did he first say it would take?", ["s1"]),
            ("What went wrong with the stone for the worktop?", ["s4"]),
            ("How did my kid do at the school competition?", ["s2"]),
            ("Which days are my rehab appointments for the arm injury?", ["s3"]),
            ("Give me a recap of the whole home remodel: the plan and how it's going", ["s1", "s4"]),
            ("Where are we celebrating ten years of marriage?", ["s5"]),
            ("Which book is my reading group doing this month?", ["s8"]),
        ],
    },
    {
        "user": "ep-en-marcus",
        "sessions": [
            {
                "id": "s1",
                "date": "2025-05-04T10:00:00Z",
                "turns": [
                    (
                        "u",
                        "So I got laid off from the logistics company on Friday. Twenty people in my department, gone.",
                    ),
                    ("a", "I'm sorry, that's a hard week. What are you thinking of doing next?"),
                    (
                        "u",
                        "I want to move into data analytics. I've been doing the reporting work anyway, I just need proper SQL.",
                    ),
                    ("a", "That's a sensible move. A couple of portfolio projects with real data would help a lot."),
                    ("u", "I'll do one on delivery delays, I know that data inside out."),
                    ("a", "Perfect, domain knowledge is exactly what makes a portfolio project stand out."),
                ],
            },
            {
                "id": "s2",
                "date": "2025-05-21T18:20:00Z",
                "turns": [
                    ("u", "I had a first interview with Medlytics, a small healthcare startup. It went well I think."),
                    ("a", "Great news! What's the next step?"),
                    ("u", "A second round next week with a take-home assignment. I'm nervous about the Python part."),
                    (
                        "a",
                        "Practise pandas group-bys and joins, they show up in most take-homes. Explain your reasoning in the notebook.",
                    ),
                    ("u", "Good tip. They said the role is mostly dashboards for hospital clients."),
                    ("a", "Then clear charts and a short written summary will count as much as the code."),
                ],
            },
            {
                "id": "s3",
                "date": "2025-06-02T22:45:00Z",
                "turns": [
                    ("u", "Ziggy swallowed one of my socks tonight. We're at the emergency vet."),
                    ("a", "Oh no. Is he all right? Are they inducing vomiting or doing an x-ray?"),
                    ("u", "They got it out with an endoscope, no surgery needed. The bill was $900 though."),
                    ("a", "Expensive, but much better than an operation. Beagles will eat anything."),
                    ("u", "Laundry basket goes on top of the dryer from now on."),
                ],
            },
            {
                "id": "s4",
                "date": "2025-06-18T09:10:00Z",
                "turns": [
                    ("u", "They made me an offer! Medlytics wants me as a data analyst."),
                    ("a", "Congratulations! What are the terms?"),
                    ("u", "$92k base, starting July 7. I'm asking if I can work remotely on Fridays."),
                    (
                        "a",
                        "That's a reasonable ask for an analyst role. Mention it alongside your start date confirmation.",
                    ),
                ],
            },
            {
                "id": "s5",
                "date": "2025-07-01T15:30:00Z",
                "turns": [
                    ("u", "The new office is downtown, so I'm moving closer. Found a two-bedroom in Oak Park."),
                    ("a", "Nice, that's an easy train ride in. When is the move?"),
                    ("u", "This weekend. My brother is lending me his truck."),
                    ("a", "Label the boxes by room, it saves hours when you unpack."),
                ],
            },
            {
                "id": "s6",
                "date": "2025-05-12T20:15:00Z",
                "turns": [
                    ("u", "My brother's bachelor party is in Nashville next month. Any ideas beyond bars?"),
                    (
                        "a",
                        "A hot chicken crawl, a Predators game, or a honky-tonk with live music on Broadway are all popular.",
                    ),
                    ("u", "We're six guys, so renting a house will be cheaper than a hotel."),
                    ("a", "Definitely, and it gives you a base for a cookout on the first night."),
                ],
            },
            {
                "id": "s7",
                "date": "2025-06-10T07:50:00Z",
                "turns": [
                    ("u", "I'm trying to run three times a week again. My knees complain after 5k."),
                    ("a", "Build up slowly, add about ten percent a week, and check that your shoes aren't worn out."),
                    ("u", "They're four years old. Probably time for new ones."),
                ],
            },
            {
                "id": "s8",
                "date": "2025-06-25T19:30:00Z",
                "turns": [
                    ("u", "Can you explain window functions in SQL? The job will need them."),
                    (
                        "a",
                        "A window function computes over a set of rows related to the current row, like a running total with SUM() OVER (ORDER BY date).",
                    ),
                    ("u", "So ROW_NUMBER() with PARTITION BY would give me the latest delivery per customer?"),
                    ("a", "Exactly: partition by customer, order by date descending, and keep row number 1."),
                ],
            },
            {
                "id": "s9",
                "date": "2025-06-12T12:40:00Z",
                "turns": [
                    ("u", "My friend Dev just got an offer from a bank for a risk analyst job, $110k."),
                    ("a", "That's a strong offer. Is he going to take it?"),
                    ("u", "He's torn because it's five days in the office."),
                    ("a", "Commute and flexibility are worth a lot; he could ask for one remote day."),
                ],
            },
            {
                "id": "s10",
                "date": "2025-06-28T17:15:00Z",
                "turns": [
                    ("u", "Ziggy has his yearly vaccinations next week, do beagles need anything special?"),
                    (
                        "a",
                        "The core vaccines are the same for all breeds; ask the vet about kennel cough if he boards.",
                    ),
                    ("u", "He does go to daycare sometimes, I'll ask."),
                ],
            },
        ],
        "questions": [
            ("What happened with my pet's stomach emergency?", ["s3"]),
            ("How did hiring at the health-tech company go, from the first interview to the end?", ["s2", "s4"]),
            ("How much pay did they offer me?", ["s4"]),
            ("Why was I looking for a new job in the first place?", ["s1"]),
            ("Which neighbourhood am I relocating to?", ["s5"]),
            ("Where is the pre-wedding trip for my sibling?", ["s6"]),
        ],
    },
    {
        "user": "ep-en-sofia",
        "sessions": [
            {
                "id": "s1",
                "date": "2025-08-10T14:00:00Z",
                "turns": [
                    ("u", "Nate and I booked our venue! A vineyard in Sonoma, September 2026."),
                    ("a", "Congratulations! A vineyard in September sounds beautiful. How big is the wedding?"),
                    ("u", "About 120 guests. We wanted smaller but both our families are huge."),
                    ("a", "120 is a comfortable size for most vineyard venues. Have you thought about a caterer?"),
                    ("u", "The venue has its own, which is one less thing to decide."),
                ],
            },
            {
                "id": "s2",
                "date": "2025-08-25T09:30:00Z",
                "turns": [
                    ("u", "I started making sourdough. My starter is called Doughlores, don't judge."),
                    ("a", "That's a great name. How are the first loaves?"),
                    ("u", "Dense bricks, honestly. They barely rise and the inside is gummy."),
                    (
                        "a",
                        "Usually that's underproofing or too little water. Try a longer bulk ferment and a wetter dough.",
                    ),
                ],
            },
            {
                "id": "s3",
                "date": "2025-09-07T21:10:00Z",
                "turns": [
                    ("u", "Had a fight with my sister about the bridesmaid dresses. She wanted burgundy."),
                    ("a", "Those conversations get heated. Did you find a compromise?"),
                    ("u", "We went with sage green in the end, and each bridesmaid picks her own cut."),
                    (
                        "a",
                        "Sage looks lovely with vineyard greenery, and letting them choose the cut keeps everyone happy.",
                    ),
                ],
            },
            {
                "id": "s4",
                "date": "2025-09-30T11:45:00Z",
                "turns": [
                    ("u", "Bread update: I raised the hydration to 78% and let it ferment overnight in the fridge."),
                    ("a", "And? How did it come out?"),
                    ("u", "The best loaf yet. Big open holes, crackly crust. Nate ate half of it warm."),
                    ("a", "That's the classic sign you've nailed the fermentation. Well done."),
                ],
            },
            {
                "id": "s5",
                "date": "2025-10-14T17:00:00Z",
                "turns": [
                    ("u", "I got promoted today, I'm a senior UX designer now!"),
                    ("a", "Congratulations! What changes with the new role?"),
                    ("u", "I'm leading the checkout redesign and mentoring two juniors."),
                    ("a", "Leading a high-impact flow like checkout is a great opportunity. Enjoy it."),
                ],
            },
            {
                "id": "s6",
                "date": "2025-08-18T12:30:00Z",
                "turns": [
                    ("u", "Our cat Miso keeps scratching the new sofa. How do I stop her?"),
                    (
                        "a",
                        "Give her a tall, sturdy scratching post right next to the sofa and reward her when she uses it.",
                    ),
                    ("u", "I'll try the sisal one, and double-sided tape on the arms for now."),
                ],
            },
            {
                "id": "s7",
                "date": "2025-09-20T18:05:00Z",
                "turns": [
                    ("u", "I need a birthday gift for my dad, he's turning 60 and loves fishing."),
                    (
                        "a",
                        "A quality reel, a guided fishing trip, or a personalised tackle box would all be memorable.",
                    ),
                    ("u", "A guided trip on Lake Tahoe sounds perfect, we can go together."),
                    ("a", "That's a lovely idea, a shared experience often means more than an object."),
                ],
            },
            {
                "id": "s8",
                "date": "2025-10-02T08:40:00Z",
                "turns": [
                    ("u", "Nate's company is sending him to London for three months in the spring."),
                    ("a", "That's exciting for him. Will you visit?"),
                    ("u", "I'll fly out for two weeks in April, maybe we'll take the train to Edinburgh."),
                ],
            },
            {
                "id": "s9",
                "date": "2025-08-30T23:00:00Z",
                "turns": [
                    (
                        "u",
                        "We went to my cousin's wedding tonight, the bridesmaids wore lavender and it looked dreamy.",
                    ),
                    ("a", "Lavender is lovely for a summer wedding. Did it give you ideas for yours?"),
                    ("u", "Mostly that I want fewer speeches. There were nine!"),
                ],
            },
            {
                "id": "s10",
                "date": "2025-09-14T10:00:00Z",
                "turns": [
                    ("u", "I tried making bagels this morning instead of bread, they came out flat."),
                    (
                        "a",
                        "Bagels need a stiff dough and a short boil before baking; flat ones are usually overproofed.",
                    ),
                    ("u", "I left them out for two hours, so that's probably it."),
                ],
            },
        ],
        "questions": [
            ("What colour did we finally choose for the bridal party outfits?", ["s3"]),
            ("How has my bread baking changed since I started?", ["s2", "s4"]),
            ("How many people are we inviting and where is the ceremony?", ["s1"]),
            ("What's my new job title?", ["s5"]),
            ("What did I name my yeast culture?", ["s2"]),
            ("What am I giving my father for his big birthday?", ["s7"]),
        ],
    },
]

ZH = [
    {
        "user": "ep-zh-liuyang",
        "sessions": [
            {
                "id": "s1",
                "date": "2025-03-02T20:00:00Z",
                "turns": [
                    ("u", "我们在武汉光谷买了一套三居室，下个月开始装修。"),
                    ("a", "恭喜！想装成什么风格？预算定了吗？"),
                    ("u", "想要北欧风，原木色加白色，预算大概二十万。"),
                    ("a", "北欧风比较好控制成本，二十万做三居室是够的，建议把钱多花在水电和防水上。"),
                    ("u", "好，工长是朋友介绍的老周，说三个月能完工。"),
                ],
            },
            {
                "id": "s2",
                "date": "2025-03-20T19:30:00Z",
                "turns": [
                    ("u", "小宇明年九月上小学，我们报了区里的实验小学。"),
                    ("a", "实验小学需要摇号吗？"),
                    ("u", "要摇号，五月中旬出结果，中签率大概三成。"),
                    ("a", "那最好同时准备一个对口学校作为备选，免得被动。"),
                    ("u", "对口的是光谷第二小学，也还行。"),
                ],
            },
            {
                "id": "s3",
                "date": "2025-04-08T21:15:00Z",
                "turns": [
                    ("u", "水电改完了，结果做闭水试验的时候发现卫生间往楼下渗水。"),
                    ("a", "这个一定要在贴砖前解决。是防水层的问题吗？"),
                    ("u", "老周说是墙角的防水没刷到位，他答应免费返工，重新做四十八小时闭水。"),
                    ("a", "返工后记得自己去楼下看一眼，确认干了再让他们继续贴砖。"),
                ],
            },
            {
                "id": "s4",
                "date": "2025-04-25T08:40:00Z",
                "turns": [
                    ("u", "单位体检报告出来了，别的都还好，就是尿酸偏高，五百多。"),
                    ("a", "尿酸高要注意饮食，医生怎么建议的？"),
                    ("u", "让我少喝含糖饮料和啤酒，每天多喝水，三个月后复查。"),
                    ("a", "可以先把每天的可乐换成白开水或淡茶，坚持下来效果很明显。"),
                ],
            },
            {
                "id": "s5",
                "date": "2025-05-12T12:20:00Z",
                "turns": [
                    ("u", "好消息！小宇摇中了，九月去实验小学报到。"),
                    ("a", "太好了，恭喜！接下来要准备入学材料了吧？"),
                    ("u", "对，要户口本、房产证和疫苗本，下周去学校交。"),
                    ("a", "提前把复印件都备好，多准备一份以防万一。"),
                ],
            },
            {
                "id": "s6",
                "date": "2025-03-10T12:00:00Z",
                "turns": [
                    ("u", "周末想带老婆孩子去东湖骑车，哪条线比较好？"),
                    ("a", "东湖绿道的湖中道景色最好，路也平，适合带孩子。"),
                    ("u", "好，那就周六早上去，人少一点。"),
                ],
            },
            {
                "id": "s7",
                "date": "2025-04-15T22:30:00Z",
                "turns": [
                    ("u", "单位要派我去成都出差一周，做一个系统上线。"),
                    ("a", "上线前最好准备好回滚方案。出差期间家里有人帮忙接孩子吗？"),
                    ("u", "我妈会过来住几天，帮忙接送。"),
                    ("a", "那就放心了，祝上线顺利。"),
                ],
            },
            {
                "id": "s8",
                "date": "2025-05-01T09:15:00Z",
                "turns": [
                    ("u", "五一想给我妈买个按摩仪，她颈椎不好。"),
                    ("a", "颈部按摩仪选带热敷、力度可调的，老人用起来舒服。"),
                    ("u", "行，再给她买副老花镜。"),
                ],
            },
            {
                "id": "s9",
                "date": "2025-03-25T20:40:00Z",
                "turns": [
                    ("u", "同事老张家也在装修，他们选的是中式风格，花了三十多万。"),
                    ("a", "中式风格用实木多，成本确实高一些。他们装了多久？"),
                    ("u", "快半年了，还在等定制的家具。"),
                ],
            },
            {
                "id": "s10",
                "date": "2025-05-05T18:10:00Z",
                "turns": [
                    ("u", "小宇最近在学游泳，教练说他换气还不太会。"),
                    ("a", "换气是最难的一步，可以先在岸边练习吐泡泡。"),
                    ("u", "好，周末带他去游泳馆多练练。"),
                ],
            },
        ],
        "questions": [
            ("新家的洗手间后来出了什么状况", ["s3"]),
            ("孩子上学那件事最后结果如何，从报名说起", ["s2", "s5"]),
            ("我家房子打算弄成什么样子，钱准备了多少", ["s1"]),
            ("我的身体检查哪项指标不正常", ["s4"]),
            ("帮我回顾一下房子从买下到现在的所有进展", ["s1", "s3"]),
            ("我那次去外地出差是做什么项目", ["s7"]),
        ],
    },
    {
        "user": "ep-zh-sunqian",
        "sessions": [
            {
                "id": "s1",
                "date": "2025-06-05T22:00:00Z",
                "turns": [
                    ("u", "我辞职了！准备全职做网店，卖自己做的手工皂，店名叫“青禾”。"),
                    ("a", "好勇敢！在哪个平台开店？"),
                    ("u", "先在淘宝开，等稳定了再做小红书引流。"),
                    ("a", "手工皂很适合内容种草，拍一些制作过程的视频会很吸引人。"),
                ],
            },
            {
                "id": "s2",
                "date": "2025-06-22T07:30:00Z",
                "turns": [
                    ("u", "我请了一个私教，想在三个月内减掉十斤。"),
                    ("a", "目标很明确。训练频率怎么安排？"),
                    ("u", "每周练三次，力量加有氧，晚饭尽量不吃主食。"),
                    ("a", "晚饭可以少吃主食，但别完全不吃，蛋白质一定要够。"),
                ],
            },
            {
                "id": "s3",
                "date": "2025-07-10T23:10:00Z",
                "turns": [
                    ("u", "第一次参加平台大促，两天卖了三百单！"),
                    ("a", "开门红啊！发货忙得过来吗？"),
                    ("u", "完全忙不过来，快递爆仓，好多人三四天才收到，收了十几个差评。"),
                    ("a", "下次大促前可以先预估单量，提前打包好，或者找个临时帮手。"),
                ],
            },
            {
                "id": "s4",
                "date": "2025-07-28T21:45:00Z",
                "turns": [
                    ("u", "昨天和阿杰大吵了一架，他觉得我辞职创业太冒险，不稳定。"),
                    ("a", "他可能是担心你。后来你们聊开了吗？"),
                    ("u", "今天和好了，他说会支持我试一年，不行再说。"),
                    ("a", "有一年的时间和他的支持，你可以放手去做了。"),
                ],
            },
            {
                "id": "s5",
                "date": "2025-08-15T19:00:00Z",
                "turns": [
                    ("u", "跟私教练了快两个月，已经瘦了七斤，体脂从百分之二十八降到二十五。"),
                    ("a", "进步很大！体脂降得比体重更说明问题。"),
                    ("u", "最近腰围也小了两厘米，裤子都松了。"),
                ],
            },
            {
                "id": "s6",
                "date": "2025-06-15T13:20:00Z",
                "turns": [
                    ("u", "我妹妹下个月高考完，想报新闻专业，你觉得怎么样？"),
                    ("a", "新闻专业现在更看重新媒体能力，可以看看学校有没有相关的实践平台。"),
                    ("u", "她喜欢拍视频，应该挺合适的。"),
                ],
            },
            {
                "id": "s7",
                "date": "2025-07-20T09:00:00Z",
                "turns": [
                    ("u", "家里的空调坏了，修空调的说压缩机要换，值得修吗？"),
                    ("a", "如果空调用了十年以上，换压缩机的钱不如直接买台新的一级能效的。"),
                    ("u", "用了十二年了，那就换新的吧。"),
                ],
            },
            {
                "id": "s8",
                "date": "2025-08-02T20:10:00Z",
                "turns": [
                    ("u", "周末和闺蜜去了一趟莫干山民宿，风景特别好。"),
                    ("a", "莫干山很适合放松，你们住的是哪家？"),
                    ("u", "一家叫“山栖”的，竹林里面，早上能听到鸟叫。"),
                ],
            },
            {
                "id": "s9",
                "date": "2025-07-05T14:30:00Z",
                "turns": [
                    ("u", "闺蜜也开了个网店，卖手工蜡烛，第一个月才卖了二十单。"),
                    ("a", "刚起步的店都慢，可以先把详情页和图片做好。"),
                    ("u", "我打算把我的经验分享给她，一起做个联名礼盒。"),
                ],
            },
            {
                "id": "s10",
                "date": "2025-08-08T21:20:00Z",
                "turns": [
                    ("u", "阿杰最近也开始健身了，说要陪我一起练。"),
                    ("a", "有人一起练更容易坚持。你们练同样的项目吗？"),
                    ("u", "他主要练胸和背，我以有氧为主。"),
                ],
            },
        ],
        "questions": [
            ("我那个小生意第一次搞促销活动效果怎么样", ["s3"]),
            ("我的瘦身计划从开始到现在进展如何", ["s2", "s5"]),
            ("我的网店叫什么名字，卖的是什么", ["s1"]),
            ("我和对象之前为什么闹矛盾", ["s4"]),
            ("我家电器坏了最后是怎么处理的", ["s7"]),
        ],
    },
    {
        "user": "ep-zh-hejun",
        "sessions": [
            {
                "id": "s1",
                "date": "2025-09-01T10:30:00Z",
                "turns": [
                    ("u", "我爸前天胸口疼，送到湘雅医院，查出来冠状动脉堵了，昨天放了一个支架。"),
                    ("a", "手术顺利吗？老人家现在怎么样？"),
                    ("u", "很顺利，医生说再住五天就能出院，要长期吃抗凝药。"),
                    ("a", "出院后按时吃药、定期复查最重要，饮食也要清淡。"),
                ],
            },
            {
                "id": "s2",
                "date": "2025-09-18T18:00:00Z",
                "turns": [
                    ("u", "今天考科目二，倒车入库压线了，挂了。"),
                    ("a", "别灰心，倒车入库挂的人很多。多久能补考？"),
                    ("u", "十天以后。教练让我这几天每天去练两个小时。"),
                    ("a", "多找几个参照点，练熟了就稳了。"),
                ],
            },
            {
                "id": "s3",
                "date": "2025-10-03T16:20:00Z",
                "turns": [
                    ("u", "国庆带我爸回医院复查了，心电图和血脂都正常。"),
                    ("a", "太好了！医生还有什么叮嘱吗？"),
                    ("u", "让他必须戒烟，酒也要少喝，每天散步半小时。"),
                    ("a", "戒烟对他的心脏最关键，家里人可以一起监督。"),
                ],
            },
            {
                "id": "s4",
                "date": "2025-10-20T11:00:00Z",
                "turns": [
                    ("u", "科目二补考过了，满分！"),
                    ("a", "恭喜！下一步就是科目三路考了吧？"),
                    ("u", "对，约在下个月中旬，灯光和变道还得多练练。"),
                ],
            },
            {
                "id": "s5",
                "date": "2025-11-05T20:40:00Z",
                "turns": [
                    ("u", "公司年底在裁员，我没被裁，但被调去了成本核算部。"),
                    ("a", "岗位调整后工作内容变化大吗？"),
                    ("u", "挺大的，每天都在对账。我在考虑考个初级会计证，以后好发展。"),
                    ("a", "初级会计证备考三四个月就够，和你现在的岗位也对口。"),
                ],
            },
            {
                "id": "s6",
                "date": "2025-09-10T21:00:00Z",
                "turns": [
                    ("u", "最近想换个手机，预算三千左右，拍照好一点的。"),
                    ("a", "三千元档可以看看主打影像的中端机型，注意看主摄传感器尺寸和防抖。"),
                    ("u", "好的，等双十一再买，应该有优惠。"),
                ],
            },
            {
                "id": "s7",
                "date": "2025-10-12T19:30:00Z",
                "turns": [
                    ("u", "我女朋友下周过生日，我想给她做一顿饭，有什么简单又好看的菜？"),
                    ("a", "可以做番茄牛腩、清蒸鲈鱼和一个水果沙拉，再配个小蛋糕。"),
                    ("u", "番茄牛腩我会做，鱼得练一下。"),
                ],
            },
            {
                "id": "s8",
                "date": "2025-10-28T07:45:00Z",
                "turns": [
                    ("u", "楼上装修天天打电钻，周末都不停，能投诉吗？"),
                    ("a", "一般小区规定周末和午休时间不能施工，可以先找物业协调。"),
                    ("u", "物业说会去提醒，看看效果吧。"),
                ],
            },
            {
                "id": "s9",
                "date": "2025-09-25T19:50:00Z",
                "turns": [
                    ("u", "我妈也去做了个体检，甲状腺有个小结节。"),
                    ("a", "大多数甲状腺结节是良性的，医生有没有说多久复查一次？"),
                    ("u", "说半年后再做个B超看看。"),
                ],
            },
            {
                "id": "s10",
                "date": "2025-11-12T08:30:00Z",
                "turns": [
                    ("u", "同事小王刚拿到驾照，就把车剐了。"),
                    ("a", "新手刚上路确实容易剐蹭，多留点车距就好。"),
                    ("u", "我拿到驾照以后得小心点。"),
                ],
            },
        ],
        "questions": [
            ("我爸那次心脏手术是在哪家医院做的", ["s1"]),
            ("我爸后来回去检查的结果怎样", ["s3"]),
            ("我考驾照考到哪一步了，中间有什么波折", ["s2", "s4"]),
            ("我工作上最近有什么变动", ["s5"]),
            ("我准备给另一半的生日做什么", ["s7"]),
        ],
    },
]
