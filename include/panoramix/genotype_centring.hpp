// The centring and scaling of Z in the genotype products (ops/genotype_gemm.hpp), from allele
// frequencies: Z_ij = s_j (x_ij − 2 p_j). A NaN frequency (no counted call) leaves the variant
// out: p_j = 0 and s_j = 0, so its column of Z is exactly 0. The C API and the Python module
// build the op's arrays here, so both centre the same way.
#pragma once
#include <span>
#include <vector>

#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx {

/// s_j: 1 (none), 1/sqrt(2p(1−p)) (standardized; 0 for a monomorphic variant) or the caller's.
enum class genotype_scaling { none, standardized, user };

/// The op's arrays; `scale` is empty when every s_j = 1 (the op's unscaled path).
struct genotype_centring {
  std::vector<double> p, scale;
  gemm_centring op() const { return {p, scale}; }
};

/// The centring of frequencies `p` (one per variant, NaN = undefined) under `scaling`;
/// `user_scale` (one per variant) is read only for genotype_scaling::user.
genotype_centring make_genotype_centring(std::span<const double> p, genotype_scaling scaling,
                                         std::span<const double> user_scale = {});

}  // namespace pmx
