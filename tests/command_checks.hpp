// Running the panoramix binary from a test: its exit status and stderr, and the checks every
// bad-input test makes of a run that must fail (a named error, a non-zero status that is not a
// signal, only the log left behind and it saying Error:, no temporary file left).
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx::test {

struct command_outcome {
  int rc;
  std::string err;
};

/// Runs `panoramix args` (PMX_BINARY) with stderr to a file of `dir` and stdout to another.
inline command_outcome run_panoramix(const std::string& args, temp_dir& dir) {
  const std::string err = dir.path("stderr.txt");
  const int rc = run("( " + std::string(PMX_BINARY) + " " + args + " 2>" + shq(err) + " )", dir.path("stdout.txt"));
  return {rc, read_text(err)};
}

/// `panoramix args` must fail naming each of `needles` on stderr, leave in `out_dir` nothing but
/// `log_name` (which says Error:) and no *.tmp.* anywhere in `dir`; out_dir is emptied after.
inline void expect_named_failure(const std::string& args, const std::vector<std::string>& needles, temp_dir& dir,
                                 const std::string& out_dir, const std::string& log_name = "res.log") {
  namespace fs = std::filesystem;
  SCOPED_TRACE("panoramix " + args);
  const command_outcome o = run_panoramix(args, dir);
  EXPECT_NE(o.rc, 0) << "accepted bad input; stderr: " << o.err;
  EXPECT_LT(o.rc, 128) << "killed by a signal? stderr: " << o.err;
  for (const auto& s : needles)
    EXPECT_NE(o.err.find(s), std::string::npos) << "stderr lacks \"" << s << "\"; stderr was:\n" << o.err;
  for (const auto& e : fs::directory_iterator(out_dir)) {
    const std::string name = e.path().filename().string();
    if (name == log_name)
      EXPECT_NE(read_text(e.path().string()).find("Error:"), std::string::npos) << log_name << " lacks the error";
    else
      ADD_FAILURE() << "left behind in the output directory: " << name;
  }
  for (const auto& e : fs::recursive_directory_iterator(dir.path("")))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  for (const auto& e : fs::directory_iterator(out_dir)) fs::remove_all(e.path());
}

}  // namespace pmx::test
