// The meta-function table runner (meta_test_util.h): each case in a fresh Harness, its last
// statement's result, bindings, facts, ranges or error compared with the row.
#include "tests/fake/meta_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/base/errors.h"
#include "tests/fake/meta_harness.h"

namespace sf::fake::testing {
namespace {

std::string joined(const std::vector<std::string>& xs) {
  std::string out = "{";
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? "; " : "") + xs[i];
  return out + "}";
}

void check_one(const MetaCase& c) {
  std::string inputs;
  for (const std::string& d : c.in) inputs += (inputs.empty() ? "" : "; ") + d;
  SCOPED_TRACE("\nInputs: " + inputs + "\nCall:   " + c.call);
  Harness h(c.settings);
  std::vector<std::string> stmts = split_top(c.call, ';');
  try {
    for (const std::string& d : c.in) h.declare(d);
    for (size_t i = 0; i + 1 < stmts.size(); ++i) h.exec(stmts[i]);
  } catch (const BadRow& e) {
    ADD_FAILURE() << "malformed row: " << e.what();
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "setup statements failed: " << e.what();
    return;
  }
  Harness::Snapshot before = h.snapshot();
  Harness::Result r;
  try {
    r = h.exec(stmts.back());
  } catch (const BadRow& e) {
    ADD_FAILURE() << "malformed row: " << e.what();
    return;
  } catch (const UserError& e) {
    std::string got = std::string(user_error_kind_name(e.kind())) + ": " + h.show_text(e.what());
    size_t colon = c.error.find(": ");
    std::string kind = c.error.substr(0, colon);
    std::string needle = colon == std::string::npos ? "" : c.error.substr(colon + 2);
    bool ok = !c.error.empty() && kind == user_error_kind_name(e.kind()) &&
              got.find(needle) != std::string::npos;
    EXPECT_TRUE(ok) << "\nOutput:   error " << got
                    << "\nExpected: " << (c.error.empty() ? c.out : "error " + c.error);
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a UserError (engine bug?): " << e.what();
    return;
  }
  bool strides = c.out.find(" stride=") != std::string::npos;
  std::string got = h.render(r.value, strides);
  if (!c.error.empty()) {
    ADD_FAILURE() << "\nOutput:   " << got << "\nExpected: error " << c.error;
    return;
  }
  EXPECT_EQ(got, c.out) << "output";
  EXPECT_EQ(h.render_bindings(r.bindings), c.bindings) << "unbacked bindings";
  std::vector<std::string> untagged;
  std::vector<std::string> facts = h.facts_since(before, &untagged);
  std::vector<std::string> want_facts = c.facts;
  std::sort(want_facts.begin(), want_facts.end());
  EXPECT_EQ(joined(facts), joined(want_facts)) << "guards, deferred asserts and replacements";
  EXPECT_TRUE(untagged.empty()) << "deferred asserts without " << kImplicitAssertTag << ": "
                                << joined(untagged);
  std::vector<std::string> want_ranges = c.ranges;
  std::sort(want_ranges.begin(), want_ranges.end());
  EXPECT_EQ(joined(h.ranges_since(before)), joined(want_ranges)) << "ranges";
}

}  // namespace

void CheckAll(const std::vector<MetaCase>& cases) {
  for (const MetaCase& c : cases) check_one(c);
}

}  // namespace sf::fake::testing
