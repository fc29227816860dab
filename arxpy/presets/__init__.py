"""Policy presets (issue 35): HIPAA Safe Harbor, HIPAA Expert Determination and a
pseudonymised release, as rules with reasons that configure an ordinary run. Qt-free;
``docs/presets.md`` describes each rule and its source.
"""

from arxpy.presets.hierarchies import build_hierarchy
from arxpy.presets.policies import (
    DESCRIPTIONS,
    EXPERT_DETERMINATION,
    PRESETS,
    PSEUDONYMISED,
    SAFE_HARBOR,
    SETTINGS_KEY,
    PresetOutcome,
    apply_preset,
    built_hierarchies,
)
from arxpy.presets.rules import PresetRule

__all__ = ["DESCRIPTIONS", "EXPERT_DETERMINATION", "PRESETS", "PSEUDONYMISED", "SAFE_HARBOR",
           "SETTINGS_KEY", "PresetOutcome", "PresetRule", "apply_preset", "build_hierarchy",
           "built_hierarchies"]
