// Internal-invariant checks: a broken invariant aborts with file:line so every fuzzer sees a crash.
// User errors never go through here; they are typed exceptions (see errors.h).
#pragma once

#include <sstream>
#include <string>

namespace sf {

// Streams a message, then prints "file:line: internal invariant failed: cond: msg" and aborts.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* cond);
  [[noreturn]] ~CheckFailure();
  template <typename T>
  CheckFailure& operator<<(const T& v) {
    msg_ << v;
    return *this;
  }

 private:
  const char* file_;
  int line_;
  const char* cond_;
  std::ostringstream msg_;
};

// Lets the ternary in SF_CHECK have type void on both arms.
struct CheckVoidify {
  void operator&(const CheckFailure&) {}
};

}  // namespace sf

#define SF_CHECK(cond) \
  (cond) ? (void)0 : ::sf::CheckVoidify() & ::sf::CheckFailure(__FILE__, __LINE__, #cond)
#define SF_UNREACHABLE() ::sf::CheckFailure(__FILE__, __LINE__, "unreachable")
