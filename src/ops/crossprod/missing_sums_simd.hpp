// Body of the vector implementations of missing_sums (included by missing_sums_avx2.cpp and
// missing_sums_avx512.cpp after they define the vector type and operations for their ISA):
//   PMX_V          vector of 32-bit lanes, PMX_LANES lanes
//   pmx_load_u8(p) bytes p[0..PMX_LANES) zero-extended to 32-bit lanes
//   pmx_set1(x), pmx_add, pmx_and, pmx_srli(v, s), pmx_mullo, pmx_loadu(p), pmx_storeu(p, v)
//   PMX_WIDE       vectors per column block (held in registers)
// Columns go in blocks of PMX_WIDE vectors held in registers while every selected row is added; the
// rows are summed in passes of at most 1023 (the packed 10-bit fields), each pass unpacked into
// the int32 outputs.

constexpr int64_t pmx_prefetch_rows = 6;

template <int V>
inline void pmx_block(const uint8_t* table, int64_t ld, const int32_t* idx, int64_t count, int64_t t0,
                                 int32_t* sx, int32_t* sxx, int32_t* sm) {
  const PMX_V spread = pmx_set1(static_cast<int32_t>(missing_spread));
  const PMX_V fields = pmx_set1(static_cast<int32_t>(missing_fields));
  const PMX_V ten = pmx_set1(1023);
  for (int64_t k0 = 0; k0 < count || k0 == 0; k0 += missing_rows_per_pass) {
    PMX_V acc[V];
    for (int v = 0; v < V; ++v) acc[v] = pmx_set1(0);
    const int64_t k1 = count < k0 + missing_rows_per_pass ? count : k0 + missing_rows_per_pass;
    for (int64_t k = k0; k < k1; ++k) {
      const uint8_t* r = table + idx[k] * ld + t0;
      if (k + pmx_prefetch_rows < k1)  // the rows are scattered: fetch ahead of the adds
        for (int64_t b = 0; b < V * PMX_LANES; b += 64)
          _mm_prefetch(reinterpret_cast<const char*>(table + idx[k + pmx_prefetch_rows] * ld + t0 + b), _MM_HINT_T0);
      for (int v = 0; v < V; ++v)
        acc[v] = pmx_add(acc[v], pmx_and(pmx_mullo(pmx_load_u8(r + v * PMX_LANES), spread), fields));
    }
    for (int v = 0; v < V; ++v) {
      const int64_t t = t0 + v * PMX_LANES;
      const PMX_V lo = pmx_and(acc[v], ten), hi = pmx_and(pmx_srli(acc[v], 10), ten);
      PMX_V x = pmx_add(lo, hi), xx = pmx_add(x, pmx_add(hi, hi)), m = pmx_srli(acc[v], 20);
      if (k0 > 0) {
        x = pmx_add(x, pmx_loadu(sx + t));
        xx = pmx_add(xx, pmx_loadu(sxx + t));
        if (sm) m = pmx_add(m, pmx_loadu(sm + t));
      }
      pmx_storeu(sx + t, x);
      pmx_storeu(sxx + t, xx);
      if (sm) pmx_storeu(sm + t, m);
    }
  }
}

void pmx_sums(const uint8_t* table, int64_t ld, const int32_t* idx, int64_t count, int64_t len,
                         int32_t* sx, int32_t* sxx, int32_t* sm) {
  int64_t t0 = 0;
  for (; t0 + PMX_WIDE * PMX_LANES <= len; t0 += PMX_WIDE * PMX_LANES)
    pmx_block<PMX_WIDE>(table, ld, idx, count, t0, sx, sxx, sm);
  for (; t0 + 4 * PMX_LANES <= len; t0 += 4 * PMX_LANES) pmx_block<4>(table, ld, idx, count, t0, sx, sxx, sm);
  for (; t0 + PMX_LANES <= len; t0 += PMX_LANES) pmx_block<1>(table, ld, idx, count, t0, sx, sxx, sm);
  if (t0 < len) {  // fewer than PMX_LANES columns left: plain loop
    const int64_t nt = len - t0;
    int32_t tx[PMX_LANES], txx[PMX_LANES], tm[PMX_LANES];
    for (int64_t t = 0; t < nt; ++t) tx[t] = txx[t] = tm[t] = 0;
    for (int64_t k0 = 0; k0 < count; k0 += missing_rows_per_pass) {
      uint32_t acc[PMX_LANES] = {};
      const int64_t k1 = count < k0 + missing_rows_per_pass ? count : k0 + missing_rows_per_pass;
      for (int64_t k = k0; k < k1; ++k) {
        const uint8_t* r = table + idx[k] * ld + t0;
        for (int64_t t = 0; t < nt; ++t) acc[t] += (r[t] * missing_spread) & missing_fields;
      }
      for (int64_t t = 0; t < nt; ++t) {
        const auto lo = static_cast<int32_t>(acc[t] & 1023), hi = static_cast<int32_t>((acc[t] >> 10) & 1023);
        tx[t] += lo + hi, txx[t] += lo + 3 * hi, tm[t] += static_cast<int32_t>(acc[t] >> 20);
      }
    }
    for (int64_t t = 0; t < nt; ++t) {
      sx[t0 + t] = tx[t], sxx[t0 + t] = txx[t];
      if (sm) sm[t0 + t] = tm[t];
    }
  }
}
