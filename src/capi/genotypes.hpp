// pmx_genotypes: kept genotypes (memory-mapped .bed or a compacted copy) with their records, as a
// pmx::genotype_source the library's statistics read, the gemm operand built on them
// (device-resident on cuda), and the centring (p) and scaling (s) chosen by the caller.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "capi/thread_messages.hpp"
#include "panoramix/panoramix.h"
#include "panoramix/executor.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "panoramix/plink_files.hpp"

struct pmx_genotypes {
  pmx::capi::thread_messages messages;

  // Data. Declared before the operand, which views them (members are destroyed in reverse).
  pmx::executor exec;
  std::unique_ptr<pmx::plink_fileset> files;  // .bed handles: records and the mapped .bed
  // Kept samples x kept variants with their records (none for in-memory bytes): a view of the
  // mapped .bed when nothing is dropped, else a compacted copy.
  std::optional<pmx::memory_genotypes> kept;
  pmx::variant_major_view view;               // kept->view()
  std::vector<int64_t> sample_index, variant_index;  // into .fam/.bim (or the given rows)
  std::optional<pmx::gemm_operand> operand;

  // Centring and scaling; writers hold `mutex` exclusively, multiplies hold it shared.
  mutable std::shared_mutex mutex;
  bool have_frequencies = false;
  std::vector<double> p;           // as computed or set; NaN = undefined
  int scaling = PMX_SCALE_NONE;    // enum pmx_scaling
  std::vector<double> user_scale;  // PMX_SCALE_USER
  // What the op gets: p with NaN replaced by 0, and s (empty when every s_j = 1).
  std::vector<double> p_op, s_op;

  explicit pmx_genotypes(const pmx::executor& e) : exec(e) {}

  int64_t n_samples() const { return view.n_samples; }
  int64_t n_variants() const { return view.n_variants; }
  /// Recomputes p_op and s_op from p, scaling and user_scale (caller holds mutex exclusively).
  void update_centring();
};
