// The Matérn subcommands (cmd_matern.cpp, cmd_matern_fit.cpp): registered by main.cpp beside those of common.hpp.
#pragma once
#include <CLI/CLI.hpp>

namespace pmx::cli {

void add_matern_command(CLI::App& app, int argc, char** argv, int& status);
void add_matern_fit_command(CLI::App& app, int argc, char** argv, int& status);  // cmd_matern_fit.cpp

}  // namespace pmx::cli
