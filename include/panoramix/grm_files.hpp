// Reading a GRM written in GCTA's binary format (PREFIX.grm.bin + PREFIX.grm.id), as
// `panoramix grm --format gcta` and `gcta --make-grm` write it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/matrix_buffer.hpp"

namespace pmx {

struct grm_file {
  int64_t n = 0;
  std::vector<std::string> fid, iid;  ///< PREFIX.grm.id, in matrix order
  matrix_buffer<double> G;            ///< n×n row-major, both triangles filled
};

/// Reads PREFIX.grm.id (FID IID per line) and PREFIX.grm.bin (float32 lower triangle with the
/// diagonal, row by row: G11, G21, G22, G31, ...). Throws input_error naming the file when it is
/// missing, when an ID line is malformed or duplicated, when the .bin size is not n(n+1)/2
/// floats for the n IDs listed, or when an entry is NaN or infinite (its row and column, 1-based,
/// and its samples).
grm_file read_gcta_grm(const std::string& prefix);

}  // namespace pmx
