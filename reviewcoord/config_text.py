"""The config file as text: its bytes decoded the way a person saved it, and where a key sits
in it (the line an error names). reviewcoord/config.py reads the settings from it."""

from __future__ import annotations

import codecs

import yaml

from reviewcoord.errors import ConfigError

# Byte-order marks, longest first (UTF-32's little-endian mark starts with UTF-16's).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)


def decode(raw: bytes | str, source: str) -> str:
    """The file's text. UTF-8 (a byte-order mark is dropped), or UTF-16 / UTF-32 with their
    byte-order mark, as YAML allows; anything else is refused in plain words (never a codec's
    error message)."""
    if isinstance(raw, str):
        if "\x00" in raw:
            raise ConfigError(f"{source}: holds NUL bytes: save it as UTF-8 text")
        return raw.removeprefix("\ufeff")
    for mark, codec, name in _BOMS:
        if raw.startswith(mark):
            try:
                return raw[len(mark) :].decode(codec)
            except UnicodeDecodeError:
                raise ConfigError(
                    f"{source}: starts with the byte-order mark of {name} but does not "
                    "decode as it: save it as UTF-8"
                ) from None
    utf16 = " (it looks like UTF-16 without a byte-order mark)" if b"\x00" in raw[:200] else ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{source}: is not UTF-8 text (line {line}){utf16}: save it as UTF-8"
        ) from None
    if "\x00" in text:
        raise ConfigError(f"{source}: holds NUL bytes{utf16}: save it as UTF-8")
    return text


def key_line(text: str, dotted: str) -> int | None:
    """The 1-based line of the key `dotted` (`reviewers.kilo.severity`) in the YAML `text`,
    or of the nearest enclosing key that is there; None when the text has no such mapping."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    found: int | None = None
    for part in dotted.split(".") if dotted else ():
        if not isinstance(node, yaml.MappingNode):
            break
        match = next(
            ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part),
            None,
        )
        if match is None:
            break
        found = match[0].start_mark.line + 1
        node = match[1]
    return found


def located(exc: ConfigError, text: str) -> ConfigError:
    """`exc` with the line of its key in `text` ("…yml: line 3, key 'settel': unknown key …")."""
    line = key_line(text, exc.key) if exc.key else None
    if line is None:
        return exc
    named = f"key '{exc.key}'"
    message = str(exc)
    if named in message:
        message = message.replace(named, f"line {line}, {named}", 1)
    else:
        message = f"{message} (line {line})"
    return ConfigError(message, key=exc.key, line=line)
