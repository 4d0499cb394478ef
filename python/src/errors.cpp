// panoramix.Error and its subclasses, and the translation of the library's exceptions into them.
// The message is the library's what(), the text the command line prints after "Error: ".
// Each subclass also derives from the builtin exception a Python user would catch for that kind.
#include <exception>

#include "module.hpp"
#include "panoramix/error.hpp"

namespace pmx::python {
namespace {

PyObject* error_class(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string qualified = std::string("panoramix.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!cls) throw py::error_already_set();
  m.add_object(name, py::handle(cls));
  return cls;
}

PyObject* two_bases(PyObject* a, PyObject* b) { return py::make_tuple(py::handle(a), py::handle(b)).release().ptr(); }

}  // namespace

void bind_errors(py::module_& m) {
  // Created once per process, kept for the translator (module objects live until exit).
  static PyObject* error = error_class(m, "Error", PyExc_Exception, "Base of every error panoramix raises.");
  static PyObject* input = error_class(
      m, "InputError", two_bases(error, PyExc_ValueError),
      "Bad input: a file that is missing, malformed or inconsistent, or an argument out of range. The message names "
      "the file, line or argument, as the command line's does.");
  static PyObject* io = error_class(m, "FileError", two_bases(error, PyExc_OSError),
                                    "A file could not be read or written (permissions, disk full, ...).");
  static PyObject* unsupported =
      error_class(m, "UnsupportedError", two_bases(error, PyExc_NotImplementedError),
                  "A request this build or machine cannot serve (e.g. device='cuda' without CUDA or a GPU).");
  static PyObject* numeric =
      error_class(m, "NumericError", two_bases(error, PyExc_ArithmeticError),
                  "A computation that cannot proceed on its numbers (e.g. a matrix that is not positive definite).");
  static PyObject* logic = error_class(m, "LogicError", two_bases(error, PyExc_RuntimeError),
                                       "A broken precondition inside panoramix: please report it.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const input_error& e) {
      PyErr_SetString(input, e.what());
    } catch (const io_error& e) {
      PyErr_SetString(io, e.what());
    } catch (const unsupported_error& e) {
      PyErr_SetString(unsupported, e.what());
    } catch (const numeric_error& e) {
      PyErr_SetString(numeric, e.what());
    } catch (const logic_error& e) {
      PyErr_SetString(logic, e.what());
    } catch (const pmx::error& e) {
      PyErr_SetString(error, e.what());
    }
  });
}

}  // namespace pmx::python
