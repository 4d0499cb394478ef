// BGEN reader, from the public specification (layout 2 of v1.2/v1.3). The file is mapped; one
// serial pass reads the header, the sample block and every variant's identifying data and finds its
// genotype block; the blocks are then decompressed and decoded in parallel, each into its own
// 2-bit row (plink2's hard calls), so memory stays at the 2-bit rows plus one block per thread.
#include <omp.h>
#if PMX_HAVE_ZLIB
#include <zlib.h>
#endif
#if PMX_HAVE_ZSTD
#include <zstd.h>
#endif
#if PMX_HAVE_LIBDEFLATE
#include <libdeflate.h>

#include <memory>
#endif

#include <algorithm>
#include <cstring>

#include "io/bgen_probabilities.hpp"
#include "io/chromosome_order.hpp"
#include "io/mapped_file.hpp"
#include "io/oxford_sample_file.hpp"
#include "io/vcf_sample_ids.hpp"
#include "panoramix/bgen_files.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

using io::mapped_file;

uint32_t u32_at(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Sequential little-endian fields with bounds checks: running off the end means the file was cut.
class cursor {
 public:
  cursor(const mapped_file& f, size_t at) : f_(f), at_(at) {}
  bool has(size_t k) const { return at_ <= f_.size() && f_.size() - at_ >= k; }
  // Past the end, reads give 0 and "" (and `cut()` says so).
  uint32_t u16() {
    take(2);
    return short_ ? 0 : uint32_t(f_.data()[at_ - 2]) | uint32_t(f_.data()[at_ - 1]) << 8;
  }
  uint32_t u32() {
    take(4);
    return short_ ? 0 : u32_at(f_.data() + at_ - 4);
  }
  std::string text(size_t k) {
    take(k);
    if (short_) return {};
    return {reinterpret_cast<const char*>(f_.data() + at_ - k), k};
  }
  size_t at() const { return at_; }
  // Sets `short_` (the caller asks `cut()` and names what it was reading).
  void take(size_t k) {
    if (short_ || !has(k)) short_ = true;  // once short, every later read fails too
    else at_ += k;
  }
  bool cut() const { return short_; }

 private:
  const mapped_file& f_;
  size_t at_;
  bool short_ = false;
};

const char* compression_name(uint32_t c) { return c == 0 ? "uncompressed" : c == 1 ? "zlib" : "zstd"; }

struct block_span {
  size_t at = 0;          // first byte of the stored (maybe compressed) probabilities
  uint32_t stored = 0;    // bytes stored
  uint32_t unpacked = 0;  // bytes once decompressed
};

// Decompresses one block into `out` (exactly `b.unpacked` bytes); "" or what went wrong.
std::string unpack(const mapped_file& f, const block_span& b, uint32_t compression, std::vector<uint8_t>& out) {
  out.resize(b.unpacked);
  const uint8_t* src = f.data() + b.at;
  if (compression == 1) {
#if PMX_HAVE_LIBDEFLATE
    // One decompressor per thread (the blocks are inflated in parallel), kept for the thread's life.
    thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> inflater(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    if (!inflater) throw std::bad_alloc();
    size_t got = 0;
    const libdeflate_result z = libdeflate_zlib_decompress(inflater.get(), src, b.stored, out.data(), b.unpacked, &got);
    if (z == LIBDEFLATE_INSUFFICIENT_SPACE)
      return "corrupt zlib block: it does not end within its stated " + std::to_string(b.unpacked) + " bytes";
    if (z != LIBDEFLATE_SUCCESS) return "corrupt zlib block (invalid data)";
    if (got != b.unpacked)
      return "corrupt zlib block: " + std::to_string(got) + " bytes, the block says " + std::to_string(b.unpacked);
#elif PMX_HAVE_ZLIB
    uLongf got = b.unpacked;
    const int z = ::uncompress(out.data(), &got, src, b.stored);
    if (z == Z_BUF_ERROR && got == b.unpacked)
      return "corrupt zlib block: it does not end within its stated " + std::to_string(b.unpacked) + " bytes";
    if (z != Z_OK) return std::string("corrupt zlib block (") + (z == Z_DATA_ERROR ? "invalid data" : zError(z)) + ")";
    if (got != b.unpacked)
      return "corrupt zlib block: " + std::to_string(got) + " bytes, the block says " + std::to_string(b.unpacked);
#endif
  } else if (compression == 2) {
#if PMX_HAVE_ZSTD
    const size_t got = ZSTD_decompress(out.data(), out.size(), src, b.stored);
    if (ZSTD_isError(got)) return std::string("corrupt zstd block (") + ZSTD_getErrorName(got) + ")";
    if (got != b.unpacked)
      return "corrupt zstd block: " + std::to_string(got) + " bytes, the block says " + std::to_string(b.unpacked);
#endif
  } else {
    std::memcpy(out.data(), src, b.unpacked);
  }
  return {};
}

}  // namespace

bgen_genotypes::bgen_genotypes(const std::string& path, const bgen_options& opt, progress_sink* progress)
    : decoded_genotypes(path) {
  if (!(opt.hard_call_threshold >= 0 && opt.hard_call_threshold < 0.5))
    throw input_error("hard-call threshold " + std::to_string(opt.hard_call_threshold) + " outside [0, 0.5)");
  const mapped_file f(path, "BGEN");
  auto bad_header = [&](const std::string& what) { return input_error(path + ": bad BGEN header: " + what); };
  if (f.size() < 24) throw bad_header("the file is " + std::to_string(f.size()) + " bytes, shorter than a header");
  // Header block: offset of the first variant (from byte 4), L_H, M variants, N samples, magic,
  // free data, flags.
  const uint8_t* d = f.data();
  const uint32_t offset = u32_at(d), header_bytes = u32_at(d + 4);
  const uint32_t m = u32_at(d + 8), n = u32_at(d + 12);
  if (std::memcmp(d + 16, "bgen", 4) != 0 && u32_at(d + 16) != 0)
    throw bad_header("the magic number is not 'bgen' (not a BGEN file?)");
  if (header_bytes < 20) throw bad_header("header length " + std::to_string(header_bytes) + " (at least 20)");
  if (header_bytes > offset)
    throw bad_header("the variant data (offset " + std::to_string(offset) + ") starts inside the " +
                     std::to_string(header_bytes) + "-byte header block");
  if (uint64_t(offset) + 4 > f.size())
    throw input_error(path + ": truncated: the variant data would start at byte " +
                      std::to_string(uint64_t(offset) + 4) +
                      ", the file has " + std::to_string(f.size()));
  const uint32_t flags = u32_at(d + header_bytes);
  const uint32_t compression = flags & 3, layout = (flags >> 2) & 15;
  const bool sample_block = flags >> 31;
  if (compression == 3) throw bad_header("compression code 3 (0 none, 1 zlib, 2 zstd)");
  if (layout <= 1)
    throw unsupported_error(path + ": BGEN layout 1 (format v1.1 and older) is not supported: only layout 2 "
                            "(v1.2/v1.3); convert it with e.g. `plink2 --bgen FILE ref-first --export bgen-1.2`");
  if (layout > 2) throw bad_header("layout " + std::to_string(layout) + " (1 or 2 defined)");
  // A build without the library of the file's compression says so (CMake finds zlib and zstd).
  if ((compression == 1 && !PMX_HAVE_ZLIB && !PMX_HAVE_LIBDEFLATE) || (compression == 2 && !PMX_HAVE_ZSTD))
    throw unsupported_error(path + ": " + compression_name(compression) + "-compressed BGEN, and this build of "
                            "panoramix has no " + compression_name(compression) +
                            " (install zlib1g-dev / libzstd-dev and rebuild)");
  if (n == 0) throw input_error(path + ": no samples");
  format_ = std::string("BGEN layout 2, ") + compression_name(compression);

  // Samples: the .sample file when given, else the sample identifier block.
  std::vector<std::string> ids;
  if (sample_block) {
    cursor c(f, 4 + size_t(header_bytes));
    const uint32_t block_bytes = c.u32(), listed = c.u32();
    if (!c.cut() && listed != n)
      throw bad_header("the sample block lists " + std::to_string(listed) + " samples, the header " + std::to_string(n));
    if (!c.cut() && uint64_t(header_bytes) + block_bytes > offset)
      throw bad_header("the sample block (" + std::to_string(block_bytes) + " bytes) runs into the variant data");
    for (uint32_t i = 0; i < n && !c.cut(); ++i) ids.push_back(c.text(c.u16()));
    if (c.cut() || c.at() > 4 + size_t(offset))
      throw bad_header("the sample identifier block is cut short or runs into the variant data");
  }
  if (!opt.sample_file.empty()) {
    samples_ = io::read_oxford_samples(opt.sample_file);
    if (samples_.size() != n)
      throw input_error(opt.sample_file + ": " + std::to_string(samples_.size()) + " samples, the BGEN file " +
                        path + " has " + std::to_string(n));
  } else if (sample_block) {
    samples_ = io::vcf_sample_records(ids, opt.ids, path);
  } else {
    throw input_error(path + ": the file has no sample identifiers; give them with --sample FILE");
  }
  row_bytes_ = (int64_t(n) + 3) / 4;

  // Variant identifying data and the place of each genotype block.
  std::vector<block_span> blocks;
  // Every variant takes more than 16 bytes: a corrupt M cannot make this reserve more than the file.
  const size_t expected = std::min<size_t>(m, f.size() / 16);
  blocks.reserve(expected);
  variants_.reserve(expected);
  cursor c(f, 4 + size_t(offset));
  io::chromosome_order order;
  // The largest block N samples can need (ploidy <= 2, 32 bits a value): a larger stated length is
  // corruption, refused before anything is allocated for it.
  const uint64_t largest_block = 10 + uint64_t(n) + 8 * uint64_t(n);
  for (uint32_t j = 0; j < m; ++j) {
    auto where = [&](const std::string& id) {
      return path + ": variant " + std::to_string(uint64_t(j) + 1) +
             (id.empty() ? (j ? " (after '" + variants_.back().id + "')" : std::string()) : " ('" + id + "')");
    };
    auto truncated = [&](const std::string& id, const char* what) {
      return input_error(where(id) + ": truncated file: it ends inside the " + what + " (the header says " +
                         std::to_string(m) + " variants)");
    };
    std::string snp_id = c.text(c.u16());
    std::string rsid = c.text(c.u16());
    std::string chr = c.text(c.u16());
    const uint32_t position = c.u32();
    const uint32_t k = c.u16();
    if (c.cut()) throw truncated(rsid, "variant identifying data");
    if (k != 2)
      throw unsupported_error(where(rsid) + ": " + std::to_string(k) + " alleles: only biallelic variants are "
                              "read (plink2 refuses the file too)");
    std::string a_ref = c.text(c.u32());
    std::string a_alt = c.text(c.u32());
    if (c.cut()) throw truncated(rsid, "alleles");
    block_span b;
    b.stored = c.u32();
    b.unpacked = b.stored;
    if (compression != 0 && !c.cut()) {
      if (b.stored < 4) throw input_error(where(rsid) + ": genotype block of " + std::to_string(b.stored) + " bytes");
      b.unpacked = c.u32(), b.stored -= 4;
    }
    b.at = c.at();
    c.take(b.stored);
    if (c.cut()) throw truncated(rsid, "genotype data block");
    if (b.unpacked > largest_block)
      throw input_error(where(rsid) + ": the genotype block says it holds " + std::to_string(b.unpacked) +
                        " bytes, more than " + std::to_string(n) + " samples can need (corrupt file?)");
    if (rsid.empty()) throw input_error(where(rsid) + ": empty rsID (plink2 refuses it too)");
    if (a_ref.empty() || a_alt.empty()) throw input_error(where(rsid) + ": an empty allele");

    const std::string name = opt.chromosomes.canonical(chr);
    if (!order.add(name, position))
      throw input_error(where(rsid) + ": chromosome " + name + " comes back after other chromosomes; variants "
                        "must be grouped by chromosome, as plink2 requires");
    variant_record v;
    v.chrom = name;
    v.id = std::move(rsid);
    v.pos = position;
    v.a1 = std::move(a_alt);  // plink2 ref-first: allele 1 is REF (A2), allele 2 the counted ALT
    v.a2 = std::move(a_ref);
    variants_.push_back(std::move(v));
    blocks.push_back(b);
  }

  counts_.unsorted = order.unsorted();

  // Decode in chunks, in parallel within each: an error stops at the end of its chunk and names the
  // first bad variant of it.
  rows_.assign(size_t(m) * size_t(row_bytes_), 0);
  const uint32_t units = io::bgen_hard_call_units(opt.hard_call_threshold);
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  const int64_t chunk = 256 * int64_t(threads);  // a few blocks per thread between progress reports
  for (int64_t first = 0; first < int64_t(m); first += chunk) {
    const int64_t last = std::min<int64_t>(int64_t(m), first + chunk);
    int64_t bad = INT64_MAX;
    std::string bad_what;
    int64_t missing = 0, uncertain = 0;
#pragma omp parallel num_threads(threads) reduction(+ : missing, uncertain)
    {
      std::vector<uint8_t> buffer;
#pragma omp for schedule(dynamic, 8)
      for (int64_t j = first; j < last; ++j) {
        std::string what = unpack(f, blocks[size_t(j)], compression, buffer);
        io::bgen_row_counts rc;
        if (what.empty())
          what = io::decode_bgen_probabilities(buffer.data(), buffer.size(), n, 2, units,
                                               rows_.data() + j * row_bytes_, rc);
        missing += rc.missing, uncertain += rc.uncertain;
        if (!what.empty()) {
#pragma omp critical(pmx_bgen_error)
          if (j < bad) bad = j, bad_what = std::move(what);
        }
      }
    }
    if (bad != INT64_MAX)
      throw input_error(path + ": variant " + std::to_string(bad + 1) + " ('" + variants_[size_t(bad)].id +
                        "'): " + bad_what);
    counts_.missing_calls += missing, counts_.uncertain_calls += uncertain;
    report(progress, "read BGEN", double(last) / double(m));
  }
}

}  // namespace pmx
