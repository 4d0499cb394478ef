"""g @ L and g.T @ Lt against numpy on the matrix decoded from the .bed in plain numpy."""
import threading
import time

import numpy as np
import pytest

import panoramix as pmx
from conftest import THREADS, decode_bed

U = 2.0 ** -53


@pytest.fixture(scope="module")
def g(sim):
    return pmx.Genotypes.open(sim, threads=THREADS)


@pytest.fixture(scope="module")
def X(sim):
    return decode_bed(sim)


def z_of(X, p, s):
    """Z = s (x - 2p), 0 for a missing call."""
    return np.where(np.isnan(X), 0.0, (X - 2 * p) * s)


def check(got, Z, L):
    """The op's documented bound (componentwise, like a dgemm): |error| <= c u (|Z| |L|), with c
    well below 1000 at these sizes."""
    want = Z @ L
    bound = 1000 * U * (np.abs(Z) @ np.abs(L))
    assert got.shape == want.shape
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) / np.maximum(bound, 1e-300))


def test_default_centring_is_the_founders_frequencies(g, X, sim):
    p = g.frequencies
    np.testing.assert_array_equal(p, g.freq())
    assert np.all(g.scale == 1.0)
    L = np.random.default_rng(0).standard_normal((g.n_variants, 5))
    check(g @ L, z_of(X, p, 1.0), L)
    Lt = np.random.default_rng(1).standard_normal((g.n_samples, 7))
    check(g.T @ Lt, z_of(X, p, 1.0).T, Lt)


def test_standardized_and_user_scaling_and_given_frequencies(sim, X):
    g = pmx.Genotypes.open(sim, threads=THREADS)
    rng = np.random.default_rng(2)
    p = g.freq()
    g.set_centring(scaling="standardized")
    with np.errstate(divide="ignore"):
        s = 1 / np.sqrt(2 * p * (1 - p))
    s[~np.isfinite(s)] = 0
    np.testing.assert_allclose(g.scale, s, rtol=1e-15)
    L = rng.standard_normal((g.n_variants, 3))
    check(g @ L, z_of(X, p, s), L)
    q = rng.uniform(0.05, 0.95, g.n_variants)
    q[7] = np.nan  # undefined: the variant's column is 0
    user = rng.uniform(0.5, 2, g.n_variants)
    g.set_centring(frequencies=q, scaling=user)
    s = user.copy()
    s[7] = 0
    Z = z_of(X, np.nan_to_num(q), s)
    check(g @ L, Z, L)
    Lt = rng.standard_normal((g.n_samples, 2))
    check(g.T @ Lt, Z.T, Lt)
    assert np.all((g.T @ Lt)[7] == 0)


def test_vectors_layouts_and_dtypes(g, X):
    Z = z_of(X, g.frequencies, 1.0)
    rng = np.random.default_rng(4)
    v = rng.standard_normal(g.n_variants)
    y = g @ v
    assert y.shape == (g.n_samples,)
    check(y[:, None], Z, v[:, None])
    wide = rng.standard_normal((g.n_variants, 9))
    sliced = wide[:, 2:6]  # rows contiguous with a stride of 9: used in place
    np.testing.assert_array_equal(g @ sliced, g @ np.ascontiguousarray(sliced))
    fortran = np.asfortranarray(wide[:, :4])  # copied once to C order
    np.testing.assert_array_equal(g @ fortran, g @ np.ascontiguousarray(wide[:, :4]))
    ints = rng.integers(-3, 4, (g.n_variants, 2))
    np.testing.assert_array_equal(g @ ints, g @ ints.astype(np.float64))
    assert (g @ np.zeros((g.n_variants, 0))).shape == (g.n_samples, 0)
    assert g.T.shape == (g.n_variants, g.n_samples) and g.T.T is g


def test_products_on_a_selection(sim, X):
    g = pmx.Genotypes.open(sim, threads=THREADS, keep=slice(20, 200, 2), extract=slice(500, 1500))
    Xs = X[20:200:2, 500:1500]
    p = g.frequencies
    rng = np.random.default_rng(5)
    L = rng.standard_normal((g.n_variants, 3))
    check(g @ L, z_of(Xs, p, 1.0), L)
    Lt = rng.standard_normal((g.n_samples, 3))
    check(g.T @ Lt, z_of(Xs, p, 1.0).T, Lt)


def test_product_errors(g):
    with pytest.raises(pmx.InputError, match="rows; it needs one per kept variant"):
        g @ np.ones((g.n_variants + 1, 2))
    with pytest.raises(pmx.InputError, match="one per kept sample"):
        g.T @ np.ones(g.n_variants)
    bad = np.ones((g.n_variants, 2))
    bad[3, 1] = np.nan
    with pytest.raises(pmx.InputError, match=r"\[3, 1\] is not finite"):
        g @ bad
    with pytest.raises(pmx.InputError, match="vector or a matrix"):
        g @ np.ones((g.n_variants, 2, 2))
    with pytest.raises(pmx.InputError, match="numbers"):
        g @ np.array(["a"] * g.n_variants)
    with pytest.raises(pmx.InputError, match="not a frequency"):
        g.set_centring(frequencies=np.full(g.n_variants, 1.5))
    with pytest.raises(pmx.InputError, match="scaling must be"):
        g.set_centring(scaling="unit")


def test_progress_callback(sim):
    g = pmx.Genotypes.open(sim, threads=THREADS)
    seen = []
    pmx.grm(g, progress=lambda stage, fraction: seen.append((stage, fraction)))
    assert seen and all(0 <= f <= 1 for _, f in seen)

    class Stop(Exception):
        pass

    def stop(stage, fraction):
        raise Stop(stage)

    with pytest.raises(Stop):  # raised again when the call returns
        pmx.grm(g, progress=stop)


def test_long_calls_release_the_gil(hapmap):
    g = pmx.Genotypes.open(hapmap, threads=THREADS)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (pmx.grm(g), done.set()))
    ticks = 0
    start = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    seconds = time.perf_counter() - start
    # With the GIL held for the whole call this loop would barely run; released, it ticks
    # about once a millisecond (sleep's granularity) throughout.
    print(f"{ticks} ticks in {seconds:.2f} s")
    assert seconds > 0.05 and ticks > seconds * 20, (ticks, seconds)
