// The one place the library's settings are read from the environment (front ends call it).
#include "panoramix/tuning.hpp"

#include <cstdlib>

#include "panoramix/error.hpp"

namespace pmx {

namespace {
std::string variable(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
[[noreturn]] void refuse(const char* name, const std::string& value, const char* expected) {
  throw input_error(std::string(name) + " must be " + expected + ", not '" + value + "'");
}
}  // namespace

tuning tuning::from_environment() {
  tuning t;
  t.cpu_isa = variable("PMX_CPU_ISA");
  if (const std::string mb = variable("PMX_CUDA_MEMORY_MB"); !mb.empty()) {
    char* end = nullptr;
    const long long v = std::strtoll(mb.c_str(), &end, 10);
    if (*end != '\0' || v <= 0) refuse("PMX_CUDA_MEMORY_MB", mb, "a positive number of MiB");
    t.cuda_memory_mb = v;
  }
  if (const std::string m = variable("PMX_CUDA_BINARY_MMA"); !m.empty()) {
    if (m == "sync") t.binary_mma = mma::sync;
    else if (m == "wgmma") t.binary_mma = mma::wgmma;
    else refuse("PMX_CUDA_BINARY_MMA", m, "sync or wgmma");
  }
  if (const std::string i = variable("PMX_GEMM_INT8"); i == "0") t.gemm_int8 = int8::off;
  else if (i == "require") t.gemm_int8 = int8::require;
  t.gemm_m8 = variable("PMX_GEMM_MMA") == "m8";
  t.gemm_ztl_mt4 = variable("PMX_GEMM_ZTL") == "mt4";
  t.gemm_narrow = variable("PMX_GEMM_NARROW") != "0";
  if (const std::string r = variable("PMX_TABLE_CROSSPROD"); r == "amx") t.table_crossprod = route::amx;
  else if (r == "blas") t.table_crossprod = route::blas;
  else if (!r.empty() && r != "auto") refuse("PMX_TABLE_CROSSPROD", r, "auto, amx or blas");
  t.ainv_on_device = variable("PMX_AINV_GPU") != "0";
  t.pcg_on_device = variable("PMX_PCG_GPU") != "0";
  return t;
}

}  // namespace pmx
