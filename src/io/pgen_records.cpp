#include "io/pgen_records.hpp"

#include <cstring>

#include "io/mapped_file.hpp"

namespace pmx::io {
namespace {

// .bed code of each main-track code (see the header).
constexpr uint8_t bed_code[4] = {3, 2, 0, 1};

// .bed byte of each byte of four main-track codes.
struct byte_table {
  uint8_t v[256];
  constexpr byte_table() : v() {
    for (int b = 0; b < 256; ++b) {
      int out = 0;
      for (int k = 0; k < 4; ++k) out |= bed_code[(b >> (2 * k)) & 3] << (2 * k);
      v[b] = static_cast<uint8_t>(out);
    }
  }
};
constexpr byte_table to_bed;

// Each byte's bits spread to every other bit (bit k to bit 2k) of 16.
struct spread_table {
  uint16_t v[256];
  constexpr spread_table() : v() {
    for (int b = 0; b < 256; ++b) {
      int out = 0;
      for (int k = 0; k < 8; ++k) out |= ((b >> k) & 1) << (2 * k);
      v[b] = static_cast<uint16_t>(out);
    }
  }
};
constexpr spread_table spread_bits;

std::string num(uint64_t v) { return std::to_string(v); }

// The bytes of one record, consumed front to back; running off the end gives nullptr/false.
class record_reader {
 public:
  record_reader(const uint8_t* p, size_t size) : p_(p), end_(p + size) {}
  const uint8_t* take(size_t k) {
    if (static_cast<size_t>(end_ - p_) < k) return nullptr;
    const uint8_t* q = p_;
    p_ += k;
    return q;
  }
  // A base-128 varint (low groups first) below 2^31, as plink2 writes them: at most 5 bytes.
  bool varint(uint32_t& v) {
    if (p_ != end_ && *p_ < 128) {  // the usual case: one byte
      v = *p_++;
      return true;
    }
    uint64_t x = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      if (p_ == end_) return false;
      const uint8_t b = *p_++;
      x |= uint64_t(b & 127) << shift;
      if (!(b & 128)) {
        v = static_cast<uint32_t>(x);
        return x < (uint64_t(1) << 31);
      }
    }
    return false;
  }
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  const uint8_t* at() const { return p_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void set_call(uint8_t* row, uint32_t i, uint8_t code) {
  uint8_t& b = row[i >> 2];
  const int s = 2 * static_cast<int>(i & 3);
  b = static_cast<uint8_t>((b & ~(3 << s)) | code << s);
}

// A difflist of (sample, code) pairs, each written into `row`. Layout: varint L; then for the
// G = ceil(L/64) groups of 64 entries: G first sample indices, G - 1 bytes of (group varint bytes -
// 63), ceil(L/4) bytes of 2-bit codes, and the L - G varint gaps between consecutive indices.
std::string apply_difflist(record_reader& r, uint32_t n, uint8_t* row) {
  uint32_t len = 0;
  if (!r.varint(len)) return "the record ends inside a difflist's length (or it is above 2^31)";
  if (len == 0) return {};
  if (len > n / 8)
    return "a difflist of " + num(len) + " entries, more than n/8 = " + num(n / 8) + " (plink2's limit)";
  const uint32_t groups = (len + 63) / 64;
  const int id_bytes = pgen_sample_id_bytes(n);
  const uint8_t* firsts = r.take(size_t(groups) * size_t(id_bytes));
  const uint8_t* sizes = firsts ? r.take(groups - 1) : nullptr;
  const uint8_t* codes = sizes ? r.take((size_t(len) + 3) / 4) : nullptr;
  if (!codes) return "the record ends inside a difflist's index (" + num(len) + " entries)";
  for (uint32_t g = 0; g < groups; ++g) {
    uint64_t id = little_endian(firsts + size_t(g) * size_t(id_bytes), id_bytes);
    const uint32_t count = g + 1 < groups ? 64 : len - 64 * g;
    const uint8_t* group_start = r.at();
    for (uint32_t k = 0; k < count; ++k) {
      if (k > 0) {
        uint32_t gap = 0;
        if (!r.varint(gap)) return "the record ends inside a difflist (entry " + num(64 * g + k + 1) + ")";
        id += gap;
      }
      if (id >= n) return "difflist sample index " + num(id) + " out of range (" + num(n) + " samples)";
      const uint32_t e = 64 * g + k;
      set_call(row, static_cast<uint32_t>(id), bed_code[(codes[e >> 2] >> (2 * (e & 3))) & 3]);
    }
    const size_t used = static_cast<size_t>(r.at() - group_start);
    if (g + 1 < groups && used != size_t(sizes[g]) + 63)
      return "difflist group " + num(g + 1) + ": the index says " + num(size_t(sizes[g]) + 63) +
             " bytes of gaps, they take " + num(used);
  }
  return {};
}

// Type 1: a category byte (which two codes the bitarray chooses between), ceil(n/8) bytes of
// bits (set: the higher code), then a difflist of the samples in the other two codes.
std::string decode_one_bit(record_reader& r, uint32_t n, uint8_t* row) {
  const uint8_t* pair = r.take(1);
  const uint8_t* bits = pair ? r.take((size_t(n) + 7) / 8) : nullptr;
  if (!bits) return "the record ends inside its 1-bit main track";
  // The byte is 4 * low + (high - low) for the pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
  const int low = *pair >> 2, high = low + (*pair & 3);
  if ((*pair & 3) == 0 || high > 3) return "1-bit main track with category byte " + num(*pair) + " (1, 2, 3, 5, 6 or 9)";
  // Call k = low ^ (bit k ? low ^ high : 0): the bits spread to one per 2-bit slot (bit k to bit
  // 2k), times the 2-bit difference (no carries: each slot holds 0 or 1 before), 32 calls a step.
  const uint64_t low_calls = uint64_t(bed_code[low]) * 0x5555555555555555ull;
  const uint64_t diff = uint64_t(bed_code[low] ^ bed_code[high]);
  const size_t row_bytes = (size_t(n) + 3) / 4;
  size_t i = 0;
  for (; i + 8 <= row_bytes; i += 8) {
    const uint8_t* b = bits + i / 2;
    const uint64_t spread = uint64_t(spread_bits.v[b[0]]) | uint64_t(spread_bits.v[b[1]]) << 16 |
                            uint64_t(spread_bits.v[b[2]]) << 32 | uint64_t(spread_bits.v[b[3]]) << 48;
    const uint64_t calls = low_calls ^ (spread * diff);
    std::memcpy(row + i, &calls, 8);
  }
  for (; i < row_bytes; ++i) {
    const uint64_t spread = spread_bits.v[(bits[i >> 1] >> (4 * (i & 1))) & 15];
    row[i] = static_cast<uint8_t>(low_calls ^ (spread * diff));
  }
  return apply_difflist(r, n, row);
}

// Hom REF <-> hom ALT (.bed 11 <-> 00), het and missing kept.
void invert(uint8_t* row, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    const uint8_t x = row[i];
    const uint8_t same = static_cast<uint8_t>(~(x ^ (x >> 1)) & 0x55);  // the pairs 00 and 11
    row[i] = static_cast<uint8_t>(x ^ (same | same << 1));
  }
}

int popcount(uint64_t x) { return __builtin_popcountll(x); }

// Main-track codes to .bed codes, 32 calls a step: per pair (hi, lo), .bed hi = not hi and .bed
// lo = not (hi xor lo) (0 -> 11, 1 -> 10, 2 -> 00, 3 -> 01).
void to_bed_codes(const uint8_t* codes, size_t bytes, uint8_t* row) {
  constexpr uint64_t low_bits = 0x5555555555555555ull;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, codes + i, 8);
    const uint64_t hi = (w >> 1) & low_bits, lo = w & low_bits;
    const uint64_t out = ((~hi & low_bits) << 1) | (~(hi ^ lo) & low_bits);
    std::memcpy(row + i, &out, 8);
  }
  for (; i < bytes; ++i) row[i] = to_bed.v[codes[i]];
}

// The hardcall-phase track: one bit saying whether a "phase present" bitarray over the H het calls
// follows (else all are phased), then one phase bit per phased het. Only its length is checked.
std::string skip_phase_track(record_reader& r, const uint8_t* row, uint32_t n) {
  uint64_t hets = 0;
  for (size_t i = 0; i < (size_t(n) + 3) / 4; ++i) hets += popcount((row[i] >> 1) & ~row[i] & 0x55);
  if (r.left() == 0) return "the record ends before its phase track";
  const uint8_t* t = r.at();
  const uint64_t head = (1 + hets + 7) / 8;
  uint64_t bytes = head;
  if (t[0] & 1) {
    if (r.left() < head) return "the record ends inside its phase track";
    uint64_t phased = 0;
    for (uint64_t bit = 1; bit <= hets; ++bit) phased += (t[bit >> 3] >> (bit & 7)) & 1;
    bytes += (phased + 7) / 8;
  }
  if (!r.take(bytes)) return "the record ends inside its phase track (" + num(hets) + " het calls)";
  return {};
}

}  // namespace

std::string decode_pgen_record(const uint8_t* rec, size_t size, unsigned type, uint32_t n, const uint8_t* base,
                               uint8_t* row) {
  const size_t row_bytes = (size_t(n) + 3) / 4;
  if (type & ~(7u | pgen_phase_bit)) return "record type with tracks this reader does not decode";
  record_reader r(rec, size);
  std::string what;
  switch (type & 7) {
    case pgen_fixed: {
      const uint8_t* codes = r.take(row_bytes);
      if (!codes) return "a " + num(size) + "-byte record, its fixed-width main track takes " + num(row_bytes);
      to_bed_codes(codes, row_bytes, row);
      break;
    }
    case pgen_one_bit: what = decode_one_bit(r, n, row); break;
    case pgen_ld:
    case pgen_ld_inverted:
      if (!base) return "LD-compressed, but no earlier record of its block of 65536 is not";
      std::memcpy(row, base, row_bytes);
      what = apply_difflist(r, n, row);
      if ((type & 7) == pgen_ld_inverted) invert(row, row_bytes);  // the differences are from the base
      break;
    case pgen_sparse_0:
    case pgen_sparse_2:
    case pgen_sparse_3: {
      const uint8_t common = bed_code[(type & 7) - 4];
      std::memset(row, common * 0x55, row_bytes);
      what = apply_difflist(r, n, row);
      break;
    }
    default: return "main track storage 5, which the format reserves";
  }
  if (!what.empty()) return what;
  if (n & 3) row[row_bytes - 1] &= static_cast<uint8_t>((1u << (2 * (n & 3))) - 1);  // padding calls 00
  if (type & pgen_phase_bit) {
    what = skip_phase_track(r, row, n);
    if (!what.empty()) return what;
  }
  if (r.left() != 0) return "the record has " + num(r.left()) + " bytes after its last track";
  return {};
}

}  // namespace pmx::io
