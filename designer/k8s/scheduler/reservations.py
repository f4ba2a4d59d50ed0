"""What GKE, EKS and AKS reserve on a node before pods get the rest, as data.

Allocatable = capacity - kube-reserved (- system-reserved, zero on all three) - the hard
eviction threshold. The tiers below are the documented formulas; nodefit.py applies them.
Tier tables are ``(upper bound of the range, share of that range)``; ``None`` = no bound.
"""

from __future__ import annotations

from fractions import Fraction

GIB = 1024**3
MIB = 1024**2

# --- GKE ---------------------------------------------------------------------------------------
GKE_SOURCE = (
    "https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes"
    "#memory_and_cpu_reservations"
)
# Memory: 255 MiB on machines with less than 1 GiB, otherwise these tiers (GiB bounds).
GKE_SMALL_MACHINE_BYTES = 1 * GIB
GKE_SMALL_MACHINE_RESERVED = 255 * MIB
GKE_MEMORY_TIERS: tuple[tuple[int | None, Fraction], ...] = (
    (4 * GIB, Fraction(25, 100)),
    (8 * GIB, Fraction(20, 100)),
    (16 * GIB, Fraction(10, 100)),
    (128 * GIB, Fraction(6, 100)),
    (None, Fraction(2, 100)),
)
# CPU (millicore bounds): 6% of the first core, 1% of the next, 0.5% of the next 2, 0.25% above 4.
CPU_PERCENT_TIERS: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(6, 100)),
    (2000, Fraction(1, 100)),
    (4000, Fraction(5, 1000)),
    (None, Fraction(25, 10000)),
)
GKE_EVICTION_MEMORY = 100 * MIB
GKE_DEFAULT_MAX_PODS = 110  # Standard clusters' default maximum pods per node

# --- EKS (Amazon Linux 2 bootstrap.sh and Amazon Linux 2023 nodeadm) -----------------------------
EKS_SOURCE = (
    "https://github.com/awslabs/amazon-eks-ami/blob/main/nodeadm/internal/kubelet/config.go"
    " (getMemoryMebibytesToReserve, getCPUMillicoresToReserve; AL2: files/bootstrap.sh)"
)
EKS_MEMORY_PER_POD_MIB = 11  # kube-reserved memory = 11 MiB x maxPods + 255 MiB
EKS_MEMORY_BASE_MIB = 255
EKS_EVICTION_MEMORY = 100 * MIB  # evictionHard memory.available: 100Mi
# nodeadm falls back to the kubelet's default when the instance type is unknown.
EKS_DEFAULT_MAX_PODS = 110

# --- AKS (Kubernetes 1.29 and later) --------------------------------------------------------------
AKS_SOURCE = "https://learn.microsoft.com/azure/aks/node-resource-reservations"
# kube-reserved memory = min(20 MB x max pods + 50 MB, 25% of the node's memory). The page
# writes MB next to "100 Mi"; AKS sets these as kubelet flags in Mi, so MB is read as MiB.
AKS_MEMORY_PER_POD_MIB = 20
AKS_MEMORY_BASE_MIB = 50
AKS_MEMORY_CAP = Fraction(25, 100)
AKS_EVICTION_MEMORY = 100 * MIB
# Azure CNI (node subnet) default; kubenet defaults to 110 and Azure CNI Overlay to 250.
AKS_DEFAULT_MAX_PODS = 30
# The page publishes a table: 1 core 60m, 2: 100m, 4: 140m, 8: 180m, 16: 260m, 32: 420m,
# 64: 740m. These per-core steps reproduce it exactly (and interpolate between its columns):
# 60m for the first core, 40m for the second, 20m each for cores 3-4, 10m each above 4.
AKS_CPU_TABLE: dict[int, int] = {1: 60, 2: 100, 4: 140, 8: 180, 16: 260, 32: 420, 64: 740}
AKS_CPU_TIERS_MILLI: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(60, 1000)),
    (2000, Fraction(40, 1000)),
    (4000, Fraction(20, 1000)),
    (None, Fraction(10, 1000)),
)
