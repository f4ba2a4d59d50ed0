"""The GPU and node choices of a design: the MIG profile rule, MIG-aware node fit, the node's
kubelet configuration (design/planning.py)."""

from __future__ import annotations

from designer.k8s.design import Design, render_design
from designer.k8s.design.planning import GpuChoice, NodeChoice, mig_choice


def choice(**kw: str) -> GpuChoice:
    return GpuChoice(mode=kw.pop("mode", "mig-mixed"), model=kw.pop("model", "h100-80gb"), **kw)


def test_a_hand_picked_profile_wins_over_the_memory_hint() -> None:
    # Issue 16: picked 1g.10gb, typed 20 GB, exported nvidia.com/mig-1g.20gb.
    result = mig_choice(choice(profile="1g.10gb", memory_gb="20"))
    assert result.profile is not None and result.profile.name == "1g.10gb"
    problem = result.problems["gpu.memory_gb"].text
    assert problem.startswith("1g.10gb has 10 GB of GPU memory, less than the 20 GB needed")
    assert "1g.20gb is the smallest profile" in problem and "The picked profile is kept" in problem


def test_a_bigger_profile_than_needed_gets_a_hint_only() -> None:
    result = mig_choice(choice(profile="3g.40gb", memory_gb="8"))
    assert result.profile.name == "3g.40gb"  # type: ignore[union-attr]
    assert result.problems == {}
    assert "1g.10gb (10 GB) is the smallest profile" in result.hints["gpu.memory_gb"].text


def test_without_a_picked_profile_the_memory_picks_and_says_so() -> None:
    result = mig_choice(choice(memory_gb="20"))
    assert result.profile.name == "1g.20gb"  # type: ignore[union-attr]
    assert "smallest profile of the NVIDIA H100 80GB with 20 GB" in result.hints["gpu.profile"].text
    fallback = mig_choice(choice())
    assert fallback.profile.name == "1g.10gb"  # type: ignore[union-attr]
    assert "No MIG profile picked" in fallback.hints["gpu.profile"].text


def test_a_profile_of_another_model_is_an_error_at_the_profile_field() -> None:
    result = mig_choice(choice(profile="1g.5gb"))
    assert result.profile is None
    assert "not a MIG profile of the NVIDIA H100 80GB" in result.problems["gpu.profile"].text


def test_a_memory_need_no_profile_has_is_an_error_at_the_memory_field() -> None:
    result = mig_choice(choice(memory_gb="100"))
    assert result.profile is None and "No MIG profile" in result.problems["gpu.memory_gb"].text
    assert "not a number" in mig_choice(choice(memory_gb="lots")).problems["gpu.memory_gb"].text


def trainer(**design: object) -> Design:
    return Design.model_validate(
        {
            "workload": "training",
            "containers": [
                {
                    "name": "main",
                    "image": "pytorch",
                    "cpu_request": "16",
                    "cpu_limit": "16",
                    "memory_request": "64Gi",
                    "memory_limit": "64Gi",
                    "gpus": "2",
                }
            ],
            **design,
        }
    )


def test_the_issue_example_through_the_design_fits_11_pods() -> None:
    design = trainer(
        gpu={"mode": "mig-single", "model": "h100-80gb", "profile": "1g.10gb"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge"},
    )
    plan = render_design(design).plan
    assert plan.problems == {}
    assert plan.fit is not None
    assert (plan.fit.pods_per_node, plan.fit.bottleneck) == (11, "cpu")
    assert plan.fit.allocatable["nvidia.com/gpu"] == "56"
    assert [p.name for p in plan.mig_profiles][0] == "1g.10gb"


def test_a_picked_profile_is_what_the_export_requests() -> None:
    design = trainer(
        gpu={"mode": "mig-mixed", "model": "h100-80gb", "profile": "1g.10gb", "memory_gb": "20"}
    )
    rendered = render_design(design)
    assert "nvidia.com/mig-1g.10gb" in rendered.yaml and "1g.20gb" not in rendered.yaml
    assert "gpu.memory_gb" in rendered.plan.problems


def test_the_mixed_layout_and_replicas_come_from_the_node_choice() -> None:
    design = trainer(
        gpu={"mode": "mig-mixed", "model": "h100-80gb", "profile": "3g.40gb"},
        node={
            "source": "catalog",
            "catalog_id": "p5.48xlarge",
            "mig_layout": "4: 3g.40gb=2; 4: 1g.10gb=7",
        },
    )
    plan = render_design(design).plan
    assert plan.fit.allocatable["nvidia.com/mig-3g.40gb"] == "8"  # type: ignore[union-attr]
    bad = trainer(
        gpu={"mode": "mig-mixed", "model": "h100-80gb", "profile": "3g.40gb"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "mig_layout": "3g.40gb=3"},
    )
    assert "do not fit" in render_design(bad).plan.problems["node.mig_layout"].text
    replicas = trainer(
        gpu={"mode": "time-slicing"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "gpu_replicas": "lots"},
    )
    assert "node.gpu_replicas" in render_design(replicas).plan.problems


def test_a_node_with_other_gpus_than_the_chosen_model_is_pointed_out() -> None:
    design = trainer(
        gpu={"mode": "mig-single", "model": "a100-40gb", "profile": "1g.5gb"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge"},
    )
    plan = render_design(design).plan
    # 1g.5gb does not exist on the node's H100s.
    assert "not a MIG profile of the NVIDIA H100 80GB" in plan.problems["gpu.profile"].text


def test_the_node_kubelet_config_reaches_the_node_view() -> None:
    design = trainer(
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "cpu_cfs_quota": False}
    )
    view = render_design(design).plan.node_view
    assert view.kubelet is not None and view.kubelet.pod.cpu_quota == -1
    bad = trainer(
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "cpu_cfs_quota_period": "2s"}
    )
    plan = render_design(bad).plan
    assert "between 1ms and 1sec" in plan.problems["node.cpu_cfs_quota_period"].text
    assert plan.node_view.config.cpu_cfs_quota_period_us == 100000


def test_old_share_links_without_the_new_node_fields_still_load() -> None:
    node = NodeChoice.model_validate({"source": "catalog"})
    assert (node.cpu_cfs_quota, node.cpu_cfs_quota_period, node.mig_layout) == (True, "", "")


def test_the_memory_need_keeps_choosing_while_no_profile_is_picked() -> None:
    from designer.k8s.design import design_action

    design = trainer(gpu={"mode": "mig-mixed", "model": "h100-80gb", "memory_gb": "10"})
    applied = design_action(design, "gpu")
    assert applied.gpu.profile == ""  # not turned into a hand-picked profile
    assert applied.containers[0].gpu_resource == "nvidia.com/mig-1g.10gb"
    applied.gpu.memory_gb = "20"
    again = design_action(applied, "gpu")
    assert again.containers[0].gpu_resource == "nvidia.com/mig-1g.20gb"
