"""The tenancy models move here from the assistants app (issue 40), to the bottom layer every app reads.

State only: every table keeps its name (`assistants_tenant`, `assistants_message`, ... through `db_table`) and its
rows; nothing in the database changes except the content types, relabelled so that permissions already granted on
them (tenant staff's `view_enduser`, ...) and admin log entries stay attached. Paired with the other apps' "fks to
tenancy" migrations (their foreign keys re-pointed, state only) and assistants 0017 (the models leave its state).
"""
import django.db.models.deletion
import django.db.models.manager
import tenancy.models
from django.conf import settings
from django.db import migrations, models


MOVED = (
    "tenant", "apikey", "enduser", "assistant", "chatsession", "message", "feedback", "erasurereceipt", "tenantstaff"
)


def relabel_content_types(apps, schema_editor, *, old: str = "assistants", new: str = "tenancy"):
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not content_type.objects.filter(app_label=new, model=model).exists():
            content_type.objects.filter(app_label=old, model=model).update(app_label=new)


def relabel_back(apps, schema_editor):
    relabel_content_types(apps, schema_editor, old="tenancy", new="assistants")


class Migration(migrations.Migration):

    dependencies = [
        ('assistants', '0016_i41_python_tools'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('core', '0003_i42_admin_names'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='Assistant',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('name', models.CharField(max_length=200)),
                        ('system_prompt', models.TextField(help_text='The persona. Sent first in every context; never compressed or edited.')),
                        ('chat_model', models.CharField(blank=True, help_text="Blank: the tenant's model.", max_length=200)),
                        ('temperature', models.FloatField(default=0.3)),
                        ('policy_overrides', models.JSONField(blank=True, default=dict, help_text='Any tenant memory-policy field, overridden for this assistant.')),
                        ('python_tools', models.JSONField(blank=True, default=list, help_text="Names of the Python tools (settings ASSISTANT_PYTHON_TOOLS) this assistant's model may call.", validators=[tenancy.models.python_tool_names_check])),
                    ],
                    options={
                        'db_table': 'assistants_assistant',
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.CreateModel(
                    name='Tenant',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('slug', models.SlugField(unique=True)),
                        ('name', models.CharField(max_length=200)),
                        ('window_turns', models.PositiveIntegerField(default=10, help_text='Recent turns (user+assistant pairs) kept verbatim.')),
                        ('context_limit_tokens', models.PositiveIntegerField(default=8000, help_text="The chat model's context limit.")),
                        ('budget_pinned_tokens', models.PositiveIntegerField(default=300)),
                        ('budget_memories_tokens', models.PositiveIntegerField(default=800)),
                        ('budget_task_tokens', models.PositiveIntegerField(default=300)),
                        ('budget_summary_tokens', models.PositiveIntegerField(default=600)),
                        ('budget_window_tokens', models.PositiveIntegerField(default=3000)),
                        ('reply_reserve_tokens', models.PositiveIntegerField(default=1000, help_text="Kept free for the model's answer.")),
                        ('summary_trigger_messages', models.PositiveIntegerField(default=6, help_text='Compaction runs when this many messages have left the window unsummarised.')),
                        ('ttl_days_by_kind', models.JSONField(default=tenancy.models.default_ttl_days_by_kind, help_text='Time to live of a note, per kind.')),
                        ('review_confidence_threshold', models.FloatField(default=0.5, help_text='Notes below this confidence wait in the review inbox.')),
                        ('inferred_policy', models.CharField(choices=[('drop', 'Drop facts the model inferred'), ('review', 'Keep inferred facts, low confidence, pending review')], default='drop', max_length=10)),
                        ('pii_policy', models.CharField(choices=[('drop', 'Drop any candidate that contains a personal identifier'), ('redact', 'Redact identifiers and keep the rest of the candidate')], default='drop', max_length=10)),
                        ('decay_rate_per_day', models.FloatField(default=0.95, help_text='Recall score multiplier per day of age (seed 002).')),
                        ('decay_floor', models.FloatField(default=0.3, help_text='Time decay never goes below this factor.')),
                        ('unrecalled_days_before_decay', models.PositiveIntegerField(default=90)),
                        ('archive_importance_floor', models.FloatField(default=0.1, help_text='Decayed notes below this are archived.')),
                        ('recall_all_below', models.PositiveIntegerField(default=20, help_text='A user with at most this many notes gets all of them in context (seed 000).')),
                        ('recall_top_k', models.PositiveIntegerField(default=8)),
                        ('recall_min_relevance', models.FloatField(default=0.3, help_text='What the chat turn puts in context must be at least this relevant (0..1, cosine plus keyword evidence). Explicit recall (API) always returns k items.')),
                        ('task_ttl_days', models.PositiveIntegerField(default=7)),
                        ('experience_sharing', models.BooleanField(default=True, help_text='Offer experiences (generalised procedures users liked) to other users of the assistant. Off: an experience only helps the users it came from.')),
                        ('experience_min_users', models.PositiveIntegerField(default=3, help_text='Distinct users who must confirm an experience before others are offered it (staff approval in the admin also shares it).')),
                        ('bulk_jobs_max', models.PositiveSmallIntegerField(blank=True, help_text="Bulk jobs (imports, re-embedding, erasure) of this tenant that may run at once; the others wait, so other tenants' work gets the remaining workers. Blank: BULK_JOBS_PER_TENANT (1).", null=True)),
                        ('chat_model', models.CharField(blank=True, help_text='Blank: LLM_CHAT_MODEL.', max_length=200)),
                        ('embedding_model', models.CharField(blank=True, help_text='Blank: LLM_EMBEDDING_MODEL.', max_length=200)),
                        ('temporary_chat_ttl_hours', models.PositiveIntegerField(default=24, help_text='A temporary chat (nothing written to long-term memory) is deleted this many hours after it starts.')),
                        ('usage_quotas', models.JSONField(blank=True, default=dict, help_text='Usage limits (issue 43, docs/memory.md "Usage quotas"): {"tenant"|"assistant"|"user": {"tokens_per_day"|"tokens_per_month"|"turns_per_day"|"turns_per_month": n}}; "assistant" and "user" cap each one. Empty: no limit.')),
                    ],
                    options={
                        'db_table': 'assistants_tenant',
                    },
                ),
                migrations.CreateModel(
                    name='EndUser',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('external_id', models.CharField(help_text="The integrator's id for this person.", max_length=200)),
                        ('display_name', models.CharField(blank=True, max_length=200)),
                        ('locale', models.CharField(blank=True, max_length=10)),
                        ('erasure_requested_at', models.DateTimeField(blank=True, help_text='Set when erasure starts; from then on nothing new is written for this user.', null=True)),
                        ('memory_enabled', models.BooleanField(default=True, help_text="Off: no long-term notes are written or recalled for this person (the person's own switch; pinned facts of the current conversation still work).")),
                        ('user', models.OneToOneField(blank=True, help_text='Web chat login, if this person uses the web chat.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='end_user', to=settings.AUTH_USER_MODEL)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
                    ],
                    options={
                        'db_table': 'assistants_enduser',
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.CreateModel(
                    name='ChatSession',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('title', models.CharField(blank=True, max_length=200)),
                        ('summary', models.TextField(blank=True, help_text='Rolling summary of every message up to summary_through.')),
                        ('summary_version', models.PositiveIntegerField(default=0, help_text='Compare-and-set guard for compaction.')),
                        ('pinned_facts', models.JSONField(blank=True, default=dict, help_text='Core constraints: key -> {value, message_id, updated_at}.')),
                        ('last_activity_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('temporary', models.BooleanField(default=False, help_text='A temporary chat: nothing is written to long-term memory or experiences, nothing is recalled, and the session is deleted at expires_at.')),
                        ('expires_at', models.DateTimeField(blank=True, help_text='Temporary chats only: when it is deleted.', null=True)),
                        ('assistant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to='tenancy.assistant')),
                        ('end_user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to='tenancy.enduser')),
                    ],
                    options={
                        'db_table': 'assistants_chatsession',
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.CreateModel(
                    name='Message',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('role', models.CharField(choices=[('system', 'System'), ('user', 'User'), ('assistant', 'Assistant'), ('tool', 'Tool')], max_length=10)),
                        ('content', models.TextField()),
                        ('token_count', models.PositiveIntegerField(default=0)),
                        ('metadata', models.JSONField(blank=True, default=dict, help_text='What the reply was built from, model, errors.')),
                        ('search_vector', models.TextField(blank=True, help_text='Space-separated terms for keyword recall (CJK bigrams).')),
                        ('end_user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='messages', to='tenancy.enduser')),
                        ('session', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='messages', to='tenancy.chatsession')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
                    ],
                    options={
                        'db_table': 'assistants_message',
                        'ordering': ['created_at', 'id'],
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.AddField(
                    model_name='chatsession',
                    name='summary_through',
                    field=models.ForeignKey(blank=True, db_constraint=False, help_text='The last message the summary covers; later messages are still verbatim.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='tenancy.message'),
                ),
                migrations.CreateModel(
                    name='Feedback',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('rating', models.CharField(choices=[('up', 'Up'), ('down', 'Down')], max_length=4)),
                        ('comment', models.TextField(blank=True)),
                        ('end_user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='feedback', to='tenancy.enduser')),
                        ('message', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='feedback', to='tenancy.message')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
                    ],
                    options={
                        'verbose_name': 'reply rating',
                        'verbose_name_plural': 'reply ratings',
                        'db_table': 'assistants_feedback',
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.CreateModel(
                    name='ErasureReceipt',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('user_id_hash', models.CharField(db_index=True, max_length=64)),
                        ('requested_by', models.CharField(max_length=200)),
                        ('reason', models.CharField(blank=True, help_text='Why the erasure was asked for (no names).', max_length=500)),
                        ('counts', models.JSONField(default=dict)),
                        ('completed_at', models.DateTimeField(blank=True, null=True)),
                        ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='core.jobrecord')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
                    ],
                    options={
                        'db_table': 'assistants_erasurereceipt',
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.AddField(
                    model_name='chatsession',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AddField(
                    model_name='assistant',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.CreateModel(
                    name='ApiKey',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('name', models.CharField(max_length=100)),
                        ('prefix', models.CharField(db_index=True, help_text='First characters, to recognise a key.', max_length=16)),
                        ('hashed_key', models.CharField(max_length=128, unique=True)),
                        ('revoked_at', models.DateTimeField(blank=True, null=True)),
                        ('last_used_at', models.DateTimeField(blank=True, null=True)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
                    ],
                    options={
                        'verbose_name': 'API key',
                        'verbose_name_plural': 'API keys',
                        'db_table': 'assistants_apikey',
                        'abstract': False,
                        'default_manager_name': 'all_tenants',
                    },
                    managers=[
                        ('all_tenants', django.db.models.manager.Manager()),
                    ],
                ),
                migrations.CreateModel(
                    name='TenantStaff',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='staff', to='tenancy.tenant')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tenant_memberships', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'tenant staff member',
                        'db_table': 'assistants_tenantstaff',
                    },
                ),
                migrations.AddIndex(
                    model_name='message',
                    index=models.Index(fields=['session', 'id'], name='assistants__session_31e5d4_idx'),
                ),
                migrations.AddIndex(
                    model_name='message',
                    index=models.Index(fields=['tenant', 'end_user', 'created_at'], name='assistants__tenant__5d0ebc_idx'),
                ),
                migrations.AddConstraint(
                    model_name='feedback',
                    constraint=models.UniqueConstraint(fields=('message', 'end_user'), name='uniq_feedback_per_message'),
                ),
                migrations.AddConstraint(
                    model_name='enduser',
                    constraint=models.UniqueConstraint(fields=('tenant', 'external_id'), name='uniq_end_user_external_id'),
                ),
                migrations.AddIndex(
                    model_name='chatsession',
                    index=models.Index(fields=['tenant', 'end_user', '-last_activity_at'], name='assistants__tenant__3c4db0_idx'),
                ),
                migrations.AddIndex(
                    model_name='chatsession',
                    index=models.Index(condition=models.Q(('temporary', True)), fields=['expires_at'], name='session_temporary_expiry'),
                ),
                migrations.AddConstraint(
                    model_name='tenantstaff',
                    constraint=models.UniqueConstraint(fields=('user', 'tenant'), name='uniq_tenant_staff'),
                ),
            ],
        ),
        migrations.RunPython(relabel_content_types, relabel_back),
    ]
