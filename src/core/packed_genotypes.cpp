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

sample_major_genotypes::sample_major_genotypes(int64_t n_samples, int64_t n_variants)
    : n_samples_(n_samples), n_variants_(n_variants), row_words_((n_variants + 31) / 32),
      words_(static_cast<size_t>(row_words_ * n_samples), 0) {}

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
