// Outputs of the pedigree / single-step evaluation (single_step_analysis.hpp), as
// `panoramix ssblup` writes them:
//   PREFIX.iter   iteration, relative_residual, cumulative seconds: all, in the genotype products,
//                 in the pedigree terms (A⁻¹, A_gg⁻¹) (header; one line per PCG iteration)
//   PREFIX.sol    effect level trait value (header; reference levels 0; level "-" where none)
//   PREFIX.ebv    ID + one column per trait, every pedigree animal in its parents-first order
//   PREFIX.snp    ssSNPBLUP only: SNP A1 p + one effect column per trait
// and, while PCG runs, PREFIX.iter.part (the history so far).
// Layer: formats (src/formats), above stats: writes statistics' results; cli and capi call it.
#pragma once
#include <cstdio>
#include <string>

#include "panoramix/output_file.hpp"
#include "panoramix/single_step_analysis.hpp"

namespace pmx {

/// Adds PREFIX.iter to `out`, and, when PCG converged, PREFIX.sol, PREFIX.ebv and (ssSNPBLUP)
/// PREFIX.snp. Without convergence the front end fails the run (single_step_not_converged). The
/// EBV and SNP lines are formatted on `threads` threads (0: all); the bytes do not depend on them.
void write_single_step(output_group& out, const std::string& prefix, const single_step_analysis& r,
                       int threads = 0);

/// The error a front end reports when PCG did not converge (only PREFIX.iter written).
std::string single_step_not_converged(const single_step_analysis& r, const std::string& prefix);

/// PREFIX.iter.part: PCG's history while it runs, a line per iteration, flushed (a run that is
/// stopped keeps it); removed when this object goes (the finished PREFIX.iter replaces it).
class pcg_progress_file {
 public:
  /// Creates the file with its header; throws io_error when it cannot.
  explicit pcg_progress_file(const std::string& prefix);
  ~pcg_progress_file();
  pcg_progress_file(const pcg_progress_file&) = delete;
  pcg_progress_file& operator=(const pcg_progress_file&) = delete;
  /// One iteration (single_step_options::on_iteration's arguments).
  void add(const pcg_iteration& h, double genotype_seconds, double pedigree_seconds);

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace pmx
