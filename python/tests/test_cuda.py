"""device="cuda": the products and statistics on the GPU against the CPU. Without a GPU these are
skipped and say so (make test runs on the CPU); the CTest test python.pytest_cuda (label cuda)
sets PMX_REQUIRE_CUDA=1, which ends the run with status 77 instead: CTest reports the test as
skipped, as it does the C++ cuda tests on a machine without a GPU, never as passed."""
import os

import numpy as np
import pytest

import panoramix as pmx
from conftest import THREADS


@pytest.fixture(scope="module")
def gpu(sim):
    if not pmx.cuda_available():
        with pytest.raises(pmx.UnsupportedError) as e:  # the CLI's refusal, as a Python exception
            pmx.Genotypes.open(sim, device="cuda")
        assert isinstance(e.value, NotImplementedError)
        reason = ("device='cuda' tests skipped: " + ("no GPU visible" if pmx.cuda_compiled_in() else
                                                     "this build has no CUDA backend") +
                  " (they run on a GPU machine: ctest -L cuda)")
        if os.environ.get("PMX_REQUIRE_CUDA") == "1":
            pytest.exit(reason, returncode=77)
        pytest.skip(reason)
    return pmx.Genotypes.open(sim, device="cuda", threads=THREADS)


@pytest.fixture(scope="module")
def cpu(sim):
    return pmx.Genotypes.open(sim, device="cpu", threads=THREADS)


def test_products_on_cuda_equal_cpu(gpu, cpu):
    assert gpu.device == "cuda"
    rng = np.random.default_rng(1)
    for l in (1, 3, 40):
        L = rng.standard_normal((gpu.n_variants, l))
        Lt = rng.standard_normal((gpu.n_samples, l))
        # both backends within the op's componentwise bound of the exact product (genotype_gemm.hpp)
        np.testing.assert_allclose(gpu @ L, cpu @ L, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(gpu.T @ Lt, cpu.T @ Lt, rtol=1e-11, atol=1e-11)


def test_statistics_on_cuda_equal_cpu(gpu, cpu):
    np.testing.assert_allclose(pmx.grm(gpu), pmx.grm(cpu), rtol=1e-12, atol=1e-14)  # README: 1e-12 relative
    np.testing.assert_array_equal(pmx.ld(gpu, variants=slice(0, 300)), pmx.ld(cpu, variants=slice(0, 300)))
    gv, _ = pmx.pca(gpu, pcs=3)
    cv, _ = pmx.pca(cpu, pcs=3)
    np.testing.assert_allclose(gv, cv, rtol=1e-9)
