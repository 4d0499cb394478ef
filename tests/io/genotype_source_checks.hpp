// Checks every in-memory genotype source passes (the decoding readers: VCF/BCF, BGEN, .pgen).
#pragma once
#include <gtest/gtest.h>

#include <cstring>

#include "panoramix/genotype_source.hpp"

namespace pmx::test {

/// mapped_block of variants [first, first + count) is a view (no copy) with the bytes read_block
/// copies.
inline void expect_blocks_are_views_of_the_rows(const genotype_source& g, int64_t first, int64_t count) {
  const auto view = g.mapped_block(first, count);
  const auto copy = g.read_block(first, count);
  ASSERT_NE(view.data, nullptr);
  EXPECT_EQ(std::memcmp(view.data, copy.row(0), size_t(count * view.row_bytes)), 0);
}

}  // namespace pmx::test
