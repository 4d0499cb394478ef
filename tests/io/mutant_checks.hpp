// The check of every mutation test of a reader: reading a mutated file either works or throws a
// pmx::error whose message names the file; anything else (another exception, a crash under the
// sanitizers) fails the test.
#pragma once
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "panoramix/error.hpp"

namespace pmx::test {

/// Runs read() (which reads `path` whole) and checks how it fails, if it does; `what` names the
/// mutant in failure messages.
template <class Read>
void expect_read_or_named_error(const std::string& path, const std::string& what, Read&& read) {
  try {
    read();
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << what << ": message without the file: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not a pmx::error: " << e.what();
  }
}

}  // namespace pmx::test
