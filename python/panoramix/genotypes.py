"""Genotypes: a fileset kept as 2-bit codes, its sample and variant tables, and the products
Z·Λ (``g @ L``) and Zᵀ·Λ̃ (``g.T @ Lt``) computed on the compressed data."""

import os
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import _panoramix
from .selection import flags

Progress = Optional[Callable[[str, float], None]]
PathLike = Union[str, "os.PathLike[str]"]
Selection = Union[None, slice, Sequence[int], Sequence[bool], Sequence[str], np.ndarray]

_SAMPLE_DTYPE = [("fid", object), ("iid", object), ("father", object), ("mother", object), ("sex", np.int8),
                 ("phenotype", object)]
_VARIANT_DTYPE = [("chrom", object), ("id", object), ("cm", np.float64), ("pos", np.int64), ("a1", object),
                  ("a2", object)]


def _records(table: dict, dtype: list) -> np.ndarray:
    out = np.empty(len(table[dtype[0][0]]), dtype=dtype)
    for name, _ in dtype:
        out[name] = table[name]
    return out.view(np.recarray)


class Genotypes:
    """Kept samples × kept variants of a genotype fileset, held as 2-bit codes (never dosages).

    Open with :meth:`Genotypes.open`. ``g.samples`` and ``g.variants`` are numpy record arrays
    (``pandas.DataFrame(g.samples)`` makes a table of them); statistics take a Genotypes:
    :func:`panoramix.grm`, :func:`panoramix.ld`, :func:`panoramix.pca`, :func:`panoramix.gblup`.

    The products use Z, the centred and optionally scaled genotype matrix (samples × variants):
    ``Z[i, j] = s_j (x_ij - 2 p_j)`` for a called genotype ``x_ij`` in {0, 1, 2} (copies of A1,
    the ``.bim``'s fifth column), 0 for a missing call. ``p`` defaults to the founders' A1
    frequencies (:meth:`freq`; a variant without calls contributes a zero column) and ``s`` to 1;
    see :meth:`set_centring`.
    """

    def __init__(self, handle: "_panoramix.Genotypes"):
        """Wraps the compiled handle; use :meth:`Genotypes.open`."""
        self._g = handle

    @classmethod
    def open(cls, path: PathLike, keep: Union[None, PathLike, Selection] = None,
             extract: Union[None, PathLike, Selection] = None, device: str = "auto", threads: int = 0,
             chr_set: Optional[int] = None, species: Optional[str] = None,
             nonfounders: bool = False) -> "Genotypes":
        """Opens genotypes as the command line's ``--bfile`` (and ``--pfile``, ``--vcf``, ``--bcf``,
        ``--bgen``) does.

        Args:
            path: a PLINK 1 prefix (``sim`` for sim.bed/.bim/.fam) or ``sim.bed``; ``PREFIX.pgen``;
                ``FILE.vcf[.gz]``, ``FILE.bcf`` or ``FILE.bgen`` (plink2's default import rules).
            keep: samples to keep: a PLINK ``--keep`` file (``FID IID`` lines, or ``#IID`` and IIDs),
                or IIDs, (FID, IID) pairs, indices, a boolean mask or a slice over the file's samples.
            extract: variants to keep: a PLINK ``--extract`` file (IDs), or IDs, indices, a mask or
                a slice over the file's variants.
            device: ``"auto"`` (cuda when built in and a GPU is visible, else cpu), ``"cpu"``,
                ``"cuda"`` or ``"reference"`` (the slow oracle loops).
            threads: worker threads; 0 uses every core.
            chr_set: number of autosomes (PLINK ``--chr-set``); default human (22).
            species: ``"cow"``, ``"dog"``, ``"horse"``, ``"mouse"``, ``"rice"`` or ``"sheep"``
                (PLINK's species flags), instead of ``chr_set``.
            nonfounders: count every sample in allele frequencies (PLINK ``--nonfounders``);
                by default only founders (parents ``0 0``) count.

        Raises:
            InputError: a missing or malformed file, a keep/extract list that keeps nothing.
            UnsupportedError: ``device="cuda"`` without a CUDA build or a GPU.
        """
        keep_file = os.fspath(keep) if isinstance(keep, (str, os.PathLike)) else ""
        extract_file = os.fspath(extract) if isinstance(extract, (str, os.PathLike)) else ""
        handle = _panoramix.Genotypes(os.fspath(path), keep_file, extract_file, device, threads,
                                      chr_set or 0, species or "", nonfounders)
        g = cls(handle)
        sample_choice = None if keep_file else keep
        variant_choice = None if extract_file else extract
        if sample_choice is not None or variant_choice is not None:
            g = g.select(samples=sample_choice, variants=variant_choice)
        return g

    def select(self, samples: Selection = None, variants: Selection = None) -> "Genotypes":
        """The kept samples and variants chosen by position (slice, indices, boolean mask) or by ID
        (sample IIDs or (FID, IID) pairs; variant IDs). Shares the opened file; frequencies for
        the products are counted again on the new selection."""
        s = self.samples
        sample_flags = flags(samples, self.n_samples, list(s.iid), "samples", list(zip(s.fid, s.iid)))
        variant_flags = flags(variants, self.n_variants, list(self.variants.id), "variants")
        return Genotypes(self._g.subset(sample_flags, variant_flags))

    @property
    def n_samples(self) -> int:
        """Number of kept samples (rows of Z)."""
        return self._g.n_samples

    @property
    def n_variants(self) -> int:
        """Number of kept variants (columns of Z)."""
        return self._g.n_variants

    @property
    def shape(self) -> tuple[int, int]:
        """(n_samples, n_variants), the shape of Z."""
        return (self.n_samples, self.n_variants)

    @property
    def name(self) -> str:
        """Where the genotypes come from (the prefix or file)."""
        return self._g.name

    @property
    def device(self) -> str:
        """The backend running the computations: ``"cpu"``, ``"cuda"`` or ``"reference"``."""
        return self._g.device

    @property
    def threads(self) -> int:
        """Worker threads."""
        return self._g.threads

    @property
    def samples(self) -> np.recarray:
        """The kept samples' ``.fam`` records: fields fid, iid, father, mother, sex (1 male, 2 female,
        0 unknown), phenotype (as written)."""
        return _records(self._g.sample_table(), _SAMPLE_DTYPE)

    @property
    def variants(self) -> np.recarray:
        """The kept variants' ``.bim`` records: fields chrom, id, cm, pos, a1 (counted allele), a2."""
        return _records(self._g.variant_table(), _VARIANT_DTYPE)

    @property
    def sample_index(self) -> np.ndarray:
        """0-based rows of the kept samples in the file's sample list."""
        return self._g.sample_index()

    @property
    def variant_index(self) -> np.ndarray:
        """0-based rows of the kept variants in the file's variant list."""
        return self._g.variant_index()

    def freq(self, counts: bool = False, progress: Progress = None):
        """A1 allele frequencies, as ``panoramix freq`` writes them to ``.afreq`` (ALT_FREQS).

        PLINK 2's rules: founders only unless opened with ``nonfounders=True``; haploid calls on
        X (males), Y (males) and MT count one allele. NaN where no counted sample has a call.

        Args:
            counts: also return the allele observation counts (``.afreq``'s OBS_CT).
            progress: optional ``callback(stage, fraction)``.

        Returns:
            float64 array (n_variants,), or (frequencies, counts) with ``counts=True``.
        """
        p, obs = _panoramix.freq(self._g, progress)
        return (p, obs) if counts else p

    def set_centring(self, frequencies: Optional[np.ndarray] = None,
                     scaling: Union[str, np.ndarray] = "none") -> None:
        """Sets how the products centre and scale Z: ``Z[i, j] = s_j (x_ij - 2 p_j)``.

        Args:
            frequencies: p, one per kept variant in [0, 1] (NaN: leave the variant out, a zero
                column); None keeps the current ones (by default the founders' A1 frequencies).
            scaling: ``"none"`` (s = 1), ``"standardized"`` (s = 1/sqrt(2p(1-p)), 0 when
                monomorphic: the GRM's z) or an array of n_variants finite scales.
        """
        p = [] if frequencies is None else np.asarray(frequencies, dtype=np.float64).ravel()
        if isinstance(scaling, str):
            self._g.set_centring(p, scaling, [])
        else:
            self._g.set_centring(p, "user", np.asarray(scaling, dtype=np.float64).ravel())

    @property
    def frequencies(self) -> np.ndarray:
        """The p the products centre with (computed on first use unless set)."""
        return self._g.frequencies()

    @property
    def scale(self) -> np.ndarray:
        """The s the products scale with, one per variant (0 for a variant left out)."""
        return self._g.scale()

    def __matmul__(self, matrix: Any) -> np.ndarray:
        """``g @ L``: Z·Λ, (n_samples, l) from Λ (n_variants, l), or a vector from a vector.

        Computed on the 2-bit codes (the gemm op; Z is never formed). Λ is used without a copy
        when it is float64 with contiguous rows (C order, or a column slice of it)."""
        return self._g.multiply(np.asarray(matrix), False)

    @property
    def T(self) -> "TransposedGenotypes":
        """Zᵀ for products: ``g.T @ Lt`` is Zᵀ·Λ̃, (n_variants, l) from Λ̃ (n_samples, l)."""
        return TransposedGenotypes(self)

    def __repr__(self) -> str:
        return f"Genotypes({self.name!r}: {self.n_samples} samples x {self.n_variants} variants, {self.device})"


class TransposedGenotypes:
    """Zᵀ of a :class:`Genotypes`, for ``g.T @ Lt``."""

    def __init__(self, g: Genotypes):
        self._parent = g

    @property
    def T(self) -> Genotypes:
        """Z again."""
        return self._parent

    @property
    def shape(self) -> tuple[int, int]:
        """(n_variants, n_samples)."""
        return (self._parent.n_variants, self._parent.n_samples)

    def __matmul__(self, matrix: Any) -> np.ndarray:
        """``g.T @ Lt``: Zᵀ·Λ̃, (n_variants, l) from Λ̃ (n_samples, l), or a vector from a vector."""
        return self._parent._g.multiply(np.asarray(matrix), True)
