"""Django settings: the only module that reads the environment.

Every value has a local default that runs with no servers (SQLite and kombu's filesystem
broker under ``var/``); the same code runs in production with PostgreSQL and Redis URLs.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false)")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    try:
        return int(value) if value else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number") from None


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    try:
        return float(value) if value else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number") from None


def _env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name, "")
    return [part.strip() for part in value.split(",") if part.strip()] or default


DEBUG = _env_bool("DEBUG")

DATA_DIR = Path(os.environ.get("MATHJURY_DATA_DIR") or BASE_DIR / "var").resolve()
UPLOAD_DIR = DATA_DIR / "uploads"
BROKER_DIR = DATA_DIR / "broker"
# The filesystem broker and the upload store need their folders before the first request.
for _folder in (UPLOAD_DIR, BROKER_DIR / "queue", BROKER_DIR / "processed", DATA_DIR / "static"):
    _folder.mkdir(parents=True, exist_ok=True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "insecure-debug-only-key"  # DEBUG only: never served to the public

ALLOWED_HOSTS = _env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = _env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "reviewer",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF: CSRF reads the body, and an oversized upload must become a 413, not a 500.
    "reviewer.upload_limits.UploadSizeLimitMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "reviewer.urls"
WSGI_APPLICATION = "reviewer.wsgi.application"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'mathjury.sqlite3'}",
        conn_max_age=_env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and a worker write at once: wait for the lock instead of failing, and
    # take it at BEGIN so two writers never deadlock upgrading a read lock.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not memory, so worker processes started by tests can open the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test_mathjury.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# PostgreSQL: the role the app connects as when DATABASE_URL is the tables' owner (migrations).
# `manage.py grant_app_role` creates it with no right to change or empty the audit trail.
MATHJURY_APP_DATABASE_URL = os.environ.get("MATHJURY_APP_DATABASE_URL", "")

# Login throttling (django-axes): after MATHJURY_LOGIN_FAILURE_LIMIT wrong passwords for one
# username from one address, that pair is refused until the cool-off ends (the pair, so a
# stranger cannot lock colleagues out); the API token endpoint goes through the same backend.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = _env_int("MATHJURY_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=_env_int("MATHJURY_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_CALLABLE = "reviewer.lockout.login_locked_out"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Uploads: the size cap is enforced while the body streams (reviewer.upload_limits), because Django
# itself sets no limit on uploaded files. The API (scripts) may be allowed more than the page.
MATHJURY_UPLOAD_MAX_BYTES = _env_int("MATHJURY_UPLOAD_MAX_BYTES", 50 * 1024 * 1024)
MATHJURY_API_UPLOAD_MAX_BYTES = _env_int(
    "MATHJURY_API_UPLOAD_MAX_BYTES", max(MATHJURY_UPLOAD_MAX_BYTES, 200 * 1024 * 1024)
)
MATHJURY_MAX_FIELD_BYTES = _env_int("MATHJURY_MAX_FIELD_BYTES", 1024 * 1024)
# Checked on the first line, before the rest of the file is read.
MATHJURY_UPLOAD_MAX_COLUMNS = _env_int("MATHJURY_UPLOAD_MAX_COLUMNS", 1000)
MATHJURY_UPLOAD_MAX_HEADER_BYTES = _env_int("MATHJURY_UPLOAD_MAX_HEADER_BYTES", 64 * 1024)
# Stored uploads never turned into a run are deleted after this many hours (purge_uploads).
MATHJURY_UPLOAD_KEEP_HOURS = _env_int("MATHJURY_UPLOAD_KEEP_HOURS", 24)
FILE_UPLOAD_HANDLERS = [
    "reviewer.upload_limits.SizeCappedUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
FILE_UPLOAD_TEMP_DIR = os.environ.get("FILE_UPLOAD_TEMP_DIR") or None
DATA_UPLOAD_MAX_NUMBER_FILES = 10

# Grading. A run is split into about MATHJURY_CHUNK_TARGET chunks (so every worker gets a
# share) of at most MATHJURY_CHUNK_SIZE rows; a chunk saves its rows in batches of about a
# second of work and sends what it has not reached on as a new chunk before its time limit.
MATHJURY_CHUNK_SIZE = _env_int("MATHJURY_CHUNK_SIZE", 500)
MATHJURY_CHUNK_TARGET = 16
MATHJURY_CHUNK_MIN = 20
MATHJURY_GRADING_TIMEOUT = _env_float("MATHJURY_GRADING_TIMEOUT", 5.0)
MATHJURY_GRADING_MEMORY_MB = _env_int("MATHJURY_GRADING_MEMORY_MB", 1024)
# Grading processes per worker process. One: with a worker process per core, the cores are
# busy (a process saves one batch while its grading process grades the next), and each
# grading process's caches see more of a gold's rows than two would.
MATHJURY_GRADING_WORKERS = _env_int("MATHJURY_GRADING_WORKERS", 1)
MATHJURY_MAX_GRADE_ATTEMPTS = 3
# A chunk whose worker has not reported for this long is lost: ``manage.py reconcile`` (run
# every MATHJURY_RECONCILE_SECONDS by bin/start and docker-compose) sends its rows again. A
# queued chunk is lost when the broker holds no message and it was sent this long ago.
MATHJURY_GRADING_STALE_SECONDS = _env_int("MATHJURY_GRADING_STALE_SECONDS", 60)
MATHJURY_RECONCILE_SECONDS = _env_int("MATHJURY_RECONCILE_SECONDS", 60)

# Review: the percent of unflagged rows queued as a spot check, to estimate the consensus's
# error rate; MATHJURY_AUDIT_PERCENT, the setting's earlier name, still works.
_SPOT_CHECK_VARIABLES = ("MATHJURY_SPOT_CHECK_PERCENT", "MATHJURY_AUDIT_PERCENT")
_SPOT_CHECK_VARIABLE = next(
    (name for name in _SPOT_CHECK_VARIABLES if os.environ.get(name, "").strip()),
    _SPOT_CHECK_VARIABLES[0],
)
MATHJURY_SPOT_CHECK_PERCENT = _env_int(_SPOT_CHECK_VARIABLE, 5)
if not 0 <= MATHJURY_SPOT_CHECK_PERCENT <= 100:
    raise ImproperlyConfigured(
        f"{_SPOT_CHECK_VARIABLE}={MATHJURY_SPOT_CHECK_PERCENT} is not a percentage from 0 to 100"
    )


# MSU (docs/msu.md): notions from a chat endpoint if a base URL is set, else lexical; embeddings
# from a local model directory, else an /embeddings endpoint, else the hashed bag of notions.
# API keys come from the variables the *_API_KEY_ENV settings name, never a settings file.
def _secret_named(setting: str, name: str) -> str:
    """The value of the variable another setting names (an API key), or "" when none is named."""
    value = os.environ.get(name, "") if name else ""
    if name and not value:
        raise ImproperlyConfigured(f"{setting}={name!r} names a variable that is not set")
    return value


MATHJURY_MSU_BASE_URL = os.environ.get("MATHJURY_MSU_BASE_URL", "").strip()
MATHJURY_MSU_MODEL = os.environ.get("MATHJURY_MSU_MODEL", "").strip()
MATHJURY_MSU_API_KEY_ENV = os.environ.get("MATHJURY_MSU_API_KEY_ENV", "").strip()
MATHJURY_MSU_API_KEY = _secret_named("MATHJURY_MSU_API_KEY_ENV", MATHJURY_MSU_API_KEY_ENV)
MATHJURY_MSU_TIMEOUT = _env_float("MATHJURY_MSU_TIMEOUT", 60.0)
MATHJURY_MSU_CONCURRENCY = _env_int("MATHJURY_MSU_CONCURRENCY", 4)
MATHJURY_EMBEDDING_MODEL = os.environ.get("MATHJURY_EMBEDDING_MODEL", "").strip()
MATHJURY_EMBEDDING_BASE_URL = os.environ.get("MATHJURY_EMBEDDING_BASE_URL", "").strip()
MATHJURY_EMBEDDING_ENDPOINT_MODEL = os.environ.get("MATHJURY_EMBEDDING_ENDPOINT_MODEL", "").strip()
MATHJURY_EMBEDDING_API_KEY_ENV = os.environ.get("MATHJURY_EMBEDDING_API_KEY_ENV", "").strip()
MATHJURY_EMBEDDING_API_KEY = _secret_named(
    "MATHJURY_EMBEDDING_API_KEY_ENV", MATHJURY_EMBEDDING_API_KEY_ENV
)
for _url, _model in (
    ("MATHJURY_MSU_BASE_URL", "MATHJURY_MSU_MODEL"),
    ("MATHJURY_EMBEDDING_BASE_URL", "MATHJURY_EMBEDDING_ENDPOINT_MODEL"),
):
    if globals()[_url] and not globals()[_model]:
        raise ImproperlyConfigured(f"{_url} is set: set {_model} too")
if MATHJURY_EMBEDDING_MODEL and MATHJURY_EMBEDDING_BASE_URL:
    raise ImproperlyConfigured(
        "set MATHJURY_EMBEDDING_MODEL (a local model directory) or MATHJURY_EMBEDDING_BASE_URL "
        "(an /embeddings endpoint), not both"
    )

# Celery (reviewer.celery reads the CELERY_ names). A grading chunk sends its unfinished rows
# on before its soft limit, so the hard limit is minutes whatever the chunk size; the visibility
# time-out is a minute above it, and a chunk whose holder still reports is not graded twice.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "filesystem://"
CELERY_TASK_TIME_LIMIT = _env_int("MATHJURY_TASK_TIME_LIMIT", 180)
if CELERY_TASK_TIME_LIMIT < 10:
    raise ImproperlyConfigured(f"MATHJURY_TASK_TIME_LIMIT={CELERY_TASK_TIME_LIMIT} is under 10 s")
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - min(30, max(5, CELERY_TASK_TIME_LIMIT // 5))
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # Look for messages every 0.1 s (by default 1 s, which each next chunk waited for).
        "polling_interval": 0.1,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_TASK_TIME_LIMIT + 60,
        "unacked_restore_throttle": 1,
        "unacked_restore_interval": _env_int("MATHJURY_BROKER_RESTORE_INTERVAL", 10),
    }
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_MAX_TASKS_PER_CHILD = 100
CELERY_WORKER_MAX_MEMORY_PER_CHILD = 1024 * 1024  # KiB
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True
# One queue per kind of work, so an export or a generation never waits behind a run's grading
# chunks. A worker started without -Q consumes every queue; a machine for one kind of work
# runs `celery -A reviewer worker -Q exports` (README, "Workers on more machines").
MATHJURY_QUEUES = ("grading", "generation", "exports", "celery")  # celery: anything else
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = [Queue(name) for name in MATHJURY_QUEUES]
CELERY_TASK_ROUTES = {
    "reviewer.grade_chunk": {"queue": "grading"},
    "reviewer.generate*": {"queue": "generation"},
    "reviewer.export_run": {"queue": "exports"},
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Token first, so a request without credentials gets 401 with WWW-Authenticate.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Personal tokens from the API tokens page (keys starting mj_), then the older one.
        "reviewer.api.token_auth.PersonalTokenAuthentication",
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "reviewer.api.errors.api_exception_handler",
    # ?format= names an export's file format, not a DRF renderer.
    "URL_FORMAT_OVERRIDE": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "MathJury API",
    "DESCRIPTION": "Runs, items, reviews, statistics and exports. See docs/api.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ReviewVerdictEnum": "reviewer.models.ReviewVerdict",
        "AutoVerdictEnum": "reviewer.models.Verdict",
        "RunStatusEnum": "reviewer.models.Run.Status",
        "ExportStatusEnum": "reviewer.models.Export.Status",
        # The evaluators a run is graded with, and the one an item filter names.
        "EvaluatorEnum": "grading.evaluators.AVAILABLE",
    },
    # Swagger UI from the drf-spectacular-sidecar package: served from our own static files.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
}

# Exports: files written by workers, read by the web server (a shared folder in production);
# up to MATHJURY_EXPORT_STREAM_MAX_ROWS rows also download directly, without a job.
MATHJURY_EXPORT_DIR = Path(os.environ.get("MATHJURY_EXPORT_DIR") or DATA_DIR / "exports")
MATHJURY_EXPORT_STREAM_MAX_ROWS = _env_int("MATHJURY_EXPORT_STREAM_MAX_ROWS", 5000)

# Generation (docs/endpoints.md): a task sends requests this long, then queues the next slice.
MATHJURY_GENERATION_SLICE_SECONDS = _env_float("MATHJURY_GENERATION_SLICE_SECONDS", 120.0)
# Attempts per request before it fails for good (429, 5xx, time-outs, dropped connections).
MATHJURY_GENERATION_RETRY_ATTEMPTS = _env_int("MATHJURY_GENERATION_RETRY_ATTEMPTS", 6)
# A saved endpoint may name the environment variable that holds its API key (--api-key-env):
# the workers look it up here when they call the server, so that key never enters the database.
MATHJURY_ENDPOINT_KEY_ENVIRONMENT = os.environ
# Rows the LLM judge is asked about per task.
MATHJURY_JUDGE_CHUNK_SIZE = _env_int("MATHJURY_JUDGE_CHUNK_SIZE", 50)

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        # UI: KaTeX sets style attributes on parse errors and some SVG glyphs; attributes run
        # no script, and style elements and scripts stay limited to our own files.
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}

_HTTPS = _env_bool("MATHJURY_HTTPS")
SESSION_COOKIE_SECURE = _HTTPS
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = _HTTPS
SECURE_SSL_REDIRECT = _HTTPS
SECURE_HSTS_SECONDS = 31536000 if _HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = _HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if _HTTPS else None
X_FRAME_OPTIONS = "DENY"
# W021 asks for SECURE_HSTS_PRELOAD, which submits the whole domain to browsers' HTTPS-only
# list for good; only the domain's owner can promise that, not an app's default settings.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
