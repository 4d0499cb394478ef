// Association: `assoc --glm`'s linear regressions on arrays, tables read as `panoramix plot` reads
// them, and the plots' geometry (Manhattan positions, QQ quantiles with the 95 % band, λ_GC) from
// the library, so that panoramix.plot draws what the command line draws.
#include <string_view>
#include <unordered_map>

#include "genotypes.hpp"
#include "io/chromosome_order.hpp"
#include "module.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/linear_association.hpp"
#include "python_log.hpp"
#include "panoramix/association_table.hpp"
#include "panoramix/error.hpp"
#include "panoramix/genomic_control.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx::python {
namespace {

py::dict table_dict(association_table t) {
  py::dict d;
  d["p_column"] = t.p_column;
  d["chromosomes"] = t.chromosomes;
  d["chrom"] = owning_vector(std::move(t.chrom));
  d["pos"] = owning_vector(std::move(t.pos));
  d["p"] = owning_vector(std::move(t.p));
  d["missing_p"] = t.missing_p;
  return d;
}

// A table from arrays, the chromosome names as the reader keeps them ("chr" prefix dropped).
association_table table_of(const std::vector<std::string>& chrom, std::vector<int64_t> pos, std::vector<double> p) {
  if (chrom.size() != pos.size() || chrom.size() != p.size())
    throw input_error("chrom, pos and p must have the same length (got " + std::to_string(chrom.size()) + ", " +
                      std::to_string(pos.size()) + ", " + std::to_string(p.size()) + ")");
  if (p.empty()) throw input_error("no P values to plot");
  association_table t;
  std::unordered_map<std::string, int32_t> index;
  for (size_t i = 0; i < chrom.size(); ++i) {
    if (!(p[i] >= 0 && p[i] <= 1))
      throw input_error("p[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is not a P value in [0, 1]");
    const std::string name(io::without_chr_prefix(chrom[i]));
    const auto [it, fresh] = index.emplace(name, static_cast<int32_t>(t.chromosomes.size()));
    if (fresh) t.chromosomes.push_back(name);
    t.chrom.push_back(it->second);
  }
  t.pos = std::move(pos), t.p = std::move(p);
  t.rows = static_cast<int64_t>(t.p.size());
  return t;
}

py::dict points_dict(const std::vector<plot_point>& points) {
  std::vector<double> x, y;
  std::vector<int32_t> colour;
  for (const plot_point& q : points) x.push_back(q.x), y.push_back(q.y), colour.push_back(q.colour);
  py::dict d;
  d["x"] = owning_vector(std::move(x)), d["y"] = owning_vector(std::move(y));
  d["colour"] = owning_vector(std::move(colour));
  return d;
}

py::dict manhattan(const std::vector<std::string>& chrom, std::vector<int64_t> pos, std::vector<double> p) {
  const manhattan_layout l = layout_manhattan(table_of(chrom, std::move(pos), std::move(p)));
  py::dict d = points_dict(l.points);
  py::list names, centres, starts, ends;
  for (const chromosome_span& c : l.chromosomes)
    names.append(c.name), centres.append(c.centre), starts.append(c.start), ends.append(c.end);
  d["chromosomes"] = names, d["centres"] = centres, d["starts"] = starts, d["ends"] = ends;
  d["x_end"] = l.x_end, d["y_max"] = l.y_max, d["zero_p"] = l.zero_p;
  return d;
}

py::dict qq(const std::vector<double>& p) {
  if (p.empty()) throw input_error("no P values to plot");
  for (size_t i = 0; i < p.size(); ++i)
    if (!(p[i] >= 0 && p[i] <= 1))
      throw input_error("p[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is not a P value in [0, 1]");
  qq_layout l = layout_qq(p);
  py::dict d = points_dict(l.points);
  d["band_x"] = owning_vector(std::move(l.band_x));
  d["band_low"] = owning_vector(std::move(l.band_low));
  d["band_high"] = owning_vector(std::move(l.band_high));
  d["x_max"] = l.x_max, d["y_max"] = l.y_max, d["lambda_gc"] = l.lambda_gc, d["zero_p"] = l.zero_p;
  return d;
}

// `assoc --glm` for a quantitative y on the autosomal variants: A1 from the founders' frequencies,
// then run_linear_association, as run_association_analysis does for them.
py::dict glm(const genotypes& g, std::vector<double> y, const std::vector<double>& covariates, int64_t q,
             const std::vector<std::string>& names, py::object progress) {
  const int64_t n = g.data().n_samples();
  if (static_cast<int64_t>(y.size()) != n)
    throw input_error("y has " + std::to_string(y.size()) + " values; it needs one per kept sample (" +
                      std::to_string(n) + "; NaN for a missing one)");
  if (static_cast<int64_t>(covariates.size()) != n * q || static_cast<int64_t>(names.size()) != q)
    throw logic_error("glm: covariates must be n x q with q names");
  python_log log(std::move(progress));
  auto data = g.autosomal();
  if (data->n_variants() == 0) throw input_error(g.data().name() + ": no autosomal variants left");
  linear_association r = with_progress(log, [&](python_log& l) {
    frequency_options fo;
    fo.chromosomes = g.chromosomes();
    const allele_frequencies af = compute_allele_frequencies(g.exec(), *data, fo, &l);
    return run_linear_association(g.exec(), *data, y, q ? covariates.data() : nullptr, q, names, af.a1, &l);
  });
  const auto m = static_cast<py::ssize_t>(data->n_variants()), t = static_cast<py::ssize_t>(r.tests.size());
  py::list errors;
  for (glm_error e : r.error) errors.append(glm_error_name(e));
  py::dict d;
  d["variant_index"] = owning_vector(std::vector<int64_t>(data->variant_index()));
  d["tests"] = r.tests, d["errors"] = errors, d["samples"] = r.samples;
  d["a1_is_ref"] = owning_vector(std::move(r.a1_is_ref));
  d["obs_ct"] = owning_vector(std::move(r.obs_ct));
  d["beta"] = owning_array(std::move(r.beta), {m, t}), d["se"] = owning_array(std::move(r.se), {m, t});
  d["t"] = owning_array(std::move(r.t), {m, t}), d["p"] = owning_array(std::move(r.p), {m, t});
  return d;
}

}  // namespace

void bind_association(py::module_& m) {
  m.def(
      "read_association_table",
      [](const std::string& path, const std::string& p_column) {
        association_table_options o;
        o.p_column = p_column;
        return table_dict(without_gil([&] { return read_association_table(path, o); }));
      },
      py::arg("path"), py::arg("p_column") = "");
  m.def("glm", &glm, py::arg("g"), py::arg("y"), py::arg("covariates"), py::arg("q"), py::arg("names"),
        py::arg("progress") = py::none());
  m.def("manhattan_layout", &manhattan, py::arg("chrom"), py::arg("pos"), py::arg("p"));
  m.def("qq_layout", &qq, py::arg("p"));
  m.def(
      "genomic_control_lambda",
      [](const std::vector<double>& p) {
        if (p.empty()) throw input_error("no P values");
        for (double v : p)
          if (!(v >= 0 && v <= 1)) throw input_error("P values must be in [0, 1] (got " + std::to_string(v) + ")");
        return genomic_control_lambda(p);
      },
      py::arg("p"));
}

}  // namespace pmx::python
