// Sample and variant selection over any genotype source: index lists into the source, blocks
// served as views of the source where they are contiguous, else compacted copies.
#include "panoramix/selected_genotypes.hpp"

#include <cstring>
#include <unordered_set>

#include "io/text_lines.hpp"
#include "panoramix/error.hpp"
#include "panoramix/sample_list.hpp"

namespace pmx {

selected_genotypes::selected_genotypes(std::unique_ptr<genotype_source> all) : all_(std::move(all)) {
  PMX_EXPECTS(all_ != nullptr, "no genotype source");
  sample_index_.resize(static_cast<size_t>(all_->n_samples()));
  for (size_t i = 0; i < sample_index_.size(); ++i) sample_index_[i] = static_cast<int64_t>(i);
  variant_index_.resize(static_cast<size_t>(all_->n_variants()));
  for (size_t j = 0; j < variant_index_.size(); ++j) variant_index_[j] = static_cast<int64_t>(j);
}

void selected_genotypes::keep_samples(const std::string& path) {
  const sample_list list = read_sample_list(path);
  std::vector<int64_t> kept;
  for (int64_t i : sample_index_) {
    const sample_record& s = all_->sample(i);
    if (list.contains(s.fid, s.iid)) kept.push_back(i);
  }
  if (kept.empty()) throw input_error("--keep file '" + path + "': no listed sample is in the data");
  sample_index_ = std::move(kept);
}

void selected_genotypes::extract_variants(const std::string& path) {
  io::text_lines in(path, "--extract");
  std::unordered_set<std::string> ids;
  while (in.next())
    if (!in.fields().empty()) ids.insert(std::string(in.fields()[0]));
  filter_variants([&](const variant_record& v) { return ids.count(v.id) > 0; });
  if (variant_index_.empty())
    throw input_error("--extract file '" + path + "': no listed variant is in the data");
}

void selected_genotypes::remove_samples(const std::string& path) {
  const sample_list list = read_sample_list(path);
  std::vector<int64_t> kept;
  for (int64_t i : sample_index_) {
    const sample_record& s = all_->sample(i);
    if (!list.contains(s.fid, s.iid)) kept.push_back(i);
  }
  if (kept.empty()) throw input_error("--remove file '" + path + "': every sample would be removed");
  sample_index_ = std::move(kept);
}

void selected_genotypes::keep_families(const std::string& path) {
  io::text_lines in(path, "--keep-fam");
  std::unordered_set<std::string> fids;
  while (in.next())
    if (!in.fields().empty()) fids.insert(std::string(in.fields()[0]));
  std::vector<int64_t> kept;
  for (int64_t i : sample_index_)
    if (fids.count(all_->sample(i).fid)) kept.push_back(i);
  if (kept.empty()) throw input_error("--keep-fam file '" + path + "': no listed family is in the data");
  sample_index_ = std::move(kept);
}

void selected_genotypes::exclude_variants(const std::string& path) {
  io::text_lines in(path, "--exclude");
  std::unordered_set<std::string> ids;
  while (in.next())
    if (!in.fields().empty()) ids.insert(std::string(in.fields()[0]));
  filter_variants([&](const variant_record& v) { return ids.count(v.id) == 0; });
  if (variant_index_.empty())
    throw input_error("--exclude file '" + path + "': every variant would be removed");
}

namespace {
void keep_where(std::vector<int64_t>& index, const std::vector<uint8_t>& keep) {
  PMX_EXPECTS(keep.size() == index.size(), "one flag per kept entry");
  size_t k = 0;
  for (size_t t = 0; t < index.size(); ++t)
    if (keep[t]) index[k++] = index[t];
  index.resize(k);
}
}  // namespace

void selected_genotypes::keep_samples_where(const std::vector<uint8_t>& keep) { keep_where(sample_index_, keep); }
void selected_genotypes::keep_variants_where(const std::vector<uint8_t>& keep) { keep_where(variant_index_, keep); }

void selected_genotypes::filter_variants(const std::function<bool(const variant_record&)>& keep) {
  std::vector<int64_t> kept;
  for (int64_t j : variant_index_)
    if (keep(all_->variant(j))) kept.push_back(j);
  variant_index_ = std::move(kept);
}

variant_major_view selected_genotypes::mapped_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  if (!all_samples_kept() || count == 0) return {};
  const int64_t lo = variant_index_[first];
  if (variant_index_[first + count - 1] - lo != count - 1) return {};  // increasing: a run
  return all_->mapped_block(lo, count);
}

packed_genotypes selected_genotypes::read_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  static const std::vector<int64_t> every;  // subset(): empty = all samples
  const std::vector<int64_t>& samples = all_samples_kept() ? every : sample_index_;
  if (count == 0) return packed_genotypes(n_samples(), 0);
  const int64_t lo = variant_index_[first], span = variant_index_[first + count - 1] - lo + 1;
  std::vector<int64_t> rows(variant_index_.begin() + first, variant_index_.begin() + first + count);
  for (int64_t& r : rows) r -= lo;
  // A source in memory (mapped .bed, VCF) shows the whole span without a copy: pick rows from it.
  const variant_major_view span_view = all_->mapped_block(lo, span);
  if (span_view.data) return subset(span_view, samples, rows);
  // Otherwise read each run of consecutive variants and compact it; a source that decodes as it
  // is read (.pgen) hands over its copy as is when nothing is to be dropped.
  if (all_samples_kept() && span == count) return all_->read_block(lo, count);
  packed_genotypes out(n_samples(), count);
  for (int64_t k = 0; k < count;) {
    int64_t len = 1;
    while (k + len < count && rows[k + len] == rows[k] + len) ++len;
    const packed_genotypes run = all_->read_block(lo + rows[k], len);
    std::vector<int64_t> all_rows(static_cast<size_t>(len));
    for (int64_t t = 0; t < len; ++t) all_rows[t] = t;
    const packed_genotypes part = subset(run.view(), samples, all_rows);
    std::memcpy(out.row(k), part.row(0), static_cast<size_t>(len * out.row_bytes()));
    k += len;
  }
  return out;
}

namespace {

// Every call forwarded to a source owned elsewhere.
class borrowed_source final : public genotype_source {
 public:
  explicit borrowed_source(const genotype_source& s) : s_(s) {}
  const std::string& name() const override { return s_.name(); }
  int64_t n_samples() const override { return s_.n_samples(); }
  int64_t n_variants() const override { return s_.n_variants(); }
  const sample_record& sample(int64_t i) const override { return s_.sample(i); }
  const variant_record& variant(int64_t j) const override { return s_.variant(j); }
  packed_genotypes read_block(int64_t first, int64_t count) const override { return s_.read_block(first, count); }
  variant_major_view mapped_block(int64_t first, int64_t count) const override {
    return s_.mapped_block(first, count);
  }

 private:
  const genotype_source& s_;
};

}  // namespace

std::unique_ptr<genotype_source> borrow(const genotype_source& source) {
  return std::make_unique<borrowed_source>(source);
}

}  // namespace pmx
