// decoded_genotypes: blocks of the rows a reader decoded into memory.
#include "panoramix/decoded_genotypes.hpp"

#include <cstring>

#include "panoramix/error.hpp"

namespace pmx {

packed_genotypes decoded_genotypes::read_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  packed_genotypes g(n_samples(), count);
  if (count > 0)
    std::memcpy(g.row(0), rows_.data() + first * row_bytes_, static_cast<size_t>(count * row_bytes_));
  return g;
}

variant_major_view decoded_genotypes::mapped_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  return {rows_.data() + first * row_bytes_, n_samples(), count, row_bytes_};
}

}  // namespace pmx
