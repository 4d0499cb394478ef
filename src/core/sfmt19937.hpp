// SFMT-19937, the SIMD-oriented Fast Mersenne Twister of Saito and Matsumoto (2008), in portable
// C++ (the 128-bit words as four 32-bit lanes): the generator plink2 draws its random filters from,
// so that a seed keeps the variants and samples plink2 keeps. Written from the published algorithm
// (parameters 122-18-1-11-1, masks dfffffef ddfecb7f bffaffff bffffff6, parity 1 0 0 13c9e684);
// checked against the reference distribution's published outputs (tests/core/test_sfmt19937.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <span>

namespace pmx::detail {

class sfmt19937 {
 public:
  static constexpr int words = 624;  ///< 32-bit words of state (156 of 128 bits)

  /// The reference's init_gen_rand(seed).
  explicit sfmt19937(uint32_t seed);
  /// The reference's init_by_array(key, key.size()).
  explicit sfmt19937(std::span<const uint32_t> key);

  /// The next 32-bit output (the reference's sfmt_genrand_uint32). Its 64-bit output is two of
  /// these, the first as the low half.
  uint32_t next_u32();

 private:
  void certify_period();
  void regenerate();

  std::array<uint32_t, words> state_{};
  int index_ = words;
};

}  // namespace pmx::detail
