// read_pedigree_records: quotes must enclose a whole field; a line with an unbalanced quote (or a
// quoted field holding a blank) is refused with file:line instead of taking the quote into an ID
// (issue #29). Balanced quotes are removed as before.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/pedigree_records.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string p = test::work().path(name);
  std::ofstream(p) << text;
  return p;
}

std::string refusal(const std::string& path) {
  try {
    read_pedigree_records(path, pedigree_columns::automatic);
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PedigreeFile, UnbalancedQuotesAreRefused) {
  const auto first = write("q1.ped", "\"a12 s3 d7\n");
  EXPECT_EQ(refusal(first), first + ":1: field 1 ('\"a12') has an unbalanced double quote (a quote must enclose a "
                                    "whole field)");
  const auto later = write("q2.ped", "animal sire dam\ns3 0 0\nd7 0 0\na12 s3 \"d7\nb 0 0\n");
  EXPECT_EQ(refusal(later), later + ":4: field 3 ('\"d7') has an unbalanced double quote (a quote must enclose a "
                                    "whole field)");
  const auto csv = write("q3.csv", "a12,\"s3,d7\n");
  EXPECT_EQ(refusal(csv), csv + ":1: field 2 ('\"s3') has an unbalanced double quote (a quote must enclose a whole "
                                "field)");
  const auto blank = write("q4.ped", "\"a 12\" s3 d7\n");
  EXPECT_EQ(refusal(blank), blank + ":1: field 1 ('\"a') has an unbalanced double quote (a quote must enclose a "
                                    "whole field)");
}

TEST(PedigreeFile, BalancedQuotesAreRemoved) {
  const auto path = write("ok.csv", "\"a12\",\"s3\",\"d7\"\n\"s3\",0,0\n");
  const auto r = read_pedigree_records(path, pedigree_columns::automatic);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].id, "a12");
  EXPECT_EQ(r[0].sire, "s3");
  EXPECT_EQ(r[0].dam, "d7");
}

}  // namespace
}  // namespace pmx
