#include "cli/solver_options.hpp"

namespace pmx::cli {

void add_solver_options(CLI::App* cmd, solver_flags& flags, kernel_ridge_options& o) {
  cmd->add_option("--precision", flags.precision, "fp64|fp32|adaptive (default fp64)")
      ->check(CLI::IsMember({"fp64", "fp32", "adaptive"}));
  cmd->add_option("--accuracy", o.accuracy, "backward error refinement must reach (default 1e-8)");
  cmd->add_option("--tile-accuracy", o.tile_accuracy, "epsilon of the adaptive tile rule (default 1e-4)");
  cmd->add_option("--lowest-precision", flags.lowest, "least precise tile format adaptive may use: fp8|bf16|fp16|fp32")
      ->check(CLI::IsMember({"fp8", "bf16", "fp16", "fp32"}));
  cmd->add_option("--tile", o.tile, "tile rows of fp32/adaptive (default 2048)");
  cmd->add_option("--refinement", flags.refinement,
                  "auto (default: classical steps while each gains 10x, then GMRES-IR) | classical | gmres")
      ->check(CLI::IsMember({"auto", "classical", "gmres"}));
}

kernel_ridge_options solver_options(const solver_flags& f, kernel_ridge_options o) {
  o.precision = f.precision == "fp32"       ? solve_precision::fp32
                : f.precision == "adaptive" ? solve_precision::adaptive
                                            : solve_precision::fp64;
  o.lowest = f.lowest == "fp32"   ? tile_precision::fp32
             : f.lowest == "fp16" ? tile_precision::fp16
             : f.lowest == "bf16" ? tile_precision::bf16
                                  : tile_precision::fp8;
  o.refinement = f.refinement == "classical" ? refinement_method::classical
                 : f.refinement == "gmres"   ? refinement_method::gmres
                                             : refinement_method::automatic;
  return o;
}

}  // namespace pmx::cli
