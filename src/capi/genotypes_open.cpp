// Creating genotype handles (from a .bed fileset or from .bed bytes in memory), destroying them,
// and the queries of what they hold.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "capi/context.hpp"
#include "capi/genotypes.hpp"
#include "capi/status.hpp"

using namespace pmx::capi;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// A file the caller named must exist and be readable: PMX_E_FILE (not a parse error) otherwise.
void require_readable(const std::string& path, const std::string& what) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(PMX_E_FILE, "cannot open " + what + " '" + path + "': " + std::strerror(errno));
  std::fclose(f);
}

/// An index subset given as (array, count) over `total` items: NULL = all (count 0), else
/// strictly increasing indices in [0, total). Returns the kept indices.
std::vector<int64_t> index_subset(const int64_t* index, int64_t count, int64_t total,
                                  const std::string& name, const std::string& count_name,
                                  const std::string& items) {
  std::vector<int64_t> kept;
  if (!index) {
    require(count == 0, PMX_E_NULL_ARGUMENT,
            name + " is NULL but " + count_name + " is " + str(count) +
                " (NULL keeps all " + items + "; its count must be 0)");
    kept.resize(static_cast<size_t>(total));
    for (int64_t i = 0; i < total; ++i) kept[i] = i;
    return kept;
  }
  require(count >= 1, PMX_E_INVALID_ARGUMENT,
          count_name + " is " + str(count) + "; a subset must keep at least one of the " +
              items + " (pass NULL to keep all)");
  kept.assign(index, index + count);
  // Messages are built only on failure (per-element string work would cost more than the check).
  for (int64_t t = 0; t < count; ++t) {
    if (kept[t] < 0 || kept[t] >= total)
      fail(PMX_E_INVALID_ARGUMENT, name + "[" + str(t) + "] = " + str(kept[t]) +
                                       " is out of range: there are " + str(total) + " " + items +
                                       " (0-based indices 0.." + str(total - 1) + ")");
    if (t > 0 && kept[t] <= kept[t - 1])
      fail(PMX_E_INVALID_ARGUMENT, name + "[" + str(t) + "] = " + str(kept[t]) + " does not follow " +
                                       name + "[" + str(t - 1) + "] = " + str(kept[t - 1]) +
                                       ": indices must be strictly increasing");
  }
  return kept;
}

bool is_all(const std::vector<int64_t>& index, int64_t total) {
  return static_cast<int64_t>(index.size()) == total;  // strictly increasing in range: identity
}

/// The kept genotypes and records of h.files: a view of the mapped .bed unless something is
/// dropped, then a compacted copy; then builds the operand (uploads on cuda).
void finish(pmx_genotypes& h) {
  const pmx::variant_major_view g = h.files->bed().view();
  std::vector<pmx::sample_record> samples;
  std::vector<pmx::variant_record> variants;
  samples.reserve(h.sample_index.size());
  variants.reserve(h.variant_index.size());
  for (int64_t i : h.sample_index) samples.push_back(h.files->all_samples()[i]);
  for (int64_t j : h.variant_index) variants.push_back(h.files->all_variants()[j]);
  const bool all_samples = is_all(h.sample_index, g.n_samples);
  if (all_samples && is_all(h.variant_index, g.n_variants))
    h.kept.emplace(g, std::move(samples), std::move(variants), h.files->prefix());
  else
    h.kept.emplace(pmx::subset(g, all_samples ? std::vector<int64_t>{} : h.sample_index, h.variant_index),
                   std::move(samples), std::move(variants), h.files->prefix());
  h.view = h.kept->view();
  h.operand.emplace(h.exec, h.view);
}

/// Shared front of the creation functions: *out cleared first, whatever fails.
template <class Make>
int create(pmx_context* ctx, pmx_genotypes** out, const char* function, Make&& make) {
  if (out) *out = nullptr;
  if (!ctx) return PMX_E_NULL_ARGUMENT;
  return guarded(ctx->messages, function, [&] {
    require(out != nullptr, PMX_E_NULL_ARGUMENT, "out is NULL");
    auto h = std::make_unique<pmx_genotypes>(ctx->make_executor());
    make(*h);
    *out = h.release();
  });
}

/// Reads the fileset (files checked for existence first) into h.files.
void open_fileset(pmx_genotypes& h, const char* prefix) {
  require(prefix != nullptr, PMX_E_NULL_ARGUMENT, "prefix is NULL");
  require(prefix[0] != '\0', PMX_E_INVALID_ARGUMENT, "prefix is empty");
  const std::string p = prefix;
  require_readable(p + ".bed", ".bed file");
  require_readable(p + ".bim", ".bim file");
  require_readable(p + ".fam", ".fam file");
  h.files = std::make_unique<pmx::plink_fileset>(p);
}

}  // namespace

extern "C" {

int pmx_genotypes_open_bed(pmx_context* ctx, const char* prefix, const char* keep_file,
                           const char* extract_file, pmx_genotypes** out) {
  return create(ctx, out, "pmx_genotypes_open_bed", [&](pmx_genotypes& h) {
    open_fileset(h, prefix);
    if (keep_file) {
      require_readable(keep_file, "keep_file");
      h.files->keep_samples(keep_file);
    }
    if (extract_file) {
      require_readable(extract_file, "extract_file");
      h.files->extract_variants(extract_file);
    }
    h.sample_index = h.files->sample_index();
    h.variant_index = h.files->variant_index();
    finish(h);
  });
}

int pmx_genotypes_open_bed_subset(pmx_context* ctx, const char* prefix, const int64_t* samples,
                                  int64_t n_keep_samples, const int64_t* variants,
                                  int64_t n_keep_variants, pmx_genotypes** out) {
  return create(ctx, out, "pmx_genotypes_open_bed_subset", [&](pmx_genotypes& h) {
    open_fileset(h, prefix);
    const auto n = static_cast<int64_t>(h.files->all_samples().size());
    const auto k = static_cast<int64_t>(h.files->all_variants().size());
    const std::string p = prefix;
    h.sample_index = index_subset(samples, n_keep_samples, n, "samples", "n_keep_samples",
                                  "samples in " + p + ".fam");
    h.variant_index = index_subset(variants, n_keep_variants, k, "variants", "n_keep_variants",
                                   "variants in " + p + ".bim");
    finish(h);
  });
}

int pmx_genotypes_from_bed_bytes(pmx_context* ctx, const void* bytes, int64_t n_bytes, int format,
                                 int64_t n_samples, int64_t n_variants, const int64_t* samples,
                                 int64_t n_keep_samples, const int64_t* variants,
                                 int64_t n_keep_variants, pmx_genotypes** out) {
  return create(ctx, out, "pmx_genotypes_from_bed_bytes", [&](pmx_genotypes& h) {
    require(bytes != nullptr, PMX_E_NULL_ARGUMENT, "bytes is NULL");
    require(format == PMX_BED_WITH_MAGIC || format == PMX_BED_ROWS_ONLY, PMX_E_INVALID_ARGUMENT,
            "format " + str(format) + " is not a pmx_bed_bytes value (0 PMX_BED_WITH_MAGIC, 1 PMX_BED_ROWS_ONLY)");
    require(n_samples >= 1, PMX_E_INVALID_ARGUMENT, "n_samples is " + str(n_samples) + "; must be >= 1");
    require(n_variants >= 1, PMX_E_INVALID_ARGUMENT, "n_variants is " + str(n_variants) + "; must be >= 1");
    const int64_t row_bytes = (n_samples + 3) / 4, header = format == PMX_BED_WITH_MAGIC ? 3 : 0;
    require(n_variants <= (std::numeric_limits<int64_t>::max() - header) / row_bytes, PMX_E_INVALID_ARGUMENT,
            "n_samples x n_variants (" + str(n_samples) + " x " + str(n_variants) + ") is too large");
    const int64_t expected = header + row_bytes * n_variants;
    require(n_bytes == expected, PMX_E_BAD_INPUT,
            "n_bytes is " + str(n_bytes) + ", but " + str(n_samples) + " samples x " + str(n_variants) +
                " variants need exactly " + str(expected) + " bytes (" +
                (header ? "3 magic bytes + " : "") + str(row_bytes) + " per variant" +
                (header ? ", format PMX_BED_WITH_MAGIC)" : ", format PMX_BED_ROWS_ONLY)"));
    const auto* b = static_cast<const uint8_t*>(bytes);
    if (header) {
      require(b[0] == 0x6c && b[1] == 0x1b, PMX_E_BAD_INPUT,
              "bytes do not start with the .bed magic bytes 0x6c 0x1b (format PMX_BED_WITH_MAGIC; "
              "use PMX_BED_ROWS_ONLY for rows without them)");
      require(b[2] == 0x01, PMX_E_BAD_INPUT,
              b[2] == 0x00 ? std::string("the .bed bytes are in sample-major mode (third byte 0x00); only "
                                         "variant-major (0x01) is supported")
                           : "third .bed byte is " + str(b[2]) + "; expected 0x01 (variant-major mode)");
    }
    h.sample_index = index_subset(samples, n_keep_samples, n_samples, "samples", "n_keep_samples", "samples");
    h.variant_index = index_subset(variants, n_keep_variants, n_variants, "variants", "n_keep_variants", "variants");
    const pmx::variant_major_view given{b + header, n_samples, n_variants, row_bytes};
    // Always copied: the caller's buffer may go away when this returns. No records: every sample
    // a founder of unknown sex, every variant unplaced (autosomal rules).
    h.kept.emplace(pmx::subset(given, is_all(h.sample_index, n_samples) ? std::vector<int64_t>{} : h.sample_index,
                               h.variant_index));
    h.view = h.kept->view();
    h.operand.emplace(h.exec, h.view);
  });
}

void pmx_genotypes_destroy(pmx_genotypes* g) { delete g; }

const char* pmx_genotypes_last_error(pmx_genotypes* g) { return g ? g->messages.get() : ""; }

int pmx_genotypes_dims(pmx_genotypes* g, int64_t* n_samples, int64_t* n_variants) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_dims", [&] {
    if (n_samples) *n_samples = g->n_samples();
    if (n_variants) *n_variants = g->n_variants();
  });
}

int pmx_genotypes_device(pmx_genotypes* g, int* device) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_device", [&] {
    require(device != nullptr, PMX_E_NULL_ARGUMENT, "device (output) is NULL");
    *device = device_code(g->exec.kind());
  });
}

static int copy_indices(pmx_genotypes* g, const char* function,
                        std::vector<int64_t> pmx_genotypes::*member, int64_t* index, int64_t count,
                        const char* what) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, function, [&] {
    const std::vector<int64_t>& from = g->*member;
    require(index != nullptr, PMX_E_NULL_ARGUMENT, "index (output) is NULL");
    require(count == static_cast<int64_t>(from.size()), PMX_E_INVALID_ARGUMENT,
            "count is " + str(count) + "; the handle keeps " + str(static_cast<int64_t>(from.size())) + " " + what);
    std::copy(from.begin(), from.end(), index);
  });
}

int pmx_genotypes_sample_indices(pmx_genotypes* g, int64_t* index, int64_t count) {
  return copy_indices(g, "pmx_genotypes_sample_indices", &pmx_genotypes::sample_index, index, count,
                      "samples");
}

int pmx_genotypes_variant_indices(pmx_genotypes* g, int64_t* index, int64_t count) {
  return copy_indices(g, "pmx_genotypes_variant_indices", &pmx_genotypes::variant_index, index, count,
                      "variants");
}

}  // extern "C"
