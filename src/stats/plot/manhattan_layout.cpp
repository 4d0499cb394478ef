// Manhattan x positions: chromosomes end to end in natural order (plot_geometry.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "io/chromosome_order.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx {

manhattan_layout layout_manhattan(const association_table& t, double gap_fraction) {
  PMX_EXPECTS(!t.p.empty() && t.chrom.size() == t.p.size() && t.pos.size() == t.p.size(), "one chrom/pos per P");
  PMX_EXPECTS(gap_fraction >= 0, "a gap fraction >= 0");
  const size_t n_chrom = t.chromosomes.size(), n = t.p.size();
  // Rank of each chromosome in natural order.
  std::vector<int32_t> order(n_chrom);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return io::chromosome_natural_less(t.chromosomes[size_t(a)], t.chromosomes[size_t(b)]);
  });
  std::vector<int32_t> rank(n_chrom);
  for (size_t r = 0; r < n_chrom; ++r) rank[size_t(order[r])] = static_cast<int32_t>(r);

  manhattan_layout m;
  m.chromosomes.resize(n_chrom);
  std::vector<bool> seen(n_chrom, false);
  for (size_t i = 0; i < n; ++i) {
    chromosome_span& c = m.chromosomes[size_t(rank[size_t(t.chrom[i])])];
    if (!seen[size_t(t.chrom[i])]) c.first = c.last = t.pos[i], seen[size_t(t.chrom[i])] = true;
    c.first = std::min(c.first, t.pos[i]);
    c.last = std::max(c.last, t.pos[i]);
    ++c.variants;
  }
  double total = 0;
  for (size_t r = 0; r < n_chrom; ++r) {
    m.chromosomes[r].name = t.chromosomes[size_t(order[r])];
    total += double(m.chromosomes[r].last - m.chromosomes[r].first);
  }
  // The gap keeps neighbouring chromosomes apart where their colours meet; at least 1 bp so that
  // a chromosome of one variant still has an x of its own.
  const double gap = std::max(1.0, gap_fraction * total);
  double x = 0;
  for (size_t r = 0; r < n_chrom; ++r) {
    chromosome_span& c = m.chromosomes[r];
    if (r > 0) x += gap;
    c.start = x;
    c.end = x + double(c.last - c.first);
    c.centre = (c.start + c.end) / 2;
    x = c.end;
  }
  m.x_end = x;

  // Points in genome order: by chromosome rank, then position (stable: ties keep file order).
  std::vector<uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    const int32_t ra = rank[size_t(t.chrom[a])], rb = rank[size_t(t.chrom[b])];
    return ra != rb ? ra < rb : t.pos[a] < t.pos[b];
  });
  m.points.resize(n);
  std::vector<double> p(n);
  for (size_t k = 0; k < n; ++k) {
    const uint32_t i = idx[k];
    const int32_t r = rank[size_t(t.chrom[i])];
    const chromosome_span& c = m.chromosomes[size_t(r)];
    m.points[k] = {c.start + double(t.pos[i] - c.first), 0, r % 2};
    p[k] = t.p[i];
  }
  m.y_max = place_minus_log10_p(m.points, p, m.zero_p);
  return m;
}

}  // namespace pmx
