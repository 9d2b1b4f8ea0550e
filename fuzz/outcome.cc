// Outcomes and signatures; the isolated run encodes "bucket\tdetail" over the child's pipe.
#include "fuzz/outcome.h"

#include <cctype>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"

namespace sf::fuzz {

namespace {

// Control characters (a crash report can hold anything) become spaces: details end up in
// header comments, which must stay one printable line.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return s;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

Outcome outcome_of(const oracles::Verdict& v) {
  return {v.bucket(), v.kind == oracles::Verdict::Kind::kPass ? "" : one_line(v.str())};
}

std::string normalize_message(const std::string& m) {
  std::string out;
  for (size_t i = 0; i < m.size() && out.size() < 160;) {
    char c = m[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      // A number (with a fraction or exponent): one '#'.
      while (i < m.size() && (std::isalnum(static_cast<unsigned char>(m[i])) || m[i] == '.')) ++i;
      out += '#';
      continue;
    }
    if (word_char(c)) {
      size_t j = i;
      while (j < m.size() && word_char(m[j])) ++j;
      std::string word = m.substr(i, j - i);
      size_t digits = word.find_last_not_of("0123456789") + 1;
      if (word == "f32" || word == "i64" || word == "bool") {
        word = "DT";  // one bug, whatever the dtype it shows up with
      } else if (digits < word.size() && digits > 1 && word[digits - 1] == '_') {
        word = word.substr(0, digits - 1);  // a node name made unique: %nonzero_2 -> %nonzero
      } else if (digits < word.size()) {
        word = word.substr(0, digits) + "#";  // u12 -> u#, v8 -> v#
      } else if (word.size() == 1 && std::islower(static_cast<unsigned char>(word[0]))) {
        word = "#v";  // a one-letter variable name
      }
      out += word;
      i = j;
      continue;
    }
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      ++i;
      continue;
    }
    out += c;
    ++i;
  }
  if (out.size() > 160) out.resize(160);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string signature(const Outcome& o) {
  bool plain = o.bucket == "pass" || o.bucket == "invalid" || o.bucket.rfind("rejected:", 0) == 0;
  if (plain || o.detail.empty()) return o.bucket;
  // One violated invariant names the bug; which others come with it depends on the program.
  std::string first = o.detail;
  size_t inv = first.find("INV-");
  if (inv != std::string::npos) first = first.substr(0, first.find(" INV-", inv + 1));
  return o.bucket + ": " + normalize_message(first);
}

std::string signature_bucket(const std::string& sig) {
  size_t colon = sig.find(':');
  if (colon == std::string::npos) return sig;
  size_t second = sig.find(": ", colon + 1);
  return second == std::string::npos ? sig : sig.substr(0, second);
}

Outcome run_program_isolated(const std::string& text, const oracles::PipelineOptions& base,
                             const IsolationLimits& limits) {
  IsolatedResult r = run_isolated(
      [&]() -> std::string {
        clear_faults();  // only the header's faults (run_pipeline applies them)
        program::Program p;
        try {
          p = program::parse_program(text);
        } catch (const UserError& e) {
          return "invalid\t" + one_line(e.what());
        }
        auto cpu = backend::make_cpu_backend();
        oracles::PipelineOptions opts = base;
        opts.backend = cpu.get();
        Outcome o = outcome_of(oracles::run_pipeline(p, opts).verdict);
        return o.bucket + "\t" + o.detail;
      },
      limits);
  if (!r.crash.empty()) return {r.crash, one_line(r.report)};  // (NULs included)
  size_t tab = r.output.find('\t');
  if (tab == std::string::npos) return {r.output, ""};
  return {r.output.substr(0, tab), r.output.substr(tab + 1)};
}

}  // namespace sf::fuzz
