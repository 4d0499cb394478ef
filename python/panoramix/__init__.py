"""panoramix for Python: quantitative genetics on 2-bit genotypes, with numpy arrays.

The same computations as the ``panoramix`` command line, called in-process on the same library::

    import panoramix as pmx
    g = pmx.Genotypes.open("sim")                 # sim.bed/.bim/.fam (also .pgen, VCF/BCF, BGEN)
    p = g.freq()                                  # = panoramix freq
    G = pmx.grm(g)                                # = panoramix grm
    R = pmx.ld(g, variants=slice(0, 2000))        # = panoramix ld --r2 square
    vals, vecs = pmx.pca(g, pcs=10)               # = panoramix pca
    fit = pmx.gblup(g, y)                         # = panoramix gblup
    gwas = pmx.glm(g, y)                          # = panoramix assoc --glm (autosomes)
    Y = g @ L;  W = g.T @ Lt                      # Z·Λ and Zᵀ·Λ̃ on the 2-bit data
    pmx.plot.pca(vals, vecs, groups=labels)       # matplotlib figures

Errors raise :class:`panoramix.Error` subclasses (also ValueError, OSError, NotImplementedError,
ArithmeticError as fits) with the command line's message text. Long calls release the GIL and
take ``progress=callback(stage, fraction)``.
"""
from ._panoramix import (  # noqa: F401  (the compiled module)
    Error,
    FileError,
    InputError,
    LogicError,
    NumericError,
    UnsupportedError,
    __version__,
    cuda_available,
    cuda_compiled_in,
)
from .association import AssociationTable, GlmResult, glm, read_association
from .genotypes import Genotypes
from .statistics import GblupFit, PcaResult, gblup, grm, ld, pca
from . import plot

__all__ = [
    "Genotypes",
    "grm",
    "ld",
    "pca",
    "gblup",
    "glm",
    "GlmResult",
    "GblupFit",
    "PcaResult",
    "read_association",
    "AssociationTable",
    "plot",
    "Error",
    "InputError",
    "FileError",
    "UnsupportedError",
    "NumericError",
    "LogicError",
    "cuda_available",
    "cuda_compiled_in",
    "__version__",
]
