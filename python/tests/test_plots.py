"""The plots rendered to PNG (non-empty, of the size asked for), and the association tables and
numbers they draw against the files and numpy."""
import numpy as np
import pytest
from matplotlib import image
from scipy import stats

import panoramix as pmx
from panoramix import _panoramix
from conftest import THREADS, hapmap_populations, run_cli


@pytest.fixture(scope="module")
def assoc_file(sim, tmp_path_factory):
    out = tmp_path_factory.mktemp("assoc") / "gwas"
    run_cli("assoc", "--bfile", str(sim), "--pheno", f"{sim}.pheno", "--glm", "--out", str(out),
            "--threads", str(THREADS))
    return f"{out}.trait1.glm.linear"


def render(fig, path, width, height):
    fig.savefig(path)
    assert path.stat().st_size > 10_000  # a picture, not an empty canvas
    pixels = image.imread(path)
    assert pixels.shape[:2] == (height, width)
    assert pixels[..., :3].std() > 0.02  # something drawn
    return pixels


def test_read_association_equals_the_file(assoc_file):
    t = pmx.read_association(assoc_file)
    rows = [l.split("\t") for l in open(assoc_file).read().splitlines()[1:]]
    add = [r for r in rows if r[6] == "ADD" and r[11] != "NA"]
    assert t.p_column == "P" and t.missing_p == sum(r[6] == "ADD" and r[11] == "NA" for r in rows)
    np.testing.assert_array_equal(t.p, [float(r[11]) for r in add])
    np.testing.assert_array_equal(t.pos, [int(r[1]) for r in add])
    assert list(t.chrom) == [r[0] for r in add]


def test_association_errors(workdir):
    bad = workdir / "bad.linear"
    bad.write_text("#CHROM\tPOS\tID\tP\n1\t100\trs1\t1.7\n")
    with pytest.raises(pmx.InputError, match=r"bad.linear:2: P value .* is not a number in \[0, 1\]"):
        pmx.read_association(bad)
    with pytest.raises(pmx.InputError, match="not a P value"):
        pmx.plot.qq(np.array([0.5, -1.0]))


def test_manhattan_and_qq(assoc_file, workdir):
    render(pmx.plot.manhattan(assoc_file, suggestive=1e-5, title="trait1"), workdir / "m.png", 1600, 640)
    t = pmx.read_association(assoc_file)
    render(pmx.plot.qq(t, title="trait1"), workdir / "q.png", 720, 720)
    # λ_GC written on the QQ plot is the library's genomic control of these P values
    lam = np.median(stats.chi2.isf(t.p, 1)) / stats.chi2.ppf(0.5, 1)
    assert abs(_panoramix.genomic_control_lambda(t.p) - lam) < 1e-9 * lam


def test_pca_plot_coloured_by_population(hapmap, workdir):
    g = pmx.Genotypes.open(hapmap, threads=THREADS)
    vals, vecs = pmx.pca(g, pcs=4)
    pops = hapmap_populations(hapmap, g.samples.iid)
    fig = pmx.plot.pca(vals, vecs, groups=pops, title="HapMap3")
    render(fig, workdir / "pca.png", 640, 560)
    assert len(fig.axes[0].collections) == len(set(pops))  # one scatter per group
    with pytest.raises(pmx.InputError):
        pmx.plot.pca(vals, vecs, groups=pops[:-1])


def test_ld_decay_table_and_plot(sim, workdir):
    g = pmx.Genotypes.open(sim, threads=THREADS)
    chosen = slice(0, 400)
    R = pmx.ld(g, variants=chosen)
    v = g.variants[chosen]
    centres, mean, count = pmx.plot.ld_decay_table(R, v.pos, v.chrom, max_distance=250_000, bins=25)
    # brute force over the pairs
    for b in (0, 5, 24):
        pairs = [R[i, j] for i in range(400) for j in range(i + 1, 400)
                 if v.chrom[i] == v.chrom[j] and abs(v.pos[j] - v.pos[i]) <= 250_000
                 and min(abs(v.pos[j] - v.pos[i]) * 25 // 250_000, 24) == b and not np.isnan(R[i, j])]
        assert count[b] == len(pairs)
        if pairs:
            assert abs(mean[b] - np.mean(pairs)) < 1e-12
    assert mean[0] > 2 * np.nanmean(mean[5:])  # LD decays with distance in the simulation's blocks
    render(pmx.plot.ld_decay(R, v.pos, v.chrom, max_distance=250_000, bins=25), workdir / "ld.png", 640, 420)


def test_grm_heatmap(hapmap, workdir):
    g = pmx.Genotypes.open(hapmap, threads=THREADS, keep=slice(0, 957, 3))
    G = pmx.grm(g)
    pops = hapmap_populations(hapmap, g.samples.iid)
    fig = pmx.plot.grm(G, groups=pops, subset=200, title="HapMap3 GRM")
    render(fig, workdir / "grm.png", 600, 520)
    with pytest.raises(pmx.InputError):
        pmx.plot.grm(G[:3])


def test_glm_equals_glm_linear(sim, workdir):
    g = pmx.Genotypes.open(sim, threads=THREADS)
    from conftest import read_pheno
    pheno = read_pheno(f"{sim}.pheno")
    s = g.samples
    y = np.array([pheno[(f, i)] for f, i in zip(s.fid, s.iid)])
    rng = np.random.default_rng(8)
    c = rng.standard_normal(g.n_samples)
    c[4] = np.nan
    covar = workdir / "c.txt"
    covar.write_text("FID IID pc1\n" + "".join(f"{f} {i} {'NA' if np.isnan(v) else repr(v)}\n"
                                               for f, i, v in zip(s.fid, s.iid, c)))
    out = workdir / "gwas"
    run_cli("assoc", "--bfile", str(sim), "--pheno", f"{sim}.pheno", "--covar", str(covar), "--glm",
            "--out", str(out), "--threads", str(THREADS))
    rows = {}
    for line in open(f"{out}.trait1.glm.linear").read().splitlines()[1:]:
        f = line.split("\t")
        rows[(f[2], f[6])] = f
    r = pmx.glm(g, y, covariates={"pc1": c})
    assert r.tests == ["ADD", "pc1"]
    assert len(r.variants) == int(np.sum(g.variants.chrom != "X"))  # the autosomes
    fmt = lambda x: "NA" if np.isnan(x) else f"{x:.6g}"  # the writer's %g with 6 digits
    for k in range(len(r.variants)):
        for t, test in enumerate(r.tests):
            f = rows[(r.variants.id[k], test)]
            assert f[5] == r.a1[k] and int(f[7]) == r.obs_ct[k] and f[12] == r.errors[k]
            assert [fmt(r.beta[k, t]), fmt(r.se[k, t]), fmt(r.t[k, t]), fmt(r.p[k, t])] == f[8:12], (k, test)
    render(pmx.plot.manhattan(r.table()), workdir / "m.png", 1600, 640)
