// Genomic control (Devlin & Roeder 1999): the inflation factor λ_GC of a genome scan's test
// statistics, the median of their 1-df χ² values over the χ²₁ median.
#pragma once
#include <span>

namespace pmx {

/// The 1-df χ² value whose upper tail is `p` (R's qchisq(1 - p, 1), computed from the upper
/// tail so that small P keep their precision); +inf for p = 0.
double chi2_1df_upper_quantile(double p);

/// λ_GC = median(χ²₁ of `p`) / qchisq(0.5, 1) (0.4549364...); an even count takes the mean of the
/// two middle χ² values, as R's median(). `p` must not be empty; every value in [0, 1].
double genomic_control_lambda(std::span<const double> p);

}  // namespace pmx
