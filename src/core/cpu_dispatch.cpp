#include "core/cpu_dispatch.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <cstdint>
#include <cstdlib>

namespace pmx::kernels::cpu {

bool amx_int8_usable() {
  static const bool usable = [] {
#if !defined(__x86_64__) || !defined(SYS_arch_prctl)
    return false;
#else
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool amx = (d >> 24 & 1) && (d >> 25 & 1);     // AMX-TILE, AMX-INT8
    const bool avx512 = (b >> 16 & 1) && (b >> 30 & 1);  // AVX512F, AVX512BW
    if (!amx || !avx512) return false;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1)) return false;  // OSXSAVE
    uint32_t xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 0xe6) != 0xe6) return false;  // the OS saves SSE, AVX and AVX-512 state
    constexpr int arch_req_xcomp_perm = 0x1023, xfeature_xtiledata = 18;
    return syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0;
#endif
  }();
  return usable;
}

}  // namespace pmx::kernels::cpu
