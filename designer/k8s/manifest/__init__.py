"""Read Kubernetes manifests exactly the way kubectl reads them, and write them back.

Reading semantics
-----------------
kubectl (v1.32) splits a stream into documents at every line that starts with
``---`` (k8s.io/apimachinery/pkg/util/yaml YAMLReader), sends a stream whose
first non-space byte is ``{`` to encoding/json, and converts every other
document with sigs.k8s.io/yaml: go-yaml v2 (the fork in
sigs.k8s.io/yaml/goyaml.v2) decodes it into ``interface{}`` with YAML 1.1
resolution, then encoding/json prints it.  For every document we return the
Python value whose JSON form is what that produces:

* plain (unquoted) scalars resolve by go-yaml v2's resolve.go: ``0777`` is the
  octal int 511, ``0x1F`` 31, ``1e3`` the float 1000.0, ``08`` the float 8.0,
  ``1_000`` 1000, ``y``/``yes``/``on``/``off``/``n`` are bools, ``~`` null,
  timestamps and ``1:30`` stay strings, ints beyond uint64 become floats
  (kubectl 1.32 has no big.Int branch); quoted scalars are always strings;
* map keys become strings like sigs.k8s.io/yaml's convertToJSONableObject does
  (``yes:`` -> ``"true"``, ``1.5:`` -> ``"1.5"`` via FormatFloat(k, 'g', -1, 32));
  null, uint64 and collection keys are errors, as are ``.inf``/``.nan`` values
  (encoding/json: "unsupported value") -- if they survive to the end, as in
  kubectl, where a later duplicate key can replace them;
* merge keys ``<<`` follow go-yaml v2 (merged keys overwrite earlier ones),
  ``!!binary`` is base64-decoded, other tags behave as in go-yaml v2, and the
  first document of a chunk is read (``...`` ends it).

Everything above is checked against the real kubectl in
tests/k8s/manifest/test_manifest_kubectl.py (hundreds of scalars, syntax corner cases
and 400 random documents; ad hoc runs of 10,000 more found no difference).

Parser choice (why)
-------------------
No Python YAML parser resolves scalars like go-yaml v2 (PyYAML: YAML 1.1 with
other rules, ``1e3`` stays a string; yaml-rs: YAML 1.2, ``0777`` is 777), so we
keep two paths that give identical results:

* The correct path (the reference): libyaml's C event parser (PyYAML's
  ``CParser``: go-yaml v2 is a Go port of libyaml, so syntax is judged alike
  and errors read like kubectl's) feeding an iterative builder written here
  that applies go-yaml v2 resolution, sigs.k8s.io key conversion, go-yaml's
  alias-ratio check ("document contains excessive aliasing") and MAX_DEPTH.
  It never recurses, so no input can raise RecursionError, and it is ~6x
  faster than PyYAML's CSafeLoader, whose Python composer is its slow part.
  Where libyaml 0.2.5 and go-yaml v2's scanner differ it follows go-yaml:
  ``\\'`` is accepted and ``\\/`` refused in double quotes, and in flow context
  a plain scalar may end in ":" (``[a:, b]``) but not hold a "?"
  (``[http://x?y=1]`` is an error).
* The fast path: yaml-rs (Rust, Production/Stable; ~2x faster than the
  correct path and ~12x faster than CSafeLoader on a pod dump; duplicate keys:
  last wins as in go-yaml; alias expansion limits of its own).  Its YAML 1.2
  rules differ (``0777`` -> 777, ``yes`` -> "yes", ``_1`` -> 1, ``1e999`` ->
  inf, tags and merge keys ignored, an empty block scalar at the very end ->
  "\\n", tabs after "-" accepted), so it reads a
  document only when a scan of the raw text proves nothing in it can be read
  differently: no plain scalar either parser could resolve to a non-string
  other than decimal ints, floats and true/false/null, no non-string keys, no
  tags, anchors, aliases, merge keys, non-empty flow collections, tabs,
  directives, ``...``, ``\\'``/``\\/``, control or YAML 1.1 line-break
  characters, indentation of 40 columns or more (so it never sees more than 80
  levels), or a block scalar header on the last line.  Over-reporting only
  costs speed.  kubectl's own output quotes every ambiguous string, so
  whole-cluster dumps take the fast path.  The scan looks at each distinct
  whitespace-separated token once (digits collapsed, which keeps the rules
  exact): ~25% of the parse time.  Any yaml-rs error re-reads the document on
  the correct path, so error messages always come from libyaml.
* JSON input (first byte ``{`` or ``[``) goes to orjson, or to a JSON stream
  decoder (kubectl accepts concatenated objects), or else is read as YAML.

Hostile input is refused before parsing where it can be: over ``max_bytes``,
invalid UTF-8 (with the byte offset), NUL bytes, more than MAX_DOCUMENTS
documents.  Depth and alias limits are enforced while building; every refusal
takes well under a second.

Writing
-------
``dump_yaml`` prints like ``kubectl get -o yaml`` (sigs.k8s.io/yaml.Marshal:
JSON, then the go-yaml v2 encoder): keys in go-yaml's sort order (digit runs
compare as numbers: ``item2`` < ``item10``), block style, sequences not
indented under their key, floats as encoding/json then FormatFloat(f, 'g', -1,
64) print them, strings quoted only when go-yaml v2 would read them back as
something else, multi-line strings as literal blocks.  PyYAML's C emitter is
libyaml, of which go-yaml's emitter is a port, so the output is byte for byte
kubectl's (tested), except that long strings are not wrapped at 80 columns and
U+0085/U+2028/U+2029 are escaped (kubectl writes them raw and reads them back
as line breaks).
"""

from __future__ import annotations

from designer.k8s.manifest._common import (
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_INPUT_BYTES,
    copy_tree,
)
from designer.k8s.manifest.finder import (
    Skipped,
    Workload,
    WorkloadScan,
    add_runtimes,
    find_workloads,
    find_workloads_in_items,
    find_workloads_of_items,
    is_list,
    load,
    runtime_index,
)
from designer.k8s.manifest.kinds import (
    KINDS,
    KSERVE_CONTAINER,
    RAY_AUTOSCALER_CONTAINER,
    RAY_AUTOSCALER_RESOURCES,
    KindRecord,
    Replicas,
    kind_record,
    kserve_multinode_workers,
)
from designer.k8s.manifest.reader import (
    Document,
    ManifestError,
    ReadError,
    go_json_loads,
    iter_documents,
    read_documents,
)
from designer.k8s.manifest.split import (
    ReadList,
    SplitError,
    SplitList,
    read_list,
    split_list,
)
from designer.k8s.manifest.templates import (
    SERVER_METADATA,
    pod_template_manifest,
)
from designer.k8s.manifest.trainer import (
    TRAINJOB_RECORD,
    RuntimeIndex,
    builtin_runtimes,
    strategic_merge,
)
from designer.k8s.manifest.writer import (
    QuotedStr,
    _needs_quotes,
    dump_yaml,
    dump_yaml_all,
)

__all__ = [
    "ReadList",
    "SplitError",
    "SplitList",
    "read_list",
    "split_list",
    "Document",
    "KINDS",
    "KSERVE_CONTAINER",
    "KindRecord",
    "RAY_AUTOSCALER_CONTAINER",
    "RAY_AUTOSCALER_RESOURCES",
    "Replicas",
    "RuntimeIndex",
    "SERVER_METADATA",
    "TRAINJOB_RECORD",
    "add_runtimes",
    "builtin_runtimes",
    "kind_record",
    "kserve_multinode_workers",
    "runtime_index",
    "strategic_merge",
    "MAX_DEPTH",
    "MAX_DOCUMENTS",
    "MAX_INPUT_BYTES",
    "ManifestError",
    "QuotedStr",
    "ReadError",
    "Skipped",
    "Workload",
    "WorkloadScan",
    "_needs_quotes",
    "copy_tree",
    "dump_yaml",
    "dump_yaml_all",
    "find_workloads",
    "find_workloads_in_items",
    "find_workloads_of_items",
    "is_list",
    "go_json_loads",
    "iter_documents",
    "load",
    "pod_template_manifest",
    "read_documents",
]
