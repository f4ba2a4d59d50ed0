# Pod Resource Designer: the same server as `make serve` (gunicorn -c gunicorn.conf.py) on
# port 8000. Runs as a non-root user and writes nothing but /tmp (mount an emptyDir there)
# and its database, so the root filesystem can be read-only (deploy/deployment.yaml).
#   docker build -t pod-resource-designer .
#   docker run --rm -p 8000:8000 -e DJANGO_ALLOWED_HOSTS=localhost pod-resource-designer
# A real deployment sets DATABASE_URL (PostgreSQL) and DJANGO_SECRET_KEY from a Secret and
# runs `python manage.py migrate` once per release (deploy/migrate-job.yaml).

FROM python:3.11.7-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# Dependencies first (a layer that changes only with pyproject.toml), pinned there with ==.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /requirements.txt \
 && python -m venv /venv \
 && /venv/bin/pip install -r /requirements.txt
COPY manage.py gunicorn.conf.py ./
COPY designer ./designer
COPY templates ./templates
COPY static ./static
COPY locale ./locale
# Hashed, compressed static files (whitenoise) and bytecode, made now: at run time nothing
# may be written beside the code.
RUN DJANGO_SECRET_KEY=build-only /venv/bin/python manage.py collectstatic --noinput >/dev/null \
 && /venv/bin/python -m compileall -q /app/designer /venv/lib

FROM python:3.11.7-slim-bookworm
RUN groupadd --system --gid 10001 designer \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin designer
COPY --from=build /venv /venv
COPY --from=build /app /app
WORKDIR /app
ENV PATH=/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    GUNICORN_BIND=0.0.0.0:8000 \
    DATABASE_URL=sqlite:////tmp/designer.sqlite3
USER 10001:10001
EXPOSE 8000
# /healthz answers 200 when the database answers and holds the designer's tables.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
CMD ["gunicorn", "-c", "gunicorn.conf.py"]
