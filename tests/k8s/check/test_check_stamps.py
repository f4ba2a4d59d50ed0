"""A dump's Pods stamped by their memo key (check.stamps) get the entries the long way gives:
the same document as check_files, for Pods that share a key and Pods that only seem to."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.k8s.apiserver import cluster_version
from designer.k8s.check import stamps
from designer.k8s.check.stamps import Memos, check_items
from designer.k8s.manifest import Document, dump_yaml
from tests.k8s.check.test_check_stream import same

TEMPLATES = [
    {"limits": {"cpu": "1", "memory": "1Gi"}},
    {"requests": {"cpu": "100m"}},
    {"limits": {"nvidia.com/gpu": "1"}},
    {"limits": {"cpu": "x"}},
    {},
]


def pod(i: int, rnd: random.Random) -> dict[str, Any]:
    """Pods of a few templates, with what makes a Pod look like another one or not."""
    resources = rnd.choice(TEMPLATES)
    names = rnd.choice([["app"], ["web"], ["app", "side"], ["side", "app"], ["dup", "dup"]])
    containers = [
        {
            "name": n,
            "image": rnd.choice([f"img:{i}", " padded", f"img:{i}"]),
            "resources": resources,
            "volumeMounts": [{"name": f"tok-{i}", "mountPath": "/var/run"}],
        }
        for n in names
    ]
    if rnd.random() < 0.1:
        containers[0]["env"] = [
            {"name": "CPU", "valueFrom": {"resourceFieldRef": {"containerName": names[0]}}}
        ]
    metadata: Any = {
        "name": rnd.choice([f"p-{i}", f"p-{i}", "Bad_Name"]),
        "namespace": rnd.choice(["ns-a", "ns-b", "Bad_NS"]),
        "uid": f"uid-{i}",
        "labels": rnd.choice(
            [{"app": "a", "pod-template-hash": f"h{i}"}, {"kueue.x-k8s.io/queue-name": "q"}, {}]
        ),
    }
    if rnd.random() < 0.1:
        metadata["annotations"] = {"note": names[0]}
    if rnd.random() < 0.05:
        metadata = ["not", "a", "mapping"]
    spec: Any = {
        "containers": containers,
        "nodeName": f"node-{i}",
        "volumes": [{"name": f"tok-{i}", "projected": {}}],
    }
    if rnd.random() < 0.15:
        spec["initContainers"] = [{"name": "init", "image": "i", "restartPolicy": "Always"}]
    if rnd.random() < 0.05:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "c"}]
    if rnd.random() < 0.05:
        spec = None
    return {
        "apiVersion": rnd.choice(["v1", "v1", "v1", "v2", "apps/v1"]),
        "kind": rnd.choice(["Pod", "Pod", "Pod", "Pod", "Deployment"]),
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": "Running"},
    }


def dump(n: int, seed: int) -> dict[str, Any]:
    rnd = random.Random(seed)
    items: list[Any] = [pod(i, rnd) for i in range(n)]
    if n > 6:
        items[5] = "not an object"
        items[6] = {"kind": "PodList", "apiVersion": "v1", "items": [pod(99, rnd), pod(98, rnd)]}
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(0, 40),
    seed=st.integers(0, 10_000),
    layout=st.sampled_from(["yaml", "json", "json on one line"]),
)
def test_stamped_dumps_are_the_whole_check(n: int, seed: int, layout: str) -> None:
    data = dump(n, seed)
    text = {
        "yaml": dump_yaml,
        "json": lambda d: json.dumps(d, indent=4),
        "json on one line": json.dumps,
    }[layout](data)
    same([("dump", text)])


@pytest.mark.parametrize(
    "kw", [{"kubernetes_version": "1.31"}, {"namespace": "team"}, {"max_workloads": 20}]
)
def test_stamped_dumps_for_a_version_a_namespace_and_a_budget_are_the_whole_check(
    kw: dict[str, Any],
) -> None:
    for seed in range(4):
        same([("dump", json.dumps(dump(30, seed), indent=4))], **kw)


def test_pods_of_one_key_after_the_first_are_stamped_not_checked_the_long_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def pod_named(i: int, container: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p-{i}", "namespace": "ns", "uid": str(i)},
            "spec": {
                "containers": [
                    {"name": container, "image": f"i:{i}", "resources": {"limits": {"cpu": "1"}}}
                ],
                "nodeName": f"n{i}",
            },
        }

    items = [pod_named(i, ["a", "b"][i % 2]) for i in range(6)]
    long_way: list[int] = []
    real = stamps.find_workloads_of_items

    def spy(doc: Document, missed: list[tuple[int, Any]]) -> Any:
        long_way.extend(i for i, _item in missed)
        return real(doc, missed)

    monkeypatch.setattr(stamps, "find_workloads_of_items", spy)
    memos = Memos({}, {}, {}, {})
    doc = Document(0, 1, {"kind": "List", "items": []}, None)
    version = cluster_version(None)
    first = check_items("f", doc, items[:3], 0, version, memos)
    second = check_items("f", doc, items[3:], 3, version, memos)
    # The first Pod only: the others (another container name too) waited for its key.
    assert long_way == [0]
    entries = first.entries + second.entries
    assert [e["path"] for e in entries] == [f"items[{i}]" for i in range(6)]
    assert [e["name"] for e in entries] == [f"p-{i}" for i in range(6)]
    # Each entry names its own container (the report was made for stand-in names).
    assert [e["qosReasons"][0].split()[1] for e in entries] == ['"a"', '"b"'] * 3
