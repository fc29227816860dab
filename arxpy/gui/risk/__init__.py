"""The Risk perspective: re-identification risks of input and output side by side.

The computation lives in :mod:`arxpy.risk` and runs as jobs (:mod:`arxpy.workflows.risk_jobs`);
this package only lays out settings, monitors, the risk distribution and tables.
"""

from arxpy.gui.risk.perspective import RiskPerspective

__all__ = ["RiskPerspective"]
