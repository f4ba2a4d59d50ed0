"""dump_yaml's fast path writes exactly what the PyYAML (libyaml) path writes, or steps aside."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.design import EXPORT_KINDS, WORKLOAD_TYPES, preset_design, render_design
from designer.k8s.manifest import QuotedStr, dump_yaml
from designer.k8s.manifest.writer import _dump_fast, _dump_pyyaml


def test_every_export_of_every_preset_takes_the_fast_path_and_matches() -> None:
    for workload in WORKLOAD_TYPES:
        for kind in EXPORT_KINDS:
            design = preset_design(workload)
            design.export.kind = kind
            for obj in render_design(design).objects:
                fast = _dump_fast(obj)
                assert fast is not None, (workload, kind, obj["kind"])
                assert fast == _dump_pyyaml(obj)


TEXT = st.text(alphabet=string.printable + "éü日\x85\u2028", max_size=12)
WORDS = st.sampled_from(
    [
        "",
        "a",
        "yes",
        "no",
        "on",
        "null",
        "~",
        "1",
        "0x1F",
        "1e3",
        "1:30",
        "-x",
        "- x",
        "x:",
        "a: b",
        "a #b",
        "#a",
        "'a",
        '"a"',
        "a'b",
        "*a",
        "&a",
        "!a",
        "%a",
        "@a",
        "`a",
        "|",
        ">",
        "[a]",
        "a[0]",
        "{a}",
        "a{b}",
        "$(X)",
        "<<",
        "=",
        " a",
        "a ",
        "a  b",
        "a\nb",
        "500m",
        "pytorch:2.5",
        "http://x/y",
        "a,b",
        "?a",
        "a?",
        "app.kubernetes.io/name",
        "ü",
        "1_000",
    ]
)
SCALARS = st.one_of(
    WORDS,
    TEXT,
    WORDS.map(QuotedStr),
    TEXT.map(QuotedStr),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
TREES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(WORDS, TEXT), children, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=1500, deadline=None)
@given(TREES)
def test_the_fast_path_is_byte_identical_or_steps_aside(tree: object) -> None:
    fast = _dump_fast(tree)
    if fast is not None:
        assert fast == _dump_pyyaml(tree)
    assert dump_yaml(tree) == _dump_pyyaml(tree)
