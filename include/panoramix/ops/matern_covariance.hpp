// Op: the Whittle–Matérn covariance C(h) = σ² 2^{1−ν}/Γ(ν) (√(2ν)h/ρ)^ν K_ν(√(2ν)h/ρ) and its
// parameter derivatives over an array of distances h (thesis §5.2).
//
// Route `quadrature` (every backend): with a = νh²/(2ρ²),
//   C/σ² = Γ(ν)⁻¹ ∫₀^∞ exp(−a/u − u) u^{ν−1} du                          (thesis eq. 5.5)
// by exp-sinh quadrature on one fixed table of 2,720 nodes (δ = 1/256, the thesis' truncation
// rule for doubles; quadrature_table.hpp), the integrand in log form. Where C > σ²/2 the direct
// form cancels in the derivatives and in 1 − C, so the complement (integrated by parts, both terms
// positive) is summed instead:
//   1 − C/σ² = Γ(ν+1)⁻¹ ∫₀^∞ [(1 − e^{−a/u}) u^ν e^{−u} + a u^{ν−2} e^{−a/u−u}] du.
// ν-derivatives differentiate under the integral on the same nodes; with I the integral,
// ψ digamma and ψ′ trigamma (C = I/Γ):
//   C′ = I′/Γ − ψ C,   C″ = I″/Γ − 2ψ C′ − (ψ² + ψ′) C
// (the thesis' printed C″ misses the ψ² C term). dC/dρ = (2/ρ) σ² Γ(ν)⁻¹ ∫ a u^{ν−2} e^{−a/u−u} du
// (the second complement term: no cancellation), dC/dσ² = C/σ².
//
// Domain: the table's smallest node is u₀ = 2.4e-16 (the thesis' truncation at the machine
// epsilon), so the integrals are complete only where e^{−a/u} has vanished below u₀, i.e. for
// a = νh²/(2ρ²) ≥ 1e-12 (h ≥ 1.4e-6 ρ/√ν; the thesis' grid has a ≥ 5e-13, where the tests show
// the accuracy). Below that the part of the integrals under u₀ is lost, and for small ν that is
// most of 1 − C/σ² (against the closed form: 3e-16 off at ν = 1e-4, a = 1e-13, but C/σ² = 0.64
// for 0.0036 at a = 1e-16, and 1 for 0.065 at a = 1e-290; at ν = 0.1, 1.7e-2 off at a = 1e-16;
// at ν ≥ 1 C is within a of σ² and nothing shows); front ends count such distances in their log
// (matern_small_distance). The trapezoid and bessel routes hold there (below).
//
// Route `trapezoid` (every backend; src/ops/matern_covariance/trapezoid.hpp): the same integrals
// (direct and complement forms, the same ν-derivative identities) by the trapezoid rule in s = ln u
// at δ = 1/16, where the integrands are analytic in |Im s| < π/2 and decay double-exponentially.
// Everything that depends on ν alone (u^ν e^{−u} at the nodes, prefix sums of the complement's left
// tail, Taylor moments of the right tail in a/u ≤ ln 2) is tabulated once per call, so a distance
// costs 72 (a ≤ 4) or 88 exps and four 20-term Horner sums. Where the integrand's peak is too narrow
// for δ (κ = u* + a/u* > 100: x = √(2ν)h/ρ beyond ~100 at small ν, or ν beyond ~90) or a < 1e-300,
// that distance takes the exp-sinh sums instead (which are wrong for a < 1e-13 at small ν: see
// Domain above; a < 1e-300 means h < 1.4e-150 ρ/√ν). It is the more accurate route on the tests'
// grid and below it: against Arb to a = 1e-100 (C to a = 1e-290; derivatives below ~1e-250 lose
// their relative accuracy, their terms' products underflowing).
//
// Route `bessel`: the closed form. Reference and cpu backends: Boost.Math cyl_bessel_k; dC/dρ in
// closed form (K_{ν−1}); ν-derivatives by 5-point central differences of the closed form (step
// 2.5e-3·ν): what a user without the quadrature would write, accurate to ~1e-9 (dC/dν) and ~1e-6
// (d²C/dν²) relative only; the benchmark reports their error. Cuda backend: K_ν by Temme's series
// (x ≤ 2) or Steed's continued fraction (x > 2) and the forward recurrence, in host-device code
// (src/ops/matern_covariance/bessel_k.hpp): C, dC/dσ², dC/dρ only (ν-derivatives: unsupported_error).
//
// Backends (quadrature): reference (every node of the table, plain loops: the oracle), cpu (OpenMP
// over the distances; each sum walks outward from the integrand's peak and stops 60 e-folds below
// it), cuda (the table in constant memory, one thread per distance, one pass for C and every
// derivative; h and the outputs in host memory, or device memory, detected per pointer). The
// trapezoid and cuda Bessel routes run the same per-distance code on every backend (serially on
// reference); on cuda the trapezoid's per-call table lives in global memory.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"

namespace pmx {

/// Parameters of C_{ρ,ν,σ²}. Valid: σ² > 0, ρ > 0, ν > 0 (≤ matern_max_nu but for `bessel`), all finite.
struct matern_params {
  double sigma2 = 1;
  double rho = 1;
  double nu = 0.5;
};

/// Largest ν of the quadrature route (Γ(ν+1) stays finite in double beyond it only to 170).
inline constexpr double matern_max_nu = 150;

enum class matern_method { quadrature, bessel, trapezoid };

/// Outputs, each n entries (null = not computed). Same memory space as the distances.
struct matern_outputs {
  double* C = nullptr;
  double* dsigma2 = nullptr;  ///< ∂C/∂σ²
  double* drho = nullptr;     ///< ∂C/∂ρ
  double* dnu = nullptr;      ///< ∂C/∂ν
  double* d2nu = nullptr;     ///< ∂²C/∂ν²
};

/// Evaluates the requested outputs at the n distances h (each finite and >= 0; h = 0 gives σ² and
/// zero derivatives). Throws logic_error on invalid parameters or distances (front ends validate
/// first and name the input; distances in device memory are not checked), unsupported_error for
/// ν-derivatives of `bessel` on cuda or cuda not compiled in. `quadrature` and `trapezoid` need
/// ν ≤ matern_max_nu. `table_stride` k ∈ {1, 2, 4, 8} (quadrature only) uses every k-th node
/// (step kδ): 1 is the accuracy the tests show; 4 (δ = 1/64) is the thesis' Table 5.2 setting.
void matern_covariance(const executor& exec, const matern_params& p, matern_method method, const double* h,
                       int64_t n, const matern_outputs& out, int table_stride = 1);

/// True where h lies below the quadrature table's domain (h > 0 and νh²/(2ρ²) < 1e-12, which may
/// have underflowed to 0; see above).
inline bool matern_small_distance(const matern_params& p, double h) {
  return h > 0 && p.nu * h * h / (2 * p.rho * p.rho) < 1e-12;
}

/// The same for a route: quadrature as above; trapezoid for h > 0 with a < 1e-300 (h² may
/// underflow; there it uses the exp-sinh sums); bessel never (its closed form holds to x ~ 1e-308).
inline bool matern_small_distance(const matern_params& p, double h, matern_method m) {
  if (m == matern_method::bessel) return false;
  if (m == matern_method::quadrature) return matern_small_distance(p, h);
  return h > 0 && p.nu * h * h / (2 * p.rho * p.rho) < 1e-300;
}

/// "quadrature", "bessel" or "trapezoid".
const char* matern_method_name(matern_method m);

}  // namespace pmx
