"""GPUs as device plugins advertise them: vendors, sharing modes (MIG, time-slicing, MPS), the
extended resource each mode makes a container request, and what a node advertises under each.
"""

from __future__ import annotations

from designer.k8s.gpu.advertise import (
    AdvertisedGpus,
    GpuSharing,
    MigGroup,
    MigLayout,
    SharingError,
    advertised_gpus,
    gpu_sharing,
    mig_profile,
    mig_profiles,
    parse_mig_layout,
)
from designer.k8s.gpu.sharing import (
    FRACTIONAL_GPU,
    MIG_RESOURCE_PREFIX,
    SHARED_SUFFIX,
    MigProfile,
    SharingModeInfo,
    gpu_count_problem,
    gpu_resource_for,
    is_gpu_resource,
    mig_model,
    mig_models,
    requested_gpus,
    sharing_modes,
    smallest_mig_profile,
    vendors,
)
from designer.k8s.gpu.sharing_table import (
    SHARING_MODES,
    VENDORS,
)

__all__ = [
    "AdvertisedGpus",
    "FRACTIONAL_GPU",
    "GpuSharing",
    "MigGroup",
    "MigLayout",
    "SharingError",
    "advertised_gpus",
    "gpu_sharing",
    "mig_profile",
    "mig_profiles",
    "parse_mig_layout",
    "MIG_RESOURCE_PREFIX",
    "MigProfile",
    "SHARED_SUFFIX",
    "SHARING_MODES",
    "SharingModeInfo",
    "VENDORS",
    "gpu_count_problem",
    "gpu_resource_for",
    "is_gpu_resource",
    "mig_model",
    "mig_models",
    "requested_gpus",
    "sharing_modes",
    "smallest_mig_profile",
    "vendors",
]
