// Internal to codegen: the pieces every kernel's loops are assembled from (codegen.cc for
// pointwise kernels, codegen_reduction.cc for reductions). Each returns CUDA C text.
#pragma once

#include <string>
#include <vector>

#include "engine/backend/cuda/codegen.h"
#include "engine/backend/cuda/codegen_expr.h"

namespace sf::backend::cuda::detail {

// `a.v[s]`, and the same cast to the index type I.
std::string slot(int s);
std::string islot(int s);
// `I j<d> = ...` for `dims` (row-major: the last one varies fastest) from the linear index `from`.
std::string decompose(const KernelCode& code, const std::vector<int>& dims, const std::string& from,
                      const std::string& rest, const std::string& indent);
// Σ j_d * stride over `dims` for access `acc`, added to `base`.
std::string offset_expr(const KernelCode& code, int acc, const std::vector<int>& dims,
                        const std::string& base);
// `const I <name><in> = <base> + sum(j_d * stride)` over `dims` for each input the body reads;
// the base is `<from><in>`, or the access's offset parameter when `from` is empty.
std::string input_offsets(const KernelCode& code, const BodyEmitter& body,
                          const std::vector<int>& dims, const std::string& name,
                          const std::string& from, const std::string& indent);
// The point's row-major index over every dim (`lin`, which ranks errors as the CPU does).
std::string row_major_index(const KernelCode& code);
// `value` (of dtype `from`) as the output stores it: converted, a bool as one byte 0 or 1.
std::string storage_value(const lower::Kernel& k, const std::string& value, program::DType from);
// `a.out[po] = value` (as storage_value), or a bad-write error ranked at `ordinal`.
std::string store(const KernelCode& code, const lower::Kernel& k, const std::string& value,
                  program::DType from, int ordinal, const std::string& indent);
std::string indent_lines(const std::string& s, const std::string& indent);

// Errors are noted per thread (the smallest key wins) and reported once, after the loop, so the
// loop body has no calls and its loads can be scheduled freely.
extern const char* const kLocalError;
extern const char* const kReportError;

// Inputs whose plain loads are issued ahead: every input the body reads, but one the kernel also
// writes (a load must not pass an earlier point's store to the same buffer).
std::vector<bool> preloadable(const lower::Kernel& k);

// Two unrolled passes over a thread's `points` points u = 0..points-1 (`point_u` is point u's
// loop variable expression, `live` whether it exists): the first runs `setup` (which defines
// `lin`, the j of each dim in `varying`, the offset `off<in>` of each input the body reads and,
// unless `no_output`, `po`), saves them and loads the preloaded inputs; the second restores them
// and runs `point`.
std::string unrolled_points(const lower::Kernel& k, const KernelCode& code, const BodyEmitter& body,
                            const std::vector<bool>& pre, const std::vector<int>& varying,
                            const std::string& point_var, const std::string& point_u,
                            const std::string& live, const std::string& setup,
                            const std::string& point, bool no_output, const std::string& indent,
                            int points = kUnroll);

// The body of a reduction kernel (codegen_reduction.cc).
std::string reduction_body(const lower::Kernel& k, KernelCode& code);

}  // namespace sf::backend::cuda::detail
