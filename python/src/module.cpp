// panoramix._panoramix: the compiled half of the Python package (python/panoramix is the other).
#include "module.hpp"

#include "panoramix/executor.hpp"

PYBIND11_MODULE(_panoramix, m) {
  m.doc() = "panoramix's library for Python; use the panoramix package, which documents it.";
  m.attr("__version__") = PMX_VERSION;
  m.def("cuda_compiled_in", &pmx::cuda_compiled_in);
  m.def("cuda_available", &pmx::cuda_available);
  pmx::python::bind_errors(m);
  pmx::python::bind_genotypes(m);
  pmx::python::bind_statistics(m);
  pmx::python::bind_association(m);
}
