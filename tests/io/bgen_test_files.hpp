// Helpers of the BGEN tests: a small BGEN writer (layout 1 or 2, uncompressed, zlib or zstd, any
// bit depth, haploid/phased/missing samples) for files plink2 does not write, random files with
// probabilities near the hard-call threshold, and plink2 as the oracle.
#pragma once
#include <zlib.h>
#if __has_include(<zstd.h>)
#include <zstd.h>
#define PMX_TEST_ZSTD 1
#endif

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {

struct bgen_call {
  int ploidy = 2;
  bool missing = false;
  std::vector<uint32_t> values;  // unphased diploid: P(11), P(12); haploid: P(1); phased: P(1) a haplotype
};

struct bgen_variant {
  std::string snp_id, rsid, chrom;
  uint32_t pos = 1;
  std::vector<std::string> alleles = {"A", "C"};
  int bits = 8;
  bool phased = false;
  std::vector<bgen_call> calls;
};

struct bgen_spec {
  std::vector<std::string> ids;
  bool sample_block = true;
  int compression = 1;  // 0 none, 1 zlib, 2 zstd
  int layout = 2;
  std::vector<bgen_variant> variants;
};

namespace detail {
inline void put16(std::string& s, uint32_t v) { s += char(v & 255), s += char(v >> 8 & 255); }
inline void put32(std::string& s, uint32_t v) {
  for (int k = 0; k < 4; ++k) s += char(v >> (8 * k) & 255);
}
inline void put_text16(std::string& s, const std::string& t) { put16(s, uint32_t(t.size())), s += t; }
inline void put_text32(std::string& s, const std::string& t) { put32(s, uint32_t(t.size())), s += t; }
}  // namespace detail

/// The bytes of a BGEN file as `spec` says (no checks: tests also write bad files with it).
inline std::string bgen_bytes(const bgen_spec& spec) {
  using namespace detail;
  const uint32_t n = uint32_t(spec.ids.size());
  std::string samples;
  if (spec.sample_block) {
    std::string body;
    put32(body, n);
    for (const auto& id : spec.ids) put_text16(body, id);
    put32(samples, uint32_t(body.size() + 4));
    samples += body;
  }
  std::string header;
  put32(header, 20);
  put32(header, uint32_t(spec.variants.size()));
  put32(header, n);
  header += "bgen";
  put32(header, uint32_t(spec.compression) | uint32_t(spec.layout) << 2 | (spec.sample_block ? 1u << 31 : 0));
  std::string out;
  put32(out, uint32_t(header.size() + samples.size()));
  out += header + samples;
  for (const auto& v : spec.variants) {
    if (spec.layout == 1) put32(out, n);
    put_text16(out, v.snp_id);
    put_text16(out, v.rsid);
    put_text16(out, v.chrom);
    put32(out, v.pos);
    put16(out, uint32_t(v.alleles.size()));
    for (const auto& a : v.alleles) put_text32(out, a);
    std::string d;
    put32(d, n);
    put16(d, uint32_t(v.alleles.size()));
    int pmin = 63, pmax = 0;
    for (const auto& c : v.calls) pmin = std::min(pmin, c.ploidy), pmax = std::max(pmax, c.ploidy);
    d += char(pmin), d += char(pmax);
    for (const auto& c : v.calls) d += char(c.ploidy | (c.missing ? 0x80 : 0));
    d += char(v.phased ? 1 : 0), d += char(v.bits);
    uint64_t acc = 0;
    int held = 0;
    for (const auto& c : v.calls)
      for (uint32_t x : c.values) {
        acc |= uint64_t(x) << held, held += v.bits;
        while (held >= 8) d += char(acc & 255), acc >>= 8, held -= 8;
      }
    if (held) d += char(acc & 255);
    if (spec.compression == 0) {
      put32(out, uint32_t(d.size()));
      out += d;
      continue;
    }
    std::string z;
    if (spec.compression == 1) {
      uLongf len = compressBound(uLong(d.size()));
      z.resize(len);
      compress(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(d.data()), uLong(d.size()));
      z.resize(len);
    } else {
#ifdef PMX_TEST_ZSTD
      z.resize(ZSTD_compressBound(d.size()));
      z.resize(ZSTD_compress(z.data(), z.size(), d.data(), d.size(), 3));
#endif
    }
    put32(out, uint32_t(z.size() + 4));
    put32(out, uint32_t(d.size()));
    out += z;
  }
  return out;
}

/// A random file of `m` variants over `ids` at `bits` bits: diploid calls with probabilities near
/// the hard-call boundaries (dosage 0.1, 0.9, 1.1, 1.9) and anywhere, exact calls, haploid samples,
/// phased variants, flagged-missing samples, ploidy 0; chromosomes 1, 2 and X; rsIDs v<j> or ".".
inline bgen_spec random_bgen(const std::vector<std::string>& ids, int m, int bits, int compression, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](uint64_t k) { return rng() % k; };
  const uint64_t top = (uint64_t(1) << bits) - 1;
  bgen_spec spec;
  spec.ids = ids;
  spec.compression = compression;
  const char* chroms[] = {"01", "2", "X"};
  for (int j = 0; j < m; ++j) {
    bgen_variant v;
    v.snp_id = "snp" + std::to_string(j);
    v.rsid = uniform(6) == 0 ? "." : "v" + std::to_string(j);
    v.chrom = chroms[size_t(j) * 3 / size_t(m)];
    v.pos = uint32_t(100 + 10 * j);
    v.bits = bits;
    v.phased = uniform(4) == 0;
    const char* bases = "ACGT";
    v.alleles = {std::string(1, bases[uniform(4)]), uniform(8) == 0 ? "TTA" : std::string(1, bases[uniform(4)])};
    for (size_t i = 0; i < ids.size(); ++i) {
      bgen_call c;
      const uint64_t how = uniform(20);
      c.ploidy = how == 0 ? 1 : how == 1 && !v.phased ? 0 : 2;
      c.missing = how == 2;
      if (v.phased) {
        for (int h = 0; h < c.ploidy; ++h)
          c.values.push_back(uint32_t(uniform(3) == 0 ? top * uniform(2) : uniform(top + 1)));
      } else if (c.ploidy == 1) {
        c.values.push_back(uint32_t(uniform(top + 1)));
      } else if (c.ploidy == 2) {
        // ALT dosage target t; P(12) + 2 P(22) = t, drawn so that the three sum to at most 1.
        const double targets[] = {0.1, 0.9, 1.1, 1.9, 0.5, 1.5, 0, 1, 2};
        std::uniform_real_distribution<double> anywhere(0, 2), near(-0.003, 0.003);
        const double t = uniform(3) == 0 ? anywhere(rng) : targets[uniform(9)] + near(rng);
        const int64_t x = std::clamp<int64_t>(int64_t(std::llround(t * double(top))), 0, int64_t(2 * top));
        const int64_t bb_lo = std::max<int64_t>(0, x - int64_t(top)), bb_hi = x / 2;
        const int64_t bb = bb_lo + int64_t(uniform(uint64_t(bb_hi - bb_lo + 1)));
        const int64_t ab = x - 2 * bb, aa = int64_t(top) - ab - bb;
        c.values = {uint32_t(std::max<int64_t>(aa, 0)), uint32_t(ab)};
      }
      if (c.missing) std::fill(c.values.begin(), c.values.end(), 0u);
      v.calls.push_back(c);
    }
    spec.variants.push_back(std::move(v));
  }
  return spec;
}

/// Dosages on and next to every hard-call boundary at `bits` bits for plink2's integer threshold
/// `t` (in 1/16384): with M = 2^bits - 1, the first-allele dosages v = 2 P(11) + P(12) (units of
/// 1/M) from 4 below to 4 above (16384 k ± t) M / 16384, k = 0, 1, 2, in four variants: unphased
/// with the most and with the least P(11) for each v, phased (haplotypes v/2 rounded up and down)
/// and haploid (v = 2 P(1), v rounded down to even). One sample per v.
inline bgen_spec boundary_bgen(int bits, uint32_t t, int compression) {
  const int64_t top = (int64_t(1) << bits) - 1, one = 16384;
  std::vector<int64_t> vs;
  for (int64_t k = 0; k <= 2; ++k)
    for (int64_t side : {-1, 1}) {
      const int64_t centre = (k * one + side * int64_t(t)) * top / one;
      for (int64_t v = centre - 4; v <= centre + 4; ++v)
        if (v >= 0 && v <= 2 * top) vs.push_back(v);
    }
  std::sort(vs.begin(), vs.end());
  vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
  bgen_spec spec;
  spec.compression = compression;
  for (size_t i = 0; i < vs.size(); ++i) spec.ids.push_back("s" + std::to_string(i));
  for (int kind = 0; kind < 4; ++kind) {
    bgen_variant var;
    var.snp_id = var.rsid = "b" + std::to_string(kind);
    var.chrom = "1";
    var.pos = uint32_t(100 + kind);
    var.bits = bits;
    var.phased = kind == 2;
    for (int64_t v : vs) {
      bgen_call c;
      if (kind == 0 || kind == 1) {  // P(11) = aa, P(12) = v - 2 aa, P(11) + P(12) <= M
        const int64_t aa = kind == 0 ? v / 2 : std::max<int64_t>(0, v - top);
        c.values = {uint32_t(aa), uint32_t(v - 2 * aa)};
      } else if (kind == 2) {
        c.values = {uint32_t((v + 1) / 2), uint32_t(v / 2)};
      } else {
        c.ploidy = 1;
        c.values = {uint32_t(std::min(v / 2, top))};
      }
      var.calls.push_back(c);
    }
    spec.variants.push_back(std::move(var));
  }
  return spec;
}

/// `plink2 --bgen FILE ref-first [--sample S] FLAGS --make-bed --out PREFIX`; returns its status.
inline int plink2_bgen_make_bed(const std::string& file, const std::string& sample, const std::string& flags,
                                const std::string& prefix) {
  return run("plink2 --bgen " + shq(file) + " ref-first " + (sample.empty() ? "" : "--sample " + shq(sample) + " ") +
                 flags + " --make-bed --threads 2 --out " + shq(prefix),
             prefix + ".plink2.txt");
}

}  // namespace pmx::test
