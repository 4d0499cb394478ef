#include "simulate/pedigree_sim_files.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "panoramix/output_file.hpp"
#include "panoramix/plink_write.hpp"

namespace pmx::sim {
namespace {

// A number as printf's %.10g writes it ("NA" for NaN), appended to `out`.
void put_field(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NA";
    return;
  }
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 10).ptr;
  out.append(buf, end);
}

void put_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// Writes one text line per animal through `line(a, out)`: blocks of animals are formatted in
// parallel, then written in order (millions of lines: printf alone took seconds per file).
template <class Line>
void write_lines(output_file& f, int64_t n, int threads, Line&& line) {
  constexpr int64_t block = 1 << 15;
  std::vector<std::string> text(static_cast<size_t>(std::max(1, threads)) * 4);
  const int64_t per_round = block * static_cast<int64_t>(text.size());
  for (int64_t a0 = 0; a0 < n; a0 += per_round) {
    const int64_t blocks = std::min<int64_t>(text.size(), (n - a0 + block - 1) / block);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t b = 0; b < blocks; ++b) {
      std::string& out = text[b];
      out.clear();
      for (int64_t a = a0 + b * block; a < std::min(n, a0 + (b + 1) * block); ++a) line(a, out);
    }
    for (int64_t b = 0; b < blocks; ++b) f.write(text[b]);
  }
}

}  // namespace

void write_pedigree_dataset(const std::string& prefix, const pedigree_dataset& d, int threads) {
  const int t = d.n_traits;
  const int64_t n = static_cast<int64_t>(d.id.size());
  output_group out;
  auto& ped = out.add(prefix + ".ped");
  ped.write("animal sire dam\n");
  write_lines(ped, n, threads, [&](int64_t a, std::string& o) {
    o += d.id[a];
    o += ' ';
    o += d.sire[a] < 0 ? std::string_view("0") : std::string_view(d.id[d.sire[a]]);
    o += ' ';
    o += d.dam[a] < 0 ? std::string_view("0") : std::string_view(d.id[d.dam[a]]);
    o += '\n';
  });
  auto& ph = out.add(prefix + ".pheno");
  ph.write("ID herd lact dim");
  for (int k = 0; k < t; ++k) ph.printf(" trait%d", k + 1);
  ph.write("\n");
  write_lines(ph, n, threads, [&](int64_t a, std::string& o) {
    if (d.herd[a] <= 0) return;
    o += d.id[a];
    o += ' ';
    put_int(o, d.herd[a]);
    o += ' ';
    put_int(o, d.lact[a]);
    o += ' ';
    put_field(o, d.dim[a]);
    for (int k = 0; k < t; ++k) {
      o += ' ';
      put_field(o, d.phenotype[a * t + k]);
    }
    o += '\n';
  });
  auto& tbv = out.add(prefix + ".tbv");
  tbv.write("ID generation genotyped");
  for (int k = 0; k < t; ++k) tbv.printf(" trait%d", k + 1);
  tbv.write("\n");
  std::vector<char> typed(n, 0);
  for (int64_t a : d.genotyped) typed[a] = 1;
  write_lines(tbv, n, threads, [&](int64_t a, std::string& o) {
    o += d.id[a];
    o += ' ';
    put_int(o, d.generation[a]);
    o += ' ';
    put_int(o, typed[a]);
    for (int k = 0; k < t; ++k) {
      o += ' ';
      put_field(o, d.tbv[a * t + k]);
    }
    o += '\n';
  });
  auto& vc = out.add(prefix + ".vc");
  for (const auto* m : {&d.G0, &d.R0}) {
    vc.write(m == &d.G0 ? "genetic\n" : "residual\n");
    for (int i = 0; i < t; ++i) {
      std::string line;
      for (int j = 0; j < t; ++j) {
        if (j) line += ' ';
        put_field(line, (*m)[i * t + j]);
      }
      vc.write(line + "\n");
    }
  }
  write_plink_fileset(prefix, d.samples, d.variants, d.genotypes.view());
  out.commit_all();
}

int64_t animals_with_records(const pedigree_dataset& d) {
  int64_t records = 0;
  for (int h : d.herd) records += h > 0;
  return records;
}

}  // namespace pmx::sim
