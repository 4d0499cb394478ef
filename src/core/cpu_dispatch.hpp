// Run-time choice among per-instruction-set builds of a kernel family. The library is built for
// baseline x86-64; each family lists the builds this CPU supports, best first, and the executor's
// tuning().cpu_isa (PMX_CPU_ISA at the front ends) forces one by name for every family at once.
#pragma once
#include <string>
#include <vector>

#include "panoramix/error.hpp"

namespace pmx::kernels::cpu {

/// True when the CPU has AMX-INT8 tiles (with AVX-512 F/BW beside them) and the OS lets this
/// process use them: Linux hands out the 8 KiB tile state only after arch_prctl(ARCH_REQ_XCOMP_PERM,
/// XFEATURE_XTILEDATA), which this asks for once (the permission is process-wide, so OpenMP
/// threads created before or after may use the tiles). Cached after the first call.
bool amx_int8_usable();

/// The entry of `supported()` (a vector of structs with a `const char* isa`, best first) named
/// `want`, else the first when `want` is empty. Cached per thread and per family until `want`
/// changes.
template <class Kernels, class Supported>
const Kernels& choose_cpu_isa(const std::string& want, Supported supported) {
  static thread_local std::string chosen_for = "\x01";
  static thread_local Kernels chosen{};
  if (chosen_for != want) {
    const std::vector<Kernels> all = supported();
    if (all.empty()) throw unsupported_error("this CPU lacks the instructions these kernels need");
    chosen = all.front();
    if (!want.empty()) {
      bool found = false;
      for (const auto& k : all)
        if (want == k.isa) chosen = k, found = true;
      if (!found) throw unsupported_error("PMX_CPU_ISA=" + want + " is not supported on this CPU");
    }
    chosen_for = want;
  }
  return chosen;
}

}  // namespace pmx::kernels::cpu
