// PLINK 2 fileset reader. The .pgen is mapped; the .psam and .pvar are read first (their counts
// must agree with the .pgen header, and they bound what the header may ask to allocate); then the
// header's record index is checked against the file size and every record type for tracks that
// are not read (refused before anything is decoded). Records are decoded when a block is read, in
// groups: a record that stands alone and the LD-compressed ones after it, which refer to its
// decoded row, so that groups decode independently (in parallel in a large block).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

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
  if (type & 8) s += ", multiallelic";
  if (type & io::pgen_phase_bit) s += ", phased";
  if (type & 0x60) s += ", dosage";
  if (type & 0x80) s += ", phased dosage";
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

struct pgen_genotypes::records {
  explicit records(const std::string& path) : file(path, ".pgen") {}
  io::mapped_file file;
  io::pgen_index index;
  std::vector<uint32_t> groups;  // first variant of each group, then the variant count
  bool bed_codes = false;        // storage mode 0x01: the records are .bed rows
};

pgen_genotypes::~pgen_genotypes() = default;

pgen_genotypes::pgen_genotypes(const std::string& prefix, const pgen_options& opt, progress_sink* progress)
    : prefix_(prefix) {
  const std::string pgen = prefix + ".pgen", psam = prefix + ".psam";
  std::string pvar = prefix + ".pvar";
  if (!std::filesystem::exists(pvar) && std::filesystem::exists(pvar + ".zst")) pvar += ".zst";
  records_ = std::make_unique<records>(pgen);
  const io::mapped_file& f = records_->file;
  const io::pgen_preamble pre = io::read_pgen_preamble(f.data(), f.size(), pgen);
  samples_ = io::read_psam(psam);
  report(progress, "read .psam/.pvar", 0.1);
  io::pvar_contents pv = io::read_pvar(pvar, opt.chromosomes, pre.n_variants);
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
  auto name = [&](uint64_t j) { return "variant " + std::to_string(j + 1) + " ('" + variants_[size_t(j)].id + "')"; };
  records_->index = io::read_pgen_index(f.data(), f.size(), pgen, pre, n, m, name);
  const io::pgen_index& idx = records_->index;
  if (idx.multiallelic >= 0)
    throw unsupported_error(pgen + ": " + name(uint64_t(idx.multiallelic)) + ": " +
                            std::to_string(idx.multiallelic_count) + " alleles: only biallelic variants are read; "
                            "`plink2 --pfile PREFIX --max-alleles 2 --make-pgen --out NEW` drops the others");
  records_->bed_codes = pre.mode == io::pgen_mode_plink1;
  format_ = "PLINK 2 .pgen (storage mode " + hex(pre.mode) + ")" + (pv.compressed ? ", .pvar.zst" : "");
  threads_ = std::max(1, opt.threads > 0 ? opt.threads : omp_get_max_threads());

  // Groups: a record that stands alone and the LD-compressed records after it, which refer to it
  // (LD compression reaches within a block of 65536 variants only: the first record of a block
  // cannot be LD-compressed, so a block boundary starts a group too).
  std::vector<uint32_t>& groups = records_->groups;
  for (uint32_t j = 0; j < m; ++j) {
    const unsigned t = idx.types[j];
    if (t & 0xe8) refuse_tracks(t, pgen + ": " + name(j));
    if (!io::pgen_is_ld(t) || j % 65536 == 0) groups.push_back(j);
    if (t & io::pgen_phase_bit) ++counts_.phased;
    switch (t & 7) {
      case io::pgen_fixed: ++counts_.fixed_width; break;
      case io::pgen_one_bit: ++counts_.one_bit; break;
      case io::pgen_ld: ++counts_.ld; break;
      case io::pgen_ld_inverted: ++counts_.ld_inverted; break;
      default: ++counts_.sparse; break;  // storage 5 is refused when its record is decoded
    }
  }
  groups.push_back(m);
  report(progress, "read .psam/.pvar", 1.0);
}

packed_genotypes pgen_genotypes::read_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  packed_genotypes out(n_samples(), count);
  if (count == 0) return out;
  const records& r = *records_;
  const io::pgen_index& idx = r.index;
  const uint32_t n = static_cast<uint32_t>(n_samples()), lo = uint32_t(first), hi = uint32_t(first + count);
  const size_t row_bytes = size_t(out.row_bytes());

  // Decodes record j into `row` (from `base`, the decoded row it refers to if it is LD-compressed).
  auto decode = [&](uint32_t j, const uint8_t* base, uint8_t* row) -> std::string {
    const uint8_t* rec = r.file.data() + idx.offsets[j];
    const size_t size = size_t(idx.offsets[j + 1] - idx.offsets[j]);
    if (!r.bed_codes) return io::decode_pgen_record(rec, size, idx.types[j], n, io::pgen_is_ld(idx.types[j]) ? base : nullptr, row);
    std::memcpy(row, rec, size);  // a .bed's rows are already what .bed needs, but for the padding calls
    if (n & 3) row[row_bytes - 1] &= uint8_t((1u << (2 * (n & 3))) - 1);
    return {};
  };
  // Decodes the block's variants of group g; "" or the first error, at variant `bad`. A group that
  // starts before the block has its first record decoded aside when the block's records refer to it.
  auto decode_group = [&](size_t g, uint32_t& bad) -> std::string {
    const uint32_t start = r.groups[g], stop = std::min(r.groups[g + 1], hi);
    std::vector<uint8_t> aside;
    const uint8_t* base = nullptr;
    if (start < lo && !io::pgen_is_ld(idx.types[start])) {
      aside.resize(row_bytes);
      std::string what = decode(start, nullptr, aside.data());
      if (!what.empty()) return bad = start, what;
      base = aside.data();
    }
    for (uint32_t j = std::max(start, lo); j < stop; ++j) {
      uint8_t* row = out.row(j - lo);
      std::string what = decode(j, base, row);
      if (!what.empty()) return bad = j, what;
      if (!io::pgen_is_ld(idx.types[j])) base = row;
    }
    return {};
  };

  // The block's groups, in runs taken from a shared counter by the calling thread and, in a large
  // block, helper threads (std::thread, not an OpenMP team: an OpenMP barrier spins, which on a
  // loaded 2-core machine costs more than this decoding). An error stops the runs after it and
  // the first bad variant is named.
  const size_t g_first = size_t(std::upper_bound(r.groups.begin(), r.groups.end(), lo) - r.groups.begin()) - 1;
  const size_t g_end = size_t(std::lower_bound(r.groups.begin(), r.groups.end(), hi) - r.groups.begin());
  const size_t run = 64;
  std::atomic<size_t> next{g_first};
  std::atomic<int64_t> bad{INT64_MAX};
  std::mutex bad_mutex;
  std::string bad_what;
  auto work = [&] {
    for (size_t from; (from = next.fetch_add(run)) < g_end;) {
      if (int64_t(r.groups[from]) > bad.load(std::memory_order_relaxed)) return;
      for (size_t g = from; g < std::min(g_end, from + run); ++g) {
        uint32_t at = 0;
        std::string what = decode_group(g, at);
        if (what.empty()) continue;
        const std::lock_guard<std::mutex> lock(bad_mutex);
        if (int64_t(at) < bad.load()) bad = at, bad_what = std::move(what);
        break;
      }
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads_ && size_t(t) * run * 4 < g_end - g_first; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  if (bad.load() != INT64_MAX) {
    const size_t j = size_t(bad.load());
    throw input_error(prefix_ + ".pgen: variant " + std::to_string(j + 1) + " ('" + variants_[j].id + "'): " +
                      type_name(idx.types[j]) + ": " + bad_what);
  }
  return out;
}

}  // namespace pmx
