"""Build configuration beyond pyproject.toml: the optional C grouping kernel.

``optional=True``: where no C compiler is at hand the install still succeeds and
arxpy uses its numpy path (arxpy/lattice/kernels.py).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("arxpy.lattice._kernels", sources=["arxpy/lattice/_kernels.c"],
                  optional=True),
    ],
)
