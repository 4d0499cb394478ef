// PLINK 2 fileset reader. The .pgen is mapped; the .psam and .pvar are read first (their counts
// must agree with the .pgen header, and they bound what the header may ask to allocate); then the
// header's record index is checked against the file size, every record type is checked for tracks
// that are not read (refused before anything is decoded), and the records are decoded in groups
// in parallel: a record that stands alone and the LD-compressed ones after it, which refer to its
// decoded row, so that no group waits for another.
#include <omp.h>
#include <sys/mman.h>

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

// Asks for transparent huge pages over the rows (a 2 MB page fault instead of 512 small ones
// while the rows are first written); a hint only, ignored where the kernel does not offer them.
void advise_huge_pages(uint8_t* data, size_t bytes) {
  constexpr uintptr_t huge = uintptr_t(1) << 21;
  const uintptr_t first = (reinterpret_cast<uintptr_t>(data) + huge - 1) & ~(huge - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(huge - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
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

  // Groups: a record that stands alone and the LD-compressed records after it, which refer to it
  // (LD compression reaches within a block of 65536 variants only: the first record of a block
  // cannot be LD-compressed, so a block boundary starts a group too). Groups decode independently.
  std::vector<uint32_t> groups;  // first variant of each, then m
  for (uint32_t j = 0; j < m; ++j) {
    const unsigned t = idx.types[j];
    if (t & 0xe8) refuse_tracks(t, where(j));
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

  row_bytes_ = (int64_t(n) + 3) / 4;
  rows_.resize(size_t(m) * size_t(row_bytes_));  // every byte is written below (or the read fails)
  advise_huge_pages(rows_.data(), rows_.size());
  const bool bed_codes = pre.mode == io::pgen_mode_plink1;
  // Decodes one group; "" or the first error, at variant `bad`.
  auto decode_group = [&](size_t g, uint32_t& bad) -> std::string {
    const uint8_t* base = nullptr;
    for (uint32_t j = groups[g]; j < groups[g + 1]; ++j) {
      const uint8_t* rec = f.data() + idx.offsets[j];
      const size_t size = size_t(idx.offsets[j + 1] - idx.offsets[j]);
      uint8_t* row = rows_.data() + size_t(j) * size_t(row_bytes_);
      std::string what;
      if (bed_codes) {  // a .bed's rows are already what .bed needs, but for the padding calls
        std::memcpy(row, rec, size);
        if (n & 3) row[row_bytes_ - 1] &= uint8_t((1u << (2 * (n & 3))) - 1);
      } else {
        what = io::decode_pgen_record(rec, size, idx.types[j], n, io::pgen_is_ld(idx.types[j]) ? base : nullptr, row);
      }
      if (!what.empty()) return bad = j, what;
      if (!io::pgen_is_ld(idx.types[j])) base = row;
    }
    return {};
  };

  // Worker threads take runs of groups from a shared counter until none is left (std::thread, not
  // an OpenMP region: this work is short, and an OpenMP team keeps spinning on its barrier and
  // after it, which on a loaded 2-core machine costs more than the decoding). The calling thread
  // works too and reports progress; an error stops the runs after it and the first bad variant is
  // named.
  const int threads = std::max(1, opt.threads > 0 ? opt.threads : omp_get_max_threads());
  const size_t n_groups = groups.size() - 1, run = 64;
  std::atomic<size_t> next{0};
  std::atomic<int64_t> bad{INT64_MAX};
  std::mutex bad_mutex;
  std::string bad_what;
  auto work = [&](bool reporter) {
    for (size_t first; (first = next.fetch_add(run)) < n_groups;) {
      if (int64_t(groups[first]) > bad.load(std::memory_order_relaxed)) return;
      for (size_t g = first; g < std::min(n_groups, first + run); ++g) {
        uint32_t at = 0;
        std::string what = decode_group(g, at);
        if (what.empty()) continue;
        const std::lock_guard<std::mutex> lock(bad_mutex);
        if (int64_t(at) < bad.load()) bad = at, bad_what = std::move(what);
        break;
      }
      if (reporter && (first / run) % 64 == 0) report(progress, "read .pgen", double(first) / double(n_groups));
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads && size_t(t) * run < n_groups; ++t) helpers.emplace_back(work, false);
  work(true);
  for (auto& h : helpers) h.join();
  if (bad.load() != INT64_MAX)
    throw input_error(where(uint64_t(bad.load())) + ": " + type_name(idx.types[size_t(bad.load())]) + ": " +
                      bad_what);
  report(progress, "read .pgen", 1.0);
}

}  // namespace pmx
