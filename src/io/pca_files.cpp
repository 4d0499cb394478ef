#include "panoramix/pca_files.hpp"

#include "panoramix/error.hpp"

namespace pmx {

void write_pca(output_group& out, const std::string& prefix, const plink_fileset& data, const pca_result& r) {
  PMX_EXPECTS(r.n == data.n_samples(), "PCA result and fileset disagree on the sample count");
  auto& val = out.add(prefix + ".eigenval");
  for (double v : r.values) val.printf("%.10g\n", v);
  auto& vec = out.add(prefix + ".eigenvec");
  for (int64_t i = 0; i < r.n; ++i) {
    vec.printf("%s %s", data.sample(i).fid.c_str(), data.sample(i).iid.c_str());
    for (int64_t c = 0; c < r.pcs; ++c) vec.printf(" %.10g", r.vectors[c * r.n + i]);
    vec.write("\n");
  }
}

}  // namespace pmx
