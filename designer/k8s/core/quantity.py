"""Kubernetes resource quantities, parsed and printed exactly like the API server.

A pure-Python port of ``k8s.io/apimachinery/pkg/api/resource.Quantity`` as shipped in
Kubernetes v1.32 (quantity.go, suffix.go, amount.go, math.go, scale_int.go and the
``gopkg.in/inf.v0`` decimal it falls back to), checked byte for byte against
``kubectl`` v1.32 (see tests/k8s/core/test_quantity_kubectl.py).

Go's bugs are part of the contract and are reproduced on purpose:

* ParseQuantity caches the input text when it *looks* canonical, and String() returns
  it verbatim: ``+1``, ``01``, ``5.``, ``1.100``, ``1.555k``, ``1e3``, ``1E+21`` are
  stored as written.
* A DecimalSI value whose canonical exponent has no suffix loses its exponent:
  ``1000E`` (10**21) prints as ``1``.  BinarySI likewise drops a suffix beyond ``Ei``.
* Exponents are int32 and wrap: ``1e4294967297`` is 10, ``1.5e-2147483648`` is
  ``150e2147483646``.
* Everything finer than a nano is rounded away from zero: ``0.0000000001`` is ``1n``.
* Binary quantities are capped at 2**63-1: ``8Ei`` prints ``9223372036854775807``.

Values are kept as digit strings plus a base-10 exponent, never as floats and never as
``10**exponent`` integers, so hostile input (``1e999999999``, a million digits) answers
in milliseconds.  Where kubectl itself needs minutes (``1e-999999999`` makes Go build
10**999999990) we return what Go would eventually print; :func:`go_parse_work` tells
how much work Go would do.
"""

from __future__ import annotations

import decimal
import functools
import math
import re
from fractions import Fraction
from typing import Final

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_GO_PANIC",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Quantity",
    "QuantityError",
    "canonical",
    "go_parse_work",
]

DECIMAL_EXPONENT: Final = "DecimalExponent"  # e.g. 12e6
BINARY_SI: Final = "BinarySI"  # e.g. 12Mi (12 * 2^20)
DECIMAL_SI: Final = "DecimalSI"  # e.g. 12M (12 * 10^6)
_FORMATS: Final = frozenset({DECIMAL_EXPONENT, BINARY_SI, DECIMAL_SI, ""})

# quantity.go: the error values, word for word.
SPLIT_RE_STRING: Final = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG: Final = "quantities must match the regular expression '" + SPLIT_RE_STRING + "'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"
# inf.v0 exp10() indexes a cache with a negative int32 and Go panics (kubectl exits 2).
ERR_GO_PANIC: Final = "runtime error: index out of range [-2147483648]"

_MAX_INT64: Final = (1 << 63) - 1
_MIN_INT64: Final = -(1 << 63)
# Python ints are slow beyond ~10**5 digits (10**10**7 takes 9 s), so as_fraction refuses
# more; sums are done in libmpdec, which copes with ten million digits in milliseconds.
MAX_FRACTION_DIGITS: Final = 100_000
MAX_SUM_DIGITS: Final = 10_000_000

# suffix.go: decSuffixes / binSuffixes.
_DEC_SUFFIXES: Final = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BIN_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_SUFFIX_BY_EXP: Final = {e: s for s, e in _DEC_SUFFIXES.items()}
_BIN_SUFFIX_BY_EXP: Final = {e: s for s, e in _BIN_SUFFIXES.items()}

# parseQuantityString in quantity.go is a greedy scanner with no backtracking; these
# possessive groups make the regex behave the same way:
# sign, digits, optional "." digits, suffix letters, optional sign, digits.
_SCAN_RE: Final = re.compile(r"([+-]?+)([0-9]*+)(?:(\.)([0-9]*+))?+([eEinumkKMGTP]*+[+-]?+[0-9]*+)")
_GO_INT_RE: Final = re.compile(r"([+-]?)([0-9]+)")
# unicode.IsSpace, which strings.TrimSpace uses in UnmarshalJSON.
_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Characters a JSON writer must escape; UnmarshalJSON then sees a backslash.
_JSON_ESCAPED_RE: Final = re.compile('[\x00-\x1f"\\\\\ud800-\udfff]')
# Exact arithmetic on very long coefficients.
_EXACT: Final = decimal.Context(
    prec=decimal.MAX_PREC,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    rounding=decimal.ROUND_UP,
)
_NANO: Final = decimal.Decimal("1E-9")


class QuantityError(ValueError):
    """A quantity kubectl / the API server rejects; ``str(e)`` is Go's message."""


def _i32(x: int) -> int:
    """Wrap like a Go int32 (Scale and exponents are int32 in amount.go/suffix.go)."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def _go_rem(a: int, b: int) -> int:
    """Go's %, which truncates toward zero (Python's floors)."""
    r = abs(a) % b
    return -r if a < 0 else r


def _fits_int64(x: int) -> bool:
    return _MIN_INT64 <= x <= _MAX_INT64


def _wrap64(x: int) -> int:
    """Go's int64 arithmetic: the result modulo 2**64, as a signed number."""
    x &= 0xFFFFFFFFFFFFFFFF
    return x - (1 << 64) if x >= 1 << 63 else x


def _big_int64(x: int) -> int:
    """big.Int.Int64(): the low 64 bits of |x|, then the sign."""
    low = _wrap64(abs(x))
    return _wrap64(-low) if x < 0 else low


def _go_div(a: int, b: int) -> int:
    """Go's integer /, which truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _int64_multiply_scale(a: int, b: int) -> tuple[int, bool]:
    """math.go int64MultiplyScale (and its Scale10/100/1000 twins): the wrapped product."""
    if a in (0, 1):
        return a * b, True
    if a == _MIN_INT64:
        return 0, False
    c = _wrap64(a * b)
    return c, _go_div(c, b) == a


def _positive_scale_int64(base: int, scale: int) -> int:
    """math.go positiveScaleInt64, whose ok flag ScaledValue ignores."""
    if scale == 0:
        return base
    if scale in (1, 2, 3, 6, 9):
        return _int64_multiply_scale(base, 10**scale)[0]
    value = base
    for _ in range(max(scale, 0)):  # a negative (wrapped int32) scale runs no iteration
        value, ok = _int64_multiply_scale(value, 10)
        if not ok:
            return 0
    return value


def _negative_scale_int64(base: int, scale: int) -> int:
    """math.go negativeScaleInt64: divide by 10**scale, rounding away from zero."""
    if scale <= 0:
        return base
    value, fraction = base, False
    for _ in range(scale):
        if not fraction and _go_rem(value, 10) != 0:
            fraction = True
        value = _go_div(value, 10)
        if value == 0:
            if fraction:
                return 1 if base > 0 else -1
            return 0
    if fraction:
        value += 1 if base > 0 else -1
    return value


def _normalise(digits: str, exp: int) -> tuple[str, int]:
    """Strip leading zeros and move trailing zeros into the exponent."""
    d = digits.lstrip("0")
    if not d:
        return "0", 0
    t = d.rstrip("0")
    return t, exp + len(d) - len(t)


def _increment(digits: str) -> str:
    """digits + 1, on the string, so a million-digit value costs O(n)."""
    i = len(digits) - 1
    while i >= 0 and digits[i] == "9":
        i -= 1
    if i < 0:
        return "1" + "0" * len(digits)
    return digits[:i] + chr(ord(digits[i]) + 1) + "0" * (len(digits) - 1 - i)


@functools.lru_cache(maxsize=64)
def _pow10(k: int) -> int:
    return 10**k


def _to_int(digits: str) -> int:
    """int(digits), split in halves: int(str) is quadratic in Python 3.11 and refuses
    more than 4300 digits (sys.int_max_str_digits)."""
    if len(digits) <= 3000:
        return int(digits)
    low = len(digits) // 2
    return _to_int(digits[:-low]) * _pow10(low) + _to_int(digits[-low:])


def _to_str(n: int) -> str:
    if n.bit_length() <= 13000:
        return str(n)
    return str(decimal.Decimal(n))  # an integer Decimal prints without an exponent


def _decimal_parts(d: decimal.Decimal) -> tuple[bool, str, int]:
    """(negative, digits, exponent) of a finite Decimal, via its (linear-time) string."""
    text = str(d)
    neg = text.startswith("-")
    mant, _, e = text.lstrip("-").partition("E")
    whole, _, frac = mant.partition(".")
    digits, exp = _normalise(whole + frac, (int(e) if e else 0) - len(frac))
    return neg, digits, exp


def _two_adic_valuation(digits: str) -> int:
    """Factors of 2 in int(digits) (no trailing zeros), from as few digits as possible:
    the last j decimal digits fix the number modulo 2**j."""
    j = 64
    while True:
        tail = _to_int(digits[-j:])
        v = (tail & -tail).bit_length() - 1
        if v < j or j >= len(digits):
            return v
        j *= 2


def _go_parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), None on error (suffix.go exponents)."""
    m = _GO_INT_RE.fullmatch(text)
    if m is None:
        return None
    digits = m.group(2).lstrip("0") or "0"
    if len(digits) > 19:
        return None
    value = int(digits)
    if m.group(1) == "-":
        value = -value
    return value if _fits_int64(value) else None


def _interpret(suffix: str) -> tuple[int, int, str]:
    """suffix.go interpret(): (base, int32 exponent, format) or ErrSuffix."""
    if len(suffix) <= 2:  # (spares hashing a million-character exponent)
        if suffix in _DEC_SUFFIXES:
            return 10, _DEC_SUFFIXES[suffix], DECIMAL_SI
        if suffix in _BIN_SUFFIXES:
            return 2, _BIN_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = _go_parse_int64(suffix[1:])
        if parsed is None:
            raise QuantityError(ERR_SUFFIX)
        return 10, _i32(parsed), DECIMAL_EXPONENT  # int32(parsed) wraps silently
    raise QuantityError(ERR_SUFFIX)


def _go_json_float(x: float) -> str:
    """The text encoding/json writes for a float64 (encode.go floatEncoder)."""
    if math.isnan(x):
        raise QuantityError("json: unsupported value: NaN")
    if math.isinf(x):
        raise QuantityError("json: unsupported value: " + ("+Inf" if x > 0 else "-Inf"))
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    # repr and strconv's 'f'/'e' with precision -1 both give the shortest round trip.
    t = decimal.Decimal(repr(x)).as_tuple()
    digits, exp = _normalise("".join(map(str, t.digits)), int(t.exponent))
    sign = "-" if t.sign else ""
    n = len(digits)
    point = n + exp  # value = 0.<digits> * 10**point
    ax = abs(x)
    if ax < 1e-6 or ax >= 1e21:
        mant = digits[0] + ("." + digits[1:] if n > 1 else "")
        e = point - 1
        # strconv writes at least two exponent digits; encoding/json then turns
        # e-07 into e-7 but leaves e+21 alone.
        es = f"-{-e}" if e < 0 else f"+{e:02d}"
        return f"{sign}{mant}e{es}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= n:
        return sign + digits + "0" * (point - n)
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _restore(*state: object) -> Quantity:
    q = object.__new__(Quantity)
    for name, value in zip(Quantity.__slots__, state, strict=True):
        object.__setattr__(q, name, value)
    return q


class Quantity:
    """An immutable resource.Quantity.

    The value is ``±_digits * 10**_exp`` (digits without leading or trailing zeros).
    ``_i64`` is Go's int64Amount ``(value, scale)`` when Go holds the quantity in its
    int64 fast form; otherwise Go holds an inf.Dec whose scale is ``_dscale``.  The two
    forms print identically except at int32 exponent edges, but Value()/MilliValue()
    round them differently, so both are tracked.  ``_s`` is Go's cached string.
    """

    __slots__ = ("format", "_neg", "_digits", "_exp", "_i64", "_dscale", "_s")

    format: str
    _neg: bool
    _digits: str
    _exp: int
    _i64: tuple[int, int] | None
    _dscale: int
    _s: str | None

    def __init__(self) -> None:
        raise TypeError("use Quantity.parse, Quantity.from_json or Quantity.from_fraction")

    @classmethod
    def _make(
        cls,
        fmt: str,
        neg: bool,
        digits: str,
        exp: int,
        *,
        i64: tuple[int, int] | None = None,
        dscale: int = 0,
        s: str | None = None,
    ) -> Quantity:
        digits, exp = _normalise(digits, exp)
        if digits == "0":
            neg = False
        return _restore(fmt, neg, digits, exp, i64, dscale, s)

    @classmethod
    def _from_int64(cls, value: int, scale: int, fmt: str, s: str | None = None) -> Quantity:
        return cls._make(fmt, value < 0, str(abs(value)), scale, i64=(value, scale), s=s)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Quantity is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Quantity is immutable")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _restore, tuple(getattr(self, name) for name in self.__slots__)

    # ------------------------------------------------------------------ parsing

    @classmethod
    def parse(cls, text: str) -> Quantity:
        """resource.ParseQuantity(text): no trimming, Go's error messages."""
        return _parse(text)[0]

    @classmethod
    def from_json(cls, value: str | int | float | bool | None) -> Quantity:
        """Quantity.UnmarshalJSON of ``value`` as it appears in a JSON manifest.

        Go hands UnmarshalJSON the raw bytes: a string loses its quotes but is not
        unescaped, so any character a JSON writer escapes (control characters, ``"``,
        ``\\``) leaves a backslash and fails; surrounding Unicode spaces are trimmed
        (strings.TrimSpace).  Numbers are parsed from their JSON text: an int as its
        digits, a float as encoding/json writes a float64 (which is what kubectl sees
        for a YAML number).  ``None`` (JSON null) is the zero Quantity, format ``""``.
        """
        if value is None:
            return cls._from_int64(0, 0, "")
        if cls is Quantity and (type(value) is str or type(value) is int) and len(str(value)) < 64:
            # Manifests repeat a few values ("100m", "128Mi") thousands of times; a
            # Quantity is immutable, so the parse of each short value is cached.
            return _from_json_cached(value)
        return cls._from_json_uncached(value)

    @classmethod
    def _from_json_uncached(cls, value: str | int | float | bool | None) -> Quantity:
        if value is None:
            return cls._from_int64(0, 0, "")
        if isinstance(value, bool):
            raw = "true" if value else "false"
        elif isinstance(value, int):
            raw = _to_str(value)
        elif isinstance(value, float):
            raw = _go_json_float(value)
        elif isinstance(value, str):
            if _JSON_ESCAPED_RE.search(value):
                raise QuantityError(ERR_FORMAT_WRONG)
            raw = value
        else:
            raise TypeError(f"not a JSON scalar: {type(value).__name__}")
        return cls.parse(raw.strip(_GO_SPACE))

    @classmethod
    def from_fraction(cls, value: Fraction | int, format: str = DECIMAL_SI) -> Quantity:
        """A computed value, like Go's NewDecimalQuantity (no nano rounding).

        ``value`` must be a terminating decimal, as inf.Dec can hold nothing else.
        """
        if format not in _FORMATS:
            raise ValueError(f"unknown quantity format {format!r}")
        if isinstance(value, float):
            raise TypeError("floats are not exact; pass a Fraction or an int")
        fr = Fraction(value)
        num, den = fr.numerator, fr.denominator
        twos = (den & -den).bit_length() - 1
        rest, fives = den >> twos, 0
        while rest % 5 == 0:
            rest //= 5
            fives += 1
        if rest != 1:
            raise ValueError(f"{fr} is not a terminating decimal")
        k = max(twos, fives)
        coef = num * (10**k // den)
        digits, exp = _normalise(_to_str(abs(coef)), -k)
        dscale = -exp if digits != "0" else 0
        return cls._make(format, coef < 0, digits, exp, dscale=dscale)

    # ----------------------------------------------------------------- printing

    def canonical(self) -> str:
        """String(): what the API server stores and kubectl prints."""
        return self._s if self._s is not None else self._render()

    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r}, format={self.format!r})"

    @property
    def kept_as_written(self) -> bool:
        """True when Go cached the parsed text and prints it verbatim (``+1``, ``5.``)."""
        return self._s is not None

    def _render(self) -> str:
        """CanonicalizeBytes (quantity.go) + AsCanonicalBytes (amount.go)."""
        if self._digits == "0":
            return "0"
        fmt = self.format
        if fmt == BINARY_SI:
            # Between -1024 and 1024, or fractional: printed as DecimalSI.
            if not (self._abs_below_1024() or self._exp < 0):
                return self._render_binary()
            fmt = DECIMAL_SI
        elif fmt != DECIMAL_SI:
            fmt = DECIMAL_EXPONENT
        number, exponent = self._base10()
        if fmt == DECIMAL_EXPONENT:
            return number if exponent == 0 else f"{number}e{exponent}"
        # v1.32 ignores constructBytes' ok: an exponent without a suffix is dropped.
        return number + _DEC_SUFFIX_BY_EXP.get(exponent, "")

    def _base10(self) -> tuple[str, int]:
        """Mantissa and int32 exponent, the exponent a multiple of 3 (amount.go)."""
        sign = "-" if self._neg else ""
        digits = self._digits
        e = _i32(self._exp)  # exponent += times in int32
        if self._i64 is not None:
            # int64Amount.AsCanonicalBytes adjusts once; on overflow it falls back to
            # the inf.Dec loop below.  The two differ only when e wraps past -2**31.
            amount = int(digits) * (-1 if self._neg else 1)
            rem = _go_rem(e, 3)
            if rem == 0:
                return sign + digits, e
            factor, step = (10, 1) if rem in (1, -2) else (100, 2)
            if amount != _MIN_INT64 and _fits_int64(amount * factor):
                return sign + digits + "0" * step, _i32(e - step)
        zeros = 0
        while _go_rem(e, 3) != 0:
            zeros += 1
            e = _i32(e - 1)
        return sign + digits + "0" * zeros, e

    def _render_binary(self) -> str:
        """AsCanonicalBase1024Bytes: strip factors of 1024 from the (whole) value."""
        sign = "-" if self._neg else ""
        digits, exp = self._digits, self._exp
        if self._i64 == (_MIN_INT64, 0):
            # removeInt64Factors negates -2**63, overflows, and strips nothing.
            return str(_MIN_INT64)
        k = (_two_adic_valuation(digits) + exp) // 10  # value = digits * 2**exp * 5**exp
        if k == 0:
            return sign + digits + "0" * exp
        if len(digits) + exp <= 4000:
            mantissa = str((int(digits) * 10**exp) >> (10 * k))
        else:
            value = decimal.Decimal(f"{digits}E{exp}")
            mantissa = str(_EXACT.divide_int(value, _EXACT.power(1024, k)))
        # v1.32 ignores constructBytes' ok: past Ei (k > 6) the suffix is dropped.
        return sign + mantissa + _BIN_SUFFIX_BY_EXP.get(10 * k, "")

    def _abs_below_1024(self) -> bool:
        int_digits = len(self._digits) + self._exp
        if int_digits <= 3:
            return True
        if int_digits > 4:
            return False
        return int((self._digits + "0000")[:4]) < 1024

    # ------------------------------------------------------------------- values

    def as_fraction(self) -> Fraction:
        """The exact value.  OverflowError past MAX_FRACTION_DIGITS digits (1e999999)."""
        if self._digits == "0":
            return Fraction(0)
        if len(self._digits) + abs(self._exp) > MAX_FRACTION_DIGITS:
            head = ("-" if self._neg else "") + self._digits[:20]
            raise OverflowError(f"{head}…e{self._exp} has more than {MAX_FRACTION_DIGITS} digits")
        mag = _to_int(self._digits)
        f = Fraction(mag * 10**self._exp) if self._exp >= 0 else Fraction(mag, 10**-self._exp)
        return -f if self._neg else f

    def is_zero(self) -> bool:
        return self._digits == "0"

    def sign(self) -> int:
        if self._digits == "0":
            return 0
        return -1 if self._neg else 1

    def is_integer(self) -> bool:
        """A whole number (the API server requires this of extended resources)."""
        return self._exp >= 0 or self._digits == "0"

    def value(self) -> int:
        """Value(): ScaledValue(0), rounded as Go does; see _scaled_value."""
        return self._scaled_value(0)

    def milli_value(self) -> int:
        """MilliValue(): ScaledValue(-3), rounded as Go does; see _scaled_value."""
        return self._scaled_value(-3)

    def _scaled_value(self, scale: int) -> int:
        """ScaledValue (quantity.go) for the form Go holds the quantity in.

        int64 form (amount.go AsScaledInt64): rounds away from zero, so -1.5 -> -2.
        inf.Dec form (scale_int.go scaledValue): truncates then adds 1 when inexact,
        so a negative fraction comes out one too high (-0.1024 -> 1); for an unscaled
        value >= 2**63-1 it floors then adds 1 (a true ceiling).
        Where Go silently overflows int64 we raise OverflowError instead.
        """
        if self._digits == "0":
            return 0
        mag_exp = len(self._digits) + self._exp - scale  # value / 10**scale < 10**this
        if mag_exp > 19:
            raise OverflowError(f"{self} does not fit an int64 at scale {scale}")
        sign = -1 if self._neg else 1
        if self._i64 is not None:
            v, s = self._i64
            if s < scale:
                p = 10 ** (scale - s)
                q, r = divmod(abs(v), p)
                return sign * (q + (r != 0))
            d = _i32(s - scale)
            result = v * 10**d if 0 <= d <= 19 else None
            if result is None or not _fits_int64(result):
                raise OverflowError(f"{self} does not fit an int64 at scale {scale}")
            return result
        dif = self._dscale + scale  # scale_int.go: scale - newScale, newScale = -scale
        # |unscaled| as digits; exp + dscale >= 0 by construction.
        unscaled = self._digits + "0" * (self._exp + self._dscale)
        if dif <= 0:
            result = sign * int(unscaled) * 10**-dif
        else:
            quotient, remainder = unscaled[:-dif] or "0", unscaled[-dif:]
            inexact = remainder.strip("0") != ""
            if len(quotient) > 20:
                raise OverflowError(f"{self} does not fit an int64 at scale {scale}")
            small = len(unscaled) < 19 or (len(unscaled) == 19 and int(unscaled) < _MAX_INT64)
            if small and dif < 19:
                result = sign * int(quotient) + inexact  # int64 / truncates, then +1
            else:  # big.Int DivMod floors, then +1: a true ceiling
                result = sign * int(quotient) - (sign < 0 and inexact) + inexact
        if not _fits_int64(result):
            raise OverflowError(f"{self} does not fit an int64 at scale {scale}")
        return result

    def go_scaled_value(self, scale: int) -> int:
        """ScaledValue(scale) exactly as Go computes it, int64 overflow included.

        Value() is ``go_scaled_value(0)`` and MilliValue() ``go_scaled_value(-3)``. Where
        :meth:`_scaled_value` refuses a value that does not fit an int64, this returns what
        Go's code really yields, which is what the kubelet and the scheduler compute with:

        * int64 form (amount.go AsScaledInt64, math.go positiveScaleInt64): scaling up by
          1, 2, 3, 6 or 9 digits wraps the product around (``1e16`` cores is 10P cores,
          MilliValue ``-8446744073709551616``); any other number of digits multiplies by 10
          in a loop that gives up with **0** on overflow (``1e999`` -> MilliValue 0);
        * inf.Dec form (scale_int.go scaledValue): ``Int64()`` keeps the low 64 bits, and
          scaling up multiplies by ``int64(math.Pow10(n))``, which for n >= 19 is a float
          beyond int64 that amd64 converts to -2**63 (arm64 saturates instead; amd64 is
          modelled). Only the low 64 bits of the unscaled value are computed (10**64 is 0
          modulo 2**64), so ``12345678901234567890e999999999`` costs no billion-digit integer.
        """
        if self._digits == "0":
            return 0
        if self._i64 is not None:
            v, s = self._i64
            if s < scale:
                return _negative_scale_int64(v, _i32(scale - s))
            return _positive_scale_int64(v, _i32(s - scale))
        return _dec_scaled_value(self._neg, self._digits, self._exp, self._dscale, scale)

    # ---------------------------------------------------------------- arithmetic

    def _go_dscale(self) -> int:
        return -self._i64[1] if self._i64 is not None else self._dscale

    def _combine(self, other: Quantity, negate: bool) -> Quantity:
        """Quantity.Add / Quantity.Sub (quantity.go): exact, Go's resulting format."""
        fmt = other.format if self.is_zero() else self.format
        b_i64 = other._i64
        if negate and b_i64 is not None:
            b_i64 = (-b_i64[0], b_i64[1]) if b_i64[0] != _MIN_INT64 else None
        if self._i64 is not None and b_i64 is not None:
            r = _int64_amount_add(self._i64, b_i64)
            if r is not None:
                return Quantity._from_int64(r[0], r[1], fmt)
        b_neg = other._neg != negate if not other.is_zero() else False
        neg, digits, exp = _exact_sum(
            (self._neg, self._digits, self._exp), (b_neg, other._digits, other._exp)
        )
        dscale = max(self._go_dscale(), other._go_dscale())
        return Quantity._make(fmt, neg, digits, exp, dscale=dscale)

    def __add__(self, other: object) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._combine(other, negate=False)

    def __sub__(self, other: object) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._combine(other, negate=True)

    def __neg__(self) -> Quantity:
        """Quantity.Neg: same format, cache dropped."""
        if self._i64 is not None and self._i64[0] != _MIN_INT64:
            return Quantity._from_int64(-self._i64[0], self._i64[1], self.format)
        return Quantity._make(
            self.format, not self._neg, self._digits, self._exp, dscale=self._go_dscale()
        )

    # ------------------------------------------------------- comparison, hashing

    def _key(self) -> tuple[bool, str, int]:
        return self._neg, self._digits, self._exp

    def _cmp(self, other: Quantity) -> int:
        a, b = self.sign(), other.sign()
        if a != b:
            return -1 if a < b else 1
        if a == 0:
            return 0
        adj_a = len(self._digits) + self._exp
        adj_b = len(other._digits) + other._exp
        if adj_a != adj_b:
            c = -1 if adj_a < adj_b else 1
        else:
            width = max(len(self._digits), len(other._digits))
            da, db = self._digits.ljust(width, "0"), other._digits.ljust(width, "0")
            c = (da > db) - (da < db)
        return c * a

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._cmp(other) < 0

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._cmp(other) <= 0

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._cmp(other) > 0

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._cmp(other) >= 0


# --- ScaledValue as Go computes it (math.go, amount.go, scale_int.go of v1.32) ----------------

_U64: Final = 1 << 64


def _low64(digits: str) -> int:
    """int(digits) modulo 2**64 from the last 64 digits: 10**64 is a multiple of 2**64."""
    return int(digits[-64:]) % _U64 if digits else 0


def _dec_scaled_value(neg: bool, digits: str, exp: int, dscale: int, scale: int) -> int:
    """scale_int.go scaledValue(unscaled, dscale, -scale) for an inf.Dec quantity whose
    |unscaled| is digits * 10**(exp + dscale), without building that integer."""
    zeros = exp + dscale  # >= 0: the unscaled value is an integer
    low = _low64(digits) * pow(10, zeros, _U64) % _U64
    signed_low = _wrap64(-low if neg else low)  # big.Int.Int64(): low word, sign applied
    dif = dscale + scale
    if dif == 0:
        return signed_low
    if dif < 0:
        # int64(math.Pow10(n)): exact to 18; beyond, float64->int64 is amd64's 0x8000...
        factor = 10**-dif if -dif <= 18 else _MIN_INT64
        return _wrap64(signed_low * factor)
    width = len(digits) + zeros
    below_max = neg or width < 19 or (width == 19 and int(digits + "0" * zeros) < _MAX_INT64)
    if below_max and dif < 19:  # the int64 fast path: truncating / and %, then +1
        divide = 10**dif
        result = _go_div(signed_low, divide)
        inexact = signed_low - result * divide != 0
        return _wrap64(result + inexact)
    # big.Int DivMod floors; the quotient's low 64 bits, then +1 in int64 when inexact.
    t = zeros - dif  # quotient magnitude = digits * 10**t, truncated
    if t >= 0:
        q_low, inexact = _low64(digits) * pow(10, t, _U64) % _U64, False
    else:
        q_low, inexact = _low64(digits[: len(digits) + t]), True
    if neg:
        q_low += inexact  # floor of a negative inexact quotient is one further from 0
    return _wrap64(_wrap64(-q_low if neg else q_low) + inexact)


def _int64_amount_add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """int64Amount.Add (amount.go); None where Go falls back to inf.Dec.

    Go also "succeeds" when the int32 scale difference wraps, with a wrong sum; we take
    the exact inf.Dec route instead.
    """
    (av, a_scale), (bv, b_scale) = a, b
    if bv == 0:
        return a
    if av == 0:
        return b
    if a_scale == b_scale:
        c = av + bv
        return (c, a_scale) if _fits_int64(c) else None
    if a_scale > b_scale:
        av, bv, a_scale, b_scale = bv, av, b_scale, a_scale  # addition commutes
    d = _i32(b_scale - a_scale)
    if not 0 < d <= 19:
        return None
    c = av + bv * 10**d
    return (c, a_scale) if _fits_int64(bv * 10**d) and _fits_int64(c) else None


def _exact_sum(a: tuple[bool, str, int], b: tuple[bool, str, int]) -> tuple[bool, str, int]:
    """a + b exactly, like inf.Dec.Add (in libmpdec: linear time on long coefficients)."""
    if b[1] == "0":
        return a
    if a[1] == "0":
        return b
    width = max(len(a[1]) + a[2], len(b[1]) + b[2]) - min(a[2], b[2])
    if width > MAX_SUM_DIGITS:
        raise OverflowError(f"the sum needs more than {MAX_SUM_DIGITS} digits")
    da, db = (decimal.Decimal(f"{'-' if n else ''}{d}E{e}") for n, d, e in (a, b))
    return _decimal_parts(_EXACT.add(da, db))


def _parse(text: str) -> tuple[Quantity, int]:
    """ParseQuantity (quantity.go) plus the number of digits Go materialises."""
    if not isinstance(text, str):
        raise TypeError(f"quantity must be a str, not {type(text).__name__}")
    if text == "":
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity._from_int64(0, 0, DECIMAL_SI, s="0"), 0
    m = _SCAN_RE.fullmatch(text)
    if m is None:
        raise QuantityError(ERR_FORMAT_WRONG)
    sign, intpart, dot, denom, suffix = m.groups()
    denom = denom or ""
    positive = sign != "-"
    num = intpart.lstrip("0") or "0"
    base, exponent, fmt = _interpret(suffix)

    # The int64 fast path: few enough digits and no sub-nano scale.
    mantissa = 1
    if fmt == BINARY_SI:
        scale = 0
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            # "1Mi (2^20) has ~6 digits of decimal precision": float32(e)*3/10 is exact.
            precision = 15 - len(num) - exponent * 3 // 10 - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))  # maxInt64Factors = 18 in math.go
    if precision >= 0:
        scale = _i32(scale - len(denom))
        if scale >= -9:
            shifted = num + denom
            v = int(shifted)
            result = v * mantissa
            if result <= _MAX_INT64:
                cached = None
                # "if the number is in canonical form, reuse the string"
                if fmt == BINARY_SI:
                    if exponent % 10 == 0 and v & 0x07:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = text
                signed = result if positive else -result
                return Quantity._from_int64(signed, scale, fmt, s=cached), 0

    # The inf.Dec path.  When the text ended inside the leading zeros the scanner set
    # value to "0"; otherwise inf's SetString needs at least one digit.
    ended_in_zeros = dot is None and not suffix and not intpart.strip("0")
    if not (intpart or denom or ended_in_zeros):
        raise QuantityError(ERR_NUMERIC)
    unscaled = (intpart + denom).lstrip("0") or "0"
    if base == 2:
        return _parse_binary_dec(positive, unscaled, len(denom), exponent)
    dec_scale = _i32(len(denom) + _i32(-exponent))  # amount.Scale() + infScale()
    if unscaled == "0":
        return Quantity._make(fmt, False, "0", 0, dscale=dec_scale), len(intpart + denom)
    # amount.Round(amount, 9, inf.RoundUp): inf's quoRem shifts by an int32.
    shift = _i32(9 - dec_scale)
    work = max(abs(shift), len(unscaled))
    if shift > 0:
        digits, exp = unscaled, shift - 9
    elif shift < 0:
        k = _i32(-shift)
        if k < 0:
            raise QuantityError(ERR_GO_PANIC)
        n = len(unscaled)
        if k >= n:
            digits = "1"
        else:
            digits = unscaled[: n - k]
            if unscaled[n - k :].strip("0"):
                digits = _increment(digits)
        exp = -9
    else:
        digits, exp = unscaled, -9
    return Quantity._make(fmt, not positive, digits, exp, dscale=9), work


def _parse_binary_dec(
    positive: bool, unscaled: str, frac_digits: int, exponent: int
) -> tuple[Quantity, int]:
    """The inf.Dec path for Ki..Ei: times 2**exponent, round up to nano, cap at 2**63-1."""
    work = max(abs(9 - frac_digits), len(unscaled))
    if unscaled == "0":
        return Quantity._make(BINARY_SI, False, "0", 0, dscale=frac_digits), work
    magnitude = len(unscaled) - frac_digits  # 10**(magnitude-1) <= |value| / 2**e
    if magnitude - 1 >= 19:
        nano = None  # >= 10**19 > 2**63-1
    elif magnitude <= -30:
        nano = 1  # < 2**60 * 10**-30 < 1n, rounded up
    else:
        amount = _EXACT.multiply(decimal.Decimal(f"{unscaled}E-{frac_digits}"), 1 << exponent)
        nano = int(amount.quantize(_NANO, context=_EXACT).scaleb(9, context=_EXACT))
        if nano > _MAX_INT64 * 10**9:
            nano = None
    if nano is None:  # "The max is just a simple cap."
        return Quantity._make(BINARY_SI, not positive, str(_MAX_INT64), 0, dscale=0), work
    # Between 0 and 1 it becomes DecimalSI "to avoid rounding and hopefully confusion".
    fmt = DECIMAL_SI if nano < 10**9 else BINARY_SI
    return Quantity._make(fmt, not positive, str(nano), -9, dscale=9), work


def canonical(text: str) -> str:
    """The string the API server stores for ``text`` (ParseQuantity then String)."""
    return Quantity.parse(text).canonical()


def go_parse_work(text: str) -> int:
    """How many decimal digits Go's ParseQuantity materialises for ``text``.

    0 on the int64 fast path.  On the inf.Dec path Go builds 10**k for the rounding
    shift k (or reads k digits): for ``1e-k`` kubectl v1.32 took 1.6 s at k = 10**7 and
    56 s at 10**8, so ``1e-999999999`` would take it hours; for a 19-digit mantissa times
    ``e+k`` it then strips the k zeros one division at a time, 4.2 s at k = 10**5
    (measured).  Raises QuantityError for invalid text.
    """
    return _parse(text)[1]


@functools.lru_cache(maxsize=16384, typed=True)
def _from_json_cached(value: str | int) -> Quantity:
    return Quantity._from_json_uncached(value)
