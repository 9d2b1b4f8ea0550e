// The tracer (Dynamo + make_fx analogue): runs a program under a FakeMode and records a graph
// whose nodes carry fake example values and unbacked_bindings (computed right after each node's
// value is produced), with guards and deferred runtime asserts collected in the ShapeEnv.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "engine/fake/fake_mode.h"
#include "engine/graph/graph.h"
#include "engine/program/ast.h"
#include "engine/shape_env/shape_env.h"

namespace sf::graph {

struct TraceOptions {
  ShapeEnvSettings settings;
};

// Everything a trace produces; self-contained (owns the ShapeEnv, the fake mode, the inputs'
// symbolic contexts and a copy of the program).
struct Trace {
  std::unique_ptr<ShapeEnv> env;
  std::unique_ptr<fake::FakeMode> mode;
  std::map<std::string, StatefulSymbolicContext> contexts;  // per input name
  std::shared_ptr<const program::Program> program;
  Graph graph;
  int64_t work = 0;  // tracing's work so far, subgraphs included (kMaxTracingWork)
  // The inputs re-propagation re-fakified in a fresh fake mode (through `contexts`), in order.
  std::vector<std::string> refakified;
  // The statements being traced, outermost first, each with the function it is in ("" for the
  // program's body). Empty after a trace that completed; after a rejection the innermost is the
  // statement that raised (the wrong-rejection rules read it).
  struct OpenStatement {
    std::string function;
    program::Stmt::Kind kind;
    int line;
  };
  std::vector<OpenStatement> open_statements;
};

// Tracing's work budget: one unit per statement traced (each subgraph's and each inlined branch's
// included) plus, per subgraph, the facts its fact scope saves and restores. A cond traces both
// functions, so conds nested d deep with data-dependent predicates trace 2^d subgraphs, each
// saving the facts of all before it; past the budget the program is too_complex. Each later
// stage (re-propagation, the event-log replays of the oracles) repeats that work once, so the
// budget bounds them too. Twice the statements a program may have (program/parser.h) fit.
inline constexpr int64_t kMaxTracingWork = int64_t{1} << 19;

// Traces `p`. User errors (invalid program, shape errors, failed checks, data-dependent guards)
// propagate as UserError; engine bugs as EngineBug or SF_CHECK aborts.
Trace trace_program(const program::Program& p, const TraceOptions& opts = {});
// The same into `t` (empty): when tracing raises, `t` keeps the state it reached (its ShapeEnv
// with the facts and the event log up to the rejection), which the wrong-rejection rules read.
void trace_program_into(const program::Program& p, const TraceOptions& opts, Trace& t);

// Reifies `path` into accessor nodes after `after` (size/stride/getitem/storage_offset/floordiv),
// like FX's insert_deferred_runtime_asserts `go(node, keypath)`; returns the node computing it.
Node* reify_keypath(Graph& g, Node* n, const KeyPath& path, Node* after);

}  // namespace sf::graph
