// PLINK 2 fileset reader. The .pgen is mapped; the .psam and .pvar are read first (their counts
// must agree with the .pgen header, and they bound what the header may ask to allocate); then the
// header's record index is checked against the file size, every record type is checked for tracks
// that are not read (refused before anything is decoded), and the records are decoded in chunks:
// in each, the records that stand alone in parallel, then the LD-compressed ones (each from the
// decoded row of the record it refers to, which is earlier and so already there).
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>

#include "io/mapped_file.hpp"
#include "io/pgen_index.hpp"
#include "io/pgen_records.hpp"
#include "io/psam_file.hpp"
#include "io/pvar_file.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pgen_files.hpp"

namespace pmx {
namespace {

std::string hex(unsigned v) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[v >> 4 & 15] + digits[v & 15];
}

// "record type 0x12 (LD-compressed, phased)", for messages.
std::string type_name(unsigned type) {
  static const char* storage[8] = {"fixed-width", "1-bit",    "LD-compressed", "LD-compressed inverted",
                                   "difflist from hom REF", "reserved storage 5", "difflist from hom ALT",
                                   "difflist from missing"};
  std::string s = "record type " + hex(type) + " (" + storage[type & 7];
  if (type & io::pgen_phase_bit) s += ", phased";
  return s + ")";
}

// A variant whose record has a track that is not read: which one, and how to get a readable file.
void refuse_tracks(unsigned type, const std::string& where) {
  if (type & 8)
    throw unsupported_error(where + ": multiallelic hard calls (" + type_name(type) + "): only biallelic "
                            "variants are read; `plink2 --pfile PREFIX --max-alleles 2 --make-pgen --out NEW` "
                            "drops the others");
  if (type & 0xe0)
    throw unsupported_error(where + ": a dosage track (" + type_name(type) + "): dosages are not read; "
                            "`plink2 --pfile PREFIX --make-pgen erase-dosage --out NEW` keeps the hard calls");
}

}  // namespace

pgen_genotypes::pgen_genotypes(const std::string& prefix, const pgen_options& opt, progress_sink* progress)
    : decoded_genotypes(prefix) {
  const std::string pgen = prefix + ".pgen", psam = prefix + ".psam";
  std::string pvar = prefix + ".pvar";
  if (!std::filesystem::exists(pvar) && std::filesystem::exists(pvar + ".zst")) pvar += ".zst";
  const io::mapped_file f(pgen, ".pgen");
  const io::pgen_preamble pre = io::read_pgen_preamble(f.data(), f.size(), pgen);
  samples_ = io::read_psam(psam);
  io::pvar_contents pv = io::read_pvar(pvar, opt.chromosomes);
  variants_ = std::move(pv.variants);
  counts_.unsorted = pv.unsorted;
  if (variants_.empty()) throw input_error(pvar + ": no variants");
  if (samples_.size() > INT32_MAX || variants_.size() > INT32_MAX)
    throw unsupported_error(prefix + ": more than 2^31 - 1 samples or variants (plink2's limit)");
  const uint32_t n = static_cast<uint32_t>(samples_.size()), m = static_cast<uint32_t>(variants_.size());
  if (pre.mode != io::pgen_mode_plink1) {
    if (pre.n_samples != n)
      throw input_error(psam + " lists " + std::to_string(n) + " samples, the header of " + pgen + " says " +
                        std::to_string(pre.n_samples));
    if (pre.n_variants != m)
      throw input_error(pvar + " lists " + std::to_string(m) + " variants, the header of " + pgen + " says " +
                        std::to_string(pre.n_variants));
  }
  auto where = [&](uint64_t j) {
    return pgen + ": variant " + std::to_string(j + 1) + " ('" + variants_[size_t(j)].id + "')";
  };
  const io::pgen_index idx = io::read_pgen_index(f.data(), f.size(), pgen, pre, n, m, [&](uint64_t j) {
    return "variant " + std::to_string(j + 1) + " ('" + variants_[size_t(j)].id + "')";
  });
  if (idx.multiallelic >= 0)
    throw unsupported_error(where(uint64_t(idx.multiallelic)) + ": " + std::to_string(idx.multiallelic_count) +
                            " alleles: only biallelic variants are read; `plink2 --pfile PREFIX --max-alleles 2 "
                            "--make-pgen --out NEW` drops the others");
  format_ = "PLINK 2 .pgen (storage mode " + hex(pre.mode) + ")" + (pv.compressed ? ", .pvar.zst" : "");

  // Which records stand alone and which refer back (LD compression reaches within a block of
  // 65536 variants only: the first record of a block cannot be LD-compressed).
  std::vector<uint32_t> plain;
  std::vector<std::pair<uint32_t, uint32_t>> ld;  // (variant, the variant it refers to)
  constexpr uint32_t none = UINT32_MAX;
  uint32_t last_plain = none;
  for (uint32_t j = 0; j < m; ++j) {
    const unsigned t = idx.types[j];
    refuse_tracks(t, where(j));
    if (j % 65536 == 0) last_plain = none;
    if (io::pgen_is_ld(t)) ld.emplace_back(j, last_plain);
    else plain.push_back(j), last_plain = j;
    if (t & io::pgen_phase_bit) ++counts_.phased;
    switch (t & 7) {
      case io::pgen_fixed: ++counts_.fixed_width; break;
      case io::pgen_one_bit: ++counts_.one_bit; break;
      case io::pgen_ld: ++counts_.ld; break;
      case io::pgen_ld_inverted: ++counts_.ld_inverted; break;
      default: ++counts_.sparse; break;  // storage 5 is refused when its record is decoded
    }
  }

  row_bytes_ = (int64_t(n) + 3) / 4;
  rows_.assign(size_t(m) * size_t(row_bytes_), 0);
  const bool bed_codes = pre.mode == io::pgen_mode_plink1;
  auto decode = [&](uint32_t j, uint32_t base) -> std::string {
    const uint8_t* rec = f.data() + idx.offsets[j];
    const size_t size = size_t(idx.offsets[j + 1] - idx.offsets[j]);
    uint8_t* row = rows_.data() + size_t(j) * size_t(row_bytes_);
    if (bed_codes) {  // a .bed's rows are already what .bed needs, but for the padding calls
      std::memcpy(row, rec, size);
      if (n & 3) row[row_bytes_ - 1] &= uint8_t((1u << (2 * (n & 3))) - 1);
      return {};
    }
    const uint8_t* base_row = base == none ? nullptr : rows_.data() + size_t(base) * size_t(row_bytes_);
    return io::decode_pgen_record(rec, size, idx.types[j], n, base_row, row);
  };

  // Chunks of variants; an error stops at the end of its chunk and names the first bad variant.
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  const uint32_t chunk = 1024 * uint32_t(threads);
  size_t next_plain = 0, next_ld = 0;
  for (uint32_t first = 0; first < m; first = first + std::min(chunk, m - first)) {
    const uint32_t last = first + std::min(chunk, m - first);
    const size_t plain_end = size_t(std::lower_bound(plain.begin() + long(next_plain), plain.end(), last) - plain.begin());
    size_t ld_end = next_ld;
    while (ld_end < ld.size() && ld[ld_end].first < last) ++ld_end;
    int64_t bad = INT64_MAX;
    std::string bad_what;
    auto note = [&](uint32_t j, std::string what) {
      if (what.empty()) return;
#pragma omp critical(pmx_pgen_error)
      if (int64_t(j) < bad) bad = j, bad_what = std::move(what);
    };
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
    for (size_t k = next_plain; k < plain_end; ++k) note(plain[k], decode(plain[k], none));
    // Every row an LD record of this chunk refers to is decoded now; records past the first bad
    // one are left (their errors could only be later, or consequences).
    const int64_t plain_bad = bad;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
    for (size_t k = next_ld; k < ld_end; ++k)
      if (int64_t(ld[k].first) < plain_bad) note(ld[k].first, decode(ld[k].first, ld[k].second));
    if (bad != INT64_MAX)
      throw input_error(where(uint64_t(bad)) + ": " + type_name(idx.types[size_t(bad)]) + ": " + bad_what);
    next_plain = plain_end, next_ld = ld_end;
    report(progress, "read .pgen", double(last) / double(m));
  }
}

}  // namespace pmx
