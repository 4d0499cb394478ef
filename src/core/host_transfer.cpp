#include "core/host_transfer.hpp"

#include <algorithm>
#include <cstring>

namespace pmx::detail {

void gather_row_words(const packed_rows_view& v, int64_t first_row, int64_t rows, int64_t first_word,
                      int64_t words, uint64_t* dst, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * words > 65536)
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * words, v.row(first_row + r) + first_word, static_cast<size_t>(words) * 8);
}

void copy_rows_padded(uint8_t* dst, int64_t dst_pitch, const variant_major_view& g, int64_t first_row, int64_t rows,
                      int64_t bytes, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * bytes > (1 << 20))
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* d = dst + r * dst_pitch;
    std::memcpy(d, g.row(first_row + r), static_cast<size_t>(bytes));
    std::memset(d + bytes, 0, static_cast<size_t>(dst_pitch - bytes));
  }
}

void copy_parallel(void* dst, const void* src, size_t bytes, int threads) {
  constexpr size_t piece = size_t{1} << 20;
  const int64_t n = static_cast<int64_t>((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 1)
  for (int64_t p = 0; p < n; ++p) {
    const size_t at = static_cast<size_t>(p) * piece;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(piece, bytes - at));
  }
}

void copy_rows(double* dst, int64_t dst_ld, const double* src, int64_t src_ld, int64_t rows, int64_t cols,
               int threads) {
  if (rows <= 0 || cols <= 0) return;
  if (dst_ld == cols && src_ld == cols) {
    copy_parallel(dst, src, static_cast<size_t>(rows * cols) * sizeof(double), threads);
    return;
  }
  constexpr int64_t per_piece = int64_t{1} << 17;  // elements (1 MiB) per piece of rows
  const int64_t rows_per = std::max<int64_t>(1, per_piece / cols), pieces = (rows + rows_per - 1) / rows_per;
#pragma omp parallel for schedule(static) num_threads(threads) if (pieces > 1)
  for (int64_t p = 0; p < pieces; ++p)
    for (int64_t i = p * rows_per; i < std::min(rows, (p + 1) * rows_per); ++i)
      std::memcpy(dst + i * dst_ld, src + i * src_ld, static_cast<size_t>(cols) * sizeof(double));
}

namespace {
template <class T>
void add_rows_impl(T* dst, int64_t ld, const T* src, int64_t src_ld, int64_t rows, int64_t cols, bool lower,
                   int64_t i0, int64_t j0, int threads) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (rows * cols > 65536)
  for (int64_t i = 0; i < rows; ++i) {
    // Lower triangle: global column j0 + j <= global row i0 + i.
    const int64_t end = lower ? std::clamp<int64_t>(i0 + i - j0 + 1, 0, cols) : cols;
    T* d = dst + i * ld;
    const T* s = src + i * src_ld;
    for (int64_t j = 0; j < end; ++j) d[j] += s[j];
  }
}
}  // namespace

void add_rows(int32_t* dst, int64_t ld, const int32_t* src, int64_t src_ld, int64_t rows, int64_t cols,
              bool lower, int64_t i0, int64_t j0, int threads) {
  add_rows_impl(dst, ld, src, src_ld, rows, cols, lower, i0, j0, threads);
}
void add_rows(double* dst, int64_t ld, const double* src, int64_t src_ld, int64_t rows, int64_t cols,
              bool lower, int64_t i0, int64_t j0, int threads) {
  add_rows_impl(dst, ld, src, src_ld, rows, cols, lower, i0, j0, threads);
}

}  // namespace pmx::detail
