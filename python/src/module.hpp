// The Python module panoramix._panoramix: the pieces each file binds, and the helpers they share.
// A front end like src/cli: it calls the library's entries, releases the GIL around every long
// call, and turns the library's exceptions into panoramix.Error's subclasses (errors.cpp).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pmx::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_genotypes(py::module_& m);
void bind_statistics(py::module_& m);
void bind_association(py::module_& m);

/// A numpy array that owns `v` (moved to the heap; freed with the array): no copy of the data.
/// `shape` must multiply to v.size(); `fortran` gives column-major strides.
template <class Vector>
py::array owning_array(Vector&& v, std::vector<py::ssize_t> shape, bool fortran = false) {
  using V = std::decay_t<Vector>;
  using T = typename V::value_type;
  auto* heap = new V(std::forward<Vector>(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<V*>(p); });
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t step = sizeof(T);
  if (fortran) {
    for (size_t d = 0; d < shape.size(); ++d) strides[d] = step, step *= shape[d];
  } else {
    for (size_t d = shape.size(); d-- > 0;) strides[d] = step, step *= shape[d];
  }
  return py::array_t<T>(shape, strides, heap->data(), owner);
}

/// A vector as a 1-D numpy array that owns it.
template <class Vector>
py::array owning_vector(Vector&& v) {
  const auto n = static_cast<py::ssize_t>(v.size());
  return owning_array(std::forward<Vector>(v), {n});
}

/// Calls f with the GIL released (the library's long work lets other Python threads run).
template <class F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

}  // namespace pmx::python
