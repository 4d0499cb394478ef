"""Association results read back for plots, from the tables ``panoramix assoc``, plink2, PLINK 1.9
and GEMMA write (the reader of ``panoramix plot``)."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

import numpy as np

from . import _panoramix


@dataclass
class AssociationTable:
    """One P value per tested variant, in file order (ADD rows only; NA P values skipped)."""

    chrom: np.ndarray
    """Chromosome name per variant ("chr" prefix dropped)."""
    pos: np.ndarray
    """Base-pair position, int64."""
    p: np.ndarray
    """P value in [0, 1]."""
    p_column: str
    """The column P was read from."""
    missing_p: int
    """Rows whose P was NA/nan (left out)."""


def read_association(path: Union[str, "os.PathLike[str]"], p_column: str = "") -> AssociationTable:
    """Reads an association table as ``panoramix plot --assoc`` does.

    Args:
        path: ``.glm.linear``, ``.glm.logistic.hybrid`` (plink2's ``.zst`` too), ``.lmm``, PLINK
            1.9's ``.assoc``/``.qassoc``/``.assoc.linear``, GEMMA's ``.assoc.txt``, or any
            whitespace-separated table whose header names a chromosome, a position and a P column.
        p_column: the P column's name; by default the first of P, p_wald, p_lrt, p_score.

    Raises:
        InputError: a malformed line (naming file and line), a header without a needed column.
    """
    t = _panoramix.read_association_table(os.fspath(path), p_column)
    names = np.array(t["chromosomes"], dtype=object)
    return AssociationTable(chrom=names[t["chrom"]], pos=t["pos"], p=t["p"], p_column=t["p_column"],
                            missing_p=t["missing_p"])


@dataclass
class GlmResult:
    """Per tested variant, the columns of ``assoc --glm``'s ``.glm.linear``; rows follow
    ``variants``, the columns of beta/se/t/p follow ``tests`` ("ADD", then the covariates)."""

    variants: np.recarray
    """The tested variants' records (those of ``g.variants`` on the autosomes)."""
    variant_index: np.ndarray
    """Their rows in ``g.variants``."""
    a1: np.ndarray
    """The allele counted in x: plink2's nonmajor allele (ALT, ``.bim`` A1, unless its founder
    frequency is above 1/2; then REF)."""
    obs_ct: np.ndarray
    """Samples in each variant's regression (OBS_CT)."""
    errors: np.ndarray
    """ERRCODE: "." or CONST_OMITTED_ALLELE, CORR_TOO_HIGH, VIF_TOO_HIGH, ..."""
    tests: list
    beta: np.ndarray
    se: np.ndarray
    t: np.ndarray
    p: np.ndarray
    """(n_tested, len(tests)); NaN where ERRCODE is not "."."""

    def table(self) -> AssociationTable:
        """The ADD test's P values as an :class:`AssociationTable` for :func:`panoramix.plot.manhattan`
        and :func:`panoramix.plot.qq` (NA rows left out)."""
        p = self.p[:, 0]
        ok = ~np.isnan(p)
        chrom = np.array(self.variants.chrom, dtype=object)
        return AssociationTable(chrom=chrom[ok], pos=np.asarray(self.variants.pos)[ok], p=p[ok], p_column="P",
                                missing_p=int((~ok).sum()))


def glm(g: "Genotypes", y: Any, covariates: Any = None,
        progress: Optional[Callable[[str, float], None]] = None) -> GlmResult:
    """Linear regression per variant, as ``panoramix assoc --glm`` (plink2 ``--glm``) for a
    quantitative phenotype: y = b0 + b1 x + Σ g_k c_k + e over the samples with y, every covariate
    and a call at the variant; x counts A1, plink2's nonmajor allele.

    The autosomal variants are tested (the command line also tests X with SEX as a covariate).
    A case/control phenotype, which ``assoc --glm`` fits by logistic regression, is fitted linearly
    here.

    Args:
        g: the genotypes.
        y: one value per kept sample, NaN for missing.
        covariates: None, an (n_samples, q) array or a mapping name → (n_samples,) array; NaN missing.
        progress: optional ``callback(stage, fraction)``.

    Returns:
        :class:`GlmResult`; ``result.table()`` feeds the Manhattan and QQ plots.

    Raises:
        InputError: y of the wrong length, constant over the samples, or too few samples.
    """
    names, columns = covariate_columns(covariates, g.n_samples)
    q = len(columns)
    cov = np.column_stack(columns).ravel() if q else np.zeros(0)
    r = _panoramix.glm(g._g, np.asarray(y, dtype=np.float64).ravel(), cov, q, names, progress)
    index = r["variant_index"]
    v = g.variants[index]
    a1 = np.where(r["a1_is_ref"].astype(bool), v.a2, v.a1)
    return GlmResult(variants=v, variant_index=index, a1=a1, obs_ct=r["obs_ct"], errors=np.array(r["errors"]),
                     tests=r["tests"], beta=r["beta"], se=r["se"], t=r["t"], p=r["p"])


def covariate_columns(covariates: Any, n: int) -> tuple[list, list]:
    """(names, columns) of covariates given as None, an (n, q) array or a mapping of columns."""
    if covariates is None:
        return [], []
    if isinstance(covariates, Mapping):
        names = [str(k) for k in covariates]
        columns = [np.asarray(v, dtype=np.float64).ravel() for v in covariates.values()]
    else:
        c = np.asarray(covariates, dtype=np.float64)
        if c.ndim == 1:
            c = c[:, None]
        if c.ndim != 2:
            raise _panoramix.InputError(f"covariates must be (n_samples, q); got shape {c.shape}")
        names = [f"covar{j + 1}" for j in range(c.shape[1])]
        columns = [c[:, j].copy() for j in range(c.shape[1])]
    for name, col in zip(names, columns):
        if col.shape != (n,):
            raise _panoramix.InputError(f"covariates: column '{name}' has {col.size} values; it needs one per kept "
                                        f"sample ({n})")
    return names, columns
