// The AMX-INT8 tile loop of the cpu genotype products (cpu_amx.cpp), in its own header so that
// bench_amx_tiles measures this loop and not a copy. Check kernels::cpu::amx_int8_usable() and
// configure the tiles (core/amx_tiles.hpp) first. Included inside an AMX target region.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "core/amx_tiles.hpp"

namespace pmx::kernels::cpu {

constexpr int64_t amx_tile_bytes = 1024;  // an int8 tile (16 × 64) or an int32 tile (16 × 16)

// Accumulator tiles C[a][b] (row-major over na × nb tiles) += Σ_{s < steps} A[s · as + a KiB] ·
// B[s · bs + b KiB] for a in [a0, a0 + MA), b in [b0, b0 + MB) (MA, MB ∈ {1, 2}): up to 2 × 2
// accumulators (tiles 0-3), A in tiles 4-5, B in tiles 6-7. A signed (digits) and B unsigned
// (dosages), or the other way round.
template <bool a_signed, int MA, int MB>
inline void tile_block(const uint8_t* A, int64_t as, const uint8_t* B,
                                                                   int64_t bs, int64_t steps, int32_t* C, int nb,
                                                                   int a0, int b0) {
  int32_t* c0 = C + (int64_t{a0} * nb + b0) * 256;
  int32_t* c1 = c0 + int64_t{nb} * 256;
  _tile_loadd(0, c0, 64);
  if constexpr (MB == 2) _tile_loadd(1, c0 + 256, 64);
  if constexpr (MA == 2) _tile_loadd(2, c1, 64);
  if constexpr (MA == 2 && MB == 2) _tile_loadd(3, c1 + 256, 64);
  for (int64_t s = 0; s < steps; ++s) {
    const uint8_t* ap = A + s * as + a0 * amx_tile_bytes;
    const uint8_t* bp = B + s * bs + b0 * amx_tile_bytes;
    _tile_loadd(4, ap, 64);
    _tile_loadd(6, bp, 64);
    if constexpr (MB == 2) _tile_loadd(7, bp + amx_tile_bytes, 64);
    if constexpr (MA == 2) _tile_loadd(5, ap + amx_tile_bytes, 64);
    if constexpr (a_signed) {
      _tile_dpbsud(0, 4, 6);
      if constexpr (MB == 2) _tile_dpbsud(1, 4, 7);
      if constexpr (MA == 2) _tile_dpbsud(2, 5, 6);
      if constexpr (MA == 2 && MB == 2) _tile_dpbsud(3, 5, 7);
    } else {
      _tile_dpbusd(0, 4, 6);
      if constexpr (MB == 2) _tile_dpbusd(1, 4, 7);
      if constexpr (MA == 2) _tile_dpbusd(2, 5, 6);
      if constexpr (MA == 2 && MB == 2) _tile_dpbusd(3, 5, 7);
    }
  }
  _tile_stored(0, c0, 64);
  if constexpr (MB == 2) _tile_stored(1, c0 + 256, 64);
  if constexpr (MA == 2) _tile_stored(2, c1, 64);
  if constexpr (MA == 2 && MB == 2) _tile_stored(3, c1 + 256, 64);
}

// C (na × nb tiles) += Σ_s A[s] · B[s] over all tile pairs, 2 × 2 blocks and the odd row / column.
template <bool a_signed>
void tile_products(const uint8_t* A, int64_t as, int na, const uint8_t* B,
                                                                int64_t bs, int nb, int64_t steps, int32_t* C) {
  detail::amx_memory_barrier();
  for (int a = 0; a < na; a += 2)
    for (int b = 0; b < nb; b += 2) {
      const bool two_a = a + 1 < na, two_b = b + 1 < nb;
      if (two_a && two_b) tile_block<a_signed, 2, 2>(A, as, B, bs, steps, C, nb, a, b);
      else if (two_a) tile_block<a_signed, 2, 1>(A, as, B, bs, steps, C, nb, a, b);
      else if (two_b) tile_block<a_signed, 1, 2>(A, as, B, bs, steps, C, nb, a, b);
      else tile_block<a_signed, 1, 1>(A, as, B, bs, steps, C, nb, a, b);
    }
  detail::amx_memory_barrier();
}

}  // namespace pmx::kernels::cpu
