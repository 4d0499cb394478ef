#include "core/cpu_dispatch.hpp"

#include <cstdlib>

namespace pmx::kernels::cpu {

std::string& cpu_isa_override() {
  static std::string name = [] {
    const char* env = std::getenv("PMX_CPU_ISA");
    return std::string(env ? env : "");
  }();
  return name;
}

}  // namespace pmx::kernels::cpu
