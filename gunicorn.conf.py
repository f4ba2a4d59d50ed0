"""The one server configuration: `make serve` and the container both run
``gunicorn -c gunicorn.conf.py``. Environment variables tune it per deployment.

Why these values:
* worker class: an asyncio worker (designer.server.DesignerASGIWorker), so idle and slow
  clients cost a socket, not a worker: 50 idle connections leave GET / as fast as before
  (bench/slow_clients.py; tests/web/test_server.py). Sync workers stalled the site for 31 s
  with two idle connections.
* workers: one per core the pod gets (WEB_CONCURRENCY, 2 by default): the engine is CPU-bound
  Python, so more processes than cores buys nothing but memory.
* timeouts: 10 s for a new connection's request headers, 5 s of keep-alive between
  requests, 30 s for the worker's heartbeat and for each wait on a slow request body; 25 s
  to finish in-flight requests on shutdown (the pod's terminationGracePeriodSeconds is 30).
* limits: request lines and header fields of 8 KB (a design's address is under 4 KB: the
  page's own requests are POSTs and longer addresses are stored pages, designer.addresses),
  100 header fields, 1,000 connections per worker, and a
  worker is replaced after about 5,000 requests so memory cannot creep.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the project, wherever started

import designer.cpus  # noqa: E402

# The CPU tokens every worker shares (designer.cpus): created here, in the master, before
# it forks the workers.
designer.cpus.tokens()

wsgi_app = "designer.asgi:application"
worker_class = "designer.server.DesignerASGIWorker"
bind = [os.environ.get("GUNICORN_BIND", "127.0.0.1:" + os.environ.get("PORT", "8000"))]
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
asgi_lifespan = "off"  # Django has no lifespan handlers

keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "25"))

limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190

max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "5000"))
max_requests_jitter = max_requests // 10

accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Only a proxy we trust may say the request came over https (X-Forwarded-Proto).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# A read-only root filesystem: the heartbeat files live in memory, and the control socket
# (a file under $HOME) is not used.
if Path("/dev/shm").is_dir():
    worker_tmp_dir = "/dev/shm"
control_socket_disable = True
