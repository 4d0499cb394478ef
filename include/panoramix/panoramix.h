/*
 * panoramix C API: products of the centred (optionally scaled) genotype matrix with dense matrices,
 *
 *     Y = Z Λ      (PMX_NO_TRANS)     Λ: k × l,  Y: n × l
 *     W = Zᵀ Λ̃     (PMX_TRANS)        Λ̃: n × l,  W: k × l
 *
 * for n samples (rows of Z) and k variants (columns of Z), where
 *
 *     Z[i][j] = s_j (x_ij − 2 p_j)   for a called genotype x_ij ∈ {0, 1, 2} (copies of A1,
 *                                    column 5 of the .bim file),
 *     Z[i][j] = 0                    for a missing call,
 *
 * p_j the A1 frequency (computed as PLINK 2 does, or set by the caller) and s_j a per-variant scale
 * (1, 1/sqrt(2 p_j (1 − p_j)), or set by the caller). The genotypes stay 2-bit (4 calls per byte,
 * the .bed layout) and, on a GPU, resident in device memory for the handle's lifetime; Z is never
 * formed. Missing calls are handled exactly. Both products are accurate like a double-precision
 * dgemm: for each output element, |error| ≤ c·2⁻⁵³·Σ|terms| with c growing like (n + k)/128, plus
 * for Zᵀ·Λ̃ with l ≥ 2 a term for the missing calls of each variant (the bound is spelt out in
 * include/panoramix/ops/genotype_gemm.hpp). Results do not depend on the thread count.
 *
 * Plain C: the header compiles as C99 and as C++. Link with -lpanoramix (libpanoramix.so).
 *
 * Conventions
 *  - Every function that can fail returns a status: PMX_OK (0) or a negative PMX_E_* code.
 *  - After a failure, a readable message naming the argument or file and what is wrong is
 *    available from the object the call was made on: pmx_context_last_error() for calls on a
 *    context (including the pmx_genotypes_* creation functions), pmx_genotypes_last_error() for
 *    calls on a genotype handle. Messages are kept per calling thread: a thread sees the message
 *    of its own most recent call on that object ("" after a success), never another thread's.
 *    When the object itself is missing (NULL), pmx_status_string() describes the code.
 *  - No global state. Every resource belongs to an object the caller creates and destroys.
 *  - Sizes and indices are int64_t; indices are 0-based.
 *  - Who frees what: objects returned through `**out` arguments belong to the caller and are
 *    freed with the matching *_destroy (NULL is accepted). Strings returned as const char* belong
 *    to the library and must not be freed. The library never keeps a pointer to caller memory
 *    after a call returns.
 *  - Thread safety: contexts and genotype handles may be used from several threads at once. Calls
 *    on one genotype handle that change it (frequencies, scaling) wait for multiplies in flight;
 *    multiplies on a cpu handle run concurrently, on a cuda handle one after another (they share
 *    the handle's stream). Destroying an object while another thread uses it is undefined.
 *
 * Versioning: PMX_ABI_VERSION changes only when an existing function's signature or meaning
 * changes (the shared object is libpanoramix.so.<ABI>); new functions and new enum values keep it.
 * Compare pmx_abi_version() with PMX_ABI_VERSION at start-up to detect a mismatched library.
 */
#ifndef PANORAMIX_H
#define PANORAMIX_H

#include <stdint.h>

#if defined(_WIN32)
#define PMX_API
#elif defined(__GNUC__)
#define PMX_API __attribute__((visibility("default")))
#else
#define PMX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version ----------------------------------------------------------------------------- */

#define PMX_VERSION_MAJOR 0
#define PMX_VERSION_MINOR 1
#define PMX_VERSION_PATCH 0
/** Version of the C ABI this header describes (the shared object's SONAME number). */
#define PMX_ABI_VERSION 1

/** The library's version, "MAJOR.MINOR.PATCH". Static string; never fails. */
PMX_API const char* pmx_version(void);
/** The ABI version the library was built with; equals PMX_ABI_VERSION for a matching header. */
PMX_API int pmx_abi_version(void);

/* ---- status codes ------------------------------------------------------------------------ */

/** Return values. New codes may be added (negative); treat any other negative value as failure. */
enum pmx_status_code {
  PMX_OK = 0,
  PMX_E_NULL_ARGUMENT = -1,    /**< a required pointer argument is NULL */
  PMX_E_INVALID_ARGUMENT = -2, /**< a value is out of range or inconsistent (dims, ld, index, enum) */
  PMX_E_BAD_INPUT = -3,        /**< data are malformed or inconsistent (bad .bed magic or size,
                                    malformed .fam/.bim, unknown IDs in a keep/extract file) */
  PMX_E_FILE = -4,             /**< a file is missing or cannot be read */
  PMX_E_UNSUPPORTED = -5,      /**< not possible in this build or on this machine (e.g. cuda) */
  PMX_E_STATE = -6,            /**< call out of order (e.g. multiply before frequencies exist) */
  PMX_E_NO_MEMORY = -7,        /**< an allocation failed */
  PMX_E_INTERNAL = -8          /**< an unexpected failure inside the library (a bug: report it) */
};

/** Symbolic name of a status code ("PMX_E_BAD_INPUT"); "unknown status" for other values. */
PMX_API const char* pmx_status_name(int status);
/** One-line description of a status code (static; useful when no object holds a message). */
PMX_API const char* pmx_status_string(int status);

/* ---- enumerations ------------------------------------------------------------------------ */

/** Where products run (pmx_context_set_device). */
enum pmx_device {
  PMX_DEVICE_AUTO = 0,      /**< cuda when compiled in and a GPU is visible, else cpu */
  PMX_DEVICE_CPU = 1,       /**< OpenMP + SIMD kernels (default) */
  PMX_DEVICE_CUDA = 2,      /**< NVIDIA GPU; genotypes are uploaded once per handle */
  PMX_DEVICE_REFERENCE = 3  /**< plain loops with long-double sums: slow, for checking */
};

/** Which product pmx_genotypes_multiply computes. */
enum pmx_trans {
  PMX_NO_TRANS = 0, /**< Y ← Z Λ + β Y: input k × l, output n × l */
  PMX_TRANS = 1     /**< W ← Zᵀ Λ̃ + β W: input n × l, output k × l */
};

/** Storage order of the dense matrices of pmx_genotypes_multiply. */
enum pmx_layout {
  /** C order: element (r, c) at a[r * ld + c], ld ≥ l. The kernels' native order: no copy. */
  PMX_ROW_MAJOR = 0,
  /** Fortran/BLAS order: element (r, c) at a[r + c * ld], ld ≥ number of rows. Converted through
      a row-major copy of the input and of the output (O((n + k)·l) extra memory and time, small
      next to the product); with l = 1 nothing is copied. Host memory only. */
  PMX_COL_MAJOR = 1
};

/** Bytes given to pmx_genotypes_from_bed_bytes. */
enum pmx_bed_bytes {
  /** A whole .bed file: the 3 magic bytes 0x6c 0x1b 0x01 (variant-major), then the rows; the
      magic bytes are checked. n_bytes = 3 + ceil(n_samples / 4) · n_variants exactly. */
  PMX_BED_WITH_MAGIC = 0,
  /** The rows only (a .bed file without its first 3 bytes): n_bytes = ceil(n_samples / 4) ·
      n_variants exactly. */
  PMX_BED_ROWS_ONLY = 1
};

/** Per-variant scale s_j of Z (pmx_genotypes_set_scaling). */
enum pmx_scaling {
  PMX_SCALE_NONE = 0,        /**< s_j = 1 (default): Z = M − 2·1pᵀ */
  PMX_SCALE_STANDARDIZE = 1, /**< s_j = 1/sqrt(2 p_j (1 − p_j)); 0 where p_j ∈ {0, 1} (the column
                                  is then zero, as it is anyway for observed monomorphic variants) */
  PMX_SCALE_USER = 2         /**< s_j from an array given by the caller */
};

/* ---- context ----------------------------------------------------------------------------- */

/** Settings (device, threads, device memory) from which genotype handles are created, and the
    holder of the messages of failed creations. */
typedef struct pmx_context pmx_context;

/** Creates a context: device cpu, all hardware threads, automatic device memory budget.
    *out receives the context (NULL on failure; then only PMX_E_NULL_ARGUMENT or PMX_E_NO_MEMORY
    are possible, described by pmx_status_string). Free with pmx_context_destroy. */
PMX_API int pmx_context_create(pmx_context** out);
/** Frees a context. NULL is accepted. Handles created from it stay valid (they copy its settings). */
PMX_API void pmx_context_destroy(pmx_context* ctx);
/** The calling thread's message of its most recent call on `ctx` that failed, "" if that call
    succeeded. Valid until the thread's next call on `ctx` or its destruction. NULL ctx → "". */
PMX_API const char* pmx_context_last_error(pmx_context* ctx);

/** Device of handles created afterwards (enum pmx_device). PMX_DEVICE_AUTO is resolved now.
    PMX_DEVICE_CUDA fails with PMX_E_UNSUPPORTED when the build has no CUDA backend or no GPU is
    visible. */
PMX_API int pmx_context_set_device(pmx_context* ctx, int device);
/** The device (resolved: never PMX_DEVICE_AUTO) into *device. */
PMX_API int pmx_context_get_device(pmx_context* ctx, int* device);
/** CPU threads of handles created afterwards; ≤ 0 means all hardware threads (the default). */
PMX_API int pmx_context_set_threads(pmx_context* ctx, int threads);
/** Threads used (after resolving ≤ 0) into *threads. */
PMX_API int pmx_context_get_threads(pmx_context* ctx, int* threads);
/** Device memory (bytes) a cuda handle's products may hold besides the resident genotypes;
    0 = PMX_CUDA_MEMORY_MB from the environment when set, else the free memory minus a margin.
    Ignored on cpu. Negative → PMX_E_INVALID_ARGUMENT. */
PMX_API int pmx_context_set_device_memory(pmx_context* ctx, int64_t bytes);

/* ---- genotype handles -------------------------------------------------------------------- */

/** Genotypes (2-bit, resident on the handle's device), their frequencies p and scales s. */
typedef struct pmx_genotypes pmx_genotypes;

/** Opens the PLINK 1 fileset PREFIX.bed/.bim/.fam (variant-major .bed; the reader checks the
    magic bytes, the exact size against .fam and .bim, 6 columns, unique IDs).
    keep_file: NULL, or a PLINK --keep file (FID IID per line, or a #IID header and one IID per
    line): only those samples are kept. extract_file: NULL, or a PLINK --extract file (variant IDs,
    first column): only those variants are kept. Kept samples and variants stay in file order
    (as in PLINK); IDs not in the data are ignored, as PLINK does, but a file that keeps nothing
    fails. Without sample subset the .bed is memory-mapped, not copied (the file must not change
    while the handle lives); with one, the kept calls are copied once, compacted (n_kept/4 bytes
    per variant). The handle takes ctx's device and threads; on cuda the genotypes are uploaded
    here, once. Failure: *out = NULL, message in pmx_context_last_error(ctx); a missing file is
    PMX_E_FILE, a malformed one PMX_E_BAD_INPUT. Free the handle with pmx_genotypes_destroy. */
PMX_API int pmx_genotypes_open_bed(pmx_context* ctx, const char* prefix, const char* keep_file,
                                   const char* extract_file, pmx_genotypes** out);

/** As pmx_genotypes_open_bed, with subsets by 0-based index into the .fam rows (samples) and the
    .bim rows (variants): strictly increasing, in range. A NULL array keeps all (its count must be
    0); a non-NULL array must have a count ≥ 1. Rows of Z follow the given (file) order. */
PMX_API int pmx_genotypes_open_bed_subset(pmx_context* ctx, const char* prefix,
                                          const int64_t* samples, int64_t n_keep_samples,
                                          const int64_t* variants, int64_t n_keep_variants,
                                          pmx_genotypes** out);

/** A handle from PLINK .bed bytes in memory (format: enum pmx_bed_bytes; n_bytes must match it
    exactly), n_samples calls per variant row, n_variants rows, and optional index subsets as in
    pmx_genotypes_open_bed_subset. The bytes are copied (compacted to the kept samples/variants):
    the caller may free its buffer when the call returns. Without .fam/.bim, every sample counts
    as a founder and every variant as autosomal for pmx_genotypes_compute_frequencies. */
PMX_API int pmx_genotypes_from_bed_bytes(pmx_context* ctx, const void* bytes, int64_t n_bytes,
                                         int format, int64_t n_samples, int64_t n_variants,
                                         const int64_t* samples, int64_t n_keep_samples,
                                         const int64_t* variants, int64_t n_keep_variants,
                                         pmx_genotypes** out);

/** Frees a handle and its device memory. NULL is accepted. */
PMX_API void pmx_genotypes_destroy(pmx_genotypes* g);
/** The calling thread's message of its most recent call on `g` that failed, "" if that call
    succeeded. Valid until the thread's next call on `g` or its destruction. NULL g → "". */
PMX_API const char* pmx_genotypes_last_error(pmx_genotypes* g);

/** Number of kept samples n (rows of Z) and variants k (columns of Z). Either pointer may be NULL
    when that number is not wanted. */
PMX_API int pmx_genotypes_dims(pmx_genotypes* g, int64_t* n_samples, int64_t* n_variants);
/** The handle's device (enum pmx_device, never AUTO) into *device. */
PMX_API int pmx_genotypes_device(pmx_genotypes* g, int* device);
/** The 0-based .fam indices of the kept samples (rows of Z) into index[0 .. n_samples − 1];
    `count` must equal n_samples. For in-memory handles: indices into the given rows. */
PMX_API int pmx_genotypes_sample_indices(pmx_genotypes* g, int64_t* index, int64_t count);
/** The 0-based .bim indices of the kept variants (columns of Z); `count` must equal n_variants. */
PMX_API int pmx_genotypes_variant_indices(pmx_genotypes* g, int64_t* index, int64_t count);

/* ---- frequencies and scaling ------------------------------------------------------------- */

/** Computes p as `plink2 --freq` does (the ALT_FREQS column, A1 counted): over founders (parents
    "0 0" in .fam) unless `nonfounders` ≠ 0; diploid calls count two alleles, haploid calls one
    (males on X and Y, everyone on MT, under a chromosome set with `n_autosomes` autosomes, as
    PLINK's --chr-set: 0 means human (22), else 1..95; cattle 29). Only the kept samples and
    variants count. A variant without a counted call gets p = NaN: its column of Z is then zero
    (see pmx_genotypes_set_frequencies). Replaces frequencies set before; a
    PMX_SCALE_STANDARDIZE scaling follows the new p. */
PMX_API int pmx_genotypes_compute_frequencies(pmx_genotypes* g, int nonfounders, int n_autosomes);
/** Sets p from p[0 .. count − 1], count = n_variants. Each value must lie in [0, 1] or be NaN
    (undefined frequency: the variant's column of Z is zero). */
PMX_API int pmx_genotypes_set_frequencies(pmx_genotypes* g, const double* p, int64_t count);
/** Copies p (count = n_variants). PMX_E_STATE when no frequencies were computed or set. */
PMX_API int pmx_genotypes_get_frequencies(pmx_genotypes* g, double* p, int64_t count);

/** Chooses the scale s (enum pmx_scaling). With PMX_SCALE_USER, scale[0 .. count − 1] (count =
    n_variants, finite values) is copied; with the other modes, scale must be NULL and count 0. */
PMX_API int pmx_genotypes_set_scaling(pmx_genotypes* g, int scaling, const double* scale,
                                      int64_t count);
/** Copies the effective s_j (count = n_variants); 0 for variants whose p is NaN. PMX_E_STATE when
    standardization is chosen and no frequencies exist yet. */
PMX_API int pmx_genotypes_get_scaling(pmx_genotypes* g, double* scale, int64_t count);

/* ---- the products ------------------------------------------------------------------------ */

/** out ← op(Z) · in + β · out, op(Z) = Z (trans = PMX_NO_TRANS) or Zᵀ (PMX_TRANS).
    l ≥ 0 columns (the kernels are tuned for 1–64; any l works). Shapes: PMX_NO_TRANS: in k × l,
    out n × l; PMX_TRANS: in n × l, out k × l. layout (enum pmx_layout) applies to both matrices;
    ld_in / ld_out are their leading dimensions (row-major: ≥ max(1, l); column-major:
    ≥ max(1, their number of rows)). Padding inside a leading dimension is neither read nor
    written.
    β = 0 overwrites out without reading it (NaN in out does not propagate).
    Memory: on a cpu or reference handle, in and out are host memory. On a cuda handle each may be
    host or device memory (cudaMalloc'd; detected per pointer) with PMX_ROW_MAJOR; PMX_COL_MAJOR
    takes host memory only (a device pointer → PMX_E_UNSUPPORTED). A Fortran array declared
    lambda(l, k) is row-major k × l with ld = l: pass it as PMX_ROW_MAJOR, without copies.
    in and out must not overlap (checked), and in must be finite (not checked: a NaN in row i
    of Λ̃ reaches every variant where sample i is missing).
    PMX_E_STATE when no frequencies were computed or set. */
PMX_API int pmx_genotypes_multiply(pmx_genotypes* g, int trans, int layout, int64_t l,
                                   const double* in, int64_t ld_in, double beta, double* out,
                                   int64_t ld_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PANORAMIX_H */
