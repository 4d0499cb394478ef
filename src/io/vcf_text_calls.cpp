// VCF sample columns to .bed codes (vcf_text_calls.hpp).
#include "io/vcf_text_calls.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

#include "panoramix/genotype_view.hpp"

namespace pmx::io {
namespace {

const char* find_or_end(const char* p, const char* end, char c) {
  const void* q = std::memchr(p, c, static_cast<size_t>(end - p));
  return q ? static_cast<const char*>(q) : end;
}

// [begin, end) of field k of a sample column (empty where the column has fewer fields).
std::string_view field(const char* p, const char* end, int k) {
  for (int i = 0; i < k; ++i) {
    p = find_or_end(p, end, ':');
    if (p == end) return {};
    ++p;
  }
  return {p, static_cast<size_t>(find_or_end(p, end, ':') - p)};
}

// A FORMAT number floored to an integer as the BCF path reads it ('.' or empty: missing).
int32_t format_number(std::string_view s) {
  if (s.empty() || s == ".") return int_missing;
  double x = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
  if (r.ec != std::errc() || std::isnan(x)) return int_missing;
  return floored_format_value(x);
}

// The alleles of a GT text ("0/1", "1|1", "./.", "1", "."): ploidy, called, ALT copies. Returns
// false for text that is no GT; `bad` gets an allele index >= n_alleles (the first).
bool count_alleles(std::string_view gt, int n_alleles, int& ploidy, int& called, int& alt, int& bad) {
  ploidy = called = alt = 0;
  bad = -1;
  const char* q = gt.data();
  const char* end = q + gt.size();
  if (q == end) return true;  // no GT for this sample: ploidy 0
  for (;;) {
    ++ploidy;
    if (*q == '.') {
      ++q;
    } else {
      int a = 0;
      const auto r = std::from_chars(q, end, a);
      if (r.ec != std::errc() || a < 0) return false;
      q = r.ptr;
      if (a >= n_alleles && bad < 0) bad = a;
      alt += a, ++called;
    }
    if (q == end) return true;
    if (*q != '/' && *q != '|') return false;
    if (++q == end) return false;
  }
}

// ALT copies of a GT "a/b" or "a|b" with both alleles known (digits below n_alleles) that ends at
// `stop` or at a `next` character; -1 for any other text.
inline int known_diploid(const char* p, const char* stop, char next, int n_alleles) {
  if (stop - p < 3 || (p[1] != '/' && p[1] != '|') || (stop - p > 3 && p[3] != next)) return -1;
  const unsigned a1 = static_cast<unsigned>(p[0] - '0'), a2 = static_cast<unsigned>(p[2] - '0');
  const auto k = static_cast<unsigned>(n_alleles);
  return a1 < k && a2 < k ? static_cast<int>(a1 + a2) : -1;
}

inline void put(uint8_t* row, int64_t i, uint8_t code) { row[i >> 2] |= static_cast<uint8_t>(code << (2 * (i & 3))); }

}  // namespace

format_keys find_format_keys(std::string_view format) {
  format_keys k;
  int i = 0;
  for (size_t at = 0;; ++i) {
    const size_t colon = format.find(':', at);
    const std::string_view key =
        format.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at);
    if (key == "GT" && k.gt < 0) k.gt = i;
    if (key == "GQ" && k.gq < 0) k.gq = i;
    if (key == "DP" && k.dp < 0) k.dp = i;
    if (colon == std::string_view::npos) break;
    at = colon + 1;
  }
  return k;
}

text_row encode_gt_text(const char* p, const char* end, int64_t n, const format_keys& keys, int n_alleles,
                        vcf_half_call half, uint8_t* row, std::vector<int32_t>* gq, std::vector<int32_t>* dp) {
  text_row t;
  if (gq) gq->assign(static_cast<size_t>(n), int_missing);
  if (dp) dp->assign(static_cast<size_t>(n), int_missing);
  const bool gt_alone = keys.gt == 0 && !(gq && keys.gq >= 0) && !(dp && keys.dp >= 0);
  for (;;) {  // a column per tab-separated field, the last one up to `end`
    const int64_t i = t.columns++;
    if (i >= n) return t;  // one column too many: enough to say so
    // The commonest column of all, "a/b" alone: no search for its end.
    if (gt_alone) {
      if (const int alt = known_diploid(p, end, '\t', n_alleles); alt >= 0) {
        put(row, i, code_of_alt_count(alt));
        if (end - p == 3) break;
        p += 4;
        continue;
      }
    }
    const char* col_end = find_or_end(p, end, '\t');
    // The common call next: GT leads, "a/b" with both alleles known; else the general rules.
    if (const int alt = keys.gt == 0 ? known_diploid(p, col_end, ':', n_alleles) : -1; alt >= 0) {
      put(row, i, code_of_alt_count(alt));
    } else {
      int ploidy = 0, called = 0, alt_copies = 0, bad = -1;
      const std::string_view gt = keys.gt == 0
                                      ? std::string_view(p, static_cast<size_t>(find_or_end(p, col_end, ':') - p))
                                      : field(p, col_end, keys.gt);
      if (!count_alleles(gt, n_alleles, ploidy, called, alt_copies, bad)) {
        t.problem = {i, gt_row_problem::kind::malformed, 0};
        return t;
      }
      if (bad >= 0 && ploidy <= 2) {
        t.problem = {i, gt_row_problem::kind::bad_allele, bad};
        return t;
      }
      const call_rule c = apply_call_rule(ploidy, called, alt_copies, half);
      t.half_calls += c.half_call;
      if (c.refused) {
        t.problem = {i, gt_row_problem::kind::half_call, 0};
        return t;
      }
      put(row, i, c.code);
    }
    if (gq && keys.gq >= 0) (*gq)[i] = format_number(field(p, col_end, keys.gq));
    if (dp && keys.dp >= 0) (*dp)[i] = format_number(field(p, col_end, keys.dp));
    if (col_end == end) break;
    p = col_end + 1;
  }
  return t;
}

}  // namespace pmx::io
