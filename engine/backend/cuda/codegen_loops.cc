// Shared pieces of kernel assembly: parameter slots, index decomposition, offsets, the checked
// store, and the unrolled two-pass loop over a thread's points (loads first, then bodies).
#include "engine/backend/cuda/codegen_loops.h"

namespace sf::backend::cuda::detail {

using lower::Kernel;
using program::DType;

std::string slot(int s) { return "a.v[" + std::to_string(s) + "]"; }
std::string islot(int s) { return "(I)" + slot(s); }

std::string decompose(const KernelCode& code, const std::vector<int>& dims, const std::string& from,
                      const std::string& rest, const std::string& indent) {
  if (dims.empty()) return "";
  std::string out = indent + "I " + rest + " = " + from + ";\n";
  for (size_t k = dims.size(); k-- > 1;) {
    std::string size = islot(code.size_slot(dims[k]));
    std::string j = "j" + std::to_string(dims[k]);
    out += indent + "const I " + j + " = " + rest + " % " + size + ";\n";
    out += indent + rest + " /= " + size + ";\n";
  }
  out += indent + "const I j" + std::to_string(dims[0]) + " = " + rest + ";\n";
  return out;
}

std::string offset_expr(const KernelCode& code, int acc, const std::vector<int>& dims,
                        const std::string& base) {
  std::string out = base;
  for (int d : dims) out += " + j" + std::to_string(d) + " * " + islot(code.stride_slot(acc, d));
  return out;
}

std::string input_offsets(const KernelCode& code, const BodyEmitter& body,
                          const std::vector<int>& dims, const std::string& name,
                          const std::string& from, const std::string& indent) {
  std::string out;
  for (int in = 0; in < code.num_inputs; ++in) {
    if (!body.used_inputs()[in]) continue;
    std::string base = from.empty() ? islot(code.offset_slot(in)) : from + std::to_string(in);
    out += indent + "const I " + name + std::to_string(in) + " = " +
           offset_expr(code, in, dims, base) + ";\n";
  }
  return out;
}

std::string row_major_index(const KernelCode& code) {
  std::string lin = "0";
  for (int d = 0; d < code.rank; ++d)
    lin = "(" + lin + ") * " + slot(code.size_slot(d)) + " + (sf_i64)j" + std::to_string(d);
  return lin;
}

std::string storage_value(const Kernel& k, const std::string& value, DType from) {
  std::string v = convert(value, from, k.output.dtype);
  return k.output.dtype == DType::kBool ? "(unsigned char)(" + v + " ? 1 : 0)" : v;
}

std::string store(const KernelCode& code, const Kernel& k, const std::string& value, DType from,
                  int ordinal, const std::string& indent) {
  std::string numel = slot(code.numel_slot(code.num_inputs));
  std::string v = storage_value(k, value, from);
  return indent + "if ((sf_i64)po >= 0 && (sf_i64)po < " + numel + ") {\n" + indent +
         "  a.out[po] = " + v + ";\n" + indent + "} else {\n" + indent + "  sf_note(le, " +
         std::to_string(static_cast<int>(DeviceError::kBadWrite)) + ", 0, sf_key(" +
         std::to_string(ordinal) + ", lin), (sf_i64)po);\n" + indent + "}\n";
}

std::string indent_lines(const std::string& s, const std::string& indent) {
  std::string out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    out += indent + s.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

extern const char* const kLocalError = "  SfLocalError le = {0, 0, 0, 0};\n";
extern const char* const kReportError =
    "  if (le.code != 0) sf_fail(a.err, seq, le.code, le.aux, le.key, le.value);\n";

std::vector<bool> preloadable(const Kernel& k) {
  std::vector<bool> out;
  for (const lower::Access& a : k.inputs) out.push_back(a.buffer != k.output.buffer);
  return out;
}

// kUnroll points per thread per loop step: their plain loads are all issued before any point's
// body and store, so each thread has kUnroll loads per input in flight (one point at a time left
// a 1-D add at 72% of copy and a broadcast add at 52% on an H200: loads could not pass the
// previous point's store or its error branches).
std::string unrolled_points(const Kernel& k, const KernelCode& code, const BodyEmitter& body,
                            const std::vector<bool>& pre, const std::vector<int>& varying,
                            const std::string& point_var, const std::string& point_u,
                            const std::string& live, const std::string& setup,
                            const std::string& point, bool no_output, const std::string& indent,
                            int points) {
  const std::string u = std::to_string(points);
  std::string decl, save, restore, loads;
  decl += indent + "sf_i64 ll[" + u + "];\n" + indent + "bool live[" + u + "];\n";
  save += "ll[u] = lin;\n";
  restore += "const sf_i64 lin = ll[u];\n";
  for (int d : varying) {
    std::string j = "j" + std::to_string(d);
    decl += indent + "I " + j + "_[" + u + "];\n";
    save += j + "_[u] = " + j + ";\n";
    restore += "const I " + j + " = " + j + "_[u];\n";
  }
  if (!no_output) {
    decl += indent + "I po_[" + u + "];\n";
    save += "po_[u] = po;\n";
    restore += "const I po = po_[u];\n";
  }
  for (int in = 0; in < code.num_inputs; ++in) {
    if (!body.used_inputs()[in]) continue;
    std::string i = std::to_string(in), off = "off" + i;
    decl += indent + "I " + off + "_[" + u + "];\n";
    save += off + "_[u] = " + off + ";\n";
    restore += "const I " + off + " = " + off + "_[u];\n";
    int ord = body.plain_load_ordinal(in);
    if (!pre[in] || ord < 0) continue;
    std::string type = storage_type(k.inputs[in].dtype);
    decl += indent + type + " pre" + i + "[" + u + "];\n";
    loads += "{\n  const bool inb = " + off + " >= 0 && (sf_i64)" + off + " < " +
             slot(code.numel_slot(in)) + ";\n  if (!inb) sf_note(le, " +
             std::to_string(static_cast<int>(DeviceError::kBadRead)) + ", " + i + ", sf_key(" +
             std::to_string(ord) + ", lin), (sf_i64)" + off + ");\n  pre" + i +
             "[u] = __ldg(&a.in" + i + "[inb ? " + off + " : 0]);\n}\n";
  }
  std::string inner = indent + "  ";
  std::string out = decl;
  out += "#pragma unroll\n";
  out += indent + "for (int u = 0; u < " + u + "; ++u) {\n";
  out += inner + "const I " + point_var + " = " + point_u + ";\n";
  out += inner + "live[u] = " + live + ";\n";
  out += inner + "if (live[u]) {\n";
  out += indent_lines(setup + save + loads, inner + "  ");
  out += inner + "}\n";
  out += indent + "}\n";
  out += "#pragma unroll\n";
  out += indent + "for (int u = 0; u < " + u + "; ++u) {\n";
  out += inner + "if (!live[u]) continue;\n";
  out += indent_lines(restore, inner);
  out += point;
  out += indent + "}\n";
  return out;
}

}  // namespace sf::backend::cuda::detail
