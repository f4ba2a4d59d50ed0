"""DeviceClasses that DRA drivers install, one record each, with their source.

Used when a claim names a class the input does not contain (DeviceClasses are cluster objects
a driver's Helm chart creates, rarely part of an application's manifests), and by the designer
to offer classes. A DeviceClass in the input always wins over this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.k8s.core import gettext_noop


@dataclass(frozen=True)
class KnownDeviceClass:
    name: str
    driver: str
    selectors: tuple[str, ...]
    label: str  # translatable, for the designer
    kind: str  # "gpu", "mig", "vfio", "compute-domain"
    extended_resource_name: str | None
    source: str


NVIDIA_DRIVER = "gpu.nvidia.com"
_CHART = "NVIDIA/k8s-dra-driver-gpu Helm chart nvidia-dra-driver-gpu"

KNOWN_DEVICE_CLASSES: dict[str, KnownDeviceClass] = {
    c.name: c
    for c in (
        KnownDeviceClass(
            name="gpu.nvidia.com",
            driver=NVIDIA_DRIVER,
            selectors=(
                "device.driver == 'gpu.nvidia.com' && "
                "device.attributes['gpu.nvidia.com'].type == 'gpu'",
            ),
            label=gettext_noop("Whole NVIDIA GPUs (gpu.nvidia.com)"),
            kind="gpu",
            # Newer charts set it (demo/specs/extended-resources/gpu-full.yaml says so); the
            # mapping is alpha in 1.34 (DRAExtendedResource), so it is not assumed here.
            extended_resource_name=None,
            source=_CHART + " (DeviceClass gpu.nvidia.com)",
        ),
        KnownDeviceClass(
            name="mig.nvidia.com",
            driver=NVIDIA_DRIVER,
            selectors=(
                "device.driver == 'gpu.nvidia.com' && "
                "device.attributes['gpu.nvidia.com'].type == 'mig'",
            ),
            label=gettext_noop("NVIDIA MIG partitions (mig.nvidia.com)"),
            kind="mig",
            extended_resource_name=None,
            # The chart template is not at hand; this exact selector is what the driver's
            # users apply and document for the class.
            source=_CHART + " (DeviceClass mig.nvidia.com)",
        ),
        KnownDeviceClass(
            name="vfio.gpu.nvidia.com",
            driver=NVIDIA_DRIVER,
            selectors=(
                "device.driver == 'gpu.nvidia.com' && "
                "device.attributes['gpu.nvidia.com'].type == 'vfio'",
            ),
            label=gettext_noop("NVIDIA GPUs passed through to VMs (vfio.gpu.nvidia.com)"),
            kind="vfio",
            extended_resource_name=None,
            source=_CHART + " (by analogy with gpu.nvidia.com)",
        ),
        KnownDeviceClass(
            name="compute-domain-daemon.nvidia.com",
            driver="compute-domain.nvidia.com",
            selectors=(
                "device.driver == 'compute-domain.nvidia.com' && "
                "device.attributes['compute-domain.nvidia.com'].type == 'daemon'",
            ),
            label=gettext_noop("NVIDIA ComputeDomain daemon (IMEX)"),
            kind="compute-domain",
            extended_resource_name=None,
            source=_CHART + " templates/deviceclass-compute-domain-daemon.yaml",
        ),
        KnownDeviceClass(
            name="compute-domain-default-channel.nvidia.com",
            driver="compute-domain.nvidia.com",
            selectors=(
                "device.driver == 'compute-domain.nvidia.com' && "
                "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
                "device.attributes['compute-domain.nvidia.com'].id == 0",
            ),
            label=gettext_noop("NVIDIA ComputeDomain IMEX channel"),
            kind="compute-domain",
            extended_resource_name=None,
            source=_CHART + " templates/deviceclass-compute-domain-default-channel.yaml",
        ),
    )
}


@dataclass(frozen=True)
class KnownGpuProduct:
    """A ``productName`` NVIDIA's DRA driver publishes (NVML's device name, as nvidia-smi
    prints it): what the designer's "GPU product" selector offers."""

    name: str
    source: str


_NOTES = "research/dra/nvidia.md (NVIDIA k8s-dra-driver-gpu deviceinfo.go, productName)"

KNOWN_GPU_PRODUCTS: tuple[KnownGpuProduct, ...] = (
    KnownGpuProduct("NVIDIA H100 80GB HBM3", _NOTES + "; a real EKS p5 node's ResourceSlice"),
    KnownGpuProduct("NVIDIA A100-SXM4-80GB", _NOTES),
    KnownGpuProduct("NVIDIA A100-SXM4-40GB", "nvidia-smi / CUDA device name of a DGX A100"),
    KnownGpuProduct("NVIDIA A100-PCIE-40GB", "nvidia-smi / CUDA device name of an A100 PCIe"),
    KnownGpuProduct("Tesla T4", _NOTES + " (NVIDIA/OpenShift docs example)"),
)
