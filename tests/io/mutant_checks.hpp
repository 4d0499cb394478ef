// The parts every mutation test of a reader shares: how many mutants, the byte edits that make
// them, and the check of each: reading a mutated file either works or throws a pmx::error whose
// message names the file; anything else (another exception, a crash under the sanitizers) fails
// the test.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "panoramix/error.hpp"

namespace pmx::test {

/// Mutants per seed file: PMX_MUTANTS=<n>, default 1500.
inline int mutants_per_seed() {
  const char* e = std::getenv("PMX_MUTANTS");
  return e ? std::max(1, std::atoi(e)) : 1500;
}

/// Byte edits a mutant is made of: op 0 flips a bit, 1 deletes 1-4 bytes, 2 inserts a byte, 3 cuts
/// the file at a random point, 4 overwrites a byte.
constexpr int byte_edit_ops = 5;
inline void apply_byte_edit(std::string& s, int op, std::mt19937_64& rng) {
  auto pick = [&](size_t k) { return k == 0 ? size_t{0} : static_cast<size_t>(rng() % k); };
  switch (op) {
    case 0: s[pick(s.size())] ^= static_cast<char>(1u << pick(8)); break;
    case 1: s.erase(pick(s.size()), 1 + pick(4)); break;
    case 2: s.insert(pick(s.size()), 1, static_cast<char>(pick(256))); break;
    case 3: s.resize(pick(s.size())); break;
    case 4: s[pick(s.size())] = static_cast<char>(pick(256)); break;
  }
}

/// `s` after 1 to 3 random byte edits.
inline std::string mutate_bytes(std::string s, std::mt19937_64& rng) {
  const int ops = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < ops && !s.empty(); ++k) apply_byte_edit(s, static_cast<int>(rng() % byte_edit_ops), rng);
  return s;
}

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

/// Writes mutants_per_seed() mutants of `bytes` -- mutate(bytes, rng), rng seeded by `seed_name`
/// and the mutant's number -- to `path` one after another, and checks each with
/// expect_read_or_named_error(named, ..., read(i)) (`named`: the file, or the prefix of a fileset
/// that holds it). Stops at the first failure.
template <class Mutate, class Read>
void expect_mutants_read_or_named_error(const std::string& seed_name, const std::string& bytes, const std::string& path,
                                        const std::string& named, Mutate&& mutate, Read&& read) {
  const int count = mutants_per_seed();
  for (int i = 0; i < count; ++i) {
    std::mt19937_64 rng(std::hash<std::string>{}(seed_name) + static_cast<uint64_t>(i));
    const std::string mutant = mutate(bytes, rng);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(mutant.data(), std::streamsize(mutant.size()));
    expect_read_or_named_error(named, seed_name + " mutant " + std::to_string(i), [&] { read(i); });
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace pmx::test
