// Host halves of the device transfers: copy_rows (the packing of strided host operands into the
// pinned staging buffers) against an element-by-element copy, and transfer_buffer's ownership
// (ordinary memory for non-cuda executors; page-locked when a GPU is present, checked where
// there is one).
#include <gtest/gtest.h>

#include <numeric>
#include <utility>
#include <vector>

#include "core/host_transfer.hpp"
#include "panoramix/transfer_buffer.hpp"

using namespace pmx;

TEST(HostTransfer, CopyRowsStridedAndContiguous) {
  struct shape {
    int64_t rows, cols, src_ld, dst_ld;
    int threads;
  };
  // 1 MiB pieces: 300,000 rows × 1 column spans several pieces (threads run in parallel).
  const shape shapes[] = {{1, 1, 1, 1, 1},        {7, 3, 5, 3, 2},      {300000, 1, 2, 1, 2},
                          {300000, 1, 1, 1, 2},   {1000, 4, 4, 9, 2},  {131073, 2, 6, 2, 3}};
  for (const auto& s : shapes) {
    std::vector<double> src(static_cast<size_t>(s.rows * s.src_ld));
    std::iota(src.begin(), src.end(), 0.5);
    std::vector<double> dst(static_cast<size_t>(s.rows * s.dst_ld), -1.0);
    detail::copy_rows(dst.data(), s.dst_ld, src.data(), s.src_ld, s.rows, s.cols, s.threads);
    for (int64_t i = 0; i < s.rows; ++i)
      for (int64_t j = 0; j < s.dst_ld; ++j) {
        const double want = j < s.cols ? src[i * s.src_ld + j] : -1.0;  // padding untouched
        ASSERT_EQ(dst[i * s.dst_ld + j], want) << s.rows << "x" << s.cols << " at " << i << "," << j;
      }
  }
}

TEST(HostTransfer, TransferBufferOwnsAndMoves) {
  transfer_buffer a(executor(backend::cpu, 1), 1000);
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), 1000u);
  EXPECT_FALSE(a.pinned()) << "a cpu executor needs no page-locked memory";
  for (size_t i = 0; i < a.size(); ++i) a.data()[i] = double(i);
  transfer_buffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data()[999], 999.0);
  transfer_buffer c;
  c = std::move(b);
  EXPECT_EQ(c.data()[5], 5.0);
  EXPECT_EQ(transfer_buffer(executor(backend::cpu, 1), 0).data(), nullptr);
  if (cuda_available()) {
    transfer_buffer d(executor(backend::cuda, 1), 64);
    EXPECT_TRUE(d.pinned()) << "a cuda executor gets page-locked memory";
  } else {
    std::printf("no GPU visible: the page-locked case of transfer_buffer was skipped\n");
  }
}
