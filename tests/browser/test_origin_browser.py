"""Open in designer from Analyze in a real browser: a PyTorchJob's Worker, its GPUs raised,
downloaded as the same PyTorchJob with only that container's resources changed; the diff
on the page, at desktop and phone width."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, expect

from tests.builders import differences

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CRS = ROOT / "tests" / "k8s" / "data" / "operators" / "crs"
PYTORCHJOB = (CRS / "trainer__pytorch_job_mnist_nccl.yaml").read_text()
WORKER = "spec.pytorchReplicaSpecs.Worker.template"
# An operator dump: training, serving, Ray, a TrainJob on a builtin runtime, and a queue.
DUMP = "\n---\n".join(
    [PYTORCHJOB]
    + [
        (CRS / name).read_text()
        for name in (
            "kserve__hf_isvc.yaml",
            "kuberay__ray-cluster.autoscaler.yaml",
            "trainer__02-runtime-patches.yaml",
            "lws__vllm-GPU-lws.yaml",
        )
    ]
)


def analyze(page: Page, url: str, text: str) -> None:
    page.goto(url + "/analyze")
    page.get_by_label("Paste manifests").fill(text)
    page.get_by_role("button", name="Analyze", exact=True).click()
    expect(page.locator("tbody.an-workload").first).to_be_visible()


def open_worker(page: Page) -> None:
    row = page.locator("tbody.an-workload", has_text=WORKER)
    expect(row).to_contain_text("exports this PyTorchJob")
    row.get_by_role("button", name="Open in designer").click()
    expect(page.locator("#origin-export")).to_contain_text("PyTorchJob pytorch-dist-mnist-nccl")


def test_a_pytorchjob_worker_with_more_gpus_downloads_as_the_same_pytorchjob(
    live_server, page: Page, tmp_path: Path
) -> None:
    analyze(page, live_server.url, PYTORCHJOB)
    open_worker(page)
    expect(page.locator("#origin-diff")).to_contain_text("No change yet")
    gpus = page.get_by_label("GPUs", exact=True).first
    expect(gpus).to_have_value("1")
    gpus.fill("4")
    diff = page.locator("pre.diff")
    expect(diff.locator("ins")).to_contain_text('nvidia.com/gpu: "4"')
    expect(diff.locator("del")).to_contain_text("nvidia.com/gpu: 1")
    expect(page.locator("[data-diff-summary]")).to_contain_text(
        f"{WORKER}.spec.containers[0].resources"
    )
    with page.expect_download() as info:
        page.locator("a[download]").click()
    path = tmp_path / "job.yaml"
    info.value.save_as(path)
    exported = yaml.safe_load(path.read_text())
    assert exported["kind"] == "PyTorchJob"
    assert differences(yaml.safe_load(PYTORCHJOB), exported) == [
        f"{WORKER}.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]
    worker = exported["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert worker["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": "4"}}
    # The address carries the object's id: a reload shows the same diff.
    page.reload()
    expect(page.locator("pre.diff ins")).to_contain_text('nvidia.com/gpu: "4"')
    # A new object instead: a PyTorchJob built from the design, its settings offered.
    page.get_by_role("button", name="Export as a new object instead").click()
    expect(page.get_by_label("Export as")).to_have_value("PyTorchJob")
    expect(page.locator("#origin-diff")).to_have_count(0)
    expect(page.get_by_label("Workers")).to_be_visible()


@pytest.mark.parametrize("width", [1280, 390])
def test_analyze_and_the_diff_read_well_at_desktop_and_phone_width(
    live_server, page: Page, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    analyze(page, live_server.url, DUMP)
    expect(page.locator("tbody.an-workload")).to_have_count(8)
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"analyze-operators-{width}.png", full_page=True)
    worker = page.locator("tbody.an-workload", has_text=WORKER)
    worker.screenshot(path=ARTIFACTS / f"analyze-operators-row-{width}.png")

    open_worker(page)
    page.get_by_label("GPUs", exact=True).first.fill("2")
    page.get_by_label("Restart policy").select_option("Always")
    expect(page.locator("pre.diff ins")).to_contain_text('nvidia.com/gpu: "2"')
    expect(page.locator("#err-id_restart_policy")).to_contain_text("Not written to the PyTorchJob")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.locator("#origin-diff").scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / f"designer-origin-{width}.png", full_page=True)
    page.locator("#origin-diff").screenshot(path=ARTIFACTS / f"designer-origin-diff-{width}.png")
    page.locator("#origin-banner").screenshot(path=ARTIFACTS / f"designer-origin-top-{width}.png")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_inference_service_settings_keep_what_is_typed_and_say_what_is_missing(
    live_server, page: Page, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/?workload=inference")
    # Online inference offers KServe and LeaderWorkerSet first.
    options = page.locator("#id_export_kind optgroup").first.locator("option")
    expect(options.nth(0)).to_have_attribute("value", "InferenceService")
    expect(options.nth(1)).to_have_attribute("value", "LeaderWorkerSet")
    page.get_by_label("Export as").select_option("InferenceService")
    storage = page.get_by_label("Model location (storageUri)")
    expect(page.locator("#err-id_export_storage_uri")).to_contain_text("No storageUri")
    expect(page.get_by_label("Model format")).to_have_value("huggingface")
    storage.fill("hf://meta-llama/Llama-3.1-8B-Instruct")
    expect(page.locator("#err-id_export_storage_uri")).to_be_empty()
    expect(page.locator("#manifest-yaml")).to_contain_text(
        "storageUri: hf://meta-llama/Llama-3.1-8B-Instruct"
    )
    # Another live edit: the typed value stays in its field and in the YAML.
    page.get_by_label("Memory limit", exact=True).first.fill("20Gi")
    expect(page.locator("#manifest-yaml")).to_contain_text('memory: "20Gi"')
    expect(storage).to_have_value("hf://meta-llama/Llama-3.1-8B-Instruct")
    expect(page.locator("#manifest-yaml")).to_contain_text("hf://meta-llama/Llama-3.1-8B-Instruct")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#export-heading").locator("..").screenshot(
        path=ARTIFACTS / f"designer-isvc-settings-{width}.png"
    )
