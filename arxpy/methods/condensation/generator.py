"""Synthetic data for one cluster (Gal et al. 2014, Algorithm 3, L2060-2555).

The cluster is moved into its principal-component space (thin SVD of the centred block),
each component gets new values, and the result is rotated back. Directions without
variance stay at the mean, so every linear identity that holds for all records of the
cluster (one-hot sums, a + b = c) holds in the synthetic records too.

Modes (spec §2.3, §7.2):
- ``exact`` [I] (default): orthonormal random scores scaled by the singular values; the
  sample mean and the sample covariance are reproduced to floating-point precision,
  which is what the paper claims ("means and covariances ... are preserved", L2180).
- ``moments`` [P]: each component drawn normal and rescaled to its exact sample mean and
  SD, the paper's literal wording; cross-covariances hold only in expectation.
- ``uniform`` [I]: each component uniform on ±√3·σ, the Aggarwal & Yu-style baseline.
"""

from __future__ import annotations

import numpy as np

GENERATORS = ("exact", "moments", "uniform")

#: Singular values below this fraction of the largest are treated as zero variance.
RANK_TOLERANCE = 1e-9


def synthesize(block: np.ndarray, rng: np.random.Generator, mode: str = "exact") -> np.ndarray:
    """A synthetic block with the shape of ``block`` (rows = records of one cluster)."""
    n = block.shape[0]
    mean = block.mean(axis=0)
    if n < 2:
        return np.repeat(mean[None, :], n, axis=0)
    _, singular, vt = np.linalg.svd(block - mean, full_matrices=False)
    rank = int((singular > RANK_TOLERANCE * singular[0]).sum()) if singular.size and \
        singular[0] > 0 else 0
    if rank == 0:
        return np.repeat(mean[None, :], n, axis=0)
    axes = vt[:rank]
    # SVD fixes each axis only up to sign, and the sign LAPACK picks depends on row
    # order; fix it (largest entry positive) so the block depends on μ, S and V only
    # and not on the order of the cluster's records (Definition 1, symmetry).
    biggest = axes[np.arange(rank), np.abs(axes).argmax(axis=1)]
    axes = axes * np.where(biggest < 0, -1.0, 1.0)[:, None]
    return mean + _scores(n, singular[:rank], rng, mode) @ axes


def _scores(n: int, singular: np.ndarray, rng: np.random.Generator, mode: str) -> np.ndarray:
    """n x r component scores with zero mean and sum of squares singular²."""
    rank = singular.size
    if mode == "exact":
        # Centred Gaussian columns, orthonormalised: Qᵀ1 = 0 and QᵀQ = I, so the scores
        # Q·diag(S) have zero mean and scatter diag(S²), like the original scores.
        # rank(Xc) ≤ n-1 leaves room for r orthonormal columns orthogonal to 1.
        gauss = rng.standard_normal((n, rank))
        gauss -= gauss.mean(axis=0)
        q, r = np.linalg.qr(gauss)
        q *= np.sign(np.where(np.diag(r) == 0, 1.0, np.diag(r)))  # fixed column signs
        return q * singular
    if mode == "moments":
        draws = rng.standard_normal((n, rank))
    else:  # uniform
        draws = rng.uniform(-1.0, 1.0, (n, rank))
    draws -= draws.mean(axis=0)
    norms = np.linalg.norm(draws, axis=0)
    norms[norms == 0] = 1.0
    return draws / norms * singular
