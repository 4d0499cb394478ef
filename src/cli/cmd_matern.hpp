// The Matérn subcommands (cmd_matern.cpp): registered by main.cpp beside those of common.hpp.
#pragma once
#include <CLI/CLI.hpp>

namespace pmx::cli {

void add_matern_command(CLI::App& app, int argc, char** argv, int& status);

}  // namespace pmx::cli
