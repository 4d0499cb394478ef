#include "panoramix/pedigree_files.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "panoramix/error.hpp"

namespace pmx {
namespace {

// Buffered text output with std::to_chars (shortest form that reads back exactly): A⁻¹ of a
// million animals is millions of lines, too many for printf to be negligible.
class text_writer {
 public:
  explicit text_writer(output_file& f) : f_(f) {}
  void put(std::string_view s) {
    if (used_ + s.size() > sizeof buf_) flush();
    if (s.size() > sizeof buf_) return f_.write(s);
    std::copy(s.begin(), s.end(), buf_ + used_);
    used_ += s.size();
  }
  template <class T>
  void number(T x) {
    if (used_ + 32 > sizeof buf_) flush();
    used_ = std::to_chars(buf_ + used_, buf_ + sizeof buf_, x).ptr - buf_;
  }
  void flush() {
    f_.write(buf_, used_);
    used_ = 0;
  }

 private:
  output_file& f_;
  char buf_[1 << 16];
  size_t used_ = 0;
};

const std::string& parent_id(const pedigree& ped, int64_t p) {
  static const std::string zero = "0";
  return p == pedigree::unknown ? zero : ped.id(p);
}

}  // namespace

void write_pedigree_ids(output_group& out, const std::string& prefix, const pedigree& ped) {
  text_writer w(out.add(prefix + ".ids"));
  w.put("#index\tid\tsire\tdam\n");
  for (int64_t i = 0; i < ped.size(); ++i) {
    w.number(i + 1);
    w.put("\t");
    w.put(ped.id(i));
    w.put("\t");
    w.put(parent_id(ped, ped.sire(i)));
    w.put("\t");
    w.put(parent_id(ped, ped.dam(i)));
    w.put("\n");
  }
  w.flush();
}

void write_inbreeding(output_group& out, const std::string& prefix, const pedigree& ped,
                      const std::vector<double>& F) {
  PMX_EXPECTS(static_cast<int64_t>(F.size()) == ped.size(), "one inbreeding coefficient per animal");
  text_writer w(out.add(prefix + ".inbreeding"));
  w.put("#index\tid\tF\n");
  for (int64_t i = 0; i < ped.size(); ++i) {
    w.number(i + 1);
    w.put("\t");
    w.put(ped.id(i));
    w.put("\t");
    w.number(F[i]);
    w.put("\n");
  }
  w.flush();
}

void write_a_inverse(output_group& out, const std::string& prefix, const sparse_symmetric& a) {
  text_writer w(out.add(prefix + ".ainv"));
  for (int64_t r = 0; r < a.n; ++r)
    for (int64_t k = a.row_start[r]; k < a.row_start[r + 1]; ++k) {
      w.number(r + 1);
      w.put(" ");
      w.number(a.col[k] + 1);
      w.put(" ");
      w.number(a.value[k]);
      w.put("\n");
    }
  w.flush();
}

void write_pedigree_analysis(output_group& out, const std::string& prefix, const pedigree_analysis& r) {
  write_pedigree_ids(out, prefix, r.ped);
  write_inbreeding(out, prefix, r.ped, r.F);
  if (r.has_a_inverse) write_a_inverse(out, prefix, r.a_inverse);
}

}  // namespace pmx
