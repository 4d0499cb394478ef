// AMX tile set-up shared by the AMX-INT8 kernels (check kernels::cpu::amx_int8_usable() first).
// Included inside an AMX target region (#pragma GCC target, as every instruction-set build).
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace pmx::detail {

struct alignas(64) amx_tile_config {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// GCC 12's tile intrinsics are asm statements that do not tell the compiler which memory they
// read or write (_tile_loadconfig names only the first 8 bytes of the configuration): without
// this barrier around them, stores they depend on may be dropped or moved past them.
inline void amx_memory_barrier() { __asm__ volatile("" ::: "memory"); }

/// All 8 tiles 16 rows × 64 bytes (int8 operands, or 16 × 16 int32 accumulators), on this thread.
inline void amx_configure_full_tiles() {
  amx_tile_config cfg;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  amx_memory_barrier();
  _tile_loadconfig(&cfg);
  amx_memory_barrier();
}

inline void amx_release_tiles() { _tile_release(); }

}  // namespace pmx::detail
