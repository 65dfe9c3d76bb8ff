// Every lowering sequence (sim/ptx/sequences.cpp): its contract with the translator, checked on
// the text, and its result, run on the golden model over special values, hard cases and 10^5
// random inputs, against the host (reference.hpp) bit for bit, or against PTX's error bound for
// the .approx/.full forms.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "specs.hpp"

namespace tsm::seqtest {
namespace {

// ---- the contract, on the text ------------------------------------------------------------------

std::vector<std::string> all_names() {
  std::vector<std::string> v;
  for (const auto& s : ptx::sequences()) v.push_back(s.name);
  return v;
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

TEST(SequenceLibrary, NamesAreUniqueAndFound) {
  std::set<std::string> seen;
  for (const auto& s : ptx::sequences()) {
    EXPECT_TRUE(seen.insert(s.name).second) << "duplicate " << s.name;
    EXPECT_EQ(ptx::find_sequence(s.name), &s);
  }
  EXPECT_EQ(ptx::find_sequence("div.rn.f64"), nullptr);
  for (const char* required : {"div.rn.f32", "div.rn.ftz.f32", "div.full.f32", "div.approx.f32", "sqrt.rn.f32",
                               "sqrt.rn.ftz.f32", "sqrt.approx.f32", "rsqrt.approx.f32", "rcp.rn.f32", "div.u32", "rem.s64",
                               "mul.lo.u64", "mul.hi.s64", "shl.b64", "shr.s64", "min.u64", "max.s64", "setp.lt.s64",
                               "popc.b64", "clz.b64", "brev.b64", "bfind.u32", "bfind.shiftamt.s32", "cvt.sat.s8.s32"})
    EXPECT_NE(ptx::find_sequence(required), nullptr) << required;
}

TEST(SequenceLibrary, InstantiateRejectsBadBindings) {
  const auto* s = ptx::find_sequence("mul.lo.u64");
  ASSERT_NE(s, nullptr);
  ptx::Bindings b = {{"%a", 8}, {"%b", 10}, {"%d", 12}, {"%t0", 14}};
  EXPECT_NO_THROW(ptx::instantiate(*s, b, "x_"));
  b["%a"] = 9;
  EXPECT_THROW(ptx::instantiate(*s, b, "x_"), std::invalid_argument);  // odd pair
  b.erase("%a");
  EXPECT_THROW(ptx::instantiate(*s, b, "x_"), std::invalid_argument);  // unbound
  const std::string text = ptx::instantiate(*ptx::find_sequence("div.rn.f32"),
                                            make_layout(*ptx::find_sequence("div.rn.f32"), 1).bindings, "L7_");
  EXPECT_NE(text.find("L7_L0:"), std::string::npos);
  EXPECT_EQ(text.find('%'), std::string::npos);
}

class Contract : public testing::TestWithParam<std::string> {};

// The body names only its own placeholders, RZ and PT; it leaves by its last line; labels are
// local and defined once; at most four predicate temps; SSY and SYNC balance.
TEST_P(Contract, BodyFollowsTheRules) {
  const Sequence& s = *ptx::find_sequence(GetParam());
  std::set<std::string> declared;
  size_t pred_temps = 0;
  for (const auto* list : {&s.inputs, &s.outputs, &s.temps})
    for (const auto& p : *list) {
      EXPECT_TRUE(declared.insert(p.name).second) << "placeholder declared twice: " << p.name;
      EXPECT_EQ(p.name[0], '%');
    }
  for (const auto& t : s.temps) pred_temps += t.kind == Kind::Pred;
  EXPECT_LE(pred_temps, 4u);
  for (const auto* list : {&s.inputs, &s.outputs})
    for (const auto& p : *list) EXPECT_TRUE(p.name == "%a" || p.name == "%b" || p.name == "%d") << p.name;

  std::string code;  // the body without comments
  std::istringstream lines(s.body);
  for (std::string line; std::getline(lines, line);) code += line.substr(0, line.find("//")) + "\n";
  static const std::regex any_placeholder(R"(%[A-Za-z0-9_]+)"), literal_reg(R"(\bR[0-9]+\b|\bP[0-6]\b)", std::regex::icase);
  EXPECT_FALSE(std::regex_search(std::regex_replace(code, any_placeholder, "_"), literal_reg))
      << "literal register or predicate in\n" << code;
  static const std::regex forbidden(R"(\b(EXIT|RET|CAL|BRK|PBK|BAR|TRAP)\b)", std::regex::icase);
  EXPECT_FALSE(std::regex_search(code, forbidden)) << "an instruction that leaves the body or synchronizes";

  std::map<std::string, int> defined, used;
  static const std::regex label_def(R"((%L[0-9]+):)"), label_use(R"(%L[0-9]+\b(?!:))");
  for (std::sregex_iterator it(code.begin(), code.end(), label_def), end; it != end; ++it) ++defined[(*it)[1]];
  for (std::sregex_iterator it(code.begin(), code.end(), label_use), end; it != end; ++it) ++used[it->str()];
  for (const auto& [l, k] : defined) EXPECT_EQ(k, 1) << l << " defined " << k << " times";
  for (const auto& [l, k] : used) EXPECT_EQ(defined.count(l), 1u) << l << " used but not defined";
  static const std::regex ssy(R"(\bSSY\b)"), sync(R"(\bSYNC\b)");
  const auto count = [&](const std::regex& re) {
    return std::distance(std::sregex_iterator(code.begin(), code.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(2 * count(ssy), count(sync)) << "each SSY needs a SYNC on both sides";
  static const std::regex placeholder(R"(%([A-Za-z][A-Za-z0-9_]*))");
  for (std::sregex_iterator it(code.begin(), code.end(), placeholder), end; it != end; ++it) {
    const std::string name = it->str();
    if (name[1] == 'L') continue;
    EXPECT_TRUE(declared.count(name)) << "undeclared placeholder " << name;
  }
}

// Every body assembles, instantiated with several register assignments.
TEST_P(Contract, Assembles) {
  const Sequence& s = *ptx::find_sequence(GetParam());
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const Layout l = make_layout(s, seed);
    try {
      assemble(make_kernel(s, l, seed), s.name + ".tsa");
    } catch (const AsmError& e) {
      ADD_FAILURE() << e.what() << "\n" << ptx::instantiate(s, l.bindings, "seq_");
      return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Contract, testing::ValuesIn(all_names()), test_name);

// ---- results on the golden model --------------------------------------------------------------

class Result : public testing::TestWithParam<std::string> {};

TEST_P(Result, MatchesPtxSemantics) {
  const Sequence& s = *ptx::find_sequence(GetParam());
  const Spec spec = spec_for(s);
  const std::vector<Tuple> cases = spec.cases();
  ASSERT_GE(cases.size(), static_cast<size_t>(random_cases()));
  const uint64_t seed = seed_of(s.name);
  if (run_and_check(s, spec.check, make_layout(s, seed), cases, seed) > 0) return;
  // Outputs sharing a register with an input (the translator may allocate them so): a sample.
  std::vector<Tuple> sample(cases.begin(), cases.begin() + std::min<size_t>(cases.size(), 6000));
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (s.inputs[i].kind == s.outputs[0].kind)
      run_and_check(s, spec.check, make_layout(s, seed + 1 + i, static_cast<int>(i)), sample, seed + 1 + i);
}

INSTANTIATE_TEST_SUITE_P(All, Result, testing::ValuesIn(all_names()), test_name);

}  // namespace
}  // namespace tsm::seqtest
