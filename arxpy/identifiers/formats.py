"""How a 32-byte MAC (or 32 random bytes) becomes a pseudonym: ``hex:N``, ``digits``,
``prefix:P`` (``prefix:P:N``).

- ``hex:N``: the first N hex digits of the MAC (N from 1 to 64; 4N bits).
- ``digits``: a number with as many digits as the input value has characters, first
  digit not 0, so it stays a number of that length in a spreadsheet. A short input has
  a small space: 6 characters give 900,000 numbers, and distinct values that meet in it
  are refused (see :func:`one_to_one`).
- ``prefix:P``: P followed by :data:`PREFIX_DIGITS` digits, or N digits with ``prefix:P:N``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.errors import ConfigurationError

HEX, DIGITS, PREFIX = "hex", "digits", "prefix"
#: Digits after a prefix when ``prefix:P`` gives none (10^16: about 2^53 pseudonyms).
PREFIX_DIGITS = 16
#: The most digits a 256-bit MAC fills with little bias (10^70 < 2^233).
MAX_DIGITS = 70
FORMAT_HELP = "hex:N (N from 1 to 64), digits, or prefix:P (P followed by digits; " \
              f"prefix:P:N for N digits, default {PREFIX_DIGITS})"
_PREFIX_LENGTH = re.compile(r"(.*):([0-9]+)", re.DOTALL)


@dataclass(frozen=True)
class PseudonymFormat:
    """One output format; ``length`` is hex digits (hex) or digits after the prefix."""

    kind: str = HEX
    length: int = 16
    prefix: str = ""

    @classmethod
    def parse(cls, text: str) -> PseudonymFormat:
        """``hex:N``, ``digits``, ``prefix:P`` or ``prefix:P:N``; refuses anything else."""
        kind, _, rest = text.partition(":")
        if kind == DIGITS and not rest:
            return cls(DIGITS, 0)
        if kind == HEX and rest.isdigit() and 1 <= int(rest) <= 64:
            return cls(HEX, int(rest))
        if kind == PREFIX and rest:
            match = _PREFIX_LENGTH.fullmatch(rest)
            prefix, length = (match[1], int(match[2])) if match else (rest, PREFIX_DIGITS)
            if prefix and 1 <= length <= MAX_DIGITS:
                return cls(PREFIX, length, prefix)
        raise ConfigurationError(
            f"Cannot read the pseudonym format '{text}'; use {FORMAT_HELP}.")

    def __str__(self) -> str:
        if self.kind == HEX:
            return f"hex:{self.length}"
        if self.kind == DIGITS:
            return DIGITS
        suffix = "" if self.length == PREFIX_DIGITS else f":{self.length}"
        return f"prefix:{self.prefix}{suffix}"

    def render(self, macs: list[bytes], values: np.ndarray) -> np.ndarray:
        """The pseudonym of each value (object array) from its MAC, in order."""
        if self.kind == HEX:
            return _hex_prefixes(macs, self.length)
        if self.kind == PREFIX:
            modulus = 10 ** self.length
            return np.array([f"{self.prefix}{int.from_bytes(m) % modulus:0{self.length}d}"
                             for m in macs], dtype=object)
        return np.array([_same_length_number(m, len(v)) for m, v in zip(macs, values,
                                                                         strict=True)],
                        dtype=object)

    def check_values(self, values: np.ndarray, names: str) -> None:
        """Refuse values this format cannot follow (``digits`` of a very long value);
        ``names``: the attributes as the message names them, quoted (``'a', 'b'``)."""
        if self.too_long(values).any():
            raise self.too_long_refusal(names)

    def too_long(self, values: np.ndarray) -> np.ndarray:
        """Which values are too long for this format (``digits`` only)."""
        if self.kind != DIGITS:
            return np.zeros(len(values), dtype=bool)
        return np.fromiter(map(len, values), dtype=np.int64, count=len(values)) > MAX_DIGITS

    @staticmethod
    def too_long_refusal(names: str) -> ConfigurationError:
        return ConfigurationError(
            f"Some values of {names} are longer than {MAX_DIGITS} characters, "
            "beyond what the 'digits' format can follow; use hex:N or prefix:P.")

    @property
    def capacity(self) -> int | None:
        """How many distinct pseudonyms the format has (None: ``digits``, by length)."""
        return None if self.kind == DIGITS else (16 if self.kind == HEX else 10) ** self.length

    def suggestion(self, distinct: int) -> str:
        """A format with room for ``distinct`` values: a collision chance below 10^-6."""
        bits = 2 * math.log2(max(distinct, 2)) + 20  # birthday bound n^2 / 2^(b+1)
        if self.kind == PREFIX:
            digits = min(MAX_DIGITS, max(self.length + 1, math.ceil(bits / math.log2(10))))
            return str(PseudonymFormat(PREFIX, digits, self.prefix))
        return f"hex:{min(64, max(self.length + 1, math.ceil(bits / 4)))}"


def _hex_prefixes(macs: list[bytes], length: int) -> np.ndarray:
    head = (length + 1) // 2  # bytes holding the first ``length`` hex digits
    if length % 2 == 0:
        return np.array([m[:head].hex() for m in macs], dtype=object)
    return np.array([m[:head].hex()[:length] for m in macs], dtype=object)


def distinct_hex_prefixes(macs: list[bytes], length: int) -> bool:
    """Are the first ``length`` hex digits of the MACs all distinct? A fast sufficient
    test on 64-bit integers (False may also mean: look at the strings)."""
    if not macs:
        return True
    bits = 4 * min(length, 16)
    whole = np.frombuffer(b"".join(macs), dtype=">u8").reshape(len(macs), -1)
    heads = whole[:, 0].astype(np.uint64)
    return len(pd.unique(heads >> np.uint64(64 - bits))) == len(macs)


def _same_length_number(mac: bytes, length: int) -> str:
    low = 10 ** (max(length, 1) - 1)
    return str(low + int.from_bytes(mac) % (9 * low))
