// The options of the kernel-ridge solver (krr, rr): --precision, --accuracy, --tile-accuracy,
// --lowest-precision, --tile, --refinement, parsed into kernel_ridge_options once.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "panoramix/kernel_ridge.hpp"

namespace pmx::cli {

struct solver_flags {
  std::string precision = "fp64", lowest = "fp8", refinement = "auto";
};

/// Adds the flags; the numeric ones write straight into `o`.
void add_solver_options(CLI::App* cmd, solver_flags& flags, kernel_ridge_options& o);

/// `o` with the named choices of `flags` applied.
kernel_ridge_options solver_options(const solver_flags& flags, kernel_ridge_options o);

}  // namespace pmx::cli
