// PLINK 1 fileset writer.
#include "panoramix/plink_write.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"

namespace pmx {
namespace {

// A field with whitespace or an empty one would shift the columns when read back.
void check_field(const std::string& value, const char* what, const std::string& path,
                 size_t index) {
  const bool bad = value.empty() || std::any_of(value.begin(), value.end(), [](char c) {
                     return c == ' ' || c == '\t' || c == '\n' || c == '\r';
                   });
  if (bad)
    throw input_error(path + ": cannot write record " + std::to_string(index + 1) + ": " + what +
                      " '" + value + "' is empty or contains whitespace");
}

std::string format_double(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);  // shortest form that reads back exactly
  return std::string(buf, r.ptr);
}

// `sample(i)` / `variant(j)`: the records, from vectors or from a genotype source.
template <class Sample>
void write_fam(output_file& out, size_t count, Sample sample, plink_text_style style) {
  const char sep = style == plink_text_style::plink2 ? '\t' : ' ';
  for (size_t i = 0; i < count; ++i) {
    const sample_record& s = sample(i);
    check_field(s.fid, "FID", out.path(), i);
    check_field(s.iid, "IID", out.path(), i);
    check_field(s.father, "father ID", out.path(), i);
    check_field(s.mother, "mother ID", out.path(), i);
    check_field(s.phenotype, "phenotype", out.path(), i);
    std::string line = s.fid + sep + s.iid + sep + s.father + sep + s.mother + sep + std::to_string(s.sex) + sep +
                       s.phenotype + '\n';
    out.write(line);
  }
}

template <class Variant>
void write_bim(output_file& out, size_t count, Variant variant, plink_text_style style) {
  for (size_t j = 0; j < count; ++j) {
    const variant_record& v = variant(j);
    check_field(v.chrom, "chromosome", out.path(), j);
    check_field(v.id, "variant ID", out.path(), j);
    check_field(v.a1, "allele 1", out.path(), j);
    check_field(v.a2, "allele 2", out.path(), j);
    // PLINK 1's missing allele "0" is "." in plink2's files.
    auto allele = [style](const std::string& a) {
      return style == plink_text_style::plink2 && a == "0" ? std::string(".") : a;
    };
    std::string line = v.chrom + '\t' + v.id + '\t' + format_double(v.cm) + '\t' + std::to_string(v.pos) +
                       '\t' + allele(v.a1) + '\t' + allele(v.a2) + '\n';
    out.write(line);
  }
}

constexpr uint8_t bed_magic[3] = {0x6c, 0x1b, 0x01};

// The rows of `g`, with padding calls zeroed (views may have any value there; the file needs 00).
void write_rows(output_file& out, const variant_major_view& g) {
  const int64_t row = (g.n_samples + 3) / 4;
  if (row == 0 || g.n_variants == 0) return;
  const int tail = static_cast<int>(g.n_samples & 3);
  const uint8_t tail_mask = tail ? static_cast<uint8_t>((1u << (2 * tail)) - 1) : 0xff;
  const int64_t rows_per_chunk = std::max<int64_t>(1, (int64_t{1} << 20) / row);
  std::vector<uint8_t> chunk;
  for (int64_t first = 0; first < g.n_variants; first += rows_per_chunk) {
    const int64_t count = std::min(rows_per_chunk, g.n_variants - first);
    // Rows already laid out as the file wants them (no stride, padding calls zero, as decoding
    // readers keep them) are written from where they are.
    bool as_is = g.row_bytes == row;
    for (int64_t k = 0; k < count && as_is; ++k) as_is = (g.row(first + k)[row - 1] & ~tail_mask) == 0;
    if (as_is) {
      out.write(g.row(first), static_cast<size_t>(count * row));
      continue;
    }
    chunk.resize(static_cast<size_t>(count * row));
    for (int64_t k = 0; k < count; ++k) {
      uint8_t* dst = chunk.data() + k * row;
      std::memcpy(dst, g.row(first + k), static_cast<size_t>(row));
      dst[row - 1] &= tail_mask;
    }
    out.write(chunk.data(), static_cast<size_t>(count * row));
  }
}

}  // namespace

void write_plink_fileset(const std::string& prefix, const std::vector<sample_record>& samples,
                         const std::vector<variant_record>& variants,
                         const variant_major_view& genotypes, plink_text_style style) {
  PMX_EXPECTS(static_cast<int64_t>(samples.size()) == genotypes.n_samples,
              "sample records do not match the genotype matrix");
  PMX_EXPECTS(static_cast<int64_t>(variants.size()) == genotypes.n_variants,
              "variant records do not match the genotype matrix");
  PMX_EXPECTS(genotypes.n_variants == 0 || genotypes.row_bytes >= (genotypes.n_samples + 3) / 4,
              "row stride shorter than a row");
  output_group group;
  write_fam(group.add(prefix + ".fam"), samples.size(), [&](size_t i) -> const sample_record& { return samples[i]; },
            style);
  write_bim(group.add(prefix + ".bim"), variants.size(),
            [&](size_t j) -> const variant_record& { return variants[j]; }, style);
  output_file& bed = group.add(prefix + ".bed");
  bed.write(bed_magic, 3);
  write_rows(bed, genotypes);
  group.commit_all();
}

void write_plink_fileset(const std::string& prefix, const genotype_source& g, plink_text_style style,
                         progress_sink* progress) {
  output_group group;
  write_fam(group.add(prefix + ".fam"), size_t(g.n_samples()),
            [&](size_t i) -> const sample_record& { return g.sample(int64_t(i)); }, style);
  write_bim(group.add(prefix + ".bim"), size_t(g.n_variants()),
            [&](size_t j) -> const variant_record& { return g.variant(int64_t(j)); }, style);
  output_file& bed = group.add(prefix + ".bed");
  bed.write(bed_magic, 3);
  // Blocks of about 4 MB: a source that decodes as it is read (.pgen) hands over rows that are
  // still in cache, and is never whole in memory.
  const int64_t row = std::max<int64_t>(1, (g.n_samples() + 3) / 4);
  const int64_t per_block = std::max<int64_t>(1, (int64_t{4} << 20) / row);
  packed_genotypes copy;
  for (int64_t first = 0; first < g.n_variants(); first += per_block) {
    const int64_t count = std::min(per_block, g.n_variants() - first);
    write_rows(bed, g.block(first, count, copy));
    report(progress, "write .bed", double(first + count) / double(g.n_variants()));
  }
  group.commit_all();
}

}  // namespace pmx
