"""apimachinery's string formats: DNS labels and subdomains, label keys and values.

Mirrors k8s.io/apimachinery/pkg/util/validation (``IsDNS1123Label``, ``IsDNS1123Subdomain``,
``IsDNS1035Label``, ``IsQualifiedName``, ``IsValidLabelValue``, ``RegexError``) and the
name validators of pkg/api/validation built on them, with their messages word for word.
"""

from __future__ import annotations

import re

# apimachinery pkg/util/validation (and api/validate/content) formats and messages.
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX = 253
LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_KEY_MAX = 63
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX = 63

_DNS1123_LABEL_RE = re.compile("^" + DNS1123_LABEL_FMT + "$")
_DNS1123_SUBDOMAIN_RE = re.compile("^" + DNS1123_SUBDOMAIN_FMT + "$")
_LABEL_KEY_RE = re.compile("^" + LABEL_KEY_FMT + "$")
_LABEL_VALUE_RE = re.compile("^" + LABEL_VALUE_FMT + "$")


# --- apimachinery string formats -----------------------------------------------------------


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError (note the double space Go leaves before each " or ")."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def is_dns1123_label(value: str) -> list[str]:
    """validation.IsDNS1123Label."""
    errs = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            # A valid subdomain but not a label: with the length checked, it must be dots.
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """validation.IsDNS1123Subdomain."""
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_subdomain_ok(value: str) -> bool:
    """``not is_dns1123_subdomain(value)``, without building its messages (a dump's pods
    are checked one by one)."""
    return (
        len(value) <= DNS1123_SUBDOMAIN_MAX and _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None
    )


def is_qualified_name(value: str) -> list[str]:
    """validation.IsQualifiedName (= content.IsLabelKey): ``[prefix/]name``."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        example = regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        return [
            "a valid label key "
            + example
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > LABEL_KEY_MAX:
        errs.append("name part " + max_len_error(LABEL_KEY_MAX))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append(
            "name part " + regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """validation.IsValidLabelValue."""
    errs = []
    if len(value) > LABEL_VALUE_MAX:
        errs.append(max_len_error(LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _mask_trailing_dash(name: str) -> str:
    """maskTrailingDash (generic.go): a generateName may end in '-'. Go drops two chars."""
    if name.endswith("-"):
        return name[: max(len(name) - 2, 0)] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    """NameIsDNSSubdomain = ValidatePodName (and priority class names)."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    """NameIsDNSLabel = ValidateNamespaceName."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string "
    "of alphanumeric characters or '_'"
)
_C_IDENTIFIER_RE = re.compile("^" + C_IDENTIFIER_FMT + "$")


def is_c_identifier(value: str) -> list[str]:
    """validation.IsCIdentifier (DRA attribute and capacity names)."""
    if _C_IDENTIFIER_RE.fullmatch(value):
        return []
    return [regex_error(C_IDENTIFIER_MSG, C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]


DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_DNS1035_RE = re.compile("^" + DNS1035_LABEL_FMT + "$")


def is_dns1035_label(value: str) -> list[str]:
    """validation.IsDNS1035Label (Service names)."""
    errs = []
    if len(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1035_RE.fullmatch(value):
        errs.append(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def name_is_dns1035_label(name: str, prefix: bool = False) -> list[str]:
    """NameIsDNS1035Label = ValidateServiceName (maskTrailingDash for a generateName)."""
    if prefix and name.endswith("-"):
        name = name[: max(len(name) - 2, 0)] + "a"
    return is_dns1035_label(name)


def is_valid_path_segment_name(name: str) -> list[str]:
    """path.IsValidPathSegmentName (names in a REST path)."""
    for illegal in (".", ".."):
        if name == illegal:
            return [f"may not be '{illegal}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


MSG_PORT_NUM = "must be between 1 and 65535, inclusive"  # InclusiveRangeError(1, 65535)
_PORT_NAME_CHARSET = re.compile(r"[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile(r"[a-z]")


def is_valid_port_num(port: int) -> list[str]:
    """validation.IsValidPortNum."""
    return [] if 1 <= port <= 65535 else [MSG_PORT_NUM]


def is_valid_port_name(port: str) -> list[str]:
    """validation.IsValidPortName (an IANA_SVC_NAME), its messages in its order."""
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARSET.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


_ENV_VAR_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_ENV_VAR_NAME = re.compile(_ENV_VAR_NAME_FMT)
_CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY = re.compile(_CONFIG_MAP_KEY_FMT)
MSG_RELAXED_ENV_VAR_NAME = (
    "a valid environment variable name must consist only of printable ASCII characters "
    "other than '='"
)


def _has_ch_dir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def is_env_var_name(value: str) -> list[str]:
    """validation.IsEnvVarName (before RelaxedEnvironmentVariableValidation)."""
    errs = []
    if not _ENV_VAR_NAME.fullmatch(value):
        errs.append(
            regex_error(
                "a valid environment variable name must consist of alphabetic characters, "
                "digits, '_', '-', or '.', and must not start with a digit",
                _ENV_VAR_NAME_FMT,
                "my.env-name",
                "MY_ENV.NAME",
                "MyEnvName1",
            )
        )
    return errs + _has_ch_dir_prefix(value)


def is_relaxed_env_var_name(value: str) -> list[str]:
    """validation.IsRelaxedEnvVarName: printable ASCII (space included) but '='."""
    errs = [] if value else ["environment variable name must be non-empty"]
    if any(not " " <= ch <= "~" or ch == "=" for ch in value):
        errs.append(MSG_RELAXED_ENV_VAR_NAME)
    return errs


def is_config_map_key(value: str) -> list[str]:
    """validation.IsConfigMapKey (a ConfigMap's or Secret's key)."""
    errs = [max_len_error(253)] if len(value) > 253 else []
    if not _CONFIG_MAP_KEY.fullmatch(value):
        errs.append(
            regex_error(
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                _CONFIG_MAP_KEY_FMT,
                "key.name",
                "KEY_NAME",
                "key-name",
            )
        )
    return errs + _has_ch_dir_prefix(value)
