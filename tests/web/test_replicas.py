"""Two replicas behind one Service: two gunicorn servers, each with its own temp directory,
one database. What one replica makes, the other serves, before and after both restart.

SQLite here; .ci/postgres-tests runs it again on PostgreSQL (DATABASE_URL).
"""

from __future__ import annotations

import http.client
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from designer.forms import design_query
from designer.k8s.design import preset_design
from tests.web.servers import database_env, get, gunicorn

pytestmark = pytest.mark.server

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {memory: 256Mi}
"""


def post_form(port: int, path: str, fields: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    # The form pages check CSRF: fetch a token first, as a browser does.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/analyze")
    page = connection.getresponse()
    html = page.read().decode()
    cookie = page.getheader("Set-Cookie", "").split(";")[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    body = urlencode({**fields, "csrfmiddlewaretoken": token})
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": cookie,
        "Referer": f"http://127.0.0.1:{port}/",
    }
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    answer = (response.status, dict(response.getheaders()), response.read())
    connection.close()
    return answer


def test_what_one_replica_makes_the_other_serves_also_after_both_restart(
    tmp_path: Path,
) -> None:
    env = database_env(tmp_path)
    design = preset_design("inference")
    query = urlencode(design_query(design))
    with gunicorn(env, tmp_path / "a") as a, gunicorn(env, tmp_path / "b") as b:
        status, headers, _ = post_form(a, "/analyze", {"text": MANIFEST})
        assert status == 303
        analysis = headers["Location"]
        status, headers, _ = post_form(a, "/share?" + query, {})
        assert status == 302
        share = headers["Location"]
        assert re.fullmatch(r"/s/[0-9a-f]{12}", share)

        status, body = get(b, analysis)
        assert status == 200 and b'data-workload="shop/web"' in body
        status, shared = get(b, share)
        assert status == 200 and b'data-qos-class="' in shared
        yaml_on_b = re.search(rb'<pre id="manifest-yaml".*?</pre>', shared, re.S).group()
        assert (
            yaml_on_b
            == re.search(rb'<pre id="manifest-yaml".*?</pre>', get(a, share)[1], re.S).group()
        )
    assert list((tmp_path / "a").iterdir()) == [tmp_path / "a" / "gunicorn.log"]

    # Both replicas restart (new processes, new temp directories): nothing was theirs.
    with gunicorn(env, tmp_path / "c") as c, gunicorn(env, tmp_path / "d") as d:
        for port in (c, d):
            status, body = get(port, analysis)
            assert status == 200 and b'data-workload="shop/web"' in body
            status, shared = get(port, share)
            assert status == 200
            assert (
                re.search(rb'<pre id="manifest-yaml".*?</pre>', shared, re.S).group() == yaml_on_b
            )
