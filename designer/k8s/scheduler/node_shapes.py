"""Common GPU node shapes (cloud instance types), as data.

Each row: ``id: (cloud, vCPUs, memory, GPU count, GPU model, MIG model, GPU memory GB per GPU,
EKS max pods or None, source)``. The MIG model is the key of the GPU's MIG table in
designer/k8s/gpu/mig_table.py (None for a GPU without MIG), so a node's MIG layout can be derived.
Memory is written as a Kubernetes quantity in the unit the provider's page uses: AWS and Azure
print GiB; Google Compute Engine prints "GB" but means binary gigabytes (its API reports the
same machine's memory as memoryMb = GB x 1024), so those are written Gi as well. The node's own
memory capacity (what the kubelet reads from the kernel) is a little below the advertised size,
so allocatable estimated from these rows is slightly optimistic.

The EKS max pods column is the instance's line in the EKS AMI's eni-max-pods.txt
(ENIs x (IPv4 addresses per ENI - 1) + 2), which bootstrap.sh (AL2) and nodeadm (AL2023) use
by default; source EKS_MAX_PODS.
"""

from __future__ import annotations

AWS_SPECS = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
AWS_P4 = "https://aws.amazon.com/ec2/instance-types/p4/"
AWS_P5 = "https://aws.amazon.com/ec2/instance-types/p5/"
AWS_G5 = "https://aws.amazon.com/ec2/instance-types/g5/"
AWS_G6 = "https://aws.amazon.com/ec2/instance-types/g6/"
AWS_G6E = "https://aws.amazon.com/ec2/instance-types/g6e/"
EKS_MAX_PODS = (
    "https://github.com/awslabs/amazon-eks-ami/blob/main/templates/shared/runtime/eni-max-pods.txt"
)
GCP_ACCELERATOR = "https://cloud.google.com/compute/docs/accelerator-optimized-machines"
GCP_GPUS = "https://cloud.google.com/compute/docs/gpus"
AZURE_NCA100V4 = (
    "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nca100v4-series"
)
AZURE_NDA100V4 = (
    "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndasra100v4-series"
)
AZURE_NDH100V5 = (
    "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndh100v5-series"
)
AZURE_NCT4V3 = (
    "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncast4v3-series"
)

NodeRow = tuple[str, int, str, int, str, str | None, int, int | None, str]

NODE_SHAPES: dict[str, NodeRow] = {
    # --- AWS (EKS) ---------------------------------------------------------------------------
    "p4d.24xlarge": (
        "aws",
        96,
        "1152Gi",
        8,
        "A100 40GB",
        "a100-40gb",
        40,
        737,
        f"{AWS_P4}; {AWS_SPECS}",
    ),
    "p4de.24xlarge": (
        "aws",
        96,
        "1152Gi",
        8,
        "A100 80GB",
        "a100-80gb",
        80,
        737,
        f"{AWS_P4}; {AWS_SPECS}",
    ),
    "p5.48xlarge": (
        "aws",
        192,
        "2048Gi",
        8,
        "H100 80GB",
        "h100-80gb",
        80,
        100,
        f"{AWS_P5}; {AWS_SPECS}",
    ),
    "g5.xlarge": ("aws", 4, "16Gi", 1, "A10G 24GB", None, 24, 58, f"{AWS_G5}; {AWS_SPECS}"),
    "g5.2xlarge": ("aws", 8, "32Gi", 1, "A10G 24GB", None, 24, 58, f"{AWS_G5}; {AWS_SPECS}"),
    "g5.12xlarge": ("aws", 48, "192Gi", 4, "A10G 24GB", None, 24, 737, f"{AWS_G5}; {AWS_SPECS}"),
    "g5.48xlarge": ("aws", 192, "768Gi", 8, "A10G 24GB", None, 24, 345, f"{AWS_G5}; {AWS_SPECS}"),
    "g6.xlarge": ("aws", 4, "16Gi", 1, "L4 24GB", None, 24, 58, f"{AWS_G6}; {AWS_SPECS}"),
    "g6.12xlarge": ("aws", 48, "192Gi", 4, "L4 24GB", None, 24, 234, f"{AWS_G6}; {AWS_SPECS}"),
    "g6e.xlarge": ("aws", 4, "32Gi", 1, "L40S 48GB", None, 48, 58, f"{AWS_G6E}; {AWS_SPECS}"),
    "g6e.12xlarge": ("aws", 48, "384Gi", 4, "L40S 48GB", None, 48, 292, f"{AWS_G6E}; {AWS_SPECS}"),
    # --- Google Cloud (GKE) ------------------------------------------------------------------
    "a2-highgpu-1g": ("gcp", 12, "85Gi", 1, "A100 40GB", "a100-40gb", 40, None, GCP_ACCELERATOR),
    "a2-highgpu-8g": ("gcp", 96, "680Gi", 8, "A100 40GB", "a100-40gb", 40, None, GCP_ACCELERATOR),
    "a2-ultragpu-8g": ("gcp", 96, "1360Gi", 8, "A100 80GB", "a100-80gb", 80, None, GCP_ACCELERATOR),
    "a3-highgpu-8g": ("gcp", 208, "1872Gi", 8, "H100 80GB", "h100-80gb", 80, None, GCP_ACCELERATOR),
    "g2-standard-4": ("gcp", 4, "16Gi", 1, "L4 24GB", None, 24, None, GCP_ACCELERATOR),
    "g2-standard-8": ("gcp", 8, "32Gi", 1, "L4 24GB", None, 24, None, GCP_ACCELERATOR),
    "g2-standard-48": ("gcp", 48, "192Gi", 4, "L4 24GB", None, 24, None, GCP_ACCELERATOR),
    "g2-standard-96": ("gcp", 96, "384Gi", 8, "L4 24GB", None, 24, None, GCP_ACCELERATOR),
    # --- Azure (AKS) -------------------------------------------------------------------------
    "Standard_NC24ads_A100_v4": (
        "azure",
        24,
        "220Gi",
        1,
        "A100 80GB",
        "a100-80gb",
        80,
        None,
        AZURE_NCA100V4,
    ),
    "Standard_ND96asr_v4": (
        "azure",
        96,
        "900Gi",
        8,
        "A100 40GB",
        "a100-40gb",
        40,
        None,
        AZURE_NDA100V4,
    ),
    "Standard_ND96isr_H100_v5": (
        "azure",
        96,
        "1900Gi",
        8,
        "H100 80GB",
        "h100-80gb",
        80,
        None,
        AZURE_NDH100V5,
    ),
    "Standard_NC4as_T4_v3": ("azure", 4, "28Gi", 1, "T4 16GB", None, 16, None, AZURE_NCT4V3),
}
