"""matplotlib figures of panoramix results: PCA scatter, LD decay, GRM heatmap, Manhattan and QQ.

Each function returns a :class:`matplotlib.figure.Figure` (made with ``matplotlib.figure.Figure``,
so no GUI backend is needed; ``fig.savefig("x.png")`` writes it). The Manhattan and QQ geometry
(chromosome placement, expected quantiles, the 95 % band, λ_GC) comes from the library, as
``panoramix plot`` draws it.
"""

import os
from typing import Any, Optional, Sequence, Union

import numpy as np
from matplotlib.figure import Figure

from . import _panoramix
from .association import AssociationTable, read_association


def _figure(size: tuple[float, float], dpi: int) -> Figure:
    return Figure(figsize=size, dpi=dpi, layout="constrained")


def pca(values: np.ndarray, vectors: np.ndarray, groups: Optional[Sequence[Any]] = None, x: int = 1, y: int = 2,
        title: str = "", size: tuple[float, float] = (6.4, 5.6), dpi: int = 100) -> Figure:
    """Scatter of two principal components, coloured by a group column.

    Args:
        values, vectors: what :func:`panoramix.pca` returns.
        groups: a label per sample (population, breed, ...), same order as the vectors' rows;
            None draws one colour.
        x, y: the components on the axes (1-based, as PC1, PC2).
        title: the figure's title.
        size, dpi: figure size in inches and resolution (pixels = size × dpi).

    Returns:
        Figure; axis labels give each PC's share of the sum of the computed eigenvalues.
    """
    values = np.asarray(values)
    vectors = np.asarray(vectors)
    if not (1 <= x <= vectors.shape[1] and 1 <= y <= vectors.shape[1]):
        raise _panoramix.InputError(f"x and y must be components 1..{vectors.shape[1]} (got {x}, {y})")
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    share = values / values.sum()
    if groups is None:
        ax.scatter(vectors[:, x - 1], vectors[:, y - 1], s=8, alpha=0.8)
    else:
        labels = np.asarray([str(v) for v in groups], dtype=object)
        if labels.shape[0] != vectors.shape[0]:
            raise _panoramix.InputError(f"groups has {labels.shape[0]} labels for {vectors.shape[0]} samples")
        names = list(dict.fromkeys(labels))  # first-seen order
        colours = _palette(len(names))
        for name, colour in zip(names, colours):
            k = labels == name
            ax.scatter(vectors[k, x - 1], vectors[k, y - 1], s=8, alpha=0.8, color=colour,
                       label=f"{name} ({int(k.sum())})")
        ax.legend(fontsize="small", markerscale=2, frameon=False, loc="best")
    ax.set_xlabel(f"PC{x} ({100 * share[x - 1]:.1f} %)")
    ax.set_ylabel(f"PC{y} ({100 * share[y - 1]:.1f} %)")
    if title:
        ax.set_title(title)
    return fig


def _palette(k: int) -> list:
    from matplotlib import colormaps
    cmap = colormaps["tab10" if k <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(k)]


def ld_decay(r2: np.ndarray, pos: Sequence[int], chrom: Optional[Sequence[Any]] = None, max_distance: int = 500_000,
             bins: int = 50, title: str = "", size: tuple[float, float] = (6.4, 4.2), dpi: int = 100) -> Figure:
    """Mean r² by distance bin between pairs of variants on one chromosome.

    Args:
        r2: the square matrix of :func:`panoramix.ld` (r2=True) over some variants.
        pos: their base-pair positions (``g.variants.pos`` of the same variants).
        chrom: their chromosomes; pairs on different chromosomes are left out (None: all on one).
        max_distance: pairs farther apart (bp) are left out.
        bins: equal-width distance bins over [0, max_distance].
        title, size, dpi: as in :func:`pca`.

    Returns:
        Figure of the bins' mean r² (points, line) with the pair count per bin on a second axis.
    """
    centres, mean, count = ld_decay_table(r2, pos, chrom, max_distance, bins)
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    ax.plot(centres / 1000, mean, "o-", ms=3, lw=1)
    ax.set_xlabel("distance between variants (kb)")
    ax.set_ylabel("mean r²")
    ax.set_ylim(bottom=0)
    ax2 = ax.twinx()
    ax2.bar(centres / 1000, count, width=max_distance / bins / 1000 * 0.9, color="0.85", zorder=0)
    ax2.set_ylabel("pairs per bin", color="0.5")
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    if title:
        ax.set_title(title)
    return fig


def ld_decay_table(r2: np.ndarray, pos: Sequence[int], chrom: Optional[Sequence[Any]] = None,
                   max_distance: int = 500_000, bins: int = 50) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The numbers :func:`ld_decay` draws: bin centres (bp), mean r² (NaN for an empty bin) and pair
    counts, over the pairs i < j with a defined r² at most ``max_distance`` apart."""
    r2 = np.asarray(r2, dtype=np.float64)
    pos = np.asarray(pos, dtype=np.int64)
    m = pos.shape[0]
    if r2.shape != (m, m):
        raise _panoramix.InputError(f"r2 must be ({m}, {m}) for {m} positions (got {r2.shape})")
    if bins < 1 or max_distance <= 0:
        raise _panoramix.InputError("bins must be >= 1 and max_distance > 0")
    i, j = np.triu_indices(m, k=1)
    d = np.abs(pos[j] - pos[i])
    keep = (d <= max_distance) & ~np.isnan(r2[i, j])
    if chrom is not None:
        c = np.asarray(chrom, dtype=object)
        keep &= c[i] == c[j]
    which = np.minimum((d[keep] * bins) // max_distance, bins - 1)
    count = np.bincount(which, minlength=bins)
    total = np.bincount(which, weights=r2[i, j][keep], minlength=bins)
    with np.errstate(invalid="ignore"):
        mean = total / count
    centres = (np.arange(bins) + 0.5) * max_distance / bins
    return centres, mean, count


def grm(G: np.ndarray, groups: Optional[Sequence[Any]] = None, subset: Optional[Union[int, Sequence[int]]] = 500,
        title: str = "", size: tuple[float, float] = (6.0, 5.2), dpi: int = 100, seed: int = 0) -> Figure:
    """Heatmap of a GRM, samples ordered by a grouping.

    Args:
        G: an (n, n) relationship matrix (:func:`panoramix.grm`).
        groups: a label per sample; samples are sorted by label (stably) and the groups marked
            on the axes. None keeps the matrix order.
        subset: at most this many samples, drawn at random (``seed``) and evenly from the whole
            matrix, or explicit indices; None draws every sample.
        title, size, dpi: as in :func:`pca`.

    Returns:
        Figure with a colour bar; the diagonal is drawn too.
    """
    G = np.asarray(G)
    n = G.shape[0]
    if G.shape != (n, n):
        raise _panoramix.InputError(f"G must be square (got {G.shape})")
    if subset is None:
        index = np.arange(n)
    elif isinstance(subset, (int, np.integer)):
        index = np.arange(n) if subset >= n else np.sort(np.random.default_rng(seed).choice(n, int(subset), replace=False))
    else:
        index = np.asarray(subset, dtype=np.int64)
    labels = None
    if groups is not None:
        labels = np.asarray([str(v) for v in groups], dtype=object)
        if labels.shape[0] != n:
            raise _panoramix.InputError(f"groups has {labels.shape[0]} labels for {n} samples")
        labels = labels[index]
        order = np.argsort(labels, kind="stable")
        index, labels = index[order], labels[order]
    sub = G[np.ix_(index, index)]
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    off = sub[~np.eye(len(index), dtype=bool)]
    lim = float(np.nanmax(np.abs(off))) if off.size else 1.0
    im = ax.imshow(sub, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    fig.colorbar(im, ax=ax, shrink=0.8, label="relationship (diagonal beyond the scale)")
    if labels is not None:
        starts = [0] + [k for k in range(1, len(labels)) if labels[k] != labels[k - 1]]
        ends = starts[1:] + [len(labels)]
        for s in starts[1:]:
            ax.axhline(s - 0.5, color="k", lw=0.5)
            ax.axvline(s - 0.5, color="k", lw=0.5)
        mids = [(s + e - 1) / 2 for s, e in zip(starts, ends)]
        ax.set_xticks(mids, [labels[s] for s in starts], rotation=90, fontsize="small")
        ax.set_yticks(mids, [labels[s] for s in starts], fontsize="small")
    else:
        ax.set_xlabel("sample")
        ax.set_ylabel("sample")
    if title:
        ax.set_title(title)
    return fig


def _table(assoc: Union[AssociationTable, str, "os.PathLike[str]"]) -> AssociationTable:
    return assoc if isinstance(assoc, AssociationTable) else read_association(assoc)


def manhattan(assoc: Union[AssociationTable, str, "os.PathLike[str]"], genome_wide: Optional[float] = 5e-8,
              suggestive: Optional[float] = None, title: str = "", size: tuple[float, float] = (16, 6.4),
              dpi: int = 100) -> Figure:
    """Manhattan plot: -log10 P along the genome, chromosomes end to end in natural order.

    Args:
        assoc: an :class:`AssociationTable` or the path of a table (:func:`read_association`).
        genome_wide: P of the genome-wide line (None: no line).
        suggestive: P of a suggestive line (e.g. 1e-5; None: no line).
        title, size, dpi: as in :func:`pca` (the default is 1600 × 640 pixels, as ``panoramix plot``).

    Returns:
        Figure.
    """
    t = _table(assoc)
    lay = _panoramix.manhattan_layout(list(map(str, t.chrom)), np.asarray(t.pos, dtype=np.int64), t.p)
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    colours = np.array(["#1f4e8c", "#7fa7d9"])
    ax.scatter(lay["x"], lay["y"], s=4, c=colours[lay["colour"]], linewidths=0)
    ax.set_xticks(lay["centres"], lay["chromosomes"], fontsize="small")
    ax.set_xlim(0, lay["x_end"])
    top = lay["y_max"]
    for p, style in ((genome_wide, "-"), (suggestive, "--")):
        if p is not None:
            ax.axhline(-np.log10(p), color="#c0392b" if style == "-" else "0.5", ls=style, lw=0.8)
            top = max(top, -np.log10(p))
    ax.set_ylim(0, top * 1.05 + 0.1)
    ax.set_xlabel("chromosome")
    ax.set_ylabel("-log10 P")
    if title:
        ax.set_title(title)
    return fig


def qq(assoc: Union[AssociationTable, np.ndarray, str, "os.PathLike[str]"], title: str = "",
       size: tuple[float, float] = (7.2, 7.2), dpi: int = 100) -> Figure:
    """QQ plot of P values: observed against expected -log10 P, the 95 % band and λ_GC.

    Args:
        assoc: an :class:`AssociationTable`, a path (:func:`read_association`) or P values.
        title, size, dpi: as in :func:`pca` (default 720 × 720 pixels, as ``panoramix plot``).

    Returns:
        Figure; λ_GC (median χ² / 0.4549) is written in the corner.
    """
    p = assoc if isinstance(assoc, np.ndarray) else _table(assoc).p
    lay = _panoramix.qq_layout(np.asarray(p, dtype=np.float64))
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    ax.fill_between(lay["band_x"], lay["band_low"], lay["band_high"], color="0.88", lw=0)
    top = max(lay["x_max"], lay["y_max"])
    ax.plot([0, lay["x_max"]], [0, lay["x_max"]], color="#c0392b", lw=0.8)
    ax.scatter(lay["x"], lay["y"], s=5, color="#1f4e8c", linewidths=0)
    ax.set_xlim(0, lay["x_max"] * 1.02)
    ax.set_ylim(0, top * 1.05)
    ax.set_xlabel("expected -log10 P")
    ax.set_ylabel("observed -log10 P")
    ax.text(0.04, 0.96, f"λ_GC = {lay['lambda_gc']:.3f}\nn = {len(lay['x']):,}", transform=ax.transAxes, va="top")
    if title:
        ax.set_title(title)
    return fig
