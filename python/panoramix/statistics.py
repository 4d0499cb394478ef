"""The command line's statistics on a :class:`Genotypes`, with numpy results."""

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional, Union

import numpy as np

from . import _panoramix
from .association import covariate_columns
from .genotypes import Genotypes, Progress, Selection


def grm(g: Genotypes, method: str = "standardized", pair_counts: bool = False,
        progress: Progress = None) -> Union[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Genomic relationship matrix, as ``panoramix grm`` (its ``.rel.bin``).

    Variants on X, Y and MT are dropped (as PLINK does); frequencies from the founders.

    Args:
        g: the genotypes.
        method: ``"standardized"`` (PLINK ``--make-rel`` / GCTA: z = (x-2p)/sqrt(2p(1-p)), each
            entry the mean of z_i z_j over the variants called in both samples) or
            ``"vanraden"`` (VanRaden 2008 method 1, ZZᵀ/(2 Σ p(1-p)), missing calls at the mean).
        pair_counts: also return N, the variants called in both samples of each pair (int32).
        progress: optional ``callback(stage, fraction)``.

    Returns:
        G, float64 (n_samples, n_samples), symmetric, in ``g.samples`` order; or (G, N).

    Raises:
        InputError: an unknown method, or no autosomal variant.
    """
    G, N, _ = _panoramix.grm(g._g, method, pair_counts, progress)
    return (G, N) if pair_counts else G


def ld(g: Genotypes, variants: Selection = None, r2: bool = True, ld_nonfounders: bool = False,
       memory_mb: int = 2048, progress: Progress = None) -> np.ndarray:
    """Linkage disequilibrium between every pair of variants, as ``panoramix ld --r2 square``
    (``--r square`` with ``r2=False``): PLINK 1.9's values, bit for bit.

    r is the Pearson correlation of A1 counts over the founders called at both variants (X:
    males haploid; Y: males only); NaN for a pair without variation over its joint calls.

    Args:
        g: the genotypes.
        variants: which of g's variants: a slice, indices, a boolean mask or IDs (None: all).
            The matrix has m² entries: choose a region for large data.
        r2: r² (True) or signed r (False).
        ld_nonfounders: every kept sample instead of the founders only.
        memory_mb: working memory of the computation (``--memory``).
        progress: optional ``callback(stage, fraction)``.

    Returns:
        float64 (m, m), in the variants' order.
    """
    data = g if variants is None else g.select(variants=variants)
    return _panoramix.ld_square(data._g, r2, ld_nonfounders, memory_mb, progress)


class PcaResult(NamedTuple):
    """Eigenpairs of the standardized GRM; unpacks as ``values, vectors``."""

    values: np.ndarray
    """Eigenvalues, descending, (pcs,)."""
    vectors: np.ndarray
    """Eigenvectors as columns, (n_samples, pcs), unit length, largest entry positive."""


def pca(g: Genotypes, pcs: int = 10, exact: bool = False, missing: str = "plink", oversample: int = 10,
        tol: float = 1e-7, max_iter: int = 500, seed: int = 20240607,
        progress: Progress = None) -> PcaResult:
    """Principal components of the standardized GRM, as ``panoramix pca`` (PLINK 1.9 ``--pca``).

    By default randomized subspace iteration on the 2-bit data (never forming the n×n matrix) until
    every Ritz residual is below ``tol`` × the largest eigenvalue; ``exact=True`` forms the GRM and
    calls LAPACK (cuSOLVER on cuda). Variants on X, Y and MT are dropped.

    Args:
        g: the genotypes.
        pcs: number of components.
        exact: dense GRM and a full eigensolver (PLINK 1.9's method).
        missing: ``"plink"`` (PLINK's pairwise division by jointly called counts, exactly) or
            ``"impute"`` (missing calls at the mean: ZZᵀ/k).
        oversample, tol, max_iter, seed: the randomized method's ``--oversample``, ``--tol``,
            ``--max-iter`` and start block.
        progress: optional ``callback(stage, fraction)``.

    Returns:
        :class:`PcaResult` ``(values, vectors)``: the same numbers as ``.eigenval`` and the
        ``.eigenvec`` columns.
    """
    r = _panoramix.pca(g._g, pcs, exact, missing, oversample, tol, max_iter, seed, progress)
    return PcaResult(r["values"], r["vectors"])


@dataclass
class GblupFit:
    """The results of :func:`gblup`, those of ``panoramix gblup``'s ``.vc``, ``.fixef`` and ``.gebv``."""

    h2: float
    """Heritability on G's scale, σ²_g / (σ²_g + σ²_e)."""
    sigma2_g: float
    sigma2_e: float
    logl: float
    """REML log-likelihood (GEMMA's 'REMLE log-likelihood' convention)."""
    se_h2: float
    se_sigma2_g: float
    se_sigma2_e: float
    fixed_names: list
    """"intercept", then the covariates."""
    beta: np.ndarray
    """Fixed effects, intercept first."""
    se_beta: np.ndarray
    gebv: np.ndarray
    """Genomic breeding values, one per kept sample (those without a phenotype are predicted)."""
    pev: Optional[np.ndarray]
    """Prediction error variances (None with ``pev=False``)."""
    estimated: bool
    """True when h² was estimated by REML (False: given)."""
    boundary: bool
    """True when ĥ² lies on the boundary of the search."""
    evaluator: str
    log: list = field(default_factory=list)
    """The lines the command line writes to its ``.log`` for the fit."""


def gblup(g: Genotypes, y: Any, covariates: Any = None, reml: Optional[bool] = None, h2: Optional[float] = None,
          method: str = "standardized", evaluator: str = "auto", pev: bool = True, grm_bend: bool = False,
          grm_add_diagonal: Optional[float] = None, trait: str = "y",
          progress: Progress = None) -> GblupFit:
    """Genomic BLUP with REML variance components, as ``panoramix gblup --bfile``.

    y = Xβ + g + e, g ~ N(0, σ²_g G), e ~ N(0, σ²_e I), X = intercept + covariates, G the GRM of
    ``method`` (as :func:`grm`). Samples with a NaN phenotype or covariate are left out of the fit
    and predicted.

    Args:
        g: the genotypes.
        y: phenotype, one value per kept sample in ``g.samples`` order; NaN for missing.
        covariates: None, an (n_samples, c) array, or a mapping name → (n_samples,) array.
        reml: estimate h² by REML; None (the default) does so unless ``h2`` is given. True with
            ``h2`` is refused, as ``--reml --h2``; False needs ``h2``.
        h2: a given heritability in [0, 1): σ̂² is then its REML (GLS) estimate at that h².
        method: the GRM, ``"standardized"`` or ``"vanraden"``.
        evaluator: ``"auto"``, ``"eigen"`` or ``"cholesky"`` (``--reml-evaluator``).
        pev: compute prediction error variances.
        grm_bend, grm_add_diagonal: repairs of a G that is not positive semi-definite.
        trait: the phenotype's name in messages.
        progress: optional ``callback(stage, fraction)``.

    Returns:
        :class:`GblupFit` with h2, sigma2_g, sigma2_e, logl, their SEs, beta, gebv, pev.

    Raises:
        InputError: y or covariates of the wrong length, a constant phenotype or covariate, no
            fitted sample, h2 outside [0, 1), h2 with reml=True, reml=False without h2.
        NumericError: a model that cannot be fitted (collinear covariates, say).
    """
    yy = np.asarray(y, dtype=np.float64).ravel()
    names, columns = covariate_columns(covariates, g.n_samples)
    if reml is False and h2 is None:
        raise _panoramix.InputError("reml=False needs a given h2")
    r = _panoramix.gblup(g._g, yy, trait, columns, names, h2, bool(reml), method, evaluator, pev, grm_bend,
                         grm_add_diagonal, progress)
    return GblupFit(**{k: r[k] for k in GblupFit.__dataclass_fields__})
