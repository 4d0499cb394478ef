#include "panoramix/pca_files.hpp"

#include "panoramix/error.hpp"

namespace pmx {

void write_pca(output_group& out, const std::string& prefix, const std::vector<std::string>& fid,
               const std::vector<std::string>& iid, const std::vector<double>& values, const std::vector<double>& vectors) {
  const auto n = static_cast<int64_t>(fid.size()), pcs = static_cast<int64_t>(values.size());
  PMX_EXPECTS(iid.size() == fid.size() && static_cast<int64_t>(vectors.size()) == n * pcs,
              "PCA outputs: IDs, eigenvalues and eigenvectors disagree on their sizes");
  auto& val = out.add(prefix + ".eigenval");
  for (double v : values) val.printf("%.10g\n", v);
  auto& vec = out.add(prefix + ".eigenvec");
  for (int64_t i = 0; i < n; ++i) {
    vec.printf("%s %s", fid[i].c_str(), iid[i].c_str());
    for (int64_t c = 0; c < pcs; ++c) vec.printf(" %.10g", vectors[c * n + i]);
    vec.write("\n");
  }
}

void write_pca(output_group& out, const std::string& prefix, const genotype_source& data, const pca_result& r) {
  PMX_EXPECTS(r.n == data.n_samples(), "PCA result and genotypes disagree on the sample count");
  PMX_EXPECTS(static_cast<int64_t>(r.values.size()) == r.pcs, "PCA result: one eigenvalue per component");
  std::vector<std::string> fid, iid;
  fid.reserve(static_cast<size_t>(r.n)), iid.reserve(static_cast<size_t>(r.n));
  for (int64_t i = 0; i < r.n; ++i) fid.push_back(data.sample(i).fid), iid.push_back(data.sample(i).iid);
  write_pca(out, prefix, fid, iid, r.values, r.vectors);
}

}  // namespace pmx
