"""The Explore perspective: lattice, list, properties, comparison, input/output, export."""

from arxpy.gui.explore.perspective import ExplorePerspective

__all__ = ["ExplorePerspective"]
