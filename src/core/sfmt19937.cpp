// SFMT-19937 (see sfmt19937.hpp). A 128-bit word is four 32-bit lanes, lane 0 the least
// significant; the recursion's 128-bit shifts move whole bytes across lanes.
#include "core/sfmt19937.hpp"

namespace pmx::detail {
namespace {

constexpr int n128 = sfmt19937::words / 4;  // 156
constexpr int pos1 = 122, sl1 = 18, sl2_bytes = 1, sr1 = 11, sr2_bytes = 1;
constexpr std::array<uint32_t, 4> mask{0xdfffffefU, 0xddfecb7fU, 0xbffaffffU, 0xbffffff6U};
constexpr std::array<uint32_t, 4> parity{0x00000001U, 0x00000000U, 0x00000000U, 0x13c9e684U};

using lanes = std::array<uint32_t, 4>;

uint64_t high64(const uint32_t* w) { return (uint64_t(w[3]) << 32) | w[2]; }
uint64_t low64(const uint32_t* w) { return (uint64_t(w[1]) << 32) | w[0]; }
lanes from64(uint64_t hi, uint64_t lo) {
  return {uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi), uint32_t(hi >> 32)};
}

// The 128-bit word shifted left (towards lane 3) / right by `bytes` bytes.
lanes shift_left(const uint32_t* w, int bytes) {
  const int s = 8 * bytes;
  return from64((high64(w) << s) | (low64(w) >> (64 - s)), low64(w) << s);
}
lanes shift_right(const uint32_t* w, int bytes) {
  const int s = 8 * bytes;
  return from64(high64(w) >> s, (low64(w) >> s) | (high64(w) << (64 - s)));
}

// The initialisation's mixing functions.
uint32_t mix1(uint32_t x) { return (x ^ (x >> 27)) * 1664525U; }
uint32_t mix2(uint32_t x) { return (x ^ (x >> 27)) * 1566083941U; }

}  // namespace

sfmt19937::sfmt19937(uint32_t seed) {
  state_[0] = seed;
  for (uint32_t i = 1; i < words; ++i) state_[i] = 1812433253U * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
  certify_period();
}

sfmt19937::sfmt19937(std::span<const uint32_t> key) {
  constexpr int lag = 11, mid = (words - lag) / 2;  // lag 11 for a state of >= 623 words
  state_.fill(0x8b8b8b8bU);
  auto at = [&](int i) -> uint32_t& { return state_[i % words]; };
  const int key_length = static_cast<int>(key.size());
  const int count = key_length + 1 > words ? key_length + 1 : words;
  uint32_t r = mix1(state_[0] ^ state_[mid] ^ state_[words - 1]);
  state_[mid] += r;
  r += uint32_t(key_length);
  state_[mid + lag] += r;
  state_[0] = r;
  int i = 1;
  for (int j = 1; j < count; ++j) {  // the key, then the positions alone
    r = mix1(at(i) ^ at(i + mid) ^ at(i + words - 1));
    at(i + mid) += r;
    r += (j - 1 < key_length ? key[j - 1] : 0U) + uint32_t(i);
    at(i + mid + lag) += r;
    state_[i] = r;
    i = (i + 1) % words;
  }
  for (int j = 0; j < words; ++j) {
    r = mix2(at(i) + at(i + mid) + at(i + words - 1));
    at(i + mid) ^= r;
    r -= uint32_t(i);
    at(i + mid + lag) ^= r;
    state_[i] = r;
    i = (i + 1) % words;
  }
  certify_period();
}

// The state must not lie in the generator's short cycles: the parity of (first 128 bits & parity)
// must be odd; if it is even, the lowest set bit of the parity vector is flipped.
void sfmt19937::certify_period() {
  uint32_t inner = 0;
  for (int k = 0; k < 4; ++k) inner ^= state_[k] & parity[k];
  for (int shift = 16; shift > 0; shift >>= 1) inner ^= inner >> shift;
  if (inner & 1) return;
  for (int k = 0; k < 4; ++k)
    for (int b = 0; b < 32; ++b)
      if (parity[k] & (1U << b)) {
        state_[k] ^= 1U << b;
        return;
      }
}

// All 156 words anew: w[i] = w[i] ^ (w[i] << 8 bits) ^ ((w[i+122] >> 11) & mask) ^ (w[i-2] >> 8
// bits) ^ (w[i-1] << 18 in each lane), indices modulo 156 with the new values of w[i-1], w[i-2].
void sfmt19937::regenerate() {
  uint32_t* w = state_.data();
  const uint32_t* r1 = w + 4 * (n128 - 2);
  const uint32_t* r2 = w + 4 * (n128 - 1);
  for (int i = 0; i < n128; ++i) {
    uint32_t* a = w + 4 * i;
    const uint32_t* b = w + 4 * ((i + pos1) % n128);
    const lanes x = shift_left(a, sl2_bytes), y = shift_right(r1, sr2_bytes);
    for (int k = 0; k < 4; ++k) a[k] = a[k] ^ x[k] ^ ((b[k] >> sr1) & mask[k]) ^ y[k] ^ (r2[k] << sl1);
    r1 = r2;
    r2 = a;
  }
}

uint32_t sfmt19937::next_u32() {
  if (index_ >= words) regenerate(), index_ = 0;
  return state_[index_++];
}

}  // namespace pmx::detail
