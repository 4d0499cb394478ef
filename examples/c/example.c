/*
 * panoramix C API example: Z·Λ and Zᵀ·Λ̃ on a PLINK fileset, checked against this program's own
 * decode of the .bed.
 *
 *   capi_example_c PREFIX        (reads PREFIX.bed/.bim/.fam; every sample a founder, autosomes)
 *
 * Z[i][j] = s_j (x_ij − 2 p_j) for a called genotype (x = copies of A1, .bim column 5), 0 for a
 * missing call, with p the A1 frequency over all samples and s_j = 1/sqrt(2 p_j (1 − p_j))
 * (0 for monomorphic variants). The check recomputes everything in long double from the bytes
 * of the .bed and reports, for each product, the largest componentwise relative error
 * |got − exact| / Σ_j |Z_ij Λ_jc| (the bound dgemm satisfies; for Zᵀ·Λ̃ with l ≥ 2 the library
 * documents one extra term for missing calls, added below). Exit status 1 above 1e-12.
 *
 * Build: cc -std=c99 example.c -I<panoramix>/include -L<build> -lpanoramix -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panoramix/panoramix.h"

#define L 5           /* columns of Λ */
#define LD_ROW 7      /* row-major leading dimension > L: columns 5, 6 are padding */
#define TOLERANCE 1e-12

/* Stops with the library's message when a call fails. */
static void check(int status, const char* what, const char* message) {
  if (status != PMX_OK) {
    fprintf(stderr, "%s failed: %s (%s)\n", what, message, pmx_status_name(status));
    exit(2);
  }
}

static long count_lines(const char* path) {
  FILE* f = fopen(path, "r");
  long lines = 0;
  int c, last = '\n';
  if (!f) {
    perror(path);
    exit(2);
  }
  while ((c = fgetc(f)) != EOF) {
    if (c == '\n') ++lines;
    last = c;
  }
  if (last != '\n') ++lines;
  fclose(f);
  return lines;
}

/* Dosages (copies of A1, −1 missing) from the .bed: x[j * n + i]. */
static signed char* read_bed(const char* path, long n, long k) {
  static const signed char dosage[4] = {2, -1, 1, 0}; /* 00 hom A1, 01 missing, 10 het, 11 hom A2 */
  const long row = (n + 3) / 4;
  unsigned char magic[3], *bytes = malloc((size_t)row);
  signed char* x = malloc((size_t)(n * k));
  FILE* f = fopen(path, "rb");
  long i, j;
  if (!f || !bytes || !x || fread(magic, 1, 3, f) != 3 || magic[0] != 0x6c || magic[1] != 0x1b ||
      magic[2] != 0x01) {
    fprintf(stderr, "%s: not a variant-major .bed file\n", path);
    exit(2);
  }
  for (j = 0; j < k; ++j) {
    if (fread(bytes, 1, (size_t)row, f) != (size_t)row) {
      fprintf(stderr, "%s: too short\n", path);
      exit(2);
    }
    for (i = 0; i < n; ++i) x[j * n + i] = dosage[(bytes[i / 4] >> (2 * (i % 4))) & 3];
  }
  fclose(f);
  free(bytes);
  return x;
}

static double uniform(unsigned long long* state) { /* xorshift64*, in [-1, 1) */
  *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
  return (double)((*state * 2685821657736338717ull) >> 11) / 4503599627370496.0 - 1.0;
}

static double relative(long double got, long double exact, long double terms) {
  long double d = fabsl(got - exact);
  if (terms == 0) return d == 0 ? 0.0 : INFINITY;
  return (double)(d / terms);
}

int main(int argc, char** argv) {
  char path[4096];
  long n, k, i, j, c;
  signed char* x;
  double *p, *p_lib, *lambda, *y, *lt, *w, *w0;
  long double* s;
  double err_y = 0, err_w = 0;
  int64_t n_lib, k_lib;
  unsigned long long rng = 88172645463325252ull;
  pmx_context* ctx = NULL;
  pmx_genotypes* g = NULL;
  int status;

  if (argc != 2) {
    fprintf(stderr, "usage: %s PREFIX\n", argv[0]);
    return 2;
  }
  printf("panoramix %s (C ABI %d)\n", pmx_version(), pmx_abi_version());
  if (pmx_abi_version() != PMX_ABI_VERSION) {
    fprintf(stderr, "library ABI %d does not match the header's %d\n", pmx_abi_version(), PMX_ABI_VERSION);
    return 2;
  }

  /* The oracle's data: the .bed decoded here, frequencies over all samples. */
  snprintf(path, sizeof path, "%s.fam", argv[1]);
  n = count_lines(path);
  snprintf(path, sizeof path, "%s.bim", argv[1]);
  k = count_lines(path);
  snprintf(path, sizeof path, "%s.bed", argv[1]);
  x = read_bed(path, n, k);
  p = malloc(sizeof(double) * (size_t)k);
  s = malloc(sizeof(long double) * (size_t)k);
  for (j = 0; j < k; ++j) {
    long copies = 0, called = 0;
    for (i = 0; i < n; ++i)
      if (x[j * n + i] >= 0) copies += x[j * n + i], ++called;
    p[j] = called ? (double)copies / (double)(2 * called) : NAN;
    s[j] = (called && p[j] > 0 && p[j] < 1) ? 1.0L / sqrtl(2.0L * p[j] * (1.0L - p[j])) : 0.0L;
  }

  /* The library: a context (cpu, 2 threads), a handle on the fileset, PLINK frequencies,
     standardized columns. */
  check(pmx_context_create(&ctx), "pmx_context_create", "");
  check(pmx_context_set_device(ctx, PMX_DEVICE_CPU), "set_device", pmx_context_last_error(ctx));
  check(pmx_context_set_threads(ctx, 2), "set_threads", pmx_context_last_error(ctx));
  check(pmx_genotypes_open_bed(ctx, argv[1], NULL, NULL, &g), "pmx_genotypes_open_bed",
        pmx_context_last_error(ctx));
  check(pmx_genotypes_dims(g, &n_lib, &k_lib), "dims", pmx_genotypes_last_error(g));
  printf("%s: %ld samples x %ld variants\n", argv[1], (long)n_lib, (long)k_lib);
  if (n_lib != n || k_lib != k) {
    fprintf(stderr, "dimensions differ from the .fam/.bim line counts (%ld x %ld)\n", n, k);
    return 1;
  }
  check(pmx_genotypes_compute_frequencies(g, 0, 0), "compute_frequencies", pmx_genotypes_last_error(g));
  check(pmx_genotypes_set_scaling(g, PMX_SCALE_STANDARDIZE, NULL, 0), "set_scaling",
        pmx_genotypes_last_error(g));
  p_lib = malloc(sizeof(double) * (size_t)k);
  check(pmx_genotypes_get_frequencies(g, p_lib, k), "get_frequencies", pmx_genotypes_last_error(g));
  for (j = 0; j < k; ++j)
    if (!(p_lib[j] == p[j] || (isnan(p_lib[j]) && isnan(p[j])))) {
      fprintf(stderr, "frequency of variant %ld: library %.17g, here %.17g\n", j, p_lib[j], p[j]);
      return 1;
    }

  /* Y = Z Λ: Λ k x L row-major with leading dimension LD_ROW (padding untouched), β = 0. */
  lambda = malloc(sizeof(double) * (size_t)(k * LD_ROW));
  y = malloc(sizeof(double) * (size_t)(n * LD_ROW));
  for (j = 0; j < k * LD_ROW; ++j) lambda[j] = uniform(&rng);
  for (i = 0; i < n * LD_ROW; ++i) y[i] = NAN; /* β = 0 must not read it */
  check(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, L, lambda, LD_ROW, 0.0, y, LD_ROW),
        "multiply (Z L)", pmx_genotypes_last_error(g));
  for (i = 0; i < n; ++i)
    for (c = 0; c < L; ++c) {
      long double exact = 0, terms = 0;
      for (j = 0; j < k; ++j) {
        const int xij = x[j * n + i];
        const long double z = xij < 0 ? 0.0L : s[j] * ((long double)xij - 2.0L * p[j]);
        exact += z * lambda[j * LD_ROW + c];
        terms += fabsl(z * lambda[j * LD_ROW + c]);
      }
      err_y = fmax(err_y, relative(y[i * LD_ROW + c], exact, terms));
    }
  for (i = 0; i < n; ++i)
    if (!isnan(y[i * LD_ROW + L]) || !isnan(y[i * LD_ROW + L + 1])) {
      fprintf(stderr, "padding of Y was written\n");
      return 1;
    }

  /* W = Zᵀ Λ̃ + β W: Λ̃ n x L and W k x L column-major (Fortran order), leading dimensions
     n + 2 and k + 1, β = 0.5. */
  lt = malloc(sizeof(double) * (size_t)((n + 2) * L));
  w = malloc(sizeof(double) * (size_t)((k + 1) * L));
  w0 = malloc(sizeof(double) * (size_t)((k + 1) * L));
  for (i = 0; i < (n + 2) * L; ++i) lt[i] = uniform(&rng);
  for (j = 0; j < (k + 1) * L; ++j) w[j] = w0[j] = uniform(&rng);
  check(pmx_genotypes_multiply(g, PMX_TRANS, PMX_COL_MAJOR, L, lt, n + 2, 0.5, w, k + 1),
        "multiply (Z' L)", pmx_genotypes_last_error(g));
  for (j = 0; j < k; ++j) {
    const long double two_p = isnan(p[j]) ? 0.0L : 2.0L * p[j]; /* NaN: no call at all */
    /* smallest |Z| a called genotype of variant j takes (genotype_gemm.hpp's m_j) */
    const long double m = s[j] * fminl(fminl(two_p, fabsl(1.0L - two_p)), 2.0L - two_p);
    for (c = 0; c < L; ++c) {
      long double exact = 0.5L * w0[j + c * (k + 1)], terms = fabsl(exact);
      for (i = 0; i < n; ++i) {
        const int xij = x[j * n + i];
        const long double a = lt[i + c * (n + 2)];
        const long double z = xij < 0 ? 0.0L : s[j] * ((long double)xij - two_p);
        exact += z * a;
        terms += xij < 0 ? m * fabsl(a) : fabsl(z * a);
      }
      err_w = fmax(err_w, relative(w[j + c * (k + 1)], exact, terms));
    }
  }
  for (c = 0; c < L; ++c)
    if (w[k + c * (k + 1)] != w0[k + c * (k + 1)]) {
      fprintf(stderr, "padding of W was written\n");
      return 1;
    }

  /* A failing call: the status says what kind of failure, the handle's message says which
     argument and why. */
  status = pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, L, lambda, L - 1, 0.0, y, LD_ROW);
  printf("expected failure: %s: %s\n", pmx_status_name(status), pmx_genotypes_last_error(g));
  if (status != PMX_E_INVALID_ARGUMENT) return 1;

  printf("max relative error Z*L:  %.3e\n", err_y);
  printf("max relative error Z'*L: %.3e\n", err_w);
  pmx_genotypes_destroy(g);
  pmx_context_destroy(ctx);
  free(x), free(p), free(p_lib), free(s), free(lambda), free(y), free(lt), free(w), free(w0);
  if (!(err_y <= TOLERANCE && err_w <= TOLERANCE)) {
    fprintf(stderr, "FAILED: error above %.0e\n", TOLERANCE);
    return 1;
  }
  printf("OK (tolerance %.0e)\n", TOLERANCE);
  return 0;
}
