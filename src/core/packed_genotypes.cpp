#include "panoramix/packed_genotypes.hpp"

#include <cstring>

#include "panoramix/error.hpp"

namespace pmx {

packed_genotypes::packed_genotypes(int64_t n_samples, int64_t n_variants)
    : n_samples_(n_samples), n_variants_(n_variants), row_bytes_((n_samples + 3) / 4),
      bytes_(static_cast<size_t>(row_bytes_ * n_variants), 0) {}

void packed_genotypes::set(int64_t sample, int64_t variant, uint8_t code) {
  uint8_t& b = row(variant)[sample >> 2];
  const int shift = 2 * (sample & 3);
  b = static_cast<uint8_t>((b & ~(3u << shift)) | ((code & 3u) << shift));
}

packed_rows::packed_rows(int64_t n_rows, int64_t n_cols)
    : n_rows_(n_rows), n_cols_(n_cols), row_words_((n_cols + 31) / 32),
      words_(static_cast<size_t>(row_words_ * n_rows), 0x5555555555555555ull) {}

packed_rows word_aligned_variant_rows(const variant_major_view& g, int threads) {
  packed_rows out(g.n_variants, g.n_samples);
  const int64_t bytes = (g.n_samples + 3) / 4;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t j = 0; j < g.n_variants; ++j) {
    auto* dst = reinterpret_cast<uint8_t*>(out.row(j));
    std::memcpy(dst, g.row(j), static_cast<size_t>(bytes));
    if (g.n_samples & 3) {  // calls past the last sample in the last byte -> missing
      const int keep = 2 * (g.n_samples & 3);
      dst[bytes - 1] = static_cast<uint8_t>((dst[bytes - 1] & ((1u << keep) - 1)) | (0x55u & ~((1u << keep) - 1)));
    }
  }
  return out;
}

packed_genotypes subset(const variant_major_view& g, const std::vector<int64_t>& samples,
                        const std::vector<int64_t>& variants) {
  const int64_t n = samples.empty() ? g.n_samples : static_cast<int64_t>(samples.size());
  packed_genotypes out(n, static_cast<int64_t>(variants.size()));
  const int64_t m = out.n_variants();
#pragma omp parallel for schedule(static) if (m * n > (1 << 22))
  for (int64_t j = 0; j < m; ++j) {
    const uint8_t* src = g.row(variants[j]);
    uint8_t* dst = out.row(j);
    if (samples.empty()) {
      std::memcpy(dst, src, out.row_bytes());
      if (n & 3) dst[out.row_bytes() - 1] &= static_cast<uint8_t>((1u << (2 * (n & 3))) - 1);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t s = samples[i];
        const uint8_t code = (src[s >> 2] >> (2 * (s & 3))) & 3;
        dst[i >> 2] |= static_cast<uint8_t>(code << (2 * (i & 3)));
      }
    }
  }
  return out;
}

}  // namespace pmx
