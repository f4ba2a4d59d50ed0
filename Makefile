# Everything a fresh machine needs is installed from here: the venv, pip packages and,
# for browser tests, Debian's chromium. `make run` and `make test` are the quick start.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: run serve test test-fast lint format bench load chromium messages check-deploy check-manifests clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Browser tests drive Debian's chromium (Playwright cannot download its own browser here),
# with a CJK font so the Simplified Chinese pages render (and measure) as users see them.
chromium:
	@test -x /usr/bin/chromium || { \
	  echo "installing chromium (Debian package)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	@test -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc || { \
	  echo "installing a CJK font (fonts-wqy-microhei)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-wqy-microhei >/dev/null; }

# The compiled catalogs are committed; this rebuilds them when gettext is (or can be) installed.
messages: $(STAMP)
	@if ls locale/*/LC_MESSAGES/*.po >/dev/null 2>&1; then \
	  command -v msgfmt >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; } || true; \
	  if command -v msgfmt >/dev/null; then $(BIN)/django-admin compilemessages --ignore=$(VENV) >/dev/null; \
	  else echo "gettext not available: using the committed .mo files"; fi; fi

run: $(STAMP) messages
	DJANGO_DEBUG=$${DJANGO_DEBUG:-1} $(BIN)/python manage.py migrate --noinput
	DJANGO_DEBUG=$${DJANGO_DEBUG:-1} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# Production-style server with the container's settings (gunicorn.conf.py): an asyncio
# worker per core, whitenoise for static files (set DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS).
serve: $(STAMP) messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput >/dev/null
	PORT=$(PORT) $(BIN)/gunicorn -c gunicorn.conf.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: $(STAMP) chromium messages lint
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/pytest -q

test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not browser and not kubectl"

check-deploy: $(STAMP)
	DJANGO_DEBUG=0 DJANGO_HTTPS=1 DJANGO_SECRET_KEY=$$(head -c 48 /dev/urandom | base64) DJANGO_ALLOWED_HOSTS=example.com \
	  $(BIN)/python manage.py check --deploy --fail-level WARNING

bench: $(STAMP) chromium
	@command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null; }
	$(BIN)/python manage.py collectstatic --noinput >/dev/null
	$(BIN)/python bench/all.py $(BENCH_FLAGS)

# 50 users for 60 s on the realistic mix against the production server configuration
# (DATABASE_URL=postgres://... for PostgreSQL; KILL_AT=30 kills a worker mid-run).
load: $(STAMP)
	$(BIN)/python bench/load.py --users 50 --duration 60 $(if $(KILL_AT),--kill-worker-at $(KILL_AT))

# deploy/: the official schema, strictly, and the designer's own check (0 errors).
check-manifests: $(STAMP)
	$(BIN)/kubernetes-validate --strict --quiet $(addprefix deploy/,$(shell $(BIN)/python -c "import yaml; print(' '.join(yaml.safe_load(open('deploy/kustomization.yaml'))['resources']))"))
	$(BIN)/python manage.py podspec check deploy/*.yaml

clean:
	rm -rf $(VENV) staticfiles
