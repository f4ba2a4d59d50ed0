"""The kubelet configuration that changes the cgroup values: ``cpuCFSQuota`` and
``cpuCFSQuotaPeriod`` (KubeletConfiguration, pkg/kubelet/apis/config).

``cpuCFSQuotaPeriod`` is a ``metav1.Duration``: JSON text that Go's ``time.ParseDuration``
reads (``100ms``, ``5000us``, ``1.5ms``). A period other than 100ms is only accepted by a
kubelet that runs with the alpha feature gate ``CustomCPUCFSQuotaPeriod`` (config
validation refuses it otherwise), so asking for one means that gate is on: the quota is then
computed over that period too (pkg/kubelet/cm/helpers_linux.go MilliCPUToQuota), and the
period must lie between 1ms and 1s.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.k8s.core import MessageError, gettext_noop

NANOSECOND = 1
MICROSECOND = 1000 * NANOSECOND
MILLISECOND = 1000 * MICROSECOND
SECOND = 1000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

DEFAULT_CFS_QUOTA_PERIOD_US = 100_000  # 100ms (pkg/kubelet/apis/config/v1beta1 defaults)

# time.ParseDuration's unitMap; both spellings of the micro sign are accepted.
_UNITS = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "\u00b5s": MICROSECOND,
    "\u03bcs": MICROSECOND,
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_U63 = 1 << 63


def _go_quote(text: str) -> str:
    """time.quote: double quotes, with bytes outside printable ASCII written as \\xNN."""
    out = ['"']
    for ch in text:
        if ch >= "\x80" or ch < " ":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    out.append('"')
    return "".join(out)


class DurationError(MessageError):
    """time.ParseDuration's error; its text is Go's, word for word."""

    def __init__(self, text: str) -> None:
        super().__init__("%(error)s", {"error": text})


def parse_go_duration(text: str) -> int:
    """time.ParseDuration(text) in nanoseconds, with Go's error messages.

    ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+``: a sign, then numbers each followed by a unit
    (ns, us, µs, ms, s, m, h), such as ``100ms``, ``1.5ms``, ``1m30s``; ``0`` alone needs no
    unit. Fractions are added as float64 like Go does.
    """
    orig, s = text, text
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    invalid = DurationError("time: invalid duration " + _go_quote(orig))
    if not s:
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            raise invalid
        # leadingInt: [0-9]*, refusing more than 1<<63.
        i, v = 0, 0
        while i < len(s) and "0" <= s[i] <= "9":
            if v > _U63 // 10:
                raise invalid
            v = v * 10 + ord(s[i]) - 48
            if v > _U63:
                raise invalid
            i += 1
        pre = i > 0
        s = s[i:]
        # leadingFraction: (\.[0-9]*)?, digits past int64 precision are skipped.
        post, f, scale = False, 0, 1.0
        if s and s[0] == ".":
            s = s[1:]
            i, overflow = 0, False
            while i < len(s) and "0" <= s[i] <= "9":
                if not overflow:
                    if f > (_U63 - 1) // 10:
                        overflow = True
                    else:
                        y = f * 10 + ord(s[i]) - 48
                        if y > _U63:
                            overflow = True
                        else:
                            f, scale = y, scale * 10
                i += 1
            post = i > 0
            s = s[i:]
        if not pre and not post:
            raise invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            raise DurationError("time: missing unit in duration " + _go_quote(orig))
        unit_text, s = s[:i], s[i:]
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise DurationError(
                "time: unknown unit " + _go_quote(unit_text) + " in duration " + _go_quote(orig)
            )
        if v > _U63 // unit:
            raise invalid
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))
            if v > _U63:
                raise invalid
        total += v
        if total > _U63:
            raise invalid
    if neg:
        return -total
    if total > _U63 - 1:
        raise invalid
    return total


def go_duration_string(ns: int) -> str:
    """time.Duration.String(): ``100ms``, ``1.5s``, ``2m0s``, ``500µs``, ``0s``."""
    neg, u = ns < 0, abs(ns)

    def frac(v: int, prec: int) -> tuple[str, int]:
        digits, printing = [], False
        for _ in range(prec):
            digit = v % 10
            printing = printing or digit != 0
            if printing:
                digits.append(str(digit))
            v //= 10
        return ("." + "".join(reversed(digits)) if printing else ""), v

    if u < SECOND:
        if u == 0:
            return "0s"
        if u < MICROSECOND:
            prec, unit = 0, "ns"
        elif u < MILLISECOND:
            prec, unit = 3, "\u00b5s"
        else:
            prec, unit = 6, "ms"
        fraction, whole = frac(u, prec)
        out = f"{whole}{fraction}{unit}"
    else:
        fraction, secs = frac(u, 9)
        out = f"{secs % 60}{fraction}s"
        minutes = secs // 60
        if minutes > 0:
            out = f"{minutes % 60}m{out}"
            hours = minutes // 60
            if hours > 0:
                out = f"{hours}h{out}"
    return "-" + out if neg else out


CFS_PERIOD_RANGE = (
    "invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) %s must be between 1ms "
    "and 1sec, inclusive"
)


@dataclass(frozen=True)
class KubeletConfig:
    """The kubelet settings the cgroup values depend on (defaults as the kubelet's)."""

    cpu_cfs_quota: bool = True  # enforce CPU limits with CFS quota
    cpu_cfs_quota_period_us: int = DEFAULT_CFS_QUOTA_PERIOD_US
    # cgroup v2 (the default on current distributions); without singleProcessOOMKill the
    # kubelet asks for memory.oom.group=1 so an OOM kills the whole container.
    cgroup_v2: bool = True
    single_process_oom_kill: bool = False

    @property
    def custom_period(self) -> bool:
        """The CustomCPUCFSQuotaPeriod gate, which a period other than 100ms requires."""
        return self.cpu_cfs_quota_period_us != DEFAULT_CFS_QUOTA_PERIOD_US

    def as_dict(self) -> dict[str, object]:
        return {
            "cpuCFSQuota": self.cpu_cfs_quota,
            "cpuCFSQuotaPeriod": go_duration_string(self.cpu_cfs_quota_period_us * MICROSECOND),
        }


def kubelet_config(
    cpu_cfs_quota: object = True, cpu_cfs_quota_period: object = "100ms"
) -> KubeletConfig:
    """A KubeletConfig from the two settings as a KubeletConfiguration file spells them.

    Raises MessageError: a ``cpuCFSQuota`` that is not a boolean, a period that is not a Go
    duration (time.ParseDuration's message), or one outside 1ms..1s (the kubelet's own
    validation message, as it prints it).
    """
    if not isinstance(cpu_cfs_quota, bool):
        raise MessageError(
            gettext_noop("cpuCFSQuota must be true or false, not %(value)s"),
            {"value": repr(cpu_cfs_quota)},
        )
    if not isinstance(cpu_cfs_quota_period, str):
        raise MessageError(
            gettext_noop(
                "cpuCFSQuotaPeriod must be a duration such as 100ms or 5000us, not %(value)s"
            ),
            {"value": repr(cpu_cfs_quota_period)},
        )
    ns = parse_go_duration(cpu_cfs_quota_period)
    if ns != DEFAULT_CFS_QUOTA_PERIOD_US * MICROSECOND and not MILLISECOND <= ns <= SECOND:
        # pkg/kubelet/apis/config/validation: with the gate on, 1ms..1s inclusive.
        raise DurationError(CFS_PERIOD_RANGE % go_duration_string(ns))
    # int64(d / time.Microsecond): truncated toward zero.
    return KubeletConfig(cpu_cfs_quota=cpu_cfs_quota, cpu_cfs_quota_period_us=ns // MICROSECOND)
