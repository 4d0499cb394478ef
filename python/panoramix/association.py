"""Association results read back for plots, from the tables ``panoramix assoc``, plink2, PLINK 1.9
and GEMMA write (the reader of ``panoramix plot``)."""

import os
from dataclasses import dataclass
from typing import Union

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
