"""The fast path: yaml-rs, when a scan proves it reads the document identically."""

from __future__ import annotations

import io
import re
from typing import Any

import yaml_rs

# ---------------------------------------------------------------------------
# The fast path: yaml-rs, when a scan proves it reads the document identically
# ---------------------------------------------------------------------------

_LAST_WINS = yaml_rs.DuplicateKeyPolicy.LastWins  # go-yaml v2 Unmarshal: last key wins
_DIGITS_TO_ONE = bytes.maketrans(b"23456789", b"11111111")

# The scan looks at the distinct whitespace-separated tokens of the document
# (digits 2-9 collapsed to 1, which keeps every rule below exact).  In block
# context a plain scalar starts a token; flow collections are refused whole.
_TT = rb"(?=[#:,\]}\n]|\Z)"  # what may end a plain scalar inside a token
_EOT = rb"(?:\n|\Z)"  # end of token (tokens are joined with newlines)
# Decimal ints of at most 18 digits and decimal floats with a small exponent:
# both parsers agree (a huge exponent overflows: yaml-rs says inf, go a string).
_SAFE = rb"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]+)?(?:[eE][-+]?[0-9]{1,2})?"
# Everything either parser may read as a number (ParseInt/ParseUint/ParseFloat
# after go-yaml's underscore removal; yaml-rs's is_int/is_float/inf/nan).
# go-yaml removes every "_" before parsing, so "0_x1F" is hex and "1e_5" a float.
# (Alternatives in this order: it is used in atomic groups, where the first
# one that matches wins, and the decimal one would take the "." of ".inf".)
_NUMISH = (
    rb"(?=[-+]?[0-9._])[-+]?_*(?:\.[iInN][nNaA][fFnN]"
    rb"|0_*[xXoObB][0-9a-fA-F_]*"
    rb"|[0-9_]*\.?[0-9_]*(?:[eE]_*[-+]?[0-9_]*[0-9][0-9_]*)?)"
)
# Matched at the start of each distinct token ("\n" + token): the literal "\n"
# lets the regex engine skip from token to token, and each branch starts with
# its own first characters, so most tokens fail at once.  ":" ends a plain
# scalar inside a token (_TT), so a risky word is caught as a key too.
_RISKY_TOKEN = re.compile(
    rb"\n(?:"
    + b"|".join(
        [
            # go-yaml v2 bools that yaml-rs reads as strings
            rb"[yY](?:es)?" + _TT,
            rb"YES" + _TT,
            rb"[nN]o?" + _TT,
            rb"NO" + _TT,
            rb"[oO](?:n|ff)" + _TT,
            rb"O(?:N|FF)" + _TT,
            # keys sigs.k8s.io/yaml converts to strings ("true") or refuses (null)
            rb"(?:[tT]rue|TRUE|[fF]alse|FALSE|[nN]ull|NULL|~):",
            # numbers the parsers read differently, and any number as a key.  The
            # groups are atomic: no character a number is made of can end a token,
            # so the longest match is the only one that matters (and UIDs such as
            # "73a0000c-..." fail without backtracking).
            rb"(?=[-+0-9._])(?:(?>" + _SAFE + rb"):|(?!(?>" + _SAFE + rb")" + _TT + rb")"
            rb"(?>" + _NUMISH + rb")" + _TT + rb")",
            rb"[!&*]|<<",  # tags, anchors, aliases, merge keys
            rb"[\[{](?!(?:\]|})" + _EOT + rb")",  # non-empty flow collections ({} and [] are fine)
            # directives, document end, complex/empty/spaced keys
            rb"%|\.\.\." + _EOT + rb"|\?" + _EOT + rb"|:",
        ]
    )
    + rb")"
)
# Indentation (with "- ", "? " and ": " indicators) of 40 columns or more: the
# fast path then never sees more than 2*40 block levels (MAX_DEPTH is 100).
_DEEP = re.compile(rb"\n[ ?:-]{40}")
# Characters libyaml rejects or treats as line breaks (YAML 1.1) but yaml-rs
# does not, found by a translate() pre-check on their first byte.
_ODD_CHAR = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]"
    rb"|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]"
)
_NOT_ODD_LEAD = bytes(
    c for c in range(256) if not (c < 0x20 and c not in b"\t\n\r" or c in b"\x7f\xc2\xe2\xef")
)
_LONE_CR = re.compile(rb"\r(?!\n)")
# A block scalar header ("|", ">-", "|+2" ...) on the last line that is not
# blank or a comment.
_BLOCK_HEADER_AT_END = re.compile(rb"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?(?:\s*\n[ \t]*#[^\n]*)*\s*\Z")


def _needs_correct_path(data: bytes) -> bool:
    """True unless yaml-rs is proven to read ``data`` exactly like go-yaml v2."""
    if b"\t" in data:
        return True  # yaml-rs accepts "-\tx", libyaml and go-yaml do not
    if b"\\" in data and (b"\\/" in data or b"\\'" in data):
        return True  # escapes where go-yaml v2 and libyaml differ
    if data.translate(None, _NOT_ODD_LEAD) and _ODD_CHAR.search(data):
        return True
    if b"\r" in data and _LONE_CR.search(data):
        return True
    if _BLOCK_HEADER_AT_END.search(data[-256:]):
        return True  # yaml-rs reads an empty block scalar at the very end as "\n"
    # Distinct lines (iterating a BytesIO frees each duplicate at once, which is
    # much cheaper than splitting first); each keeps its "\n".
    lines = b"".join(set(io.BytesIO(data.translate(_DIGITS_TO_ONE))))
    if _DEEP.search(b"\n" + lines):
        return True
    tokens = b"\n".join(set(lines.split()))
    return _RISKY_TOKEN.search(b"\n" + tokens) is not None


def _parse_fast(text: str) -> Any:
    return yaml_rs.loads(text, parse_datetime=False, duplicate_key_policy=_LAST_WINS)
