"""Masking one more character per level: ``12345 -> 1234* -> 123** -> ... -> *****``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from arxpy.errors import HierarchyError
from arxpy.hierarchy.builders.base import TOP, HierarchyBuilder, natural_key, require_values
from arxpy.hierarchy.model import Hierarchy


@dataclass(frozen=True)
class MaskingBuilder(HierarchyBuilder):
    """Level ``k`` replaces ``k`` characters by ``mask_char``, from the right
    (``direction="right"``: ``12345 -> 1234* -> 123**``) or from the left.

    With ``pad=True`` values are aligned to the longest one first (left-aligned for
    right masking, right-aligned for left masking, the gap filled with ``mask_char``),
    so ``123`` and ``12345`` share ``123**`` at level 2 and the last masking level is
    all mask characters. With ``pad=False`` each value keeps its length and is masked
    from its own end. ``levels`` is the number of masking levels (default, and at
    most: the length of the longest value); ``*`` follows them. Every value, missing
    markers included, is treated as plain text.
    """

    direction: str = "right"
    mask_char: str = "*"
    levels: int | None = None
    pad: bool = True

    kind: ClassVar[str] = "masking"

    def __post_init__(self) -> None:
        if self.direction not in ("right", "left"):
            raise HierarchyError(
                f"Masking hierarchy: direction {self.direction!r} is unknown; "
                "use 'right' or 'left'."
            )
        if not isinstance(self.mask_char, str) or len(self.mask_char) != 1:
            raise HierarchyError(
                f"Masking hierarchy: the mask {self.mask_char!r} must be one character."
            )
        if self.levels is not None and (
            not isinstance(self.levels, int) or isinstance(self.levels, bool) or self.levels < 1
        ):
            raise HierarchyError(
                f"Masking hierarchy: {self.levels!r} masking levels is not possible; "
                "give a whole number of at least 1."
            )

    def build(self, values: Iterable[str]) -> Hierarchy:
        distinct = sorted(require_values(values, "masking"), key=natural_key)
        longest = max(len(v) for v in distinct)
        count = longest if self.levels is None else min(self.levels, longest)
        left = self.direction == "left"
        rows = []
        for value in distinct:
            # Left masking is right masking of the reversed text.
            text = value[::-1] if left else value
            labels = [self._mask(text, k, longest) for k in range(1, count + 1)]
            rows.append((value, *(label[::-1] if left else label for label in labels), TOP))
        return Hierarchy(rows)

    def _mask(self, text: str, k: int, longest: int) -> str:
        """``text`` with its last ``k`` positions masked (after padding, if asked)."""
        if self.pad:
            return text[: longest - k].ljust(longest, self.mask_char)
        kept = max(0, len(text) - k)
        return text[:kept] + self.mask_char * (len(text) - kept)
