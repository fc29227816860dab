"""The population a sample was drawn from, as ARX's ``ARXPopulationModel``.

A population is given by its size, by a sampling fraction (population size =
round(sample size / fraction), as ARX computes it) or by a region preset with ARX's sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arxpy.errors import ConfigurationError

#: Region presets with the population sizes ARX ships (ARXPopulationModel.Region).
REGIONS: dict[str, int] = {
    "africa": 1_100_000_000,
    "australia": 23_130_900,
    "europe": 740_000_000,
    "north_america": 565_265_000,
    "south_america": 385_742_554,
    "european_union": 507_420_000,
    "brasil": 202_656_788,
    "canada": 34_834_841,
    "china": 1_366_040_000,
    "france": 65_820_916,
    "germany": 80_767_000,
    "india": 1_210_569_573,
    "uk": 63_705_000,
    "usa": 317_238_626,
}


@dataclass(frozen=True)
class PopulationModel:
    """A population of ``size`` people (a whole number >= 1); ``region`` names a preset."""

    size: int
    region: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise ConfigurationError(
                f"The population size must be a whole number of 1 or more, got {self.size!r}."
            )

    @classmethod
    def from_region(cls, region: str) -> PopulationModel:
        """A preset by name (case and spaces ignored, e.g. ``"USA"``, ``"european union"``)."""
        key = region.strip().lower().replace(" ", "_").replace("-", "_")
        if key not in REGIONS:
            raise ConfigurationError(
                f"Unknown region '{region}'. Known regions: {', '.join(sorted(REGIONS))}."
            )
        return cls(REGIONS[key], key)

    @classmethod
    def from_sampling_fraction(cls, sample_size: int, fraction: float) -> PopulationModel:
        """The population a ``fraction`` (in (0, 1]) sample of ``sample_size`` came from."""
        if not isinstance(fraction, int | float) or math.isnan(fraction) \
                or not 0.0 < fraction <= 1.0:
            raise ConfigurationError(
                f"The sampling fraction must be above 0 and at most 1, got {fraction!r}."
            )
        # Java's Math.round rounds halves up.
        return cls(max(int(math.floor(sample_size / fraction + 0.5)), 1))

    def sampling_fraction(self, sample_size: int) -> float:
        """``sample_size / size``; raises if the sample is larger than the population."""
        self.check_sample(sample_size)
        return sample_size / self.size

    def check_sample(self, sample_size: int) -> None:
        if sample_size > self.size:
            raise ConfigurationError(
                f"The population ({self.size:,} people) is smaller than the sample "
                f"({sample_size:,} records); give a population of at least {sample_size:,}."
            )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"size": self.size}
        if self.region:
            out["region"] = self.region
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PopulationModel:
        if d.get("region"):
            return cls.from_region(str(d["region"]))
        return cls(int(d["size"]))


#: How the population is given: a region preset, a size, or a sampling fraction.
POPULATION_KINDS = ("region", "size", "fraction")


@dataclass(frozen=True)
class PopulationSetting:
    """The user's population choice; ``value`` is a region name, a size or a fraction."""

    kind: str = "region"
    value: str | int | float = "usa"

    def model(self, sample_size: int) -> PopulationModel:
        """The population of a sample of ``sample_size`` records (>= 1); raises a
        ConfigurationError for an unknown region, a size below 1 or a fraction outside (0, 1]."""
        if self.kind == "region":
            return PopulationModel.from_region(str(self.value))
        if self.kind == "size":
            return PopulationModel(int(self.value))
        if self.kind == "fraction":
            return PopulationModel.from_sampling_fraction(max(sample_size, 1), float(self.value))
        raise ConfigurationError(
            f"Unknown population setting '{self.kind}'; use one of {', '.join(POPULATION_KINDS)}.")
