// Status codes: names, descriptions, and the mapping from the library's exception types.
#include "capi/status.hpp"

namespace pmx::capi {

int status_of(const std::exception& e) {
  if (auto* c = dynamic_cast<const capi_error*>(&e)) return c->status;
  if (dynamic_cast<const pmx::input_error*>(&e)) return PMX_E_BAD_INPUT;
  if (dynamic_cast<const pmx::io_error*>(&e)) return PMX_E_FILE;
  if (dynamic_cast<const pmx::unsupported_error*>(&e)) return PMX_E_UNSUPPORTED;
  // A broken precondition of a library op: the C API validates its arguments first, so this is a
  // value the C API did not catch - still the caller's argument.
  if (dynamic_cast<const pmx::logic_error*>(&e)) return PMX_E_INVALID_ARGUMENT;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return PMX_E_NO_MEMORY;
  return PMX_E_INTERNAL;
}

}  // namespace pmx::capi

extern "C" {

const char* pmx_status_name(int status) {
  switch (status) {
    case PMX_OK: return "PMX_OK";
    case PMX_E_NULL_ARGUMENT: return "PMX_E_NULL_ARGUMENT";
    case PMX_E_INVALID_ARGUMENT: return "PMX_E_INVALID_ARGUMENT";
    case PMX_E_BAD_INPUT: return "PMX_E_BAD_INPUT";
    case PMX_E_FILE: return "PMX_E_FILE";
    case PMX_E_UNSUPPORTED: return "PMX_E_UNSUPPORTED";
    case PMX_E_STATE: return "PMX_E_STATE";
    case PMX_E_NO_MEMORY: return "PMX_E_NO_MEMORY";
    case PMX_E_INTERNAL: return "PMX_E_INTERNAL";
  }
  return "unknown status";
}

const char* pmx_status_string(int status) {
  switch (status) {
    case PMX_OK: return "success";
    case PMX_E_NULL_ARGUMENT: return "a required pointer argument is NULL";
    case PMX_E_INVALID_ARGUMENT: return "an argument is out of range or inconsistent";
    case PMX_E_BAD_INPUT: return "the genotype data or an input file is malformed or inconsistent";
    case PMX_E_FILE: return "a file is missing or cannot be read";
    case PMX_E_UNSUPPORTED: return "not supported by this build or on this machine";
    case PMX_E_STATE: return "call out of order (e.g. no allele frequencies yet)";
    case PMX_E_NO_MEMORY: return "out of memory";
    case PMX_E_INTERNAL: return "internal error in panoramix";
  }
  return "unknown status code";
}

}  // extern "C"
