// Host-side halves of the CUDA backend's transfers: parallel copies into pinned staging memory and
// accumulation of downloaded blocks into the caller's outputs. Plain C++ (OpenMP), no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>

#include "panoramix/genotype_view.hpp"

namespace pmx::detail {

/// dst[r * words + w] = v.row(first_row + r)[first_word + w] for r < rows, w < words.
void gather_row_words(const packed_rows_view& v, int64_t first_row, int64_t rows, int64_t first_word,
                      int64_t words, uint64_t* dst, int threads);

/// Row r of dst (at dst + r * dst_pitch) = the first `bytes` bytes of g.row(first_row + r), zero
/// filled up to dst_pitch, for r < rows.
void copy_rows_padded(uint8_t* dst, int64_t dst_pitch, const variant_major_view& g, int64_t first_row, int64_t rows,
                      int64_t bytes, int threads);

/// memcpy split over threads.
void copy_parallel(void* dst, const void* src, size_t bytes, int threads);

/// dst[i * dst_ld + j] = src[i * src_ld + j] for i < rows, j < cols (1 MiB pieces over threads).
void copy_rows(double* dst, int64_t dst_ld, const double* src, int64_t src_ld, int64_t rows, int64_t cols,
               int threads);

/// dst[i * ld + j] += src[i * src_ld + j] for i < rows, j < cols. With `lower`, only the entries
/// with j0 + j <= i0 + i (the lower triangle of the whole matrix, the block at global (i0, j0)).
void add_rows(int32_t* dst, int64_t ld, const int32_t* src, int64_t src_ld, int64_t rows, int64_t cols,
              bool lower, int64_t i0, int64_t j0, int threads);
void add_rows(double* dst, int64_t ld, const double* src, int64_t src_ld, int64_t rows, int64_t cols,
              bool lower, int64_t i0, int64_t j0, int threads);

}  // namespace pmx::detail
