"""freq, grm, ld, pca and gblup against the command line's output files on the same data."""
import numpy as np
import pytest

import panoramix as pmx
from conftest import THREADS, hapmap_populations, read_afreq, read_pheno, run_cli


def cli(*args, out):
    run_cli(*args, "--out", str(out), "--threads", str(THREADS))
    return out


@pytest.fixture(scope="module")
def g(sim):
    return pmx.Genotypes.open(sim, threads=THREADS)


@pytest.mark.parametrize("nonfounders", [False, True])
def test_freq_equals_afreq(sim, workdir, nonfounders):
    flag = ["--nonfounders"] if nonfounders else []
    out = cli("freq", "--bfile", str(sim), *flag, out=workdir / "f")
    p, obs = read_afreq(f"{out}.afreq")
    got_p, got_obs = pmx.Genotypes.open(sim, threads=THREADS, nonfounders=nonfounders).freq(counts=True)
    np.testing.assert_array_equal(got_obs, obs)
    np.testing.assert_allclose(got_p, p, rtol=5e-6)  # .afreq prints 6 significant digits
    # the 6 digits are those of our doubles
    assert all(f"{a:.6g}" == f"{b:.6g}" for a, b in zip(got_p, p))


@pytest.mark.parametrize("method", ["standardized", "vanraden"])
def test_grm_equals_rel_bin(sim, g, workdir, method):
    out = cli("grm", "--bfile", str(sim), "--method", method, out=workdir / "g")
    n = g.n_samples
    expected = np.fromfile(f"{out}.rel.bin", dtype=np.float64).reshape(n, n)
    G = pmx.grm(g, method=method)
    assert G.shape == (n, n) and G.dtype == np.float64
    np.testing.assert_array_equal(G, expected)  # the same library call: the same bits
    ids = [l.split() for l in open(f"{out}.rel.id").read().splitlines()[1:]]
    assert [i[1] for i in ids] == list(g.samples.iid)


def test_grm_pair_counts_equal_gcta_n(sim, g, workdir):
    out = cli("grm", "--bfile", str(sim), "--format", "gcta", out=workdir / "g")
    n = g.n_samples
    G, N = pmx.grm(g, pair_counts=True)
    lower = np.tril_indices(n)
    np.testing.assert_array_equal(N[lower].astype(np.float32), np.fromfile(f"{out}.grm.N.bin", dtype=np.float32))
    np.testing.assert_array_equal(G[lower].astype(np.float32), np.fromfile(f"{out}.grm.bin", dtype=np.float32))
    # X (chromosome 3 here) is dropped as the CLI drops it: N counts only chromosomes 1 and 2
    on_autosomes = int(np.sum(g.variants.chrom != "X"))
    assert N.max() <= on_autosomes < g.n_variants


@pytest.mark.parametrize("r2", [True, False])
def test_ld_equals_ld_bin(sim, g, workdir, r2):
    chosen = slice(150, 450)
    ids = g.variants.id[chosen]
    extract = workdir / "extract.txt"
    extract.write_text("".join(f"{i}\n" for i in ids))
    out = cli("ld", "--bfile", str(sim), "--extract", str(extract), "--r2" if r2 else "--r", "square",
              out=workdir / "ld")
    m = len(ids)
    expected = np.fromfile(f"{out}.ld.bin", dtype=np.float64).reshape(m, m)
    R = pmx.ld(g, variants=chosen, r2=r2)
    np.testing.assert_array_equal(R, expected)  # NaN where PLINK has nan, the same bits elsewhere
    # by ID too, and over all variants (the sub-block is the same)
    np.testing.assert_array_equal(pmx.ld(g, variants=list(ids), r2=r2), expected)


def test_pca_equals_eigenval_eigenvec(sim, g, workdir):
    out = cli("pca", "--bfile", str(sim), "--pcs", "4", out=workdir / "p")
    values = np.loadtxt(f"{out}.eigenval")
    vectors = np.loadtxt(f"{out}.eigenvec", usecols=range(2, 6))
    vals, vecs = pmx.pca(g, pcs=4)
    assert vecs.shape == (g.n_samples, 4)
    np.testing.assert_allclose(vals, values, rtol=1e-9)  # .eigenval prints 10 significant digits
    np.testing.assert_allclose(vecs, vectors, rtol=0, atol=1e-10)  # .eigenvec: 10 significant digits
    exact_vals, exact_vecs = pmx.pca(g, pcs=4, exact=True)
    out = cli("pca", "--bfile", str(sim), "--pcs", "4", "--exact", out=workdir / "e")
    np.testing.assert_allclose(exact_vals, np.loadtxt(f"{out}.eigenval"), rtol=1e-9)
    np.testing.assert_allclose(exact_vecs, np.loadtxt(f"{out}.eigenvec", usecols=range(2, 6)), rtol=0, atol=1e-10)


def test_pca_on_hapmap(hapmap, workdir):
    g = pmx.Genotypes.open(hapmap, threads=THREADS)
    out = cli("pca", "--bfile", str(hapmap), "--pcs", "3", out=workdir / "h")
    vals, vecs = pmx.pca(g, pcs=3)
    np.testing.assert_allclose(vals, np.loadtxt(f"{out}.eigenval"), rtol=1e-9)
    np.testing.assert_allclose(vecs, np.loadtxt(f"{out}.eigenvec", usecols=range(2, 5)), rtol=0, atol=1e-10)
    assert len(set(hapmap_populations(hapmap, g.samples.iid))) > 3


def read_table(path):
    rows = [l.split("\t") for l in open(path).read().splitlines()]
    return {r[0]: [float("nan") if x == "NA" else float(x) for x in r[1:]] for r in rows}


def test_gblup_equals_vc_fixef_gebv(sim, g, workdir):
    pheno = read_pheno(f"{sim}.pheno")
    s = g.samples
    y = np.array([pheno[(f, i)] for f, i in zip(s.fid, s.iid)])
    rng = np.random.default_rng(3)
    covar = np.column_stack([rng.standard_normal(g.n_samples), rng.integers(0, 2, g.n_samples).astype(float)])
    covar[17, 1] = np.nan  # missing covariate: predicted, not fitted
    covar_file = workdir / "covar.txt"
    covar_file.write_text("FID IID c1 c2\n" + "".join(
        f"{f} {i} {'NA' if np.isnan(a) else repr(a)} {'NA' if np.isnan(b) else repr(b)}\n"
        for f, i, a, b in zip(s.fid, s.iid, covar[:, 0], covar[:, 1])))
    out = cli("gblup", "--bfile", str(sim), "--pheno", f"{sim}.pheno", "--covar", str(covar_file), out=workdir / "b")
    fit = pmx.gblup(g, y, covariates={"c1": covar[:, 0], "c2": covar[:, 1]})
    vc = read_table(f"{out}.vc")
    # the files print 17 significant digits: the doubles themselves
    assert fit.sigma2_g == vc["sigma2_g"][0] and fit.sigma2_e == vc["sigma2_e"][0]
    assert fit.h2 == vc["h2"][0] and fit.logl == vc["logL"][0]
    assert (fit.se_h2, fit.se_sigma2_g) == (vc["h2"][1], vc["sigma2_g"][1])
    fixef = read_table(f"{out}.fixef")
    assert fit.fixed_names == ["intercept", "c1", "c2"]
    np.testing.assert_array_equal(fit.beta, [fixef[k][0] for k in fit.fixed_names])
    np.testing.assert_array_equal(fit.se_beta, [fixef[k][1] for k in fit.fixed_names])
    gebv = np.loadtxt(f"{out}.gebv", skiprows=1, usecols=(2, 3))
    np.testing.assert_array_equal(fit.gebv, gebv[:, 0])
    np.testing.assert_array_equal(fit.pev, gebv[:, 1])
    assert fit.estimated and any("samples fitted" in line for line in fit.log)


def test_gblup_given_h2_and_matrix_covariates(sim, g, workdir):
    pheno = read_pheno(f"{sim}.pheno")
    y = np.array([pheno[(f, i)] for f, i in zip(g.samples.fid, g.samples.iid)])
    out = cli("gblup", "--bfile", str(sim), "--pheno", f"{sim}.pheno", "--h2", "0.3", "--method", "vanraden",
              "--no-pev", out=workdir / "b")
    fit = pmx.gblup(g, y, h2=0.3, method="vanraden", pev=False)
    assert not fit.estimated and fit.pev is None
    assert fit.h2 == read_table(f"{out}.vc")["h2"][0] == 0.3
    np.testing.assert_array_equal(fit.gebv, np.loadtxt(f"{out}.gebv", skiprows=1, usecols=2))


def test_statistic_errors_carry_the_cli_message(sim, g, workdir):
    y = np.ones(g.n_samples)
    with pytest.raises(pmx.InputError, match="has no variance"):
        pmx.gblup(g, y)
    with pytest.raises(pmx.InputError, match="one per kept sample"):
        pmx.gblup(g, np.ones(5))
    rng = np.random.default_rng(0)
    with pytest.raises(pmx.InputError, match="covariate 'c' is constant"):
        pmx.gblup(g, rng.standard_normal(g.n_samples), covariates={"c": np.full(g.n_samples, 2.0)})
    with pytest.raises(pmx.InputError, match="no genotyped sample has a non-missing value"):
        pmx.gblup(g, np.full(g.n_samples, np.nan))
    # option checks are the library's, with the CLI's text
    with pytest.raises(pmx.InputError) as e:
        pmx.gblup(g, rng.standard_normal(g.n_samples), h2=1.5)
    from conftest import cli_error
    assert str(e.value) == cli_error("gblup", "--bfile", str(sim), "--pheno", f"{sim}.pheno", "--h2", "1.5",
                                     "--out", str(workdir / "e"))
    with pytest.raises(pmx.InputError) as e:
        pmx.gblup(g, rng.standard_normal(g.n_samples), h2=0.5, reml=True)
    assert str(e.value) == cli_error("gblup", "--bfile", str(sim), "--pheno", f"{sim}.pheno", "--h2", "0.5",
                                     "--reml", "--out", str(workdir / "e"))
    with pytest.raises(pmx.InputError) as e:
        pmx.pca(g, pcs=0)
    assert str(e.value) == cli_error("pca", "--bfile", str(sim), "--pcs", "0", "--out", str(workdir / "e"))
    with pytest.raises(pmx.InputError) as e:
        pmx.pca(g, pcs=400)
    assert str(e.value) == cli_error("pca", "--bfile", str(sim), "--pcs", "400", "--out", str(workdir / "e"))
    with pytest.raises(pmx.InputError, match="method must be"):
        pmx.grm(g, method="ibs")
    only_x = g.select(variants=g.variants.chrom == "X")
    with pytest.raises(pmx.InputError, match="no autosomal variants"):
        pmx.grm(only_x)
    with pytest.raises(pmx.InputError) as e:
        pmx.ld(g, variants=slice(0, 10), memory_mb=0)
    assert str(e.value) == cli_error("ld", "--bfile", str(sim), "--r2", "square", "--memory", "0",
                                     "--out", str(workdir / "e"))
