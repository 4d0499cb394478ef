#include "panoramix/result_files.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "panoramix/error.hpp"

namespace pmx {
namespace {
// PLINK writes a missing allele code ("0" in .bim) as ".".
const char* allele(const std::string& a) { return a == "0" ? "." : a.c_str(); }

// Six significant digits as PLINK 2 prints them: a value within rounding noise of a decimal
// tie (e.g. 273/1920 = 0.1421875, not exact in binary) is rounded half-to-even on the decimal
// digit, where printf would round the binary value (0.142187 here, PLINK 0.142188).
void print_g6(output_file& f, double x) {
  const double e = std::floor(std::log10(std::fabs(x)));
  const double scale = std::pow(10.0, e - 5);
  const double scaled = std::fabs(x) / scale;  // in [1e5, 1e6)
  const double whole = std::floor(scaled);
  if (std::fabs(scaled - whole - 0.5) < 1e-7) {
    const double even = std::fmod(whole, 2.0) == 0 ? whole : whole + 1;
    f.printf("%.6g", std::copysign(even * scale, x));
    return;
  }
  f.printf("%.6g", x);
}
}  // namespace

void write_afreq(output_group& out, const std::string& prefix, const genotype_source& data,
                 const allele_frequencies& f, const chromosome_set& chroms) {
  auto& file = out.add(prefix + ".afreq");
  file.write("#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n");
  for (int64_t j = 0; j < data.n_variants(); ++j) {
    const auto& v = data.variant(j);
    const double p = f.a1[j];
    file.printf("%s\t%s\t%s\t%s\t", chroms.canonical(v.chrom).c_str(), v.id.c_str(), allele(v.a2), allele(v.a1));
    if (std::isnan(p)) file.write("nan");
    else if (p == 0) file.write("0");
    else print_g6(file, p);
    file.printf("\t%lld\n", static_cast<long long>(f.observations[j]));
  }
}

namespace {

// Row boundaries cutting n rows into pieces of about 16 MiB of `weight(row)` values each.
template <class Weight>
std::vector<int64_t> row_pieces(int64_t n, Weight weight) {
  constexpr int64_t target = int64_t{1} << 22;  // values per piece
  std::vector<int64_t> rows{0};
  int64_t acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc += weight(i);
    if (acc >= target || i + 1 == n) rows.push_back(i + 1), acc = 0;
  }
  return rows;
}

// Bytes of each piece of whole rows of `width` values of `size` bytes.
std::vector<size_t> piece_bytes(const std::vector<int64_t>& rows, int64_t width, size_t size) {
  std::vector<size_t> b(rows.size() - 1);
  for (size_t p = 0; p < b.size(); ++p) b[p] = static_cast<size_t>((rows[p + 1] - rows[p]) * width) * size;
  return b;
}

void write_ids(output_file& file, const genotype_source& data, bool header) {
  if (header) file.write("#FID\tIID\n");
  for (int64_t i = 0; i < data.n_samples(); ++i)
    file.printf("%s\t%s\n", data.sample(i).fid.c_str(), data.sample(i).iid.c_str());
}
}  // namespace

namespace {

// The text of row i of a lower triangle (PLINK --make-rel): row[0..i], tab-separated.
void append_rel_row(std::string& text, const double* row, int64_t i) {
  char buf[32];
  for (int64_t j = 0; j <= i; ++j) {
    const int len = std::snprintf(buf, sizeof buf, j < i ? "%.6g\t" : "%.6g\n", row[j]);
    text.append(buf, static_cast<size_t>(len));
  }
}

// row[0..i] as float32 (GCTA's .grm.bin and .grm.N.bin rows).
template <class T>
void append_float_row(std::string& bytes, const T* row, int64_t i) {
  const size_t at = bytes.size();
  bytes.resize(at + static_cast<size_t>(i + 1) * sizeof(float));
  auto* f = reinterpret_cast<float*>(bytes.data() + at);
  for (int64_t j = 0; j <= i; ++j) f[j] = static_cast<float>(row[j]);
}

// One file of a result held in rows over ranks: each rank turns its rows [r0, r1) into bytes
// (append_row(bytes, i)) in pieces of about 64 MiB and writes them itself at their place in rank
// 0's temporary of the file (`file` on rank 0, null elsewhere; its group commits it). The place is
// the bytes of all rows before r0: `offset` when the rows have a known width, else (-1: text) the
// totals of the ranks before this one, each rank formatting its rows once more to count them.
template <class AppendRow>
void write_rows_over_ranks(const communicator& comm, output_file* file, const std::string& path, int64_t r0,
                           int64_t r1, int64_t offset, AppendRow append_row) {
  constexpr size_t piece = size_t{64} << 20;
  std::string bytes;
  if (offset < 0) {
    std::vector<int64_t> totals(static_cast<size_t>(comm.size()), 0);
    for (int64_t i = r0; i < r1; ++i) {
      append_row(bytes, i);
      totals[static_cast<size_t>(comm.rank())] += static_cast<int64_t>(bytes.size());
      bytes.clear();
    }
    comm.sum(totals.data(), comm.size());
    offset = 0;
    for (int r = 0; r < comm.rank(); ++r) offset += totals[static_cast<size_t>(r)];
  }
  rank_shared_output shared(comm, file, path);
  auto at = static_cast<uint64_t>(offset);
  for (int64_t i = r0; i < r1; ++i) {
    append_row(bytes, i);
    if (bytes.size() >= piece || i + 1 == r1) shared.write_at(at, bytes.data(), bytes.size()), at += bytes.size(), bytes.clear();
  }
  shared.commit();
}

}  // namespace

void write_grm(output_group& out, const std::string& prefix, const genotype_source& data,
               const grm_result& g, grm_format format, int threads, const communicator& comm) {
  const int64_t n = g.n;
  PMX_EXPECTS(n == data.n_samples(), "GRM and genotypes disagree on the sample count");
  PMX_EXPECTS(format != grm_format::gcta || !g.N.empty(), "GCTA output needs the pair counts");
  if (comm.distributed()) {  // every rank takes this path, also one that holds all the rows or none
    // Rows over ranks (whole rows: both triangles): each rank writes its own at their offsets.
    const int64_t r0 = g.row_begin;
    auto file = [&](const std::string& name) { return comm.rank() == 0 ? &out.add(name) : nullptr; };
    auto rows_over_ranks = [&](const std::string& name, int64_t offset, auto append_row) {
      write_rows_over_ranks(comm, file(name), name, r0, g.row_end, offset, append_row);
    };
    const int64_t lower_before = r0 * (r0 + 1) / 2 * int64_t{sizeof(float)};  // GCTA's rows 0 .. r0 − 1
    switch (format) {
      case grm_format::rel_bin:
        rows_over_ranks(prefix + ".rel.bin", r0 * n * int64_t{sizeof(double)}, [&](std::string& b, int64_t i) {
          b.append(reinterpret_cast<const char*>(g.G.data() + (i - r0) * n), static_cast<size_t>(n) * sizeof(double));
        });
        break;
      case grm_format::rel:
        rows_over_ranks(prefix + ".rel", -1,
                        [&](std::string& b, int64_t i) { append_rel_row(b, g.G.data() + (i - r0) * n, i); });
        break;
      case grm_format::gcta:
        rows_over_ranks(prefix + ".grm.bin", lower_before,
                        [&](std::string& b, int64_t i) { append_float_row(b, g.G.data() + (i - r0) * n, i); });
        rows_over_ranks(prefix + ".grm.N.bin", lower_before,
                        [&](std::string& b, int64_t i) { append_float_row(b, g.N.data() + (i - r0) * n, i); });
        break;
    }
    if (comm.rank() == 0) write_ids(out.add(prefix + (format == grm_format::gcta ? ".grm.id" : ".rel.id")), data, format != grm_format::gcta);
    return;
  }
  PMX_EXPECTS(g.row_begin == 0 && g.row_end == n, "one process holds every row of the GRM");
  switch (format) {
    case grm_format::rel_bin: {
      const auto rows = row_pieces(n, [](int64_t) { return 1; });
      out.add(prefix + ".rel.bin").write_pieces(piece_bytes(rows, n, sizeof(double)), threads, [&](size_t p, char* buf) {
        std::memcpy(buf, g.G.data() + rows[p] * n, static_cast<size_t>((rows[p + 1] - rows[p]) * n) * sizeof(double));
      });
      write_ids(out.add(prefix + ".rel.id"), data, true);
      break;
    }
    case grm_format::rel: {
      auto& f = out.add(prefix + ".rel");
      std::string text;
      for (int64_t i = 0; i < n; ++i) {
        append_rel_row(text, g.G.data() + i * n, i);
        if (text.size() >= (size_t{16} << 20) || i + 1 == n) f.write(text), text.clear();
      }
      write_ids(out.add(prefix + ".rel.id"), data, true);
      break;
    }
    case grm_format::gcta: {
      // Lower triangles as float32, row i holding i + 1 values, written in pieces of rows on threads.
      const auto rows = row_pieces(n, [](int64_t i) { return i + 1; });
      std::vector<size_t> sizes(rows.size() - 1);
      for (size_t p = 0; p + 1 < rows.size(); ++p) {
        const auto a = static_cast<size_t>(rows[p]), b = static_cast<size_t>(rows[p + 1]);
        sizes[p] = (b * (b + 1) / 2 - a * (a + 1) / 2) * sizeof(float);
      }
      auto lower = [&](auto get) {
        return [&, get](size_t p, char* buf) {
          auto* f = reinterpret_cast<float*>(buf);
          for (int64_t i = rows[p]; i < rows[p + 1]; ++i)
            for (int64_t j = 0; j <= i; ++j) *f++ = static_cast<float>(get(i * n + j));
        };
      };
      out.add(prefix + ".grm.bin").write_pieces(sizes, threads, lower([&](int64_t at) { return g.G[at]; }));
      out.add(prefix + ".grm.N.bin").write_pieces(sizes, threads, lower([&](int64_t at) { return g.N[at]; }));
      write_ids(out.add(prefix + ".grm.id"), data, false);
      break;
    }
  }
}

}  // namespace pmx
