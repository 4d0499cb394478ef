// Pieces of the KRR and RR outputs that both write the same way (krr_files.cpp, rr_files.cpp).
#pragma once
#include <string>
#include <vector>

#include "panoramix/kernel_ridge.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::detail {

/// Header `FID IID trait...`, then per sample its IDs and one value per trait (values column-major,
/// samples × traits; %.17g, NA for NaN).
void write_sample_columns(output_file& f, const std::vector<std::string>& traits, const std::vector<std::string>& fid,
                          const std::vector<std::string>& iid, const double* values);

/// PREFIX.eval (`trait n mspe pearson_r`) when some trait has a measured accuracy; adds its name
/// to `names`.
void write_prediction_eval(output_group& out, const std::string& prefix, const std::vector<std::string>& traits,
                           const std::vector<prediction_accuracy>& accuracy, std::string& names);

/// PREFIX.precision for a fp32/adaptive solve (nothing for fp64); adds its name to `names`.
void write_precision_map(output_group& out, const std::string& prefix, const kernel_ridge_solution& s,
                         std::string& names);

}  // namespace pmx::detail
