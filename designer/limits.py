"""What one web request may cost: the site's policy, not a Kubernetes rule (the podspec CLI,
which runs on the user's own machine, has no such bound).

Checking a workload costs about 0.1 ms whatever its size, so a stream of tiny documents
(700 KB of ``---\nkind: Pod\n`` is 49,999 of them) would buy seconds of CPU for a few
hundred kilobytes. A request may hold 2,000 workloads plus one per 256 bytes of input: a
real pod is larger than that (a compact JSON pod with resources is ~250 bytes, a cluster
dump's 3 to 5 KB), so real inputs never meet the bound, while 700 KB of one-line pods stop
at 4,734 (measured: 0.64 s of CPU at worst, instead of 5 s). The document count is checked
before anything is parsed, the workload count (a List's items) before any is checked.
"""

from __future__ import annotations

WORKLOADS_PER_REQUEST = 2000
BYTES_PER_EXTRA_WORKLOAD = 256


def workload_budget(size: int) -> int:
    """How many workloads (and documents) a request of ``size`` bytes may hold."""
    return WORKLOADS_PER_REQUEST + size // BYTES_PER_EXTRA_WORKLOAD
