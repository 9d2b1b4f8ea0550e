// Runs the cvc5 binary on a temporary script file and reads its first line.
#include "oracles/smt/cvc5.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace sf::smt {

std::string run_cvc5(const std::string& script, unsigned timeout_ms) {
  char path[] = "/tmp/shapefuzz-cvc5-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "cannot create a temporary file";
  close(fd);
  {
    std::ofstream f(path);
    f << script;
  }
  std::string cmd =
      "cvc5 --lang=smt2 --tlimit=" + std::to_string(timeout_ms * 4) + " " + path + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    int rc = pclose(p);
    if (rc != 0 && out.empty()) out = "cvc5 did not run (exit " + std::to_string(rc) + ")";
  } else {
    out = "cannot start cvc5";
  }
  std::remove(path);
  std::string first = out.substr(0, out.find('\n'));
  return first;
}

}  // namespace sf::smt
