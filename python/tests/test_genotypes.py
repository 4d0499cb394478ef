"""Genotypes.open, its tables and selections, against the .fam/.bim text and the CLI's --keep/--extract."""
import numpy as np
import pytest

import panoramix as pmx
from conftest import THREADS, cli_error, read_afreq, run_cli


def test_dimensions_and_tables_match_the_fileset(sim):
    g = pmx.Genotypes.open(sim, threads=THREADS)
    fam = [l.split() for l in open(f"{sim}.fam")]
    bim = [l.split() for l in open(f"{sim}.bim")]
    assert g.shape == (len(fam), len(bim)) == (g.n_samples, g.n_variants)
    s, v = g.samples, g.variants
    assert list(s.fid) == [f[0] for f in fam] and list(s.iid) == [f[1] for f in fam]
    assert list(s.father) == [f[2] for f in fam] and list(s.sex) == [int(f[4]) for f in fam]
    assert list(v.chrom) == [b[0] for b in bim] and list(v.id) == [b[1] for b in bim]
    assert list(v.pos) == [int(b[3]) for b in bim]
    assert list(v.a1) == [b[4] for b in bim] and list(v.a2) == [b[5] for b in bim]
    assert g.device == "cpu" and g.threads == THREADS
    assert "300 samples x 2000 variants" in repr(g)


def test_keep_and_extract_files_select_as_the_cli(sim, workdir):
    fam = [l.split() for l in open(f"{sim}.fam")]
    bim = [l.split() for l in open(f"{sim}.bim")]
    keep, extract = workdir / "keep.txt", workdir / "extract.txt"
    keep.write_text("".join(f"{f[0]} {f[1]}\n" for f in fam[10:60:3]))
    extract.write_text("".join(f"{b[1]}\n" for b in bim[100:400:2]))
    g = pmx.Genotypes.open(sim, keep=keep, extract=extract, threads=THREADS)
    out = workdir / "k"
    run_cli("freq", "--bfile", str(sim), "--keep", str(keep), "--extract", str(extract), "--out", str(out),
            "--threads", str(THREADS))
    p, obs = read_afreq(f"{out}.afreq")
    assert g.shape == (len(range(10, 60, 3)), len(range(100, 400, 2)))
    assert list(g.samples.iid) == [f[1] for f in fam[10:60:3]]
    assert list(g.sample_index) == list(range(10, 60, 3))
    assert list(g.variant_index) == list(range(100, 400, 2))
    got_p, got_obs = g.freq(counts=True)
    np.testing.assert_array_equal(got_obs, obs)
    np.testing.assert_allclose(got_p, p, rtol=5e-6)  # the file prints 6 significant digits


def test_keep_and_extract_by_id_index_mask_and_slice_agree(sim):
    g = pmx.Genotypes.open(sim, threads=THREADS)
    iids = list(g.samples.iid[[3, 9, 27]])
    ids = list(g.variants.id[5:50])
    by_id = pmx.Genotypes.open(sim, keep=iids, extract=ids)
    by_pair = pmx.Genotypes.open(sim, keep=[(g.samples.fid[i], g.samples.iid[i]) for i in (3, 9, 27)],
                                 extract=slice(5, 50))
    mask = np.zeros(g.n_samples, dtype=bool)
    mask[[3, 9, 27]] = True
    by_mask = g.select(samples=mask, variants=list(range(5, 50)))
    for h in (by_id, by_pair, by_mask):
        assert list(h.sample_index) == [3, 9, 27]
        assert list(h.variant_index) == list(range(5, 50))
    # a selection of a selection indexes the kept ones
    assert list(by_mask.select(samples=[1], variants=slice(0, 2)).variant_index) == [5, 6]


def test_open_errors_carry_the_cli_message(sim, workdir):
    missing = str(workdir / "nothere")
    with pytest.raises(pmx.InputError) as e:
        pmx.Genotypes.open(missing)
    assert str(e.value) == cli_error("freq", "--bfile", missing, "--out", str(workdir / "e"))
    assert isinstance(e.value, ValueError) and isinstance(e.value, pmx.Error)

    bad = workdir / "bad"
    for ext in ("bed", "fam"):
        (workdir / f"bad.{ext}").write_bytes(open(f"{sim}.{ext}", "rb").read())
    lines = open(f"{sim}.bim").read().splitlines()
    lines[41] = "1\trs_short\t0"  # too few columns
    (workdir / "bad.bim").write_text("\n".join(lines) + "\n")
    with pytest.raises(pmx.InputError) as e:
        pmx.Genotypes.open(bad)
    assert str(e.value) == cli_error("freq", "--bfile", str(bad), "--out", str(workdir / "e"))

    keep = workdir / "nobody.txt"
    keep.write_text("nofam noone\n")
    with pytest.raises(pmx.InputError) as e:
        pmx.Genotypes.open(sim, keep=keep)
    assert str(e.value) == cli_error("freq", "--bfile", str(sim), "--keep", str(keep), "--out", str(workdir / "e"))


def test_bad_selections_and_options_raise(sim):
    with pytest.raises(pmx.InputError, match="not a kept ID"):
        pmx.Genotypes.open(sim, keep=["no-such-sample"])
    with pytest.raises(pmx.InputError, match="out of range"):
        pmx.Genotypes.open(sim, extract=[5, 100000])
    with pytest.raises(pmx.InputError, match="mask needs 300 flags"):
        pmx.Genotypes.open(sim, keep=[True, False])
    with pytest.raises(pmx.InputError, match="keeps no variant"):
        pmx.Genotypes.open(sim).select(variants=np.zeros(2000, dtype=bool))
    with pytest.raises(pmx.InputError):
        pmx.Genotypes.open(sim, chr_set=200)
    with pytest.raises(pmx.InputError):
        pmx.Genotypes.open(sim, species="unicorn")
    with pytest.raises(pmx.InputError):
        pmx.Genotypes.open(sim, threads=-3)
