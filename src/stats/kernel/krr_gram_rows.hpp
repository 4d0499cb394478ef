// KRR's Associate and Predict from a Gram matrix held whole or split by rows over the ranks of a
// distributed executor (kernel_matrix.hpp's compute_genotype_gram over ranks).
#pragma once
#include <cstdint>
#include <span>

#include "panoramix/executor.hpp"
#include "panoramix/kernel_matrix.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "panoramix/matrix_buffer.hpp"

namespace pmx::detail {

/// This rank's tile-cyclic columns (tile `tile`; n × tile_cyclic_width, leading dimension n, n the
/// number of `fitted`) of K, g's kernel between the `fitted` samples (ascending indices of g;
/// Gaussian: with `gamma` and the covariates' distances) — what solve_kernel_ridge(over_ranks)
/// takes. Over ranks (g split by rows) each rank makes the kernel rows of the fitted samples among
/// its rows of g and sends each to the rank whose columns hold it (K symmetric: a row is a column);
/// collective. One rank: the whole K, made in place.
matrix_buffer<double> tile_cyclic_kernel(const executor& exec, const genotype_gram& g, double gamma,
                                         const double* covariates, int64_t n_covariates,
                                         std::span<const int64_t> fitted, int64_t tile);

/// P (rows.size() × traits, column-major) = K(rows, fitted) W: each rank the rows of g it holds,
/// then summed over the ranks (each entry from one rank: exact), the same on every rank.
void predict_from_gram(const executor& exec, const genotype_gram& g, double gamma, const double* covariates,
                       int64_t n_covariates, std::span<const int64_t> rows, std::span<const int64_t> fitted,
                       const double* W, int64_t traits, double* P);

}  // namespace pmx::detail
