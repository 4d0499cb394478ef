// Device half of the CUDA crossprod: bit planes and the AND+POPC tensor-core product over them.
// Internal (nvcc only): implemented in cuda_product.cu, used by cuda.cu and the benchmark driver.
//
// Planes. Each 2-bit call (see genotype_view.hpp) becomes one bit in each of three planes:
//   h = [x >= 1]     d = [x == 2]     c = [called]        (all 0 for a missing call)
// so that, per column, x = h + d, x² = x + 2d and
//   x_a x_b = h_a h_b + h_a d_b + d_a h_b + d_a d_b      called_a called_b = c_a c_b
//   x_a c_b = h_a c_b + d_a c_b                          x_a² c_b = x_a c_b + 2 d_a c_b.
// A plane row holds the chunk's columns as bits (column j of a 32-column word in bit j), zero
// padded to a multiple of 512 columns; rows are padded with zero rows to a multiple of 256.
// Plane p of a set lies at base + p * rows_pad * pitch; row r at + r * pitch (pitch = bytes/row).
//
// Product. out[r][c] += mult * Σ_pairs popc(A_pa[r] & B_pb[c]) over the chunk, on the binary
// tensor cores (AND + POPC, int32 accumulators in registers). Operands are staged through shared
// memory in 512-column steps by cp.async, 4 stages deep, 256 threads per block, two kernels:
//   wgmma (sm_90a, compute capability 9.0): 128 x 256 output tiles, two warpgroups each issuing
//     wgmma.m64n256k256 per pair and 256 columns, operands read from shared memory through
//     64-byte-swizzle K-major descriptors;
//   mma.sync (sm_80+): 256 x 128 output tiles, 8 warps of 64 x 64, operands via ldmatrix, one
//     mma.sync.m16n8k256 per 16 x 8 block, pair and 256 columns.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "panoramix/tuning.hpp"

namespace pmx::kernels::cuda_detail {

enum plane_id : int { plane_h = 0, plane_d = 1, plane_c = 2 };

struct plane_set {
  uint8_t* base = nullptr;
  int64_t rows_pad = 0;  ///< multiple of 256
  int64_t pitch = 0;     ///< bytes per plane row, multiple of 64 (512 columns)
  int slot[3] = {-1, -1, -1};  ///< position of h, d, c in `base`, -1 when not built

  unsigned mask() const { return (slot[0] >= 0 ? 1u : 0u) | (slot[1] >= 0 ? 2u : 0u) | (slot[2] >= 0 ? 4u : 0u); }
  const uint8_t* plane(int id, int64_t row) const { return base + (slot[id] * rows_pad + row) * pitch; }
  uint8_t* plane(int id, int64_t row) { return base + (slot[id] * rows_pad + row) * pitch; }
};

/// Number of planes in a mask (bit 0 h, bit 1 d, bit 2 c) and the bytes a set of them needs.
inline int plane_count(unsigned mask) { return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1); }
inline int64_t plane_bytes(unsigned mask, int64_t rows, int64_t columns) {
  return plane_count(mask) * ((rows + 255) / 256 * 256) * ((columns + 511) / 512 * 64);
}
/// Lays out the planes of `mask` for `rows` rows over `columns` columns at `base`.
plane_set make_plane_set(void* base, unsigned mask, int64_t rows, int64_t columns);

/// Writes plane rows dst_row .. dst_row + rows - 1 from 2-bit rows (raw_words 64-bit words each,
/// `columns` valid columns; later columns of the padded plane row become 0).
void build_planes(const uint64_t* raw, int64_t raw_words, int64_t rows, int64_t dst_row, int64_t columns,
                  plane_set& planes, cudaStream_t stream);
/// Writes the planes of variants (columns) col0 .. col0 + variants - 1 of sample rows 0 .. samples - 1
/// from variant-major 2-bit rows as in a .bed (variant v at raw + v * pitch, sample s in bits 2(s%4)
/// of byte s/4; pitch a multiple of 32 bytes). The transpose happens here, on the device: the
/// host never builds a sample-major copy. col0 must be a multiple of 256; the columns from
/// col0 + variants up to the next multiple of 512 are written as zeros (missing), rows from
/// `samples` on are not touched (see zero_padding_rows).
void build_planes_from_variant_rows(const uint8_t* raw, int64_t pitch, int64_t variants, int64_t samples,
                                    int64_t col0, plane_set& planes, cudaStream_t stream);
/// Zeroes plane rows from `rows` to rows_pad (the padding rows).
void zero_padding_rows(plane_set& planes, int64_t rows, cudaStream_t stream);

/// The sums of plane products the outputs are made of (A side first):
///   S = hh + hd + dh + dd,  N = cc,  U = hc + dc,  D = dc,  Ut = ch + cd,  Dt = cd,  H = hc,  Ht = ch.
/// (U and V = U + 2D together come cheapest as H and D: U = H + D, V = H + 3D, two plane pairs.)
enum class product { S, N, U, D, Ut, Dt, H, Ht };
unsigned planes_of_a(product p);  ///< plane mask the A side of a product reads
unsigned planes_of_b(product p);

/// Which tensor-core instruction runs the products: automatic = wgmma on compute capability 9.0
/// (else mma.sync); the executor's tuning().binary_mma may force one.
enum class mma_kind { automatic, sync, wgmma };
inline mma_kind mma_kind_of(tuning::mma m) {
  return m == tuning::mma::sync ? mma_kind::sync : m == tuning::mma::wgmma ? mma_kind::wgmma : mma_kind::automatic;
}

struct product_target {
  int32_t* out = nullptr;  ///< row-major, leading dimension ldo; rows >= pad256(a_rows), ldo >= pad256(b_rows)
  int mult = 1;
};

/// out[r][c] += mult * product(A row a_row + r, B row b_row + c) for r < a_rows, c < b_rows (the
/// output is written in whole tiles: the padding of `out` to 256 x 256 receives garbage, and the
/// plane sets must hold pad256(a_rows) rows from a_row, pad256(b_rows) from b_row). With
/// `skip_upper`, tiles whose every pair has b_global + c > a_global + r are skipped (their
/// entries are left as they are). `targets` has 1 or 2 entries (the same sum feeds U and V).
void run_product(product p, const plane_set& A, int64_t a_row, int64_t a_rows, const plane_set& B, int64_t b_row,
                 int64_t b_rows, bool skip_upper, int64_t a_global, int64_t b_global, const product_target* targets,
                 int n_targets, int64_t ldo, cudaStream_t stream, mma_kind kind = mma_kind::automatic);

}  // namespace pmx::kernels::cuda_detail
