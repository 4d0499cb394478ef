// Ceiling of the AMX-INT8 tile products of the cpu genotype products: nanoseconds per 16 × 16 × 64
// product (one TDPBSUD) of their own loop (amx_tile_products.hpp: 2 × 2 accumulators, operand
// tiles loaded every step, accumulators loaded and stored per chunk), with the operands as hot as
// wanted. Each thread runs its own copy on its own buffers, so that two threads show whether two
// cores have a tile unit each.
//
//   bench_amx_tiles [--a-tiles 16] [--b-tiles 16] [--steps 16] [--threads 1,2] [--rounds 7]
//
// Rows, per thread count:
//   hot:       A, B and C stay in L2 (the rate the loop can reach);
//   as used:   A read from a 49-chunk buffer (from memory, as the digit tiles of a call are),
//              B written before each chunk (as the decode writes the dosage tiles), C cycled over
//              4 blocks (as Z·Λ's group of 4 sample blocks).
// --a-tiles 16 and 5 are Z·Λ's digit tiles at l = 32 and 10 (8 digit columns per column of Λ),
// --b-tiles 16 its 256-sample block.
// Prints the fastest round of each (the hot rate is a ceiling; medians would add the noise of a
// shared machine).
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/cpu_dispatch.hpp"

// The AMX build (src/ops/genotype_gemm/cpu_amx.cpp's region): the tile loop and its harness.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,amx-tile,amx-int8")
#include "core/amx_tiles.hpp"
#include "ops/genotype_gemm/amx_tile_products.hpp"

namespace {

constexpr int64_t tile = pmx::kernels::cpu::amx_tile_bytes;

struct options {
  int a_tiles = 16, b_tiles = 16;
  int64_t steps = 16;
  std::vector<int> threads = {1, 2};
  int rounds = 7;
};

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: bench_amx_tiles [--a-tiles N] [--b-tiles N] [--steps S] [--threads 1,2] [--rounds R]\n");
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    const char* v = argv[++i];
    if (arg == "--a-tiles") o.a_tiles = std::atoi(v);
    else if (arg == "--b-tiles") o.b_tiles = std::atoi(v);
    else if (arg == "--steps") o.steps = std::atoll(v);
    else if (arg == "--rounds") o.rounds = std::atoi(v);
    else if (arg == "--threads") {
      o.threads.clear();
      for (const char* p = v; *p;) {
        o.threads.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else usage();
  }
  if (o.a_tiles < 1 || o.b_tiles < 1 || o.steps < 1 || o.rounds < 1) {
    std::fprintf(stderr, "bench_amx_tiles: --a-tiles, --b-tiles, --steps and --rounds must be ≥ 1\n");
    std::exit(2);
  }
  return o;
}

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};
using buffer = std::unique_ptr<uint8_t[], free_deleter>;
buffer aligned(int64_t bytes) {
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, static_cast<size_t>((bytes + 63) / 64 * 64)));
  if (!p) std::exit(3);
  std::memset(p, 1, static_cast<size_t>(bytes));
  return buffer(p);
}

// Fastest round's nanoseconds per tile product, over `threads` threads each on its own buffers.
double rate(const options& o, int threads, bool as_used) {
  const int64_t a_chunk = o.steps * o.a_tiles * tile, b_chunk = o.steps * o.b_tiles * tile;
  const int64_t c_block = int64_t{o.a_tiles} * o.b_tiles * tile;
  const int a_chunks = as_used ? 49 : 1, c_blocks = as_used ? 4 : 1;
  const int64_t products_per_chunk = int64_t{o.a_tiles} * o.b_tiles * o.steps;
  const int64_t chunks = std::max<int64_t>(1, 400'000 / products_per_chunk);  // ~5 ms a round at 12 ns
  std::vector<double> seconds(static_cast<size_t>(o.rounds), 0.0);
#pragma omp parallel num_threads(threads)
  {
    pmx::detail::amx_configure_full_tiles();
    const buffer A = aligned(a_chunks * a_chunk), B = aligned(b_chunk), C = aligned(c_blocks * c_block);
    for (int r = 0; r < o.rounds; ++r) {
#pragma omp barrier
      const auto t0 = std::chrono::steady_clock::now();
      for (int64_t q = 0; q < chunks; ++q) {
        if (as_used)  // the decode's stores of the dosage tiles
          for (int64_t e = 0; e < b_chunk; e += 64) _mm_storeu_si128(reinterpret_cast<__m128i*>(B.get() + e), _mm_set1_epi8(char(q)));
        // Z·Λ's call: A the signed digit tiles, B the unsigned dosage tiles
        pmx::kernels::cpu::tile_products<true>(A.get() + q / c_blocks % a_chunks * a_chunk, o.a_tiles * tile, o.a_tiles,
                                               B.get(), o.b_tiles * tile, o.b_tiles, o.steps,
                                               reinterpret_cast<int32_t*>(C.get() + q % c_blocks * c_block));
      }
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#pragma omp critical
      seconds[static_cast<size_t>(r)] = std::max(seconds[static_cast<size_t>(r)], t);
    }
    pmx::detail::amx_release_tiles();
  }
  return *std::min_element(seconds.begin(), seconds.end()) / static_cast<double>(chunks * products_per_chunk) * 1e9;
}

}  // namespace

#pragma GCC pop_options

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  std::printf("command : bench_amx_tiles --a-tiles %d --b-tiles %d --steps %lld --rounds %d\n", o.a_tiles, o.b_tiles,
              static_cast<long long>(o.steps), o.rounds);
  if (!pmx::kernels::cpu::amx_int8_usable()) {
    std::printf("skipped : this CPU (or OS) has no usable AMX-INT8\n");
    return 0;
  }
  std::printf("ns per 16x16x64 tile product (fastest of %d rounds; each thread its own buffers)\n", o.rounds);
  std::printf("threads   hot   as used\n");
  for (int t : o.threads) std::printf("%7d  %5.1f  %8.1f\n", t, rate(o, t, false), rate(o, t, true));
  return 0;
}
