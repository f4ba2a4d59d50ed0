"""Settings for Pod Resource Designer.

Everything that differs between a laptop and production comes from the environment:
DJANGO_SECRET_KEY, DJANGO_DEBUG, DJANGO_ALLOWED_HOSTS, DATABASE_URL (SQLite when unset).
"""

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", False)
# A fixed development key keeps `make run` to one command; `check --deploy` flags it
# (the "django-insecure-" prefix), so production must set DJANGO_SECRET_KEY.
SECRET_KEY = (
    os.environ.get("DJANGO_SECRET_KEY") or "django-insecure-dev-key-pod-resource-designer-local"
)
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver").split(
        ","
    )
    if h.strip()
]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "designer",
]

MIDDLEWARE = [
    # Outermost: its headers are on every answer, the 400 for a bad Host included.
    "designer.middleware.ContentSecurityPolicyMiddleware",
    # Probes come by pod IP: answered before the host check.
    "designer.middleware.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "designer.middleware.RequestSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

# The benchmarks serve a bare view beside the app on the same server (bench/bench_urls.py).
ROOT_URLCONF = os.environ.get("DJANGO_ROOT_URLCONF", "designer.urls")
WSGI_APPLICATION = "designer.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
            ],
        },
    }
]

# The server is ASGI (gunicorn.conf.py): every request runs in a thread of its own, so
# Django's persistent connections would be one per thread ever made. No persistent
# connections, then; PostgreSQL connections come from a pool per worker process instead
# (psycopg_pool, at most DATABASE_POOL_MAX_SIZE: a request holds one while it runs, and
# designer.asgi runs at most DESIGNER_MAX_CONCURRENT_REQUESTS at a time).
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=0
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ.get("DATABASE_POOL_MAX_SIZE", "10")),
        "timeout": 10,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The header's language switch (Django's set_language) remembers the choice for a year.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Hashed, compressed file names once `collectstatic` has run (make serve); plain otherwise,
# so development and tests need no build step.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if (STATIC_ROOT / "staticfiles.json").exists()
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = True

# Analyze accepts manifests up to 20 MB (a whole-cluster dump).
DATA_UPLOAD_MAX_MEMORY_SIZE = 21 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 21 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 5000

# Analyses of the Analyze page live in the database (designer.store), bounded per entry
# (compressed bytes), in all, and in number; expired and surplus ones go on every save.
ANALYSIS_TTL_SECONDS = int(os.environ.get("ANALYSIS_TTL_SECONDS", 24 * 3600))
ANALYSIS_MAX_ENTRY_BYTES = int(os.environ.get("ANALYSIS_MAX_ENTRY_BYTES", 4 * 1024 * 1024))
ANALYSIS_MAX_TOTAL_BYTES = int(os.environ.get("ANALYSIS_MAX_TOTAL_BYTES", 256 * 1024 * 1024))
ANALYSIS_MAX_ENTRIES = int(os.environ.get("ANALYSIS_MAX_ENTRIES", 500))
# The objects designs were opened from (designer.store.OriginStore): kept 30 days after
# they were last opened or shared, bounded the same three ways.
ORIGIN_TTL_SECONDS = int(os.environ.get("ORIGIN_TTL_SECONDS", 30 * 24 * 3600))
ORIGIN_MAX_ENTRY_BYTES = int(os.environ.get("ORIGIN_MAX_ENTRY_BYTES", 1024 * 1024))
ORIGIN_MAX_TOTAL_BYTES = int(os.environ.get("ORIGIN_MAX_TOTAL_BYTES", 128 * 1024 * 1024))
ORIGIN_MAX_ENTRIES = int(os.environ.get("ORIGIN_MAX_ENTRIES", 10000))
# Processes POST /api/v1/analyze checks a large cluster dump on (forked for the request; a
# dump of a few hundred pods never forks): at most this many, and no more than the server's
# CPU tokens free at that moment (designer.cpus). Unset or 0: the CPUs this process may use
# (designer.cpus.default_jobs: the cores it may run on, at most its container's CPU
# limit); 1 checks every request in the request's own process.
ANALYZE_JOBS = max(0, int(os.environ.get("ANALYZE_JOBS") or 0))
# Designer pages whose address would be too long for proxies (designer.store.PageStore):
# the address holds ?page=<id>; kept 30 days after last use, bounded the same ways.
PAGE_TTL_SECONDS = int(os.environ.get("PAGE_TTL_SECONDS", 30 * 24 * 3600))
PAGE_MAX_ENTRY_BYTES = int(os.environ.get("PAGE_MAX_ENTRY_BYTES", 1024 * 1024))
PAGE_MAX_TOTAL_BYTES = int(os.environ.get("PAGE_MAX_TOTAL_BYTES", 128 * 1024 * 1024))
PAGE_MAX_ENTRIES = int(os.environ.get("PAGE_MAX_ENTRIES", 10000))

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# The designer's live updates are POSTs: a refused token must be seen (designer.views).
CSRF_FAILURE_VIEW = "designer.views.csrf_failure"
CSRF_COOKIE_HTTPONLY = (
    False  # htmx reads no cookie; the token travels in a header set from the page
)
# Behind TLS in production (DJANGO_HTTPS=1): redirect to https, secure cookies, HSTS.
if env_bool("DJANGO_HTTPS", False):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

CSP_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; "
    "object-src 'none'"
)

# Everything to stderr (the container's log); the designer's own loggers at INFO, so a
# refused database write (full disk, read-only) is in the log with its traceback.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"designer": {"level": os.environ.get("DESIGNER_LOG_LEVEL", "INFO")}},
}
