// compute_grm into the caller's n×n buffer: for statistics that keep G in storage of their own
// (single step's dense G̃ = (1−w)G + wA_gg) and so share the one GRM pass without a copy.
#pragma once
#include "panoramix/grm.hpp"

namespace pmx::detail {

/// compute_grm writing G (n×n, row-major, symmetric; every entry overwritten; over ranks, this
/// rank's rows, result.row_begin to row_end) to `G` instead of the result, whose G stays empty.
grm_result compute_grm_into(const executor& exec, const genotype_source& data, const grm_options& opt,
                            double* G, progress_sink* progress);

}  // namespace pmx::detail
