"""Format-preserving masking: ``keep-last:N``, ``keep-first:N``, ``regex:PATTERN``.

Letters and digits outside what a rule keeps become the mask character; every other
character (separators, spaces) stays, so a masked value keeps its length and layout:
``keep-last:4`` turns ``0171-555-0123`` into ``****-***-0123``. ``regex:PATTERN`` keeps
the text of the pattern's groups where the whole value matches it; a value that does
not match is masked entirely (and counted in the report), never released as it is.
A mask never releases a value whole: where a rule would keep every letter and digit of
a value (``keep-last:4`` of ``123``), all of them are masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arxpy.errors import ConfigurationError

KEEP_LAST, KEEP_FIRST, REGEX = "keep-last", "keep-first", "regex"
RULE_HELP = "keep-last:N, keep-first:N or regex:PATTERN (the pattern's groups are kept)"
DEFAULT_MASK_CHARACTER = "*"


@dataclass(frozen=True)
class MaskRule:
    """What a mask keeps: the first or last ``count`` characters, or ``pattern``'s groups."""

    kind: str
    count: int = 0
    pattern: str = ""

    @classmethod
    def parse(cls, text: str) -> MaskRule:
        kind, _, rest = text.partition(":")
        if kind in (KEEP_LAST, KEEP_FIRST) and rest.isdigit():
            return cls(kind, int(rest))
        if kind == REGEX and rest:
            try:
                groups = re.compile(rest).groups
            except re.error as exc:
                raise ConfigurationError(
                    f"The mask pattern '{rest}' is not a regular expression ({exc.msg}); "
                    "fix it.") from None
            if not groups:
                raise ConfigurationError(
                    f"The mask pattern '{rest}' has no group, so it would keep nothing; "
                    "put what to keep in parentheses, e.g. regex:.*-([0-9]{4}).")
            return cls(REGEX, pattern=rest)
        raise ConfigurationError(f"Cannot read the mask rule '{text}'; use {RULE_HELP}.")

    def __str__(self) -> str:
        return f"{self.kind}:{self.pattern if self.kind == REGEX else self.count}"

    def kept(self, value: str) -> list[bool] | None:
        """Per character: is it kept as it is? None where a pattern does not match."""
        if self.kind == KEEP_FIRST:
            return [i < self.count for i in range(len(value))]
        if self.kind == KEEP_LAST:
            return [i >= len(value) - self.count for i in range(len(value))]
        match = re.fullmatch(self.pattern, value)
        if match is None:
            return None
        keep = [False] * len(value)
        for group in range(1, len(match.groups()) + 1):
            start, end = match.span(group)
            keep[start:end] = [True] * (end - start)  # an unmatched group spans (-1, -1)
        return keep


def mask_values(values: list[str], rule: MaskRule, character: str) -> tuple[list[str], int]:
    """Each value masked by ``rule``, and how many did not match its pattern."""
    masked, unmatched = [], 0
    for value in values:
        keep = rule.kept(value)
        if keep is None:
            unmatched += 1
            keep = [False] * len(value)
        elif all(k for c, k in zip(value, keep, strict=True) if c.isalnum()):
            keep = [False] * len(value)  # keeping it all would release the value
        masked.append("".join(c if k or not c.isalnum() else character
                              for c, k in zip(value, keep, strict=True)))
    return masked, unmatched


def check_mask_character(character: str) -> str:
    """One visible character that is not a digit (a digit would pass for data) or a quote."""
    if len(character) != 1 or character.isdigit() or not character.isprintable() \
            or character.isspace() or character in "\"'":
        raise ConfigurationError(
            f"The mask character must be one visible character that is not a digit or a "
            f"quote, such as *, # or X; got {character!r}.")
    return character
