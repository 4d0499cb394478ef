// panoramix pedigree: being written (issue #6/#7); the subcommand is registered but refuses to run.
#include "cli/common.hpp"
#include "panoramix/error.hpp"

namespace pmx::cli {

void add_pedigree_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto* cmd = app.add_subcommand("pedigree", "(not available yet)");
  add_common_options(cmd, *opt, true);
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log&) {
      throw unsupported_error("panoramix pedigree is not available in this build yet");
    });
  });
}

}  // namespace pmx::cli
