// Random streams of the simulators: the same numbers on every platform for a seed (std
// distributions are not portable), cheap to create per (seed, stream).
#pragma once
#include <cmath>
#include <cstdint>

namespace pmx::sim {

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// xoshiro256**: small state, fast, and the same stream on every platform (std distributions
// are not), so a seed names the same dataset everywhere.
class rng {
 public:
  rng(uint64_t seed, uint64_t stream) {
    uint64_t x = seed;
    x = splitmix64(x) ^ (stream * 0xd1b54a32d192ed03ull);
    for (auto& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }             // [0,1)
  double uniform_open() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }  // (0,1]
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  double normal() {  // Box-Muller, one value per call (simplicity over speed: used per variant)
    return std::sqrt(-2.0 * std::log(uniform_open())) * std::cos(6.283185307179586 * uniform());
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

/// Ancestral minor-allele frequency from the folded arcsine spectrum truncated to [min_maf, 0.5].
inline double ancestral_maf(rng& r, double min_maf) {
  const double f0 = (4 / M_PI) * std::asin(std::sqrt(min_maf));  // folded arcsine CDF
  return std::pow(std::sin(M_PI / 4 * (f0 + (1 - f0) * r.uniform())), 2);
}

}  // namespace pmx::sim
