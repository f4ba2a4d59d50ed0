"""Differential tests: designer.k8s.quantity against the real kubectl (v1.32).

kubectl parses quantities offline: ``kubectl set resources --local -f FILE`` decodes the
pod (Quantity.UnmarshalJSON on every resources entry) and prints it back as JSON
(Quantity.MarshalJSON).  To stay fast, each batch costs two kubectl runs whatever its
size:

1. a directory with one pod file per value: kubectl reports ``unable to decode "FILE":
   MESSAGE`` for each file it rejects, which gives acceptance and Go's message;
2. one pod with a container per accepted value: its output gives every canonical string.

Neither step consults our parser, so a disagreement cannot hide.  Values that would make
Go itself grind for minutes (``1e-999999999``) are kept out by ``_fast_for_go``.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from designer.k8s.core import ERR_GO_PANIC, Quantity, QuantityError

KUBECTL = shutil.which("kubectl")

pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed"),
]

# Go work (digits of 10**k) above which kubectl gets slow: 10**5 takes it ~4 s.
MAX_GO_WORK = 20_000

POD_HEAD = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":['
DECODE_ERROR = re.compile(r'unable to decode "[^"]*?p(\d+)\.json": (.*)')


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    text: str  # canonical string, or Go's error message


def _container(name: str, cpu_literal: str) -> str:
    return f'{{"name":"{name}","image":"i","resources":{{"requests":{{"cpu":{cpu_literal}}}}}}}'


def _set_resources(path: Path) -> subprocess.CompletedProcess[str]:
    cmd = [KUBECTL, "set", "resources", "--local", "-f", str(path), "-c", "target"]
    cmd += ["--requests=memory=1", "-o", "json"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def kubectl_judge(literals: list[str], workdir: Path) -> list[Verdict]:
    """What kubectl makes of each JSON literal (``"1.5Gi"``, ``1.5``, ``null``) as a cpu."""
    each = workdir / "each"
    each.mkdir(parents=True)
    for i, lit in enumerate(literals):
        doc = POD_HEAD + '{"name":"target","image":"i"},' + _container("c", lit) + "]}}"
        (each / f"p{i:05d}.json").write_text(doc, encoding="utf-8")
    rejected = {
        int(m.group(1)): m.group(2) for m in DECODE_ERROR.finditer(_set_resources(each).stderr)
    }
    accepted = [i for i in range(len(literals)) if i not in rejected]
    pod = workdir / "all.json"
    containers = ['{"name":"target","image":"i"}']
    containers += [_container(f"c{i}", literals[i]) for i in accepted]
    pod.write_text(POD_HEAD + ",".join(containers) + "]}}", encoding="utf-8")
    run = _set_resources(pod)
    assert run.returncode == 0, run.stderr
    printed = {
        c["name"]: c.get("resources", {}).get("requests", {}).get("cpu")
        for c in json.loads(run.stdout)["spec"]["containers"]
    }
    return [
        Verdict(False, rejected[i]) if i in rejected else Verdict(True, printed[f"c{i}"])
        for i in range(len(literals))
    ]


def ours(value: str | int | float | bool | None) -> Verdict:
    try:
        return Verdict(True, Quantity.from_json(value).canonical())
    except QuantityError as e:
        return Verdict(False, str(e))


def _fast_for_go(text: str) -> bool:
    """Whether Go parses ``text`` quickly, judged without the code under test.

    Go only grinds on its inf.Dec path (more than 18 digits, or a scale below nano)
    with a big int32 exponent, where it builds 10**exponent.  That is also the only
    place it can panic, so such values stay out of the shared batches.
    """
    m = re.fullmatch(r"[+-]?0*([0-9]*)(?:\.([0-9]*))?[eE]([+-]?[0-9]+)", text.strip())
    if m is None:
        return True  # no exponent: small scales only
    exponent = int(m.group(3))
    if not -(2**63) <= exponent < 2**63:
        return True  # rejected before any arithmetic
    exponent = (exponent + 2**31) % 2**32 - 2**31  # Go's int32(...)
    frac = len(m.group(2) or "")
    whole = len(m.group(1)) or 1  # the scanner reads "" as "0"
    fast_path = whole + frac <= 18 and (exponent - frac + 2**31) % 2**32 - 2**31 >= -9
    return fast_path or abs(exponent) <= MAX_GO_WORK


def _disagreements(values: list, verdicts: list[Verdict]) -> list[str]:
    out = []
    for value, theirs in zip(values, verdicts, strict=True):
        mine = ours(value)
        if mine != theirs:
            out.append(f"{value!r}: kubectl {theirs}, ours {mine}")
    return out


# ----------------------------------------------------------------- generation

VALID_SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E"]
VALID_SUFFIXES += ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
BAD_SUFFIXES = ["K", "B", "GB", "MB", "ki", "mi", "gi", "KI", "Kib", "iK", "i", "e", "E+"]
BAD_SUFFIXES += ["e-", "ee3", "k3", "m-1", "Mi2", "EE", "nm", "Ki-", "kk", "x", "e1.5"]
EXPONENTS = ["0", "1", "2", "3", "5", "6", "9", "12", "18", "19", "20", "21", "30", "99"]
EXPONENTS += ["007", "000", "999999999", "1000000000", "2147483647", "2147483648"]
EXPONENTS += ["2147483649", "4294967295", "4294967296", "4294967297", "4294967306"]
EXPONENTS += ["9223372036854775807", "9223372036854775808", "18446744073709551616"]

# Cases the issue names, plus edges found while porting.
NAMED = [
    "0.5",
    "1.5Gi",
    "2048Mi",
    "1000m",
    "1000",
    "1e3",
    "0.0000000001",
    "8GB",
    "1.5.5",
    "1 Gi",
    "lots",
    "",
    "Mi",
    ".",
    "e3",
    "+1",
    "01",
    "5.",
    " 1 ",
    ".5",
    "0.5Ki",
    "1e999999999",
    "1e999999998",
    "1e2147483647",
    "1e4294967296",
    "1e4294967297",
    "1e9223372036854775807",
    "1e9223372036854775808",
    "1000E",
    "10000E",
    "1000P",
    "1000000000000000000000",
    "9999999999999999999",
    "8Ei",
    "9Ei",
    "-8Ei",
    "16Ei",
    "7.99Ei",
    "1.555k",
    "1.100",
    "1.1000",
    "1000e2147483647",
    "10e2147483647",
    "1.5e-2147483648",
    "1e-9223372036854775808",
    "Pi",
    "Ei",
    "e-20",
    "-.e-20",
    "+-1",
    "-",
    "+",
    "-.",
    ".e5",
    "1E",
    "1EE",
    "1e+",
    "1e-0",
    "0.9n",
    "-0.9n",
    "-0.0001Ki",
    "0.0000000001Ki",
    "+12345678901Ki",
    "+123456789012Ki",
    "+99999999Mi",
    "+999999999Mi",
    "+99999Gi",
    "+999999Gi",
    "+99Ti",
    "+999Ti",
    "+1Pi",
    "1.Ki",
    "1.Mi",
    "1024Ki",
    "00000000000000000000000001",
    "+1234567890123456789",
    "+123456789012345678",
    "12345678901234567890e9999",
    "1e-99999",
    "1e-9999",
    "1.5e-9",
    "0.5e-9",
    "1e-10",
    "\u00a01\u3000",
    "1\u0085",
    "\u20281",
    "1\u200b",
    "\t1",
    "1\n",
    "\x7f1",
    "\uff11",
    "\u0661",
    "1\u00e9",
    "1ｋ",
    '1"',
    "1\\",
]


def _digits(r: random.Random, n: int) -> str:
    return "".join(r.choice("0123456789") for _ in range(n))


def _number(r: random.Random) -> str:
    sign = r.choice(["", "", "", "+", "-"])
    zeros = "0" * r.choice([0, 0, 0, 0, 1, 2, 7])
    whole = _digits(r, r.choice([0, 1, 1, 1, 2, 3, 4, 6, 9, 12, 15, 17, 18, 19, 20, 25]))
    if r.random() < 0.2:
        whole += "000"
    if r.random() < 0.45:
        frac = _digits(r, r.choice([0, 1, 1, 2, 3, 3, 4, 6, 9, 10, 12, 18]))
        if r.random() < 0.2:
            frac += "00"
        return f"{sign}{zeros}{whole}.{frac}"
    return f"{sign}{zeros}{whole}"


def _suffix(r: random.Random) -> str:
    roll = r.random()
    if roll < 0.55:
        return r.choice(VALID_SUFFIXES)
    if roll < 0.85:
        return r.choice("eE") + r.choice(["", "", "+", "-"]) + r.choice(EXPONENTS)
    return r.choice(BAD_SUFFIXES)


def _garbage(r: random.Random) -> str:
    alphabet = "0123456789..+-eEinumkKMGTPBxi \u00a0"
    return "".join(r.choice(alphabet) for _ in range(r.randint(1, 8)))


def generated_strings(count: int = 2400, seed: int = 20250601) -> list[str]:
    r = random.Random(seed)
    values = list(NAMED)
    while len(values) < count:
        roll = r.random()
        if roll < 0.75:
            value = _number(r) + _suffix(r)
        elif roll < 0.85:
            value = _garbage(r)
        elif roll < 0.95:
            pad = r.choice([" ", "  ", "\u00a0", "\u2003", "\u3000", "\t", "\n", "\u200b"])
            value = r.choice(["", pad]) + _number(r) + _suffix(r) + r.choice(["", pad])
        else:  # long mantissas take Go's inf.Dec path
            value = str(r.randint(1, 9)) + _digits(r, r.randint(20, 3000))
            value += r.choice(["", "." + _digits(r, r.randint(0, 40))]) + r.choice(VALID_SUFFIXES)
        if _fast_for_go(value.strip()):
            values.append(value)
    return values


def generated_integers(seed: int = 7) -> list[int]:
    r = random.Random(seed)
    values = [0, 1, -1, 1000, 1024, 2**63 - 1, 2**63, -(2**63), 10**21, 10**30 + 7]
    for _ in range(250):
        k = r.randint(0, 45)
        values.append(r.choice([1, -1]) * r.randint(0, 10**k))
    return values


def generated_floats(seed: int = 11) -> list[float]:
    r = random.Random(seed)
    values = [0.5, 1.5, 100.0, -0.0, 0.0, 1e-6, 9.999999e-7, 1e-7, 1e21, 9.99e20, 1e20]
    values += [5e-324, 1.7976931348623157e308, 0.1, 1 / 3, 2.5e-10, 123456789.123, -1.25]
    for _ in range(300):
        mantissa = r.choice([r.randint(1, 9), r.randint(1, 999999), r.randint(1, 10**17)])
        values.append(r.choice([1, -1]) * float(f"{mantissa}e{r.randint(-40, 40)}"))
    for _ in range(30):
        values.append(float(f"{r.randint(1, 999)}e{r.randint(-330, 300)}"))
    return values


# ----------------------------------------------------------------------- tests


def test_generated_strings_agree_with_kubectl_on_acceptance_and_canonical_form(
    tmp_path: Path,
) -> None:
    values = generated_strings()
    assert len(values) >= 2000
    literals = [json.dumps(v, ensure_ascii=False) for v in values]
    verdicts = kubectl_judge(literals, tmp_path)
    accepted = sum(v.accepted for v in verdicts)
    assert 500 < accepted < len(values) - 300, "the generator should mix valid and invalid"
    problems = _disagreements(values, verdicts)
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:40])


def test_json_integers_and_literals_agree_with_kubectl(tmp_path: Path) -> None:
    values: list = [*generated_integers(), True, False, None]
    literals = [json.dumps(v) for v in values]
    problems = _disagreements(values, kubectl_judge(literals, tmp_path))
    assert not problems, "\n".join(problems[:40])


def test_yaml_floats_reach_the_parser_as_go_writes_them(tmp_path: Path) -> None:
    # kubectl turns YAML into JSON with Go's encoding/json, so a YAML float reaches
    # UnmarshalJSON in Go's float64 format; from_json(float) must reproduce that text.
    values = generated_floats()
    lines = ["apiVersion: v1", "kind: Pod", "metadata: {name: p}", "spec:", "  containers:"]
    lines.append("  - {name: target, image: i}")
    lines += [
        f"  - {{name: c{i}, image: i, resources: {{requests: {{cpu: {v!r}}}}}}}"
        for i, v in enumerate(values)
    ]
    pod = tmp_path / "floats.yaml"
    pod.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _set_resources(pod)
    assert run.returncode == 0, run.stderr
    printed = {c["name"]: c.get("resources") for c in json.loads(run.stdout)["spec"]["containers"]}
    problems = []
    for i, v in enumerate(values):
        theirs = printed[f"c{i}"]["requests"]["cpu"]
        if ours(v) != Verdict(True, theirs):
            problems.append(f"{v!r}: kubectl {theirs!r}, ours {ours(v)}")
    assert not problems, "\n".join(problems[:40])


def test_the_unit_test_tables_hold_what_kubectl_printed(tmp_path: Path) -> None:
    from tests.k8s.core.test_quantity import CANONICAL, REJECTED

    values = [text for text, _ in CANONICAL] + [text for text, _ in REJECTED]
    expected = [Verdict(True, stored) for _, stored in CANONICAL]
    expected += [Verdict(False, message) for _, message in REJECTED]
    assert kubectl_judge([json.dumps(v) for v in values], tmp_path) == expected


@pytest.mark.parametrize(
    "text", ["1.5Gi", "+1", "5.", "1.100", "0.5", " 1", "1 ", "1\t", "\u00a01", "lots", "1e"]
)
def test_command_line_values_are_parsed_without_trimming(text: str) -> None:
    # --requests goes straight to resource.ParseQuantity, unlike a manifest value.
    pod = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":'
    pod += '[{"name":"c","image":"i"}]}}'
    cmd = [KUBECTL, "set", "resources", "--local", "-f", "-", f"--requests=cpu={text}"]
    cmd += ["-o", "jsonpath={.spec.containers[0].resources.requests.cpu}"]
    run = subprocess.run(cmd, input=pod, capture_output=True, text=True, timeout=60, check=False)
    try:
        mine = Verdict(True, Quantity.parse(text).canonical())
    except QuantityError as e:
        mine = Verdict(False, str(e))
    if run.returncode == 0:
        assert mine == Verdict(True, run.stdout)
    else:
        assert mine == Verdict(False, run.stderr.strip().removeprefix("error: "))


def test_go_panics_where_an_int32_rounding_shift_overflows(tmp_path: Path) -> None:
    text = "1000000000000000000e2147483639"
    pod = tmp_path / "panic.json"
    pod.write_text(
        POD_HEAD + '{"name":"target","image":"i"},' + _container("c", json.dumps(text)) + "]}}",
        encoding="utf-8",
    )
    run = _set_resources(pod)
    assert run.returncode == 2
    assert f"panic: {ERR_GO_PANIC}" in run.stderr
    with pytest.raises(QuantityError, match=re.escape(ERR_GO_PANIC)):
        Quantity.parse(text)
