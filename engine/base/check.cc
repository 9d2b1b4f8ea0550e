// Implementation of the aborting invariant check.
#include "engine/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace sf {

CheckFailure::CheckFailure(const char* file, int line, const char* cond)
    : file_(file), line_(line), cond_(cond) {}

CheckFailure::~CheckFailure() {
  std::string msg = msg_.str();
  std::fprintf(stderr, "%s:%d: internal invariant failed: %s%s%s\n", file_, line_, cond_,
               msg.empty() ? "" : ": ", msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace sf
