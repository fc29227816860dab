"""Build configuration beyond pyproject.toml: the optional C extensions (the grouping
kernel; reading plain CSV files as codes).

``optional=True``: where no C compiler is at hand the install still succeeds and
arxpy uses its numpy path (arxpy/lattice/kernels.py) and its general CSV reader.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("arxpy.lattice._kernels", sources=["arxpy/lattice/_kernels.c"],
                  optional=True),
        Extension("arxpy.data._csv_codes", sources=["arxpy/data/_csv_codes.c"],
                  optional=True),
    ],
)
