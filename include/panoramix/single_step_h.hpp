// The single-step relationship matrix H of Legarra, Aguilar & Misztal (2009), dense: an oracle
// for small pedigrees (the single-step solvers work with H⁻¹ and never form H).
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx {

/// H = A + [A₁₂A₂₂⁻¹(G − A₂₂)A₂₂⁻¹A₂₁, A₁₂A₂₂⁻¹(G − A₂₂); (G − A₂₂)A₂₂⁻¹A₂₁, G − A₂₂], where 2
/// indexes the genotyped animals. Computed as H = A + Xᵀ(G − A₂₂)X with X = A₂₂⁻¹A₂. (the rows of
/// A of the genotyped animals, solved by a Cholesky factorisation of A₂₂ on `exec`).
///
/// `A`: n × n pedigree relationship matrix (row-major, symmetric; e.g. relationship_matrix());
/// `genotyped`: the k distinct indices (into A) of the genotyped animals; `G`: k × k genomic
/// relationships in the order of `genotyped` (row-major, symmetric). Returns H, n × n row-major
/// in the order of A. Throws numeric_error when A₂₂ is not positive definite. O(n²k) time.
std::vector<double> single_step_h(const executor& exec, int64_t n, const std::vector<double>& A,
                                  const std::vector<int64_t>& genotyped,
                                  const std::vector<double>& G);

}  // namespace pmx
