// Mutation ("fuzz") test of every file reader. Each reader starts from small valid files written
// here; seeded random mutants of one of them (bits flipped, bytes inserted or deleted, lines
// duplicated, deleted or swapped, fields truncated, copied or swapped, numbers replaced by huge,
// negative, NaN, "inf" or empty text, random bytes with NUL and high bytes, special float32
// values, CRLF line ends, the file truncated at a random point or emptied) are handed to the
// reader, which must
//   - not crash and not hang (a reader's run of all its mutants takes under 10 s of CPU; a
//     watchdog aborts, naming the mutant, when it has not ended after a minute),
//   - either succeed or throw a pmx::error, never any other exception,
//   - name the file in the message; a message about a text file's line says "<path>:<line>:" with
//     a line of that file (only the errors about a whole file listed per reader, or about a
//     binary file, carry no line),
//   - accept the valid files unchanged and with CRLF line ends.
// Deterministic: mutant i of a reader comes from mt19937_64 seeded by the reader's name and i.
// PMX_MUTANTS=<n> sets the number of random mutants per reader (default 5000) for longer runs;
// a failure prints the mutant (reader, index, operations, bytes).
#include <cxxabi.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "panoramix/association_table.hpp"
#include "panoramix/breeding_records.hpp"
#include "panoramix/error.hpp"
#include "panoramix/frequency_file.hpp"
#include "panoramix/grm_files.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/pedigree_records.hpp"
#include "panoramix/phenotypes.hpp"
#include "panoramix/plink_files.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using rng = std::mt19937_64;

// ------------------------------------------------------------------------------------------------
// The readers: their valid input files and how to call them.

struct input_file {
  std::string suffix;              ///< the file is PREFIX + suffix
  std::vector<std::string> seeds;  ///< valid contents; a mutant starts from one of them
  bool text = true;                ///< false: binary (no lines, so no line numbers in messages)
  bool mutate = true;              ///< false: written once and left valid (a reader's other input)
};

struct reader_case {
  std::string name;
  std::vector<input_file> files;
  std::function<void(const std::string& prefix)> read;
  /// Fragments of the messages about a whole file, which carry no line number.
  std::vector<std::string> whole_file_errors;
};

void PrintTo(const reader_case& c, std::ostream* os) { *os << c.name; }

std::string bytes_of_floats(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// A fileset of 5 samples x 4 variants: 3 + 2 x 4 bytes of .bed.
const std::string fam_text =
    "F1 I1 0 0 1 -9\n"
    "F1 I2 0 0 2 -9\n"
    "F2 I3 I1 I2 1 2.5\n"
    "F2 I4 I1 I2 0 NA\n"
    "F3\tI5\t0\t0\t2\t1\n";
const std::string bim_text =
    "1 rs1 0 1000 A C\n"
    "1 rs2 0.25 2000 G T\n"
    "2 rs3 1.5 3000 A G\n"
    "X\trs4\t0\t4000\tC\tT\n";
const std::string bed_bytes =
    std::string("\x6c\x1b\x01", 3) + std::string("\x1b\x02\xe4\x03\x00\x01\xff\x3c", 8);

std::vector<input_file> fileset_files(bool mutate) {
  return {{".fam", {fam_text}, true, mutate},
          {".bim", {bim_text}, true, mutate},
          {".bed", {bed_bytes}, false, mutate}};
}

template <class... Files>
std::vector<input_file> with(std::vector<input_file> base, Files... more) {
  (base.push_back(more), ...);
  return base;
}

const std::vector<std::string> pedigree_seeds = {
    "animal sire dam\nA 0 0\nB 0 0\nC A B\nD A B\nE C D\n",
    "id,dam,sire\n\"A\",,\nB,NA,.\nC,B,A\nD,C,\"A\"\n",
    "# comment line\nA 0 0\nB * *\n\nC A B extra\nE C 0\n",
};

std::vector<reader_case> reader_cases() {
  const std::vector<float> grm = {1.0f, 0.5f, 1.1f, 0.25f, 0.0f, 0.9f, -0.1f, 0.2f, 0.3f, 1.0f};
  return {
      {"fam",
       {{".fam", {fam_text}}},
       [](const std::string& p) { read_fam(p + ".fam"); },
       {"no samples"}},
      {"bim",
       {{".bim", {bim_text, "1\t.\t0\t5\tA\tG\n1 . 0 6 C T\nchr2 rs9 -1.5e-3 0 AC T\n"}}},
       [](const std::string& p) { read_bim(p + ".bim"); },
       {"no variants"}},
      {"bed_fileset",  // mutants of the .bed, and of the .fam or .bim (sizes then disagree)
       fileset_files(true),
       [](const std::string& p) {
         const plink_fileset d(p);
         (void)d.read_block(0, d.n_variants());
         (void)d.mapped_block(0, d.n_variants());
       },
       {"no samples", "no variants"}},
      {"keep",
       with(fileset_files(false),
            input_file{".keep", {"F1 I1\nF2 I3 extra\n", "#FID IID\nF1 I2\n", "#IID\nI1\nI4\n"}}),
       [](const std::string& p) {
         read_sample_list(p + ".keep");
         plink_fileset d(p);
         d.keep_samples(p + ".keep");
         (void)d.read_block(0, d.n_variants());  // compacted to the kept samples
       },
       {"no listed sample is in the data"}},
      {"extract",
       with(fileset_files(false), input_file{".extract", {"rs1\nrs3 extra\n", "rs2\n\nrs4\n"}}),
       [](const std::string& p) { plink_fileset(p).extract_variants(p + ".extract"); },
       {"no listed variant is in the data"}},
      {"pheno",
       {{".pheno",
         {"FID IID y1 y2\nF1 I1 1.5 -9\nF1 I2 2 NA\nF2 I3 -0.5 3e2\nF2 I4 . 4\n",
          "F1 I1 1\nF1 I2 0\nF3 I5 1\n"}}},
       [](const std::string& p) { read_phenotype_table(p + ".pheno", "--pheno"); },
       {"no data rows"}},
      {"covar",
       {{".covar", {"#FID\tIID\tage\tsex\nF1\tI1\t30\t1\nF1\tI2\t41.5\t2\nF2\tI3\tnan\t1\n"}}},
       [](const std::string& p) { read_phenotype_table(p + ".covar", "--covar"); },
       {"no data rows"}},
      {"pedigree_records",
       {{".ped", pedigree_seeds}},
       [](const std::string& p) {
         using enum pedigree_columns;
         for (auto columns : {automatic, sire_dam, dam_sire}) read_pedigree_records(p + ".ped", columns);
       },
       {"has no records"}},
      {"pedigree_file",
       {{".ped", pedigree_seeds}},
       [](const std::string& p) { read_pedigree_file(p + ".ped"); },
       {"has no records"}},
      {"breeding_records",
       {{".rec",
         {"id,herd,age,y1,y2\nA,h1,3.5,10.2,NA\nB,h1,4,11,1.5\nC,h2,.,9,2\nD,\"h2\",5,,3\n",
          "id herd age y1 y2 extra\nA h1 3 1 2 x\n# comment\n\nB h2 +4 NA -2e1 y\nC h2 5 . . z\n"}}},
       [](const std::string& p) {
         read_breeding_records(p + ".rec", {"y1", "y2"}, {"herd"}, {"age"});
         read_breeding_records(p + ".rec", {"y2"}, {}, {});
       },
       {"is empty (a header line", "has no usable record"}},
      {"variance_components",
       {{".vc",
         {"genetic\n1 0.5\n0.5 2\nresidual\n3,0\n0,4\n",
          "# G0 and R0\n\ngenetic\n2 0\n0 2\n\nresidual\n1 0.1\n0.1 1\n"}}},
       [](const std::string& p) { read_variance_components(p + ".vc", 2); },
       {"needs a 'genetic' and a 'residual' section"}},
      {"gcta_grm",
       {{".grm.id", {"F1 I1\nF1 I2\nF2 I3\nF2\tI4\n"}}, {".grm.bin", {bytes_of_floats(grm)}, false}},
       [](const std::string& p) { read_gcta_grm(p); },
       {"': no samples"}},
      {"frequency",
       with(fileset_files(false),
             input_file{".frq",
                        {" CHR SNP A1 A2 MAF NCHROBS\n 1 rs1 A C 0.5 10\n 1 rs2 T G 0.25 10\n"
                         " 2 rs3 A G 0.125 10\n 23 rs4 C T 0 10\n 3 rs5 A T 1 10\n",
                         "#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n"
                         "1\trs1\tC\tA\t0.375\t10\n1\trs2\tG\tT\t1\t10\n"
                         "2\trs3\tG\tA\t0\t10\nX\trs4\tT\tC\t1e-3\t10\n"}}),
       [](const std::string& p) { read_frequency_file(p + ".frq", plink_fileset(p)); },
       {"of the .bim is not listed"}},
      {"association_table",
       {{".glm",
         {"#CHROM\tPOS\tID\tTEST\tP\n1\t100\trs1\tADD\t1e-06\n1\t100\trs1\tsex\t0.05\n"
          "chr2\t5\trs2\tADD\tNA\nX\t7\trs3\tADD\t0.3\n",
          "chr\trs\tps\tp_wald\tp_lrt\n1\trs1\t595\t4.1e-01\t0.4\n10\trs2\t1847\tnan\t0.1\n",
          " CHR SNP BP P \n 1 rs1 595 0.9243 \n 26 rs2 1847 NA \n"}}},
       [](const std::string& p) { read_association_table(p + ".glm"); },
       {"empty (an association table", "no P values", "no ADD rows"}},
  };
}

// ------------------------------------------------------------------------------------------------
// The mutation engine: operations on a file's bytes, each named for the failure report.

size_t below(rng& g, size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(g); }

char random_byte(rng& g) {
  static const std::string special = std::string("\0\n\r \t,\"#-.+eE0019aZ\x7f\x80\xc3\xa9\xff", 24);
  return below(g, 2) ? special[below(g, special.size())] : static_cast<char>(below(g, 256));
}

std::string random_bytes(rng& g, size_t max_count) {
  std::string s(1 + below(g, max_count), ' ');
  for (auto& c : s) c = random_byte(g);
  return s;
}

// Texts that stress number parsing and field handling.
const std::vector<std::string> special_texts = {
    "", "1e400", "-1e400", "1e308", "1.8e308", "99999999999999999999999", "9223372036854775808",
    "-9223372036854775809", "2147483648", "-1", "-9", "0", "-0", "nan", "NaN", "-nan", "inf", "-inf",
    "Infinity", "1e-400", "4.9e-324", "0x1p3", "1.5e", "e5", "--1", "+1", "+", "-", ".", "NA",
    "1,5", "1 5", "\"1\"", "\"", "#", "0.5.5", "1e+", std::string("1\0", 2), "\xff\xfe", "A",
};

// [begin, end) of each line, the '\n' included.
std::vector<std::pair<size_t, size_t>> lines_of(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t b = 0; b < s.size();) {
    size_t e = s.find('\n', b);
    e = e == std::string::npos ? s.size() : e + 1;
    out.emplace_back(b, e);
    b = e;
  }
  return out;
}

// [begin, end) of each field: runs of bytes other than space, tab, comma, CR and LF.
std::vector<std::pair<size_t, size_t>> fields_of(const std::string& s) {
  auto sep = [](char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n'; };
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < s.size();) {
    while (i < s.size() && sep(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !sep(s[j])) ++j;
    if (j > i) out.emplace_back(i, j);
    i = j;
  }
  return out;
}

// A line as a string with its end: the last line may lack '\n'.
std::string line_text(const std::string& s, std::pair<size_t, size_t> l) {
  std::string t = s.substr(l.first, l.second - l.first);
  if (t.empty() || t.back() != '\n') t += '\n';
  return t;
}

void replace_field(std::string& s, rng& g, const std::string& by) {
  const auto f = fields_of(s);
  if (f.empty()) return;
  const auto [b, e] = f[below(g, f.size())];
  s.replace(b, e - b, by);
}

bool numeric_start(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.'; }

struct operation {
  const char* name;
  void (*apply)(std::string&, rng&);
};

const std::vector<operation> operations = {
    {"flip bit", [](std::string& s, rng& g) {
       if (!s.empty()) s[below(g, s.size())] ^= static_cast<char>(1 << below(g, 8));
     }},
    {"random byte", [](std::string& s, rng& g) { if (!s.empty()) s[below(g, s.size())] = random_byte(g); }},
    {"insert bytes", [](std::string& s, rng& g) { s.insert(below(g, s.size() + 1), random_bytes(g, 4)); }},
    {"delete bytes", [](std::string& s, rng& g) {
       if (!s.empty()) s.erase(below(g, s.size()), 1 + below(g, 8));
     }},
    {"duplicate line", [](std::string& s, rng& g) {
       const auto l = lines_of(s);
       if (l.empty()) return;
       const std::string t = line_text(s, l[below(g, l.size())]);
       const size_t at = below(g, l.size() + 1);
       s.insert(at == l.size() ? s.size() : l[at].first, t);
     }},
    {"delete line", [](std::string& s, rng& g) {
       const auto l = lines_of(s);
       if (l.empty()) return;
       const auto [b, e] = l[below(g, l.size())];
       s.erase(b, e - b);
     }},
    {"swap lines", [](std::string& s, rng& g) {
       const auto l = lines_of(s);
       if (l.size() < 2) return;
       size_t i = below(g, l.size()), j = below(g, l.size());
       if (i > j) std::swap(i, j);
       if (i == j) return;
       const std::string a = line_text(s, l[i]), b = line_text(s, l[j]);
       s.replace(l[j].first, l[j].second - l[j].first, a);
       s.replace(l[i].first, l[i].second - l[i].first, b);
     }},
    {"truncate field", [](std::string& s, rng& g) {
       const auto f = fields_of(s);
       if (f.empty()) return;
       const auto [b, e] = f[below(g, f.size())];
       const size_t cut = b + below(g, e - b);
       s.erase(cut, e - cut);
     }},
    {"replace number", [](std::string& s, rng& g) {
       auto f = fields_of(s);
       std::erase_if(f, [&](auto x) { return !numeric_start(s[x.first]); });
       if (f.empty()) return;
       const auto [b, e] = f[below(g, f.size())];
       s.replace(b, e - b, special_texts[below(g, special_texts.size())]);
     }},
    {"replace field", [](std::string& s, rng& g) {
       replace_field(s, g, special_texts[below(g, special_texts.size())]);
     }},
    {"random field", [](std::string& s, rng& g) { replace_field(s, g, random_bytes(g, 6)); }},
    {"long field", [](std::string& s, rng& g) {
       replace_field(s, g, std::string(1 + below(g, 5000), "9A"[below(g, 2)]));
     }},
    {"copy field", [](std::string& s, rng& g) {  // duplicate IDs, parents equal to the animal, ...
       const auto f = fields_of(s);
       if (f.empty()) return;
       const auto [b, e] = f[below(g, f.size())];
       replace_field(s, g, s.substr(b, e - b));
     }},
    {"swap fields", [](std::string& s, rng& g) {
       const auto f = fields_of(s);
       if (f.size() < 2) return;
       size_t i = below(g, f.size()), j = below(g, f.size());
       if (i > j) std::swap(i, j);
       if (i == j) return;
       const std::string a = s.substr(f[i].first, f[i].second - f[i].first);
       const std::string b = s.substr(f[j].first, f[j].second - f[j].first);
       s.replace(f[j].first, f[j].second - f[j].first, a);
       s.replace(f[i].first, f[i].second - f[i].first, b);
     }},
    {"duplicate field", [](std::string& s, rng& g) {
       const auto f = fields_of(s);
       if (f.empty()) return;
       const auto [b, e] = f[below(g, f.size())];
       s.insert(e, " " + s.substr(b, e - b));
     }},
    {"special float32", [](std::string& s, rng& g) {
       using lim = std::numeric_limits<float>;
       static const float v[] = {lim::quiet_NaN(), lim::infinity(), -lim::infinity(), 3.4e38f, -0.0f, 1e-45f};
       if (s.size() < 4) return;
       std::memcpy(&s[4 * below(g, s.size() / 4)], &v[below(g, std::size(v))], 4);
     }},
    {"CRLF line ends", [](std::string& s, rng&) {
       std::string t;
       for (char c : s) t += c == '\n' ? std::string("\r\n") : std::string(1, c);
       s = t;
     }},
    {"truncate file", [](std::string& s, rng& g) { s.resize(below(g, s.size() + 1)); }},
    {"empty file", [](std::string& s, rng&) { s.clear(); }},
    {"append bytes", [](std::string& s, rng& g) { s += random_bytes(g, 16); }},
};

const operation& operation_named(const std::string& name) {
  for (const auto& o : operations)
    if (name == o.name) return o;
  throw std::logic_error("no operation " + name);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// One input of a reader: the contents of each of its files, and how they were made.
struct mutant {
  std::vector<std::string> contents;  ///< per file of the case
  size_t mutated = 0;                 ///< index of the file changed
  std::string how;                    ///< the operations applied, for the report
  bool must_succeed = false;          ///< valid files (as written, or with CRLF line ends)
};

/// Mutant i of case c: first each seed unchanged, then each text file with CRLF line ends and
/// each file empty, then random mutants of 1-4 operations.
mutant make_mutant(const reader_case& c, int64_t i) {
  rng g(fnv1a(c.name) + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1));
  std::vector<size_t> mutable_files;
  size_t max_seeds = 0;
  for (size_t k = 0; k < c.files.size(); ++k)
    if (c.files[k].mutate) {
      mutable_files.push_back(k);
      max_seeds = std::max(max_seeds, c.files[k].seeds.size());
    }
  mutant m;
  for (const auto& f : c.files) m.contents.push_back(f.seeds[below(g, f.seeds.size())]);
  if (i < static_cast<int64_t>(max_seeds)) {  // the valid inputs themselves
    for (size_t k = 0; k < c.files.size(); ++k)
      m.contents[k] = c.files[k].seeds[i % c.files[k].seeds.size()];
    m.how = "none (seed " + std::to_string(i) + ")";
    m.must_succeed = true;
    return m;
  }
  const int64_t j = i - static_cast<int64_t>(max_seeds);
  std::vector<std::string> ops;
  if (j < 2 * static_cast<int64_t>(mutable_files.size())) {
    m.mutated = mutable_files[j / 2];
    ops = {j % 2 == 0 ? "CRLF line ends" : "empty file"};
    m.must_succeed = j % 2 == 0 && c.files[m.mutated].text;
  } else {
    m.mutated = mutable_files[below(g, mutable_files.size())];
    const size_t n_ops = 1 + (below(g, 3) == 0) + (below(g, 6) == 0) + (below(g, 12) == 0);
    for (size_t k = 0; k < n_ops; ++k) ops.push_back(operations[below(g, operations.size())].name);
  }
  for (const auto& op : ops) {
    operation_named(op).apply(m.contents[m.mutated], g);
    m.how += (m.how.empty() ? "" : ", ") + op;
  }
  m.how = c.files[m.mutated].suffix + ": " + m.how;
  return m;
}

// ------------------------------------------------------------------------------------------------
// Checks of the outcome.

int64_t line_count(const std::string& s) {
  const int64_t n = std::count(s.begin(), s.end(), '\n');
  return n + (!s.empty() && s.back() != '\n');
}

/// Empty when the message of an error on mutant m is acceptable, else what is wrong with it.
std::string check_message(const reader_case& c, const std::string& prefix, const mutant& m,
                          const std::string& msg) {
  bool names_file = false, has_line = false, names_binary = false;
  for (size_t k = 0; k < c.files.size(); ++k) {
    const std::string path = prefix + c.files[k].suffix;
    for (size_t at = msg.find(path); at != std::string::npos; at = msg.find(path, at + 1)) {
      names_file = true;
      names_binary = names_binary || !c.files[k].text;
      size_t p = at + path.size(), q = p + 1;
      if (p >= msg.size() || msg[p] != ':') continue;
      while (q < msg.size() && msg[q] >= '0' && msg[q] <= '9') ++q;
      if (q == p + 1 || q >= msg.size() || msg[q] != ':') continue;
      has_line = true;
      const int64_t line = std::atoll(msg.substr(p + 1, q - p - 1).c_str());
      const int64_t lines = std::max<int64_t>(1, line_count(m.contents[k]));
      if (!c.files[k].text) return "a line number for a binary file";
      if (line < 1 || line > lines)
        return "line " + std::to_string(line) + " is not a line of " + path + " (" +
               std::to_string(lines) + " lines)";
    }
  }
  if (!names_file) return "the message does not name the file";
  if (has_line || names_binary) return {};
  for (const auto& w : c.whole_file_errors)
    if (msg.find(w) != std::string::npos) return {};
  return "no line number (\"<path>:<line>:\") in a message not about the whole file";
}

/// The bytes of a mutant, printable: control and high bytes as \xHH, at most 600 characters.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() > 600) return out + "...";
    if (c == '\n') out += "\\n\n";
    else if (c >= 0x20 && c < 0x7f && c != '\\') out += static_cast<char>(c);
    else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

std::string type_name(const std::exception& e) {
  int status = 0;
  char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
  std::string s = status == 0 && name ? name : typeid(e).name();
  std::free(name);
  return s;
}

// The mutant being read, for the watchdog's and the crash handler's last words.
std::atomic<const char*> current_mutant{"(none)"};

extern "C" void on_fatal_signal(int sig) {
  const char* head = "\nreader mutation test: fatal signal while reading ";
  const char* what = current_mutant.load();
  [[maybe_unused]] ssize_t r = ::write(2, head, std::strlen(head));
  r = ::write(2, what, std::strlen(what));
  r = ::write(2, "\n", 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Aborts the program, naming the mutant being read, when not destroyed within `seconds`.
class watchdog {
 public:
  explicit watchdog(double seconds)
      : thread_([this, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) {
            std::fprintf(stderr, "reader mutation test: no answer after %.0f s (a hang?) reading %s\n", seconds,
                         current_mutant.load());
            std::abort();
          }
        }) {}
  ~watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

int64_t random_mutants() {
  const char* e = std::getenv("PMX_MUTANTS");
  return e && std::atoll(e) > 0 ? std::atoll(e) : 5000;
}

// Removes the file first: ext4 flushes a file truncated and written again to disk on close
// (auto_da_alloc), which would make the test wait on the disk for each mutant.
void write_file(const std::string& path, const std::string& bytes) {
  std::remove(path.c_str());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

class ReaderMutations : public ::testing::TestWithParam<reader_case> {
 protected:
  static void SetUpTestSuite() {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, on_fatal_signal);
  }
};

TEST_P(ReaderMutations, FailOnlyWithPmxErrorsNamingFileAndLine) {
  const reader_case& c = GetParam();
  const std::string prefix = test::work().path(c.name);
  const int64_t count = random_mutants() + 16;  // + the seeds, CRLF and empty files first
  // Time: CPU seconds (a busy loop) against "a few seconds"; the watchdog's wall-clock limit,
  // generous for a machine busy writing files, catches a reader blocked for good.
  const double scale = std::max<double>(1.0, count / 5000.0), cpu_limit_s = 10.0 * scale;
  int64_t succeeded = 0, rejected = 0, failures = 0;
  std::string label;
  std::vector<std::string> on_disk(c.files.size());
  const std::clock_t cpu_start = std::clock();
  const auto start = std::chrono::steady_clock::now();
  {
    watchdog dog(60.0 * scale);
    for (int64_t i = 0; i < count; ++i) {
      const mutant m = make_mutant(c, i);
      for (size_t k = 0; k < c.files.size(); ++k)
        if (i == 0 || m.contents[k] != on_disk[k])
          write_file(prefix + c.files[k].suffix, on_disk[k] = m.contents[k]);
      label = c.name + " mutant " + std::to_string(i) + " (" + m.how + ") in " + prefix +
              c.files[m.mutated].suffix;
      current_mutant = label.c_str();
      std::string problem;
      try {
        c.read(prefix);
        ++succeeded;
      } catch (const error& e) {
        ++rejected;
        problem = m.must_succeed ? "valid input rejected" : check_message(c, prefix, m, e.what());
        if (!problem.empty()) problem += ": " + type_name(e) + ": " + printable(e.what());
      } catch (const std::exception& e) {
        problem = "not a pmx::error: " + type_name(e) + ": " + printable(e.what());
      } catch (...) {
        problem = "an exception not derived from std::exception";
      }
      current_mutant = "(none)";
      if (!problem.empty() && ++failures <= 10)
        ADD_FAILURE() << label << ": " << problem << "\n--- mutant bytes ---\n"
                      << printable(m.contents[m.mutated]);
    }
  }
  const double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(failures, 0) << "mutants with a problem (the first 10 are shown above)";
  EXPECT_LT(cpu_s, cpu_limit_s) << "the reader is too slow on small files";
  EXPECT_GT(succeeded, 0);
  EXPECT_GT(rejected, count / 10) << "few mutants were rejected: is the mutation engine working?";
  std::printf("[ %s ] %lld mutants: %lld read, %lld rejected; %.2f s CPU, %.2f s wall\n", c.name.c_str(),
              static_cast<long long>(count), static_cast<long long>(succeeded),
              static_cast<long long>(rejected), cpu_s, wall_s);
}

INSTANTIATE_TEST_SUITE_P(Readers, ReaderMutations, ::testing::ValuesIn(reader_cases()),
                         [](const ::testing::TestParamInfo<reader_case>& info) { return info.param.name; });

}  // namespace
}  // namespace pmx
