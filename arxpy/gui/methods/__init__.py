"""The Methods perspective: run any registered method and look at its release."""
