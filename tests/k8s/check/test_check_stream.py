"""podspec check over dumps a slice at a time, on several processes, says exactly what the
whole check says: the same document, entry for entry, in the same order."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.k8s.check import check_files, check_texts
from designer.k8s.check.stream import CheckStream, slice_size
from designer.k8s.manifest import dump_yaml, split_list

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT.parent / "shared" / "crs").glob("*.yaml"))
DATA = sorted((ROOT / "tests" / "k8s" / "data").rglob("*.yaml"))


def same(inputs: list[tuple[str, str | bytes]], **kw: Any) -> None:
    """The stream's document is check_files' (reading every input whole), byte for byte."""
    whole = check_files(inputs, share_names=True, **kw).as_dict()
    assert orjson.dumps(check_texts(inputs, **kw)) == orjson.dumps(whole)
    for jobs in (1, 2):
        for slice_items in (1, 3, 2000):
            got = CheckStream(inputs, jobs=jobs, slice_items=slice_items, **kw).document()
            assert orjson.dumps(got) == orjson.dumps(whole), (jobs, slice_items)
    # A single input the splitter does not cut, read whole by each worker, in parts.
    got = CheckStream(inputs, jobs=2, shared_min_bytes=0, **kw).document()
    assert orjson.dumps(got) == orjson.dumps(whole), "shared"


def pod(i: int, rnd: random.Random) -> dict[str, Any]:
    size = rnd.choice(["100m", "1", "2", "-1", "x"])
    memory = rnd.choice(["128Mi", "1Gi", "128m"])
    return {
        "apiVersion": "v1",
        "kind": rnd.choice(["Pod", "Pod", "Pod", "Service", "Deployment"]),
        "metadata": {"name": rnd.choice([f"p-{i}", "Bad_Name"]), "namespace": f"ns-{i % 3}"},
        "spec": {
            "containers": [
                {
                    "name": "app",
                    "image": f"img:{i}",
                    "resources": {"limits": {"cpu": size, "memory": memory}},
                }
            ],
            "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}},
        },
    }


def dump(n: int, seed: int) -> dict[str, Any]:
    rnd = random.Random(seed)
    items: list[Any] = [pod(i, rnd) for i in range(n)]
    if n > 4:
        items[3] = "not an object"
        items[4] = {"kind": "PodList", "apiVersion": "v1", "items": [pod(99, rnd)]}
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


@pytest.mark.parametrize("n", [0, 1, 2, 7, 25])
def test_a_dump_in_yaml_and_json_in_slices_is_the_whole_check(n: int) -> None:
    data = dump(n, n)
    same(
        [
            ("a.yaml", dump_yaml(data)),
            ("b.json", json.dumps(data, indent=4)),
            ("c.json", json.dumps(data)),  # on one line
        ]
    )


def test_every_example_and_test_file_checked_alone_and_together_is_the_whole_check() -> None:
    inputs = [(p.name, p.read_bytes()) for p in [*EXAMPLES, *DATA]]
    assert len(inputs) > 40
    for one in inputs:
        same([one])
    same(inputs)


BROKEN = [
    b"items:\n- &p\n  kind: Pod\n  metadata: {name: a}\n- *p\nkind: List\n",
    b'items:\n- kind: Pod\n  metadata:\n    name: a\n    annotations:\n      a: "x\n- y"\n'
    b"- kind: Pod\n  metadata: {name: b}\nkind: List\n",
    b"items:\n- kind: Pod\n  metadata: {name: a}\n- kind: Pod\n  metadata: {name: [}\nkind: List\n",
    b"items:\n- kind: Pod\n  metadata: {name: a}\n- kind: Pod\n"
    b"  metadata: {name: b\xff}\nkind: List\n",
    b"items:\n- kind: Pod\n- kind: Pod\nkind: List\nitems:\n- kind: Service\n",
    b"not: [valid",
    b"",
    "items:\n- kind: Pod\n  metadata: {name: a\ud800}\n- kind: Pod\nkind: List\n",
    bytearray(b"items:\n- kind: Pod\n  metadata: {name: a}\n- kind: Pod\nkind: List\n"),
]


@pytest.mark.parametrize("text", BROKEN)
def test_a_dump_a_slice_cannot_read_alone_is_read_whole(text: bytes | str) -> None:
    same([("x.yaml", text), ("ok.yaml", dump_yaml(dump(3, 1)))])


def test_policies_claims_and_trainjobs_keep_the_whole_check() -> None:
    policy = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: l, namespace: ns-1}\n"
    policy += "spec:\n  limits:\n  - type: Container\n    default: {cpu: 300m}\n"
    same([("d.yaml", dump_yaml(dump(6, 2))), ("p.yaml", policy)])
    # The kind spelled with an escape is still a LimitRange.
    escaped = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "l", "namespace": "ns-1"},
            "spec": {"limits": [{"type": "Container", "default": {"cpu": "300m"}}]},
        }
    ).replace("LimitRange", "Limit\\u0052ange")
    assert "LimitRange" not in escaped
    same([("d.json", json.dumps(dump(6, 2), indent=4)), ("p.json", escaped)])


LIMIT_RANGE = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "l", "namespace": "ns-1"},
    "spec": {"limits": [{"type": "Container", "default": {"cpu": "300m", "memory": "1Gi"}}]},
}
CLAIM = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "gpu", "namespace": "ns-1"},
    "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu"}}]}},
}
TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "t", "namespace": "ns-1"},
    "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}},
}


@pytest.mark.parametrize("obj", [LIMIT_RANGE, CLAIM, TRAINJOB], ids=lambda o: o["kind"])
@pytest.mark.parametrize("where", ["last item", "nested list", "second file", "escaped"])
@pytest.mark.parametrize("as_json", [True, False])
def test_an_object_other_pods_depend_on_anywhere_keeps_the_whole_check(
    obj: dict[str, Any], where: str, as_json: bool
) -> None:
    """Found in a slice that is not the first (or in another file, or behind an escape), a
    LimitRange, a resource.k8s.io object or a TrainJob still changes the pods of every slice
    as it does in the whole check."""
    data = dump(9, 3)
    second: list[tuple[str, str]] = []
    if where == "last item":
        data["items"].append(obj)
    elif where == "nested list":
        data["items"][4]["items"].append(obj)
    else:
        second = [("p.json", json.dumps(obj))]
    text = json.dumps(data, indent=4) if as_json else dump_yaml(data)
    if where == "escaped":
        # "Pod" spelled with an escape in a JSON string is still the kind (the check reads
        # it, not the text); here a LimitRange's, a claim's or a TrainJob's first letter.
        first, rest = obj["kind"][0], obj["kind"][1:]
        escaped = json.dumps(obj).replace(f'"{obj["kind"]}"', f'"\\u{ord(first):04x}{rest}"')
        assert obj["kind"] not in escaped
        second = [("p.json", escaped)]
    inputs: list[tuple[str, str | bytes]] = [("d", text), *second]
    whole = check_files(inputs, share_names=True).as_dict()
    assert (
        whole["policies"]
        or whole["draObjects"]
        or any(o["kind"] == "TrainJob" for o in whole["objects"])
        or any(s["kind"] == "TrainJob" for s in whole["skipped"])
    )
    same(inputs)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(0, 12), seed=st.integers(0, 1000), as_json=st.booleans())
def test_random_dumps_in_slices_are_the_whole_check(n: int, seed: int, as_json: bool) -> None:
    data = dump(n, seed)
    text = json.dumps(data, indent=4) if as_json else dump_yaml(data)
    whole = check_files([("d", text)], share_names=True).as_dict()
    got = CheckStream([("d", text)], jobs=1, slice_items=1 + seed % 4).document()
    assert orjson.dumps(got) == orjson.dumps(whole)


@given(
    items=st.integers(min_value=1, max_value=200_000),
    most=st.integers(min_value=1, max_value=5000),
    jobs=st.integers(min_value=1, max_value=64),
)
def test_slices_are_at_most_the_size_and_as_many_as_a_multiple_of_the_jobs(
    items: int, most: int, jobs: int
) -> None:
    size = slice_size(items, most, jobs)
    assert 1 <= size <= most
    if jobs > 1 and items > most:
        # The slices of the plan with `most` items each, rounded up to a multiple of the
        # jobs, each of equal size: the last slice is at most one item shorter per slice.
        planned = math.ceil(math.ceil(items / most) / jobs) * jobs
        assert size == math.ceil(items / planned)
        assert math.ceil(items / size) <= planned


def test_ten_thousand_pods_on_two_cores_are_six_slices() -> None:
    assert slice_size(10_000, 2000, 2) == 1667
    assert slice_size(10_000, 2000, 1) == 2000
    assert slice_size(1500, 2000, 2) == 2000


@pytest.mark.parametrize("budget", [0, 3, 6, 7, 8, 10, 30])
def test_a_workload_budget_refuses_the_files_check_files_refuses(budget: int) -> None:
    """The web's budget (max_workloads): a file with more workloads is refused in
    check_files' words whether its items are sliced, Lists of pods or read whole; the
    others are checked as ever (dump(7) has 7 workloads: 5 pods... and a PodList's)."""
    text = dump_yaml(dump(12, 4))
    found = len(check_files([("d", text)]).objects)
    assert 3 < found < 30
    # Six items, each a List of four pods: under the budget in items, over it in workloads
    # (a slice of one, three or all six items has 4, 12 or 24 of them).
    rnd = random.Random(budget)
    lists = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {"apiVersion": "v1", "kind": "PodList", "items": [pod(i, rnd) for i in range(4)]}
            for _ in range(6)
        ],
    }
    inputs = [
        ("d.yaml", text),
        ("d.json", json.dumps(dump(7, 5), indent=4)),
        ("lists.yaml", dump_yaml(lists)),
    ]
    same(inputs, max_workloads=budget)
    refused = check_files(inputs, max_workloads=budget, share_names=True).as_dict()["errors"]
    assert any(e["message"].startswith(f"input has {found} workloads") for e in refused) == (
        budget < found
    )
    in_lists = len(check_files([inputs[2]]).objects)
    assert in_lists > 6
    assert any(e["file"] == "lists.yaml" for e in refused) == (budget < in_lists)


def test_streams_in_several_threads_keep_their_own_inputs() -> None:
    """The web checks requests in threads: each stream (in-process or forking workers)
    reads its own inputs and memo, never another's."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [dump_yaml(dump(40, seed)) for seed in range(4)]
    expected = [orjson.dumps(check_files([("d", t)], share_names=True).as_dict()) for t in texts]

    def run(i: int) -> bytes:
        stream = CheckStream([("d", texts[i % 4])], jobs=1 + i % 2, slice_items=7)
        return orjson.dumps(stream.document())

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(run, range(16)))
    assert got == [expected[i % 4] for i in range(16)]


def indented(text: str) -> str:
    """A YAML dump whose items are indented under ``items:`` (valid YAML; not the layout
    the splitter cuts)."""
    head, _, rest = text.partition("items:\n")
    items, _, tail = rest.rpartition("kind: List\n")
    lines = "".join("  " + line if line.strip() else line for line in items.splitlines(True))
    return f"{head}items:\n{lines}kind: List\n{tail}"


@pytest.mark.parametrize("n", [0, 1, 2, 9, 40])
@pytest.mark.parametrize("layout", ["json kind first", "yaml indented"])
@pytest.mark.parametrize(
    "extra", [None, "limit range last", "hostile last", "not a list", "two documents"]
)
def test_one_dump_the_splitter_does_not_cut_is_checked_in_parts_by_each_worker(
    n: int, layout: str, extra: str | None
) -> None:
    """Alone and large, such a dump is read whole by each worker, which checks its parts of
    the items (shared_min_bytes=0: any size): the same document as check_files', also when
    a LimitRange in the last part changes the pods of every part, when the last item is too
    deep to read, and when the text is no List at all."""
    data: Any = dump(n, n + 7)
    if extra == "limit range last":
        data["items"].append(LIMIT_RANGE)
    elif extra == "hostile last":
        deep: Any = {"leaf": 1}
        for _ in range(150):
            deep = {"k": deep}
        data["items"].append({"kind": "ConfigMap", "data": deep})
    elif extra == "not a list":
        data = {**data, "kind": "Pod"}
    # (JSON whose List starts with its kind: not the order the splitter cuts.)
    text = (
        json.dumps({"kind": data.pop("kind"), **data})
        if layout.startswith("json")
        else (indented(dump_yaml(data)))
    )
    if extra == "two documents":
        pod = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}
        text += json.dumps(pod) if layout.startswith("json") else "---\n" + dump_yaml(pod)
    assert split_list(text.encode()) is None
    whole = check_files([("d", text)], share_names=True).as_dict()
    for jobs in (2, 3):
        stream = CheckStream([("d", text)], jobs=jobs, shared_min_bytes=0)
        # Read by each worker in parts (YAML of two documents plainly is no one List: whole).
        whole_unit = extra == "two documents" and layout.startswith("yaml")
        parts = [0] if whole_unit else [4 * jobs] * (4 * jobs)
        assert [u.parts for u in stream._plan()] == parts
        got = stream.document()
        assert orjson.dumps(got) == orjson.dumps(whole), jobs
    budget = max(n - 1, 0)
    whole = check_files([("d", text)], share_names=True, max_workloads=budget).as_dict()
    got = CheckStream([("d", text)], jobs=2, shared_min_bytes=0, max_workloads=budget)
    assert orjson.dumps(got.document()) == orjson.dumps(whole), "budget"
