// PREFIX.ld.bin and PREFIX.ld writers (PLINK 1.9 layouts).
#include "panoramix/ld_files.hpp"

#include <algorithm>
#include <cstring>

#include "panoramix/error.hpp"

namespace pmx {

// ------------------------------------------------------------------------------------------------
// Number formatting as PLINK 1.9's dtoa_g (plink_common.c), re-expressed: the value is scaled by
// the same powers of ten in the same order (so the same binary roundings happen), then rounded to
// an integer of 6 significant digits with PLINK's banker's rule: a fraction within 5e-9 of one
// half rounds to the even integer, anything else to nearest.

namespace {

constexpr double kBanker[2] = {0.499999995, 0.500000005};

// Integer nearest to x >= 0 under PLINK's rule (its double_bround).
uint32_t banker_round(double x) {
  const auto t = static_cast<uint32_t>(static_cast<int32_t>(x));
  return t + static_cast<uint32_t>(
                 static_cast<int32_t>((x - static_cast<int32_t>(t)) + kBanker[t & 1]));
}

char* put_uint(char* p, uint64_t v) {
  char tmp[24];
  int k = 0;
  do tmp[k++] = static_cast<char>('0' + v % 10), v /= 10;
  while (v);
  while (k) *p++ = tmp[--k];
  return p;
}

constexpr uint32_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

// t / 10^k, then "." and the k decimals of t with trailing zeros (and the point) dropped.
char* put_fixed(char* p, uint32_t t, int k) {
  p = put_uint(p, t / kPow10[k]);
  uint32_t rem = t % kPow10[k];
  if (!rem) return p;
  *p++ = '.';
  while (rem) {
    --k;
    const uint32_t d = rem / kPow10[k];
    *p++ = static_cast<char>('0' + d);
    rem -= d * kPow10[k];
  }
  return p;
}

// d·10^k rounded (PLINK's double_bround<k>: one multiplication by the literal 10^k).
char* put_rounded(char* p, double d, int k) {
  return put_fixed(p, banker_round(d * static_cast<double>(kPow10[k])), k);
}

char* put_exponent(char* p, char sign, unsigned e) {
  *p++ = 'e';
  *p++ = sign;
  if (e >= 100) *p++ = static_cast<char>('0' + e / 100), e %= 100;
  *p++ = static_cast<char>('0' + e / 10);
  *p++ = static_cast<char>('0' + e % 10);
  return p;
}

char* put_str(char* p, const char* s) {
  while (*s) *p++ = *s++;
  return p;
}

/// PLINK 1.9's dtoa_g into p (at most 13 characters); returns the end.
char* format_g(double x, char* p) {
  if (x != x) return put_str(p, "nan");
  if (x < 0) *p++ = '-', x = -x;
  if (x < 9.9999949999999e-5) {
    if (x == 0.0) return put_str(p, "0");
    unsigned e = 0;
    if (x < 9.9999949999999e-16) {
      if (x < 9.9999949999999e-128) {
        if (x < 9.9999949999999e-256)
          x *= 1.0e256, e |= 256;
        else
          x *= 1.0e128, e |= 128;
      }
      if (x < 9.9999949999999e-64) x *= 1.0e64, e |= 64;
      if (x < 9.9999949999999e-32) x *= 1.0e32, e |= 32;
      if (x < 9.9999949999999e-16) x *= 1.0e16, e |= 16;
    }
    if (x < 9.9999949999999e-8) x *= 100000000, e |= 8;
    if (x < 9.9999949999999e-4) x *= 10000, e |= 4;
    if (x < 9.9999949999999e-2) x *= 100, e |= 2;
    if (x < 9.9999949999999e-1) x *= 10, ++e;
    return put_exponent(put_rounded(p, x, 5), '-', e);
  }
  if (x >= 999999.49999999) {
    if (x > 1.7976931348623157e308) return put_str(p, "inf");
    unsigned e = 0;
    if (x >= 9.9999949999999e15) {
      if (x >= 9.9999949999999e127) {
        if (x >= 9.9999949999999e255)
          x *= 1.0e-256, e |= 256;
        else
          x *= 1.0e-128, e |= 128;
      }
      if (x >= 9.9999949999999e63) x *= 1.0e-64, e |= 64;
      if (x >= 9.9999949999999e31) x *= 1.0e-32, e |= 32;
      if (x >= 9.9999949999999e15) x *= 1.0e-16, e |= 16;
    }
    if (x >= 9.9999949999999e7) x *= 1.0e-8, e |= 8;
    if (x >= 9.9999949999999e3) x *= 1.0e-4, e |= 4;
    if (x >= 9.9999949999999e1) x *= 1.0e-2, e |= 2;
    if (x >= 9.9999949999999e0) x *= 1.0e-1, ++e;
    return put_exponent(put_rounded(p, x, 5), '+', e);
  }
  if (x >= 0.99999949999999) {  // 6 significant digits, 1 to 6 of them before the point
    if (x < 9.9999949999999) return put_rounded(p, x, 5);
    if (x < 99.999949999999) return put_rounded(p, x, 4);
    if (x < 999.99949999999) return put_rounded(p, x, 3);
    if (x < 9999.9949999999) return put_rounded(p, x, 2);
    if (x < 99999.949999999) return put_rounded(p, x, 1);
    return put_uint(p, banker_round(x));
  }
  // 0.0001 <= x < 1: "0.", zeros, then 6 significant digits without trailing zeros.
  p = put_str(p, "0.");
  if (x < 9.9999949999999e-3) x *= 100, p = put_str(p, "00");
  if (x < 9.9999949999999e-2) x *= 10, *p++ = '0';
  uint32_t t = banker_round(x * 1000000);  // 100000 <= t < 1000000
  while (t % 10 == 0) t /= 10;
  return put_uint(p, t);
}

// s right-aligned in `width` columns (longer strings are written whole, as PLINK does).
char* put_padded(char* p, const char* s, size_t len, size_t width) {
  for (size_t k = len; k < width; ++k) *p++ = ' ';
  std::memcpy(p, s, len);
  return p + len;
}

void pad_left(std::string& out, const std::string& s, size_t width) {
  if (s.size() < width) out.append(width - s.size(), ' ');
  out += s;
}

}  // namespace

std::string plink1_format_g(double x) {
  char buf[32];
  return std::string(buf, format_g(x, buf));
}

std::string plink1_chrom_code(const chromosome_set& chroms, const std::string& chrom) {
  using kind = chromosome_set::kind;
  switch (chroms.classify(chrom)) {
    case kind::x:
      return std::to_string(chroms.n_autosomes + 1);
    case kind::y:
      return std::to_string(chroms.n_autosomes + 2);
    case kind::xy:
      return std::to_string(chroms.n_autosomes + 3);
    case kind::mt:
      return std::to_string(chroms.n_autosomes + 4);
    case kind::autosome:
    case kind::unplaced:
      return chroms.canonical(chrom);
    default:
      return chrom;
  }
}

// ------------------------------------------------------------------------------------------------
// PREFIX.ld.bin

ld_bin_writer::ld_bin_writer(output_group& out, const std::string& prefix, int64_t n_variants)
    : file_(out.add(prefix + ".ld.bin")), n_(n_variants) {}

void ld_bin_writer::write_rows(int64_t first_row, int64_t n_rows, const double* values) {
  PMX_EXPECTS(first_row == next_row_ && first_row + n_rows <= n_, "rows out of order");
  file_.write(values, static_cast<size_t>(n_rows * n_) * sizeof(double));
  next_row_ += n_rows;
}

// ------------------------------------------------------------------------------------------------
// PREFIX.ld

ld_table_writer::ld_table_writer(output_group& out, const std::string& prefix,
                                 const genotype_source& data, const chromosome_set& chroms,
                                 ld_statistic stat, const std::vector<double>* freqs)
    : ld_table_writer([&file = out.add(prefix + ".ld")](std::string_view text) { file.write(text); }, data, chroms,
                      stat, freqs, true) {}

ld_table_writer::ld_table_writer(std::function<void(std::string_view)> write, const genotype_source& data,
                                 const chromosome_set& chroms, ld_statistic stat, const std::vector<double>* freqs,
                                 bool header)
    : write_(std::move(write)), data_(data), freqs_(freqs) {
  const int64_t m = data.n_variants();
  PMX_EXPECTS(!freqs || static_cast<int64_t>(freqs->size()) == m, "one frequency per variant");
  chrom_.resize(static_cast<size_t>(m));
  // PLINK 1.9's ID column width (calc_plink_maxsnp): start at 4 and, scanning the kept IDs in
  // order, widen to length + 2 whenever an ID is longer than the current width. Order matters:
  // IDs of 9 then 10 characters give 11; a 7 followed by a 10 gives 12.
  size_t width = 4;
  for (int64_t j = 0; j < m; ++j) {
    chrom_[j] = plink1_chrom_code(chroms, data.variant(j).chrom);
    if (data.variant(j).id.size() > width) width = data.variant(j).id.size() + 2;
  }
  id_width_ = static_cast<int>(width);
  std::string h = " CHR_A         BP_A ";
  pad_left(h, "SNP_A", width);
  if (freqs_) h += "      MAF_A";
  h += "  CHR_B         BP_B ";
  pad_left(h, "SNP_B", width);
  if (freqs_) h += "      MAF_B";
  h += std::string(11, ' ');
  h += stat == ld_statistic::r2 ? "R2 \n" : " R \n";
  if (header) write_(h);
}

void ld_table_writer::write(std::span<const ld_pair> pairs) {
  const auto w = static_cast<size_t>(id_width_);
  buf_.clear();
  std::string line;
  char num[32];
  for (const ld_pair& p : pairs) {
    const variant_record &a = data_.variant(p.a), &b = data_.variant(p.b);
    line.resize(a.id.size() + b.id.size() + chrom_[p.a].size() + chrom_[p.b].size() + 2 * w + 160);
    char* o = line.data();
    // Each side: chromosome (width 6), 3 spaces, position (width 10), space, ID, space [, freq
    // (width 10), space]; then the value (width 12), " \n".
    for (int side = 0; side < 2; ++side) {
      const variant_record& v = side ? b : a;
      const int64_t j = side ? p.b : p.a;
      o = put_padded(o, chrom_[j].data(), chrom_[j].size(), 6);
      o = put_str(o, "   ");
      const char* e = put_uint(num, static_cast<uint64_t>(std::max<int64_t>(v.pos, 0)));
      o = put_padded(o, num, static_cast<size_t>(e - num), 10);
      *o++ = ' ';
      o = put_padded(o, v.id.data(), v.id.size(), w);
      *o++ = ' ';
      if (freqs_) {
        e = format_g((*freqs_)[j], num);
        o = put_padded(o, num, static_cast<size_t>(e - num), 10);
        *o++ = ' ';
      }
    }
    const char* e = format_g(p.value, num);
    o = put_padded(o, num, static_cast<size_t>(e - num), 12);
    *o++ = ' ';
    *o++ = '\n';
    buf_.append(line.data(), static_cast<size_t>(o - line.data()));
  }
  write_(buf_);
  rows_ += static_cast<int64_t>(pairs.size());
}

}  // namespace pmx
