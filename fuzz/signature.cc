// Signatures: a finding's bucket and its message with what varies between instances abstracted.
#include "fuzz/signature.h"

#include <cctype>

#include "fuzz/utf8.h"

namespace sf::fuzz {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string printable(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return s;
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
  out = valid_utf8(utf8_prefix(out, 160));  // it is written to report.json and sfz headers
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool is_plain_bucket(const std::string& bucket) {
  return bucket == "pass" || bucket == "invalid" || bucket.rfind("rejected:", 0) == 0;
}

std::string signature(const Outcome& o) {
  // A hang or running out of memory has no message of its own (only how long or how much).
  bool bare = is_plain_bucket(o.bucket) || o.bucket == "crash:timeout" || o.bucket == "crash:oom";
  if (bare || o.detail.empty()) return o.bucket;
  // One violated invariant names the bug; which others come with it depends on the program.
  std::string first = o.detail;
  size_t inv = first.find("INV-");
  if (inv != std::string::npos) first = first.substr(0, first.find(" INV-", inv + 1));
  std::string message = normalize_message(first);
  return message.empty() ? o.bucket : o.bucket + ": " + message;
}

std::string signature_bucket(const std::string& sig) {
  size_t colon = sig.find(':');
  if (colon == std::string::npos) return sig;
  size_t second = sig.find(": ", colon + 1);
  return second == std::string::npos ? sig : sig.substr(0, second);
}

}  // namespace sf::fuzz
