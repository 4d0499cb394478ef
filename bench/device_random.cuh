// Counter-based random bits for the CUDA benchmark drivers (splitmix64 finaliser): data made on
// the device, the same for a given seed and index whatever the launch shape.
#pragma once
#include <cstdint>

__device__ __forceinline__ uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
