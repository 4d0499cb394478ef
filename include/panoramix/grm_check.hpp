// A GRM checked before a mixed model uses it as the covariance of the genetic values (gBLUP's
// Var(g) = σ²_g G): finite entries, not all zero, positive semi-definite. A G that fails is
// refused with a named error (an indefinite G computed from genotypes: noted, see
// grm_indefinite) unless the user asked for a repair, which is then applied and reported:
//   * add_diagonal X: G + X·I (X > 0), the usual fix for a GRM that is singular or slightly
//     indefinite (GCTA users know it as adding a small value to the diagonal);
//   * bend: G = U Λ Uᵀ, eigenvalues below 1e-4 × the mean eigenvalue raised to that floor, then all
//     of them scaled so that the trace (the sum of the diagonal) is unchanged (the bending of
//     Jorjani et al. 2003 / GCTA's --grm-bend idea; one full eigendecomposition, O(n³)).
// Positive semi-definite here means: the Cholesky factorisation of G + δ·I succeeds with
// δ = 1e-6 × the mean diagonal of G (rounding, e.g. float32 storage of a singular GRM, moves zero
// eigenvalues by far less; a GRM with a real negative eigenvalue fails).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx {

struct grm_repair_options {
  bool bend = false;
  std::optional<double> add_diagonal;  ///< X > 0, finite
};

/// What a G that is not positive semi-definite (after the repair asked for) leads to: refusal
/// (a GRM read from a file: it should be a covariance matrix), or a note for the log (a GRM
/// computed from genotypes with pairwise called counts, PLINK's standardised matrix, can have
/// negative eigenvalues when calls are missing; REML then bounds h² so that h²G + (1−h²)I stays
/// positive definite, as it always has).
enum class grm_indefinite { refuse, note };

/// Relative shift of the positive semi-definiteness test (see the header comment).
inline constexpr double grm_psd_tolerance = 1e-6;
/// Eigenvalue floor of bending, relative to the mean eigenvalue.
inline constexpr double grm_bend_floor = 1e-4;

/// Checks (and, when asked, repairs in place) G, n × n symmetric row-major. `source` names where G
/// came from in messages ("--grm file 'P.grm.bin'", "G computed from --bfile data"); `fid`/`iid`
/// name the samples of its rows (for the row of a failing leading minor). Returns the lines to log
/// (the repair applied and its size). Throws input_error for a non-finite entry (row, column,
/// value; 1-based), an all-zero G, a repair value that is not a finite number > 0, both repairs
/// at once, and (with grm_indefinite::refuse; a note otherwise) a G that is not positive
/// semi-definite after the repair asked for (the message gives the failing leading minor and, for
/// n ≤ 4000, the smallest eigenvalue).
std::vector<std::string> check_grm_for_model(const executor& exec, int64_t n, double* G,
                                             const std::vector<std::string>& fid,
                                             const std::vector<std::string>& iid,
                                             const grm_repair_options& repair, const std::string& source,
                                             grm_indefinite indefinite = grm_indefinite::refuse);

}  // namespace pmx
