"""The Methods perspective: run any registered method and look at its release."""

# Importing these registers their result views (see views.register_result_view).
from arxpy.gui.methods import condensation_views, interval_views  # noqa: F401
