// Ozaki splitting of doubles into 8 signed base-128 digits under one power of two per column, so
// that products with small exact integers (genotype dosages) run as int8 × int8 → int32 sums
// (CUDA mma.s8, AMX TDPB*D) and come back to double by weighting each digit's sum. Host and
// device (the CUDA and the AMX routes of genotype_gemm use the same digits).
//
// With e = column_exponent(M), M the largest |value| of the column (so |v| < 2^e):
//   v = Σ_{s<8} d_s · 2^(e−6−7s) + r,   |d_s| ≤ 64,  |r| ≤ 2^(e−56) ≤ 2^-55·M.
// Every step (scaling by a power of two, rounding to an integer, subtracting it) is exact in
// double, so the digits are the same bits on every machine.
#pragma once
#include <math.h>

#if defined(__CUDACC__)
#define PMX_HOST_DEVICE __host__ __device__
#else
#define PMX_HOST_DEVICE
#endif

namespace pmx::detail {

constexpr int base128_digits = 8;

/// x rounded to the nearest integer, ties to even, for |x| ≤ 2^51 (the digits stay below 2^7):
/// rint on the device; on the host the add-and-subtract of 1.5·2^52, which baseline x86-64 (no
/// SSE4.1 roundsd, so rint is a library call) does in two instructions with the same result.
PMX_HOST_DEVICE inline double round_to_int(double x) {
#if defined(__CUDA_ARCH__)
  return rint(x);
#else
  volatile double big = 0x1.8p52;  // volatile: kept out of constant folding under any flags
  const double b = big;
  return (x + b) - b;
#endif
}

/// e with |v| < 2^e for every value of a column whose largest magnitude is m (0 when m = 0).
PMX_HOST_DEVICE inline int column_exponent(double m) { return m > 0 ? ilogb(m) + 1 : 0; }

/// 2^(6−e): v times it is the first digit's unit (exact: a power of two).
PMX_HOST_DEVICE inline double base128_scale(int e) { return ldexp(1.0, 6 - e); }

/// All 8 digits of v, with scale = base128_scale(e) (computed once per column: ldexp is a library
/// call on the host).
PMX_HOST_DEVICE inline void base128_split(double v, double scale, int (&d)[base128_digits]) {
  double r = v * scale;
  for (int s = 0; s < base128_digits; ++s) {
    d[s] = static_cast<int>(round_to_int(r));
    r = (r - d[s]) * 128.0;
  }
}

/// Digit s alone (0 = most significant).
PMX_HOST_DEVICE inline int base128_digit(double v, int e, int s) {
  double r = ldexp(v, 6 - e);
  int d = static_cast<int>(round_to_int(r));
  for (int q = 0; q < s; ++q) {
    r = (r - d) * 128.0;
    d = static_cast<int>(round_to_int(r));
  }
  return d;
}

/// The digits' weights 2^(e−6−7s).
struct base128_weights {
  double w[base128_digits];
  PMX_HOST_DEVICE explicit base128_weights(int e) {
    for (int s = 0; s < base128_digits; ++s) w[s] = ldexp(1.0, e - 6 - 7 * s);
  }
};

/// Σ_s x_s · 2^(e−6−7s) for exact integer digit sums x_s (|x_s| < 2^53), smallest digit first;
/// each product is exact (a power of two), only the additions round.
PMX_HOST_DEVICE inline double base128_combine(const long long (&x)[base128_digits], const base128_weights& w) {
  double y = 0;
  for (int s = base128_digits - 1; s >= 0; --s) y += static_cast<double>(x[s]) * w.w[s];
  return y;
}

}  // namespace pmx::detail
