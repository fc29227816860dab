"""Record engines for the steps of a run that touch every record (see :mod:`.base`)."""

from arxpy.engine.backends.base import (
    ENGINES,
    Histogram,
    OutputPlan,
    RecordEngine,
    RecordSource,
    WriteSummary,
)
from arxpy.engine.backends.memory import MemoryEngine, histogram_of_frame

__all__ = ["ENGINES", "Histogram", "MemoryEngine", "OutputPlan", "RecordEngine",
           "RecordSource", "WriteSummary", "histogram_of_frame"]
