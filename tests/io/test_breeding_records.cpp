// Records and variance-component files: values read as written (hand-checked), missing codes,
// skipped records, and every input error naming file, line and what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "panoramix/breeding_records.hpp"
#include "panoramix/error.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string path = test::work().path(name);
  std::ofstream(path) << text;
  return path;
}

// Expects input_error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const input_error& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

TEST(BreedingRecords, ReadsColumnsByNameWithMissingCodes) {
  const auto path = write("rec1.txt",
                          "ID herd lact dim milk fat\n"
                          "a1 h1 1 100 20.5 0.8\n"
                          "\n"
                          "a2 h2 2 200 NA 0.9\n"
                          "# comment\n"
                          "a3 h1 . 150 21 1\n"     // class missing: skipped
                          "a4 h2 1 150 NA .\n"     // no trait: skipped
                          "a5 h3 3 300 19 NA\n");
  const auto r = read_breeding_records(path, {"milk", "fat"}, {"herd", "lact"}, {"dim"});
  ASSERT_EQ(r.size(), 3);
  EXPECT_EQ(r.id, (std::vector<std::string>{"a1", "a2", "a5"}));
  EXPECT_EQ(r.line, (std::vector<int64_t>{2, 4, 8}));
  EXPECT_EQ(r.y[0], 20.5);
  EXPECT_EQ(r.y[1], 0.8);
  EXPECT_TRUE(std::isnan(r.y[2]));
  EXPECT_EQ(r.y[3], 0.9);
  EXPECT_EQ(r.y[4], 19);
  EXPECT_TRUE(std::isnan(r.y[5]));
  EXPECT_EQ(r.level[0], (std::vector<std::string>{"h1", "h2", "h3"}));
  EXPECT_EQ(r.level[1], (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(r.covariate[0], (std::vector<double>{100, 200, 300}));
  EXPECT_EQ(r.skipped_missing_effect, 1);
  EXPECT_EQ(r.skipped_no_trait, 1);
}

TEST(BreedingRecords, ReadsQuotedCsvLikeMilk) {
  const auto path = write("rec2.csv",
                          "\"id\",\"lact\",\"herd\",\"milk\"\n"
                          "\"6489\",1,\"89\",18420\n"
                          "\"6490\",2,\"89\",\n");  // empty field = missing: no trait, skipped
  const auto r = read_breeding_records(path, {"milk"}, {"herd"}, {"lact"});
  ASSERT_EQ(r.size(), 1);
  EXPECT_EQ(r.id[0], "6489");
  EXPECT_EQ(r.level[0][0], "89");
  EXPECT_EQ(r.covariate[0][0], 1);
  EXPECT_EQ(r.y[0], 18420);
  EXPECT_EQ(r.skipped_no_trait, 1);
}

TEST(BreedingRecords, Errors) {
  const auto path = write("rec3.txt", "ID herd milk\na1 h1 20\na2 h2 x1\n");
  expect_error([&] { read_breeding_records(path, {"fat"}, {}, {}); },
               {path, ":1:", "no trait column 'fat'", "ID, herd, milk"});
  expect_error([&] { read_breeding_records(path, {"milk"}, {"parity"}, {}); }, {"no class column 'parity'"});
  expect_error([&] { read_breeding_records(path, {"milk"}, {}, {"dim"}); }, {"no covariate column 'dim'"});
  expect_error([&] { read_breeding_records(path, {"milk"}, {"herd"}, {"herd"}); }, {"asked for twice"});
  expect_error([&] { read_breeding_records(path, {"milk"}, {}, {}); }, {path + ":3:", "'x1' is not a number"});
  const auto short_line = write("rec4.txt", "ID herd milk\na1 h1\n");
  expect_error([&] { read_breeding_records(short_line, {"milk"}, {}, {}); }, {short_line + ":2:", "expected 3 fields"});
  const auto none = write("rec5.txt", "ID milk\na1 NA\n");
  expect_error([&] { read_breeding_records(none, {"milk"}, {}, {}); }, {"no usable record"});
  expect_error([&] { read_breeding_records(test::work().path("absent.txt"), {"milk"}, {}, {}); }, {"cannot be opened"});
}

TEST(VarianceComponents, ReadsBothMatrices) {
  const auto path = write("vc1.txt", "genetic\n1 0.5\n0.5 2\n\nresidual\n3,0.1\n0.1,4\n");
  const auto vc = read_variance_components(path, 2);
  EXPECT_EQ(vc.genetic, (std::vector<double>{1, 0.5, 0.5, 2}));
  EXPECT_EQ(vc.residual, (std::vector<double>{3, 0.1, 0.1, 4}));
}

TEST(VarianceComponents, Errors) {
  const auto wrong_size = write("vc2.txt", "genetic\n1 0.5\n0.5 2\nresidual\n3 0.1\n0.1 4\n");
  expect_error([&] { read_variance_components(wrong_size, 3); }, {wrong_size + ":2:", "expected 3 numbers"});
  expect_error([&] { read_variance_components(wrong_size, 1); }, {wrong_size + ":2:", "expected 1 numbers"});
  const auto rows = write("vc3.txt", "genetic\n1\nresidual\n2\n3\n");
  expect_error([&] { read_variance_components(rows, 1); }, {rows + ":5:", "more than 1 rows"});
  const auto not_pd = write("vc4.txt", "genetic\n1 2\n2 1\nresidual\n1 0\n0 1\n");
  expect_error([&] { read_variance_components(not_pd, 2); },
               {not_pd + ":1: genetic matrix", "not positive definite", "order 2"});
  const auto asym = write("vc5.txt", "genetic\n1 0\n0 1\nresidual\n1 0.2\n0.3 1\n");
  expect_error([&] { read_variance_components(asym, 2); }, {"residual matrix", "not symmetric"});
  const auto missing = write("vc6.txt", "genetic\n1\n");
  expect_error([&] { read_variance_components(missing, 1); }, {"'residual' section"});
  const auto nan = write("vc7.txt", "genetic\nfoo\nresidual\n1\n");
  expect_error([&] { read_variance_components(nan, 1); }, {nan + ":2:", "'foo' is not a number"});
}

// Issue #29: NaN, infinite and overflowing numbers are refused with file:line, the column and the
// value; NA, "." and empty stay missing; an unbalanced quote is refused instead of entering an ID.
TEST(BreedingRecords, NonFiniteNumbersAndStrayQuotes) {
  for (const char* bad : {"nan", "inf", "-inf", "1e999", "-1e999", "Infinity"}) {
    const auto trait = write(std::string("recnf_t") + bad + ".txt", std::string("ID herd dim milk\na1 h1 5 20\na2 h1 6 ") + bad + "\n");
    expect_error([&] { read_breeding_records(trait, {"milk"}, {"herd"}, {"dim"}); },
                 {trait + ":3:", "trait 'milk' (column 4): '" + std::string(bad) + "' is not a finite number"});
    const auto covar = write(std::string("recnf_c") + bad + ".txt", std::string("ID herd dim milk\na1 h1 ") + bad + " 20\n");
    expect_error([&] { read_breeding_records(covar, {"milk"}, {"herd"}, {"dim"}); },
                 {covar + ":2:", "covariate 'dim' (column 3): '" + std::string(bad) + "' is not a finite number"});
    const auto vc = write(std::string("vcnf") + bad + ".txt", std::string("genetic\n1 ") + bad + "\n0 1\nresidual\n1 0\n0 1\n");
    expect_error([&] { read_variance_components(vc, 2); },
                 {vc + ":2:", "column 2: '" + std::string(bad) + "' is not a finite number"});
  }
  // A negative variance (or any matrix that is not positive definite) is named.
  const auto negative = write("vcneg.txt", "genetic\n-1\nresidual\n1\n");
  expect_error([&] { read_variance_components(negative, 1); }, {negative + ":1: genetic matrix", "not positive definite"});
  const auto quote = write("recq.txt", "ID herd milk\n\"a1 h1 20\n");
  expect_error([&] { read_breeding_records(quote, {"milk"}, {}, {}); },
               {quote + ":2:", "field 1 ('\"a1') has an unbalanced double quote"});
  const auto ok = write("recok.txt", "ID,herd,milk\n\"a1\",\"h1\",20\n");
  EXPECT_EQ(read_breeding_records(ok, {"milk"}, {}, {}).id[0], "a1");
}

}  // namespace
}  // namespace pmx
