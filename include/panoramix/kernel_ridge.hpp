// Kernel ridge regression's Associate and Predict phases (the KRR paper's Algorithms 3 and 4): the
// weights W of (K + αI) W = Y for every phenotype column at once, from one factorisation, and
// predictions K_test,train W.
//
// Precisions of the factorisation:
//   fp64      LAPACK / cuSOLVER Cholesky (dense_linalg's cholesky_solve);
//   fp32      the tile Cholesky with every tile in FP32 (tile_cholesky.hpp),
//   adaptive  the tile Cholesky with each off-diagonal tile at the least precise of FP8/BF16/FP16/
//             FP32 the paper's rule allows for `tile_accuracy` (choose_tile_precisions),
// both followed by iterative refinement in FP64 (residuals with the FP64 K) until the normwise
// backward error max_c ‖r_c‖∞ / (‖A‖∞ ‖w_c‖∞ + ‖y_c‖∞) of A = K + αI is at most `accuracy`:
// classical steps (W += M⁻¹r) while each gains a factor 10, then (refinement `automatic`) GMRES-IR
// steps, GMRES on M⁻¹A d = M⁻¹r in FP64 with the factor M = L Lᵀ as preconditioner, which converge
// for a far less accurate factor (Carson & Higham 2018). When the low-precision factor fails (not
// positive definite as rounded) or refinement stops gaining (less than a halving, twice, or
// `max_refinements` steps), the solve is redone in FP64 and the reason recorded: never a worse
// answer in silence.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/tile_cholesky.hpp"

namespace pmx {

enum class solve_precision { fp64, fp32, adaptive };
enum class refinement_method { automatic, classical, gmres };

/// "auto", "classical", "gmres".
const char* refinement_name(refinement_method m);

/// "fp64", "fp32", "adaptive".
const char* solve_precision_name(solve_precision p);

struct kernel_ridge_options {
  solve_precision precision = solve_precision::fp64;
  double accuracy = 1e-8;       ///< backward error that refinement must reach (fp32, adaptive)
  double tile_accuracy = 1e-4;  ///< ε of the tile rule (adaptive)
  int64_t tile = 2048;          ///< tile rows (fp32, adaptive)
  tile_precision lowest = tile_precision::fp8;  ///< least precise format the rule may choose
  int max_refinements = 50;
  refinement_method refinement = refinement_method::automatic;
  double gmres_tolerance = 1e-6;  ///< relative decrease of each column's preconditioned residual per GMRES-IR step
  int gmres_max_steps = 30;       ///< Krylov steps per GMRES-IR step at most
};

struct kernel_ridge_solution {
  int64_t n = 0, traits = 0;
  matrix_buffer<double> W;             ///< n × traits, column-major
  solve_precision used = solve_precision::fp64;  ///< fp64 after a fallback
  tile_precision_map map;              ///< tiles of the low-precision factor (empty for fp64)
  int refinements = 0;                 ///< refinement steps taken
  int gmres_steps = 0;                 ///< Krylov steps over all GMRES-IR steps
  double backward_error = 0;           ///< of the returned W
  std::string fallback;                ///< why the solve fell back to FP64 (empty: it did not)
  /// Wall seconds: precision map, the factorisation's stages (tile_cholesky), refinement, fp64.
  std::vector<std::pair<std::string, double>> stage_seconds;
};

/// Checks the options (named input_errors: accuracy, tile accuracy, tile size, refinement cap).
void check_kernel_ridge_options(const kernel_ridge_options& opt);

/// Solves (K + αI) W = Y. K: n × n symmetric, row-major (or column-major: the same), not changed;
/// host memory, or device memory on cuda for fp32/adaptive (their FP64 fallback then factorises a
/// device copy); Y: n × traits, column-major, host memory. Throws numeric_error when K + αI is not
/// positive definite in FP64.
kernel_ridge_solution solve_kernel_ridge(const executor& exec, int64_t n, const double* K, double alpha,
                                         int64_t traits, const double* Y, const kernel_ridge_options& opt);

/// solve_kernel_ridge over the ranks of exec.comm(): K in tile_cholesky's tile-cyclic layout with
/// tile opt.tile — this rank's columns (n × tile_cyclic_width, leading dimension n; host memory, or
/// device memory on cuda); Y the same on every rank, and the solution the same on every rank.
/// fp32/adaptive: the tile Cholesky over ranks (cuda; elsewhere solved in FP64, the reason in
/// `fallback`); fp64 and every fallback: ScaLAPACK over the ranks' CPUs (distributed_cholesky.hpp)
/// on host copies of the ranks' columns. One rank: the form above. Collective.
kernel_ridge_solution solve_kernel_ridge(const executor& exec, over_ranks_t, int64_t n, const double* K, double alpha,
                                         int64_t traits, const double* Y, const kernel_ridge_options& opt);

/// The normwise backward error above for W (n × traits, column-major) as a solution of
/// (K + αI) W = Y.
double kernel_ridge_backward_error(const executor& exec, int64_t n, const double* K, double alpha, int64_t traits,
                                   const double* W, const double* Y);

/// Mean squared prediction error and Pearson correlation of predictions with observations over
/// the entries where neither is NaN (a TEST sample without a covariate has no prediction); NaN
/// when fewer than 2 / no variance.
struct prediction_accuracy {
  int64_t n = 0;
  double mspe = 0, pearson = 0;
};
prediction_accuracy measure_prediction(const std::vector<double>& observed, const std::vector<double>& predicted);

}  // namespace pmx
