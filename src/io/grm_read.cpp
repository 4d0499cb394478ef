// GCTA binary GRM reader (the format write_grm(..., grm_format::gcta) writes).
#include <cmath>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include "core/checked_number.hpp"
#include "io/text_lines.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm_files.hpp"

namespace pmx {

grm_file read_gcta_grm(const std::string& prefix) {
  grm_file g;
  {
    io::text_lines in(prefix + ".grm.id", "--grm .grm.id");
    std::unordered_map<std::string, int64_t> seen;
    while (in.next()) {
      const auto& f = in.fields();
      if (f.empty()) continue;
      if (f.size() < 2) in.fail("expected FID and IID columns, found " + std::to_string(f.size()));
      std::string key = std::string(f[0]) + '\t' + std::string(f[1]);
      auto [it, fresh] = seen.emplace(key, in.line_number());
      if (!fresh)
        in.fail("duplicate sample '" + std::string(f[0]) + " " + std::string(f[1]) +
                "' (first seen on line " + std::to_string(it->second) + ")");
      g.fid.emplace_back(f[0]);
      g.iid.emplace_back(f[1]);
    }
    if (g.fid.empty()) throw input_error("--grm file '" + prefix + ".grm.id': no samples");
  }
  g.n = static_cast<int64_t>(g.fid.size());
  const std::string bin = prefix + ".grm.bin";
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(bin.c_str(), "rb"), &std::fclose);
  if (!f) throw input_error("--grm file '" + bin + "' cannot be opened");
  std::fseek(f.get(), 0, SEEK_END);
  const long long bytes = std::ftell(f.get());
  std::fseek(f.get(), 0, SEEK_SET);
  const long long expected = static_cast<long long>(g.n) * (g.n + 1) / 2 * 4;
  if (bytes != expected)
    throw input_error("--grm file '" + bin + "': " + std::to_string(bytes) + " bytes, but " +
                      std::to_string(g.n) + " samples in " + prefix + ".grm.id need " +
                      std::to_string(expected) + " (float32 lower triangle with diagonal)");
  g.G.resize(static_cast<size_t>(g.n * g.n));
  std::vector<float> row(static_cast<size_t>(g.n));
  for (int64_t i = 0; i < g.n; ++i) {
    if (std::fread(row.data(), sizeof(float), static_cast<size_t>(i + 1), f.get()) !=
        static_cast<size_t>(i + 1))
      throw io_error("read error in '" + bin + "' (row " + std::to_string(i + 1) + ")");
    for (int64_t j = 0; j <= i; ++j) {
      // A NaN or infinity here would reach the eigensolver or Cholesky factorisation (LAPACK can
      // loop forever on a NaN): refused where it is read, naming the entry.
      if (!std::isfinite(row[j]))
        throw input_error("--grm file '" + bin + "': entry (row " + std::to_string(i + 1) + ", column " +
                          std::to_string(j + 1) + ") is " + detail::number_for_message(row[j]) + " (samples '" +
                          g.fid[i] + " " + g.iid[i] + "' and '" + g.fid[j] + " " + g.iid[j] +
                          "'): a GRM must hold finite numbers");
      g.G[i * g.n + j] = g.G[j * g.n + i] = row[j];
    }
  }
  return g;
}

}  // namespace pmx
