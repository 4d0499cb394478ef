// PMX_GEMM_INT8, read where the int8 routes of normwise operands are chosen (cpu: genotype_gemm.cpp,
// cuda: cuda.cu): "0" keeps normwise operands on the componentwise kernels; "require" sends every
// product of a normwise operand to an int8 route and makes it an error where none can run (tests,
// bench); anything else (unset) lets each backend take the route where it pays.
#pragma once
#include <cstdlib>
#include <cstring>

namespace pmx::kernels {

enum class int8_setting { off, automatic, require };

inline int8_setting int8_setting_from_environment() {
  const char* e = std::getenv("PMX_GEMM_INT8");
  if (e && std::strcmp(e, "0") == 0) return int8_setting::off;
  if (e && std::strcmp(e, "require") == 0) return int8_setting::require;
  return int8_setting::automatic;
}

}  // namespace pmx::kernels
