// panoramix._panoramix.Genotypes: the genotypes class as Python sees it (the typed, documented
// face is panoramix.Genotypes in python/panoramix/genotypes.py).
#include "genotypes.hpp"
#include "panoramix/error.hpp"

namespace pmx::python {
namespace {

chromosome_set chromosome_set_of(int chr_set, const std::string& species) {
  if (chr_set != 0 && !species.empty()) throw input_error("give at most one of chr_set and species");
  if (chr_set < 0 || chr_set > 95) throw input_error("chr_set must be in [1, 95] (got " + std::to_string(chr_set) + ")");
  if (chr_set > 0) return {chr_set};
  if (!species.empty()) return chromosome_set::species(species);
  return chromosome_set::human();
}

genotype_scaling scaling_of(const std::string& name) {
  if (name == "none") return genotype_scaling::none;
  if (name == "standardized") return genotype_scaling::standardized;
  if (name == "user") return genotype_scaling::user;
  throw input_error("scaling must be 'none', 'standardized' or an array of scales (got '" + name + "')");
}

py::dict sample_table(const genotype_source& g) {
  const int64_t n = g.n_samples();
  py::list fid(n), iid(n), father(n), mother(n), phenotype(n);
  std::vector<int8_t> sex(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const sample_record& s = g.sample(i);
    fid[i] = s.fid, iid[i] = s.iid, father[i] = s.father, mother[i] = s.mother, phenotype[i] = s.phenotype;
    sex[i] = static_cast<int8_t>(s.sex);
  }
  py::dict t;
  t["fid"] = fid, t["iid"] = iid, t["father"] = father, t["mother"] = mother;
  t["sex"] = owning_vector(std::move(sex)), t["phenotype"] = phenotype;
  return t;
}

py::dict variant_table(const genotype_source& g) {
  const int64_t k = g.n_variants();
  py::list chrom(k), id(k), a1(k), a2(k);
  std::vector<double> cm(static_cast<size_t>(k));
  std::vector<int64_t> pos(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    const variant_record& v = g.variant(j);
    chrom[j] = v.chrom, id[j] = v.id, a1[j] = v.a1, a2[j] = v.a2;
    cm[j] = v.cm, pos[j] = v.pos;
  }
  py::dict t;
  t["chrom"] = chrom, t["id"] = id, t["cm"] = owning_vector(std::move(cm)), t["pos"] = owning_vector(std::move(pos));
  t["a1"] = a1, t["a2"] = a2;
  return t;
}

}  // namespace

void bind_genotypes(py::module_& m) {
  py::class_<genotypes, std::shared_ptr<genotypes>>(m, "Genotypes")
      .def(py::init([](const std::string& path, const std::string& keep, const std::string& extract,
                       const std::string& device, int threads, int chr_set, const std::string& species,
                       bool nonfounders) {
             const chromosome_set chroms = chromosome_set_of(chr_set, species);
             return without_gil([&] {
               return std::make_shared<genotypes>(path, keep, extract, device, threads, chroms, nonfounders);
             });
           }),
           py::arg("path"), py::arg("keep") = "", py::arg("extract") = "", py::arg("device") = "auto",
           py::arg("threads") = 0, py::arg("chr_set") = 0, py::arg("species") = "", py::arg("nonfounders") = false)
      .def("subset",
           [](const genotypes& g, const std::vector<uint8_t>& samples, const std::vector<uint8_t>& variants) {
             return std::make_shared<genotypes>(g, samples, variants);
           })
      .def_property_readonly("n_samples", [](const genotypes& g) { return g.data().n_samples(); })
      .def_property_readonly("n_variants", [](const genotypes& g) { return g.data().n_variants(); })
      .def_property_readonly("name", [](const genotypes& g) { return g.data().name(); })
      .def_property_readonly("device", [](const genotypes& g) { return backend_name(g.exec().kind()); })
      .def_property_readonly("threads", [](const genotypes& g) { return g.exec().threads(); })
      .def_property_readonly("n_autosomes", [](const genotypes& g) { return g.chromosomes().n_autosomes; })
      .def_property_readonly("nonfounders", &genotypes::nonfounders)
      .def("sample_table", [](const genotypes& g) { return sample_table(g.data()); })
      .def("variant_table", [](const genotypes& g) { return variant_table(g.data()); })
      .def("sample_index", [](const genotypes& g) { return owning_vector(std::vector<int64_t>(g.data().sample_index())); })
      .def("variant_index",
           [](const genotypes& g) { return owning_vector(std::vector<int64_t>(g.data().variant_index())); })
      .def("set_centring",
           [](genotypes& g, std::vector<double> p, const std::string& scaling, std::vector<double> user_scale) {
             g.set_centring(std::move(p), scaling_of(scaling), std::move(user_scale));
           })
      .def("frequencies", [](genotypes& g) { return owning_vector(without_gil([&] { return g.frequencies(); })); })
      .def("scale", [](genotypes& g) { return owning_vector(without_gil([&] { return g.scale(); })); })
      .def("multiply", &genotypes::multiply, py::arg("matrix"), py::arg("transposed"));
}

}  // namespace pmx::python
