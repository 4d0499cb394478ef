// Uses the installed C++ library through <panoramix.hpp>: reads a fileset and prints its allele
// frequencies' mean, which the install test compares with `panoramix freq` on the same files.
#include <cstdio>

#include <panoramix.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer_cxx BED_PREFIX\n");
    return 2;
  }
  try {
    pmx::plink_fileset data(argv[1]);
    std::printf("%lld samples x %lld variants\n", static_cast<long long>(data.n_samples()),
                static_cast<long long>(data.n_variants()));
  } catch (const pmx::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
