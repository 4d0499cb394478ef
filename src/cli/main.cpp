// panoramix command line: one subcommand per job, PLINK-style flags.
#include <CLI/CLI.hpp>

#include "cli/cmd_matern.hpp"
#include "cli/common.hpp"
#include "core/blas_threads.hpp"

int main(int argc, char** argv) {
  pmx::detail::stop_idle_blas_threads();
  CLI::App app{"panoramix " PMX_VERSION
               " — quantitative genetics on 2-bit compressed genotypes (PLINK .bed, VCF/BCF in; PLINK/GCTA "
               "formats out)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", PMX_VERSION);
  int status = 0;
  pmx::cli::add_simulate_command(app, argc, argv, status);
  pmx::cli::add_simulate_pedigree_command(app, argc, argv, status);
  pmx::cli::add_freq_command(app, argc, argv, status);
  pmx::cli::add_grm_command(app, argc, argv, status);
  pmx::cli::add_ld_command(app, argc, argv, status);
  pmx::cli::add_pca_command(app, argc, argv, status);
  pmx::cli::add_gblup_command(app, argc, argv, status);
  pmx::cli::add_pedigree_command(app, argc, argv, status);
  pmx::cli::add_ssblup_command(app, argc, argv, status);
  pmx::cli::add_krr_command(app, argc, argv, status);
  pmx::cli::add_rr_command(app, argc, argv, status);
  pmx::cli::add_assoc_command(app, argc, argv, status);  // association (cmd_assoc.cpp)
  pmx::cli::add_plot_command(app, argc, argv, status);   // its Manhattan and QQ plots (cmd_plot.cpp)
  pmx::cli::add_convert_command(app, argc, argv, status);
  pmx::cli::add_matern_command(app, argc, argv, status);  // Matérn covariance (cmd_matern.cpp)
  pmx::cli::add_matern_fit_command(app, argc, argv, status);  // Matérn mixed model (cmd_matern_fit.cpp)
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return status;
}
