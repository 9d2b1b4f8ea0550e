// Our oracles' invariants judged on PyTorch's own graph (issue 34): every unbacked symbol bound
// once, before its uses, by a keypath that resolves on the real outputs; the real values (σ) in
// every recorded range; replacements, renamings, divisibility and size-like marks true under σ;
// every guard and deferred
// assert true when the graph ran; every node's symbolic sizes equal to its real ones. σ comes
// from the captured real values alone (placeholders' sizes, bindings' keypaths), never from
// PyTorch's own evaluation; a fact σ does not decide is counted unknown, never passed.
#pragma once

#include <string>
#include <vector>

#include "oracles/torch_graph/capture.h"

namespace sf::torch_graph {

struct Violation {
  // binding, keypath, range, replacement, renaming, divisible, size_like, assert, guard, sizes,
  // values, memo, consistency
  std::string invariant;
  std::string op;      // the node's target, or the fact's kind
  std::string detail;  // in words: what was expected and what was found
};

struct InvariantReport {
  std::vector<Violation> violations;
  int checked = 0;  // facts decided under σ (and found true or violated)
  int unknown = 0;  // facts σ does not decide
  // Asserts and guards over symbols no graph binds or uses: left in the ShapeEnv by a trace
  // PyTorch discarded (Dynamo's speculation of a body, re-traces of it); never checked anywhere.
  int orphan_facts = 0;
  std::vector<std::string> unreadable;  // expressions of PyTorch's we could not read
};

InvariantReport check_capture(const Capture& capture);

// What an invariant (a Violation's `invariant`) requires, in words, for an issue-ready
// reproducer; a generic sentence for a name it does not know.
const char* describe_invariant(const std::string& invariant);

}  // namespace sf::torch_graph
