// The eager reference interpreter: runs a program on concrete CPU tensors (docs/ops.md semantics).
// It is the ground truth for program results and for which checks fail; it never sees symbols.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "engine/program/host_value.h"

namespace sf::eager {

// An int eager computed where the trace has an unbacked symbol: a data-dependent op's int result
// or output size, a higher-order op's int output or output size, an unbacked input dim.
struct DataDependentInt {
  int line;          // the statement that made it (0: an input declaration)
  std::string what;  // "item", "nonzero", "cond", "input 'x' dim 0", ...
  int64_t value;
};

// What a run did besides its outputs, for the oracle that judges the trace's rejections
// (oracles/trace_rejection.h): which functions ran and the data-dependent ints the run made.
struct EagerTrail {
  // Cond branches taken, loop bodies run, regions called: each once, in the order first run
  // (appended only, so a statement that raised is forgotten by truncating).
  std::vector<std::string> functions_run;
  std::vector<DataDependentInt> data_dependent;
  bool ran(const std::string& function) const;
};

struct EagerResult {
  // One entry per returned expression; a returned tuple value (unique with counts, tolist) stays
  // one tuple entry. Empty when the program has no return.
  std::vector<program::HostValue> outputs;
  EagerTrail trail;
};

// Runs `p` with the given value for each declared input (by name). Every user-visible failure is a
// sf::UserError whose kind follows docs/ops.md: an input missing, undeclared or not matching its
// declaration is kInvalidProgram. Tensor inputs are copied, so add_ never changes `inputs`.
EagerResult run_eager(const program::Program& p,
                      const std::map<std::string, program::HostValue>& inputs);

// Runs `p` on the inputs its declarations generate (program::make_input_values).
EagerResult run_eager(const program::Program& p);

// A program run one statement at a time over one environment, for the generator: it validates
// each candidate statement against the values it already holds instead of re-running the prefix
// (which made generating a program quadratic in its length). Same semantics as run_eager.
class Session {
 public:
  // Binds `p`'s declared inputs to the given values (as run_eager), or to the values their
  // declarations generate; `p.body` is ignored.
  Session(const program::Program& p, const std::map<std::string, program::HostValue>& inputs);
  explicit Session(const program::Program& p);
  ~Session();
  // Makes a function callable by later cond / while_loop statements.
  void define(const program::FunctionDef& f);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs `st`. A UserError propagates and leaves the environment as it was: an assignment binds
  // only after its value is computed, add_ writes only after its checks, and an if's partial
  // bindings are dropped. A return statement appends to outputs().
  void run(const program::Stmt& st);
  // The value bound to `name` as a returned value would be (a UserError when unbound or when it
  // cannot be returned, like a dtype).
  program::HostValue value(const std::string& name) const;
  // What the return statements run so far returned (run_eager's result once the return ran).
  EagerResult result() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sf::eager
