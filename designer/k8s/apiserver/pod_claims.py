"""The API server's rules for a pod's Dynamic Resource Allocation fields (Kubernetes 1.34+,
resource.k8s.io/v1 GA): ``spec.resourceClaims`` and each container's ``resources.claims``.

Mirrors pkg/apis/core/validation/validation.go (1.34/1.35 tree): ``gatherPodResourceClaimNames``,
``validatePodResourceClaims`` / ``validatePodResourceClaim`` and ``validateResourceClaimNames``
(the last step of ``validateResourceRequirements`` for every container, init and ephemeral
containers included), with Go's paths and messages word for word. The pod-level
``spec.resources.claims`` Forbidden error is in ``pod.validate_pod_resources``.

What the API server does *not* check, and neither do we here: that the named ResourceClaim or
ResourceClaimTemplate exists (it may be created later), nor that a ``request`` names a request
of the claim (only that it is a DNS label). ``podspec check`` links claims to the objects in
its input and warns about missing ones (check.claims).

One value prints differently: ``field.Invalid(fldPath, claim, ...)`` carries the internal
``core.PodResourceClaim`` struct, which Go prints with ``%#v``: pointers as their address
(``(*string)(0xc000a1b2c0)``), different on every call. We print a set pointer's value in
its place (``(*string)("my-claim")``); a nil one prints as Go does, ``(*string)(nil)``.
"""

from __future__ import annotations

from designer.k8s.core import (
    ContainerResourceClaim,
    FieldError,
    PodResourceClaim,
    Unquoted,
    child,
    duplicate,
    go_quote,
    index,
    invalid,
    is_dns1123_label,
    name_is_dns_subdomain,
    required,
)

MSG_AT_MOST_ONE = (
    "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
)
MSG_ONE_OF = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
MSG_NOT_A_POD_CLAIM = "must be one of the names in pod.spec.resourceClaims"


def gather_pod_claim_names(claims: list[PodResourceClaim] | None) -> set[str]:
    """gatherPodResourceClaimNames: every non-empty name, even invalid or duplicated ones (so
    a container naming a badly named pod claim gets no second error)."""
    return {c.name for c in claims or [] if c.name}


def _go_pointer(value: str | None) -> str:
    return "(*string)(nil)" if value is None else f"(*string)({go_quote(value)})"


def _claim_value(claim: PodResourceClaim) -> Unquoted:
    """``%#v`` of a core.PodResourceClaim (see the module docstring about pointers)."""
    return Unquoted(
        f"core.PodResourceClaim{{Name:{go_quote(claim.name or '')}, "
        f"ResourceClaimName:{_go_pointer(claim.resource_claim_name)}, "
        f"ResourceClaimTemplateName:{_go_pointer(claim.resource_claim_template_name)}}}"
    )


def validate_pod_resource_claims(
    claims: list[PodResourceClaim] | None, path: str
) -> list[FieldError]:
    """validatePodResourceClaims: each ``spec.resourceClaims[i]``, names unique."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims or []):
        p = index(path, i)
        name_path = child(p, "name")
        if not claim.name:
            errs.append(required(name_path))
        elif claim.name in seen:
            errs.append(duplicate(name_path, claim.name))
        else:
            errs += [invalid(name_path, claim.name, m) for m in is_dns1123_label(claim.name)]
            seen.add(claim.name)
        named = claim.resource_claim_name is not None
        templated = claim.resource_claim_template_name is not None
        if named and templated:
            errs.append(invalid(p, _claim_value(claim), MSG_AT_MOST_ONE))
        if not named and not templated:
            errs.append(invalid(p, _claim_value(claim), MSG_ONE_OF))
        # ValidateResourceClaimName / ValidateResourceClaimTemplateName = NameIsDNSSubdomain.
        for fld, value in (
            ("resourceClaimName", claim.resource_claim_name),
            ("resourceClaimTemplateName", claim.resource_claim_template_name),
        ):
            if value is not None:
                errs += [invalid(child(p, fld), value, m) for m in name_is_dns_subdomain(value)]
    return errs


def validate_container_claims(
    claims: list[ContainerResourceClaim] | None, pod_claim_names: set[str], path: str
) -> list[FieldError]:
    """validateResourceClaimNames: a container's ``resources.claims`` (``path`` ends in
    ``.claims``). Errors name the list index, except a bad ``request``."""
    errs: list[FieldError] = []
    names: list[str] = []  # Go's set of "claim" and "claim/request" keys, in insertion order
    for i, claim in enumerate(claims or []):
        p = index(path, i)
        name = claim.name or ""
        if not name:
            errs.append(required(p))
            continue
        if name in names:
            # All requests of that claim already referenced.
            errs.append(duplicate(p, name))
        else:
            key = name
            if claim.request:
                errs += [
                    invalid(child(p, "request"), claim.request, m)
                    for m in is_dns1123_label(claim.request)
                ]
                key += "/" + claim.request
            if key in names:
                # The exact same entry was already referenced.
                errs.append(duplicate(p, key))
            elif not claim.request:
                # The whole claim after one of its requests: one Duplicate per earlier request.
                errs += [duplicate(p, name) for k in names if k.partition("/")[0] == name != k]
            names.append(key)
        if name not in pod_claim_names:
            detail = MSG_NOT_A_POD_CLAIM + (
                ": " + ", ".join(sorted(pod_claim_names)) if pod_claim_names else " which is empty"
            )
            errs.append(FieldError(p, "FieldValueNotFound", detail, name))
    return errs
