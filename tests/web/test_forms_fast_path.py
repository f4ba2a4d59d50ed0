"""The live update reads the design straight from the query (forms.design_from_query) instead
of building the Django forms: whenever it answers, it answers exactly what the forms answer;
when the forms have something to say (an error), it steps aside."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import QueryDict
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.forms import (
    ContainerFormSet,
    PodForm,
    design_from_forms,
    design_from_query,
    design_query,
)
from designer.k8s.design import WORKLOAD_TYPES, ContainerDesign, Design, preset_design


def both(query: dict[str, str]) -> tuple[object, object]:
    data = QueryDict(urlencode(query))
    slow = design_from_forms(PodForm(data), ContainerFormSet(data, prefix="c"))
    return design_from_query(data), slow


def test_every_preset_reads_the_same_both_ways() -> None:
    for workload in WORKLOAD_TYPES:
        for size in WORKLOAD_TYPES[workload].presets:
            fast, slow = both(design_query(preset_design(workload, size)))
            assert fast is not None and fast == slow


def test_a_design_with_every_kind_of_container_reads_the_same() -> None:
    design = preset_design("inference")
    design.containers += [
        ContainerDesign(role="sidecar", name="proxy", image="envoy", cpu_request="100m"),
        ContainerDesign(role="init", name="fetch", image="busybox", extra=[]),
    ]
    design.labels = {"app": "x", "team": "ml"}
    fast, slow = both(design_query(design))
    assert fast is not None and fast == slow


def dra_design() -> Design:
    design = Design.model_validate(
        {
            "workload": "training",
            "gpu": {
                "mode": "dra",
                "device_class": "gpu.nvidia.com",
                "count": "4",
                "product": "NVIDIA H100 80GB HBM3",
                "min_memory": "40",
                "mig_profile": "",
                "selectors": ["device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"],
                "first_available": [
                    {"device_class": "mig.nvidia.com", "count": "1", "mig_profile": "3g.40gb"},
                    {"count": "", "selectors": ["true", "1 == 1"]},
                ],
                "shared_by": ["logger", "main"],
                "claim_source": "claim",
            },
        }
    )
    design.containers.append(ContainerDesign(role="sidecar", name="logger", image="busybox"))
    return design


def test_a_dra_claim_reads_the_same_both_ways_and_as_designed() -> None:
    design = dra_design()
    fast, slow = both(design_query(design))
    assert fast is not None and fast == slow == design


VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "1",
            "-1",
            "2.5",
            "8Gi",
            "8GB",
            "on",
            "off",
            "true",
            "Always",
            "Never",
            "a=b",
            "no-equals",
            "x" * 101,
            "x" * 400,
            "9" * 30,
            "1e999",
            "é",
            "\x00",
            "Pod",
            "Deployment",
            "IndexedJob",
            "mig-single",
            "catalog",
            "custom",
            "a100-80gb",
            "20",
            "app",
            "sidecar",
            "init",
            "hugepages-2Mi=1Gi",
            "example.com/x=1/1",
            "python 'x",
            "41",
            "dra",
            "plugin",
            "All",
            "ExactCount",
            "claim",
            "template",
            "gpu.nvidia.com",
            "GPU!",
            "3g.40gb",
            "main,logger",
            "device.attributes[",
            "true\n\n1 == 1",
            "\n".join(["true"] * 9),
        ]
    ),
    st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_fast_path_agrees_with_the_forms_or_steps_aside(data: st.DataObject) -> None:
    workload = data.draw(st.sampled_from([*sorted(WORKLOAD_TYPES), "dra"]))
    design = dra_design() if workload == "dra" else preset_design(workload)
    query = design_query(design)
    keys = sorted(query) + ["c-1-role", "c-1-name", "gpu_model", "node_cpu", "export_replicas"]
    keys += [
        "gpu_source",
        "gpu_selectors",
        "gpu_shared_by",
        "gpu_first_available-0-count",
        "gpu_first_available-2-device_class",  # a row after a missing one
        "gpu_first_available-7-count",
        "node_resource_slices",
    ]
    for _ in range(data.draw(st.integers(0, 4))):
        key = data.draw(st.sampled_from(keys))
        if data.draw(st.booleans()):
            query[key] = data.draw(VALUES)
        else:
            query.pop(key, None)
    fast, slow = both(query)
    if fast is not None:
        assert fast == slow
    # When the forms cannot make a design, neither does the fast path.
    if slow is None:
        assert fast is None
