"""What the scheduler sees and does: a pod's effective requests, and node fit (allocatable,
taints, selectors, affinity, NodeResourcesFit) on catalog, custom or pasted nodes.
"""

from __future__ import annotations

from designer.k8s.scheduler._units import (
    PROVIDERS,
)
from designer.k8s.scheduler.allocatable import (
    estimate_allocatable,
)
from designer.k8s.scheduler.catalog import (
    catalog_shape,
    catalog_shapes,
)
from designer.k8s.scheduler.dra_fit import (
    ClaimsFit,
    claims_fit,
    dra_inputs,
    fit_with_claims,
    node_candidates,
    slice_nodes,
    with_claims,
    without_slices,
)
from designer.k8s.scheduler.node_fit import (
    FitResult,
    fit,
    tolerates,
)
from designer.k8s.scheduler.nodes import (
    NodeInfo,
    node_from_capacity,
    node_from_catalog,
    node_from_manifest,
)
from designer.k8s.scheduler.requests import (
    effective_limits,
    effective_requests,
    request_phases,
    scoring_requests,
)

__all__ = [
    "ClaimsFit",
    "FitResult",
    "NodeInfo",
    "PROVIDERS",
    "catalog_shape",
    "claims_fit",
    "dra_inputs",
    "catalog_shapes",
    "effective_limits",
    "effective_requests",
    "estimate_allocatable",
    "fit",
    "fit_with_claims",
    "node_candidates",
    "node_from_capacity",
    "node_from_catalog",
    "node_from_manifest",
    "request_phases",
    "scoring_requests",
    "slice_nodes",
    "tolerates",
    "with_claims",
    "without_slices",
]
