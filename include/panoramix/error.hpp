// Errors thrown by the library. The library never prints and never exits; front ends turn these
// into one clear message and a non-zero exit status.
#pragma once
#include <stdexcept>
#include <string>

namespace pmx {

/// Base of every error panoramix throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: a file that is missing, malformed or inconsistent. The message names the
/// file, the line or record when there is one, and what is wrong.
class input_error : public error {
 public:
  using error::error;
};

/// A file could not be read or written (permissions, disk full, ...).
class io_error : public error {
 public:
  using error::error;
};

/// A request the library cannot serve in this build or on this machine (e.g. CUDA not compiled in).
class unsupported_error : public error {
 public:
  using error::error;
};

/// A computation that cannot proceed on the numbers it was given (e.g. a matrix that should be
/// positive definite is not). The message says which matrix and what failed.
class numeric_error : public error {
 public:
  using error::error;
};

/// A broken precondition of a library call: a bug in the caller, not bad data.
class logic_error : public error {
 public:
  using error::error;
};

}  // namespace pmx

/// Precondition check of public ops: validate in the op's front, backends do not re-validate.
#define PMX_EXPECTS(cond, msg)                                                        \
  do {                                                                                \
    if (!(cond))                                                                      \
      throw ::pmx::logic_error(std::string(__func__) + ": " + (msg) + " [" #cond "]"); \
  } while (0)
