# The part of every exported program that does not depend on the program: the torch settings,
# the helpers for ops whose torch spelling depends on the argument kinds, and the driver that runs
# the program eagerly, under torch.compile and under torch.export and describes each outcome as
# one JSON object. export_torch.cc embeds this file (see prelude_text.h); keep it self-contained.
import json
import math
import os
import re
import sys
import traceback

import torch
import torch._dynamo
import torch._dynamo.decorators
from torch._higher_order_ops.while_loop import while_loop as sf_while_loop
from torch._higher_order_ops.map import map as sf_map
from torch._higher_order_ops.scan import scan as sf_scan_op
from torch._higher_order_ops.associative_scan import associative_scan as sf_associative_scan_op

torch._dynamo.config.capture_scalar_outputs = True
torch._dynamo.config.capture_dynamic_output_shape_ops = True
# SHAPEFUZZ_TORCH_DEVICE=cuda runs everything (inputs and the program's factories) on that device.
if os.environ.get("SHAPEFUZZ_TORCH_DEVICE"):
    torch.set_default_device(os.environ["SHAPEFUZZ_TORCH_DEVICE"])

SF_DTYPES = {torch.float32: "f32", torch.int64: "i64", torch.bool: "bool"}
SF_CHECK_PREFIX = "sfz check failed: "


def sf_is_tensor(x):
    return isinstance(x, torch.Tensor)


def sf_scalar_dtype(t, s):
    # The dtype of `t op s` for a Python number s (PyTorch's wrapped-number promotion; spelled
    # out because torch.result_type does not trace under Dynamo).
    if isinstance(s, (bool, torch.SymBool)):
        return t.dtype
    if isinstance(s, (int, torch.SymInt)):
        return torch.int64 if t.dtype == torch.bool else t.dtype
    return t.dtype if t.is_floating_point() else torch.float32


def sf_tensor_pair(a, b):
    # A tensor and a Python number: the number as a 0-dim tensor of the promoted dtype.
    if sf_is_tensor(a) and sf_is_tensor(b):
        return a, b
    if sf_is_tensor(a):
        dtype = sf_scalar_dtype(a, b)
        return a.to(dtype), torch.full((), b, dtype=dtype)
    dtype = sf_scalar_dtype(b, a)
    return torch.full((), a, dtype=dtype), b.to(dtype)


def sf_maximum(a, b):
    if not sf_is_tensor(a) and not sf_is_tensor(b):
        return torch.sym_max(a, b)
    return torch.maximum(*sf_tensor_pair(a, b))


def sf_minimum(a, b):
    if not sf_is_tensor(a) and not sf_is_tensor(b):
        return torch.sym_min(a, b)
    return torch.minimum(*sf_tensor_pair(a, b))


def sf_truth(x):
    return x if isinstance(x, (bool, torch.SymBool)) else x != 0


def sf_logical_and(a, b):
    if sf_is_tensor(a) or sf_is_tensor(b):
        return torch.logical_and(*sf_tensor_pair(a, b))
    return sf_truth(a) & sf_truth(b)


def sf_logical_or(a, b):
    if sf_is_tensor(a) or sf_is_tensor(b):
        return torch.logical_or(*sf_tensor_pair(a, b))
    return sf_truth(a) | sf_truth(b)


def sf_logical_not(a):
    if sf_is_tensor(a):
        return torch.logical_not(a)
    return torch.sym_not(sf_truth(a))


def sf_slice(a, dim, start, end, step):
    dim = dim + a.dim() if dim < 0 else dim
    return a[(slice(None),) * dim + (slice(start, end, step),)]


def sf_dims(a, dim):
    # Our reductions take a dim, a list of dims, or none for all of them.
    if dim is None:
        return tuple(range(a.dim()))
    return tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)


def sf_reduce(fn, a, dim, keepdim):
    if dim is None and not keepdim:
        return fn(a)
    return fn(a, dim=sf_dims(a, dim), keepdim=keepdim)


def sf_count_nonzero(a, dim):
    return torch.count_nonzero(a) if dim is None else torch.count_nonzero(a, dim=sf_dims(a, dim))


def sf_fresh(values, keep=()):
    # In our semantics the operands of cond / while_loop enter as contiguous clones and what a
    # branch or body returns is a new tensor: so here too (torch.cond refuses an output aliasing
    # an input, and while_loop a body output whose strides differ from the carry's). `keep`: the
    # positions passed as they are (what a region mutates, the caller sees).
    return tuple(v.clone(memory_format=torch.contiguous_format)
                 if sf_is_tensor(v) and i not in keep else v
                 for i, v in enumerate(values))


def sf_scan(fn, init, xs):
    # Our scan's function takes the carries and one row of each xs flat and returns the next
    # carries then the per-row outputs; torch's combine_fn(carry, x) takes and returns pytrees.
    # torch's scan takes tensor carries only: an int carry travels as a 0-d int64 tensor and is
    # an int again (item()) inside the function and after the scan.
    k = len(init)
    ints = [not sf_is_tensor(c) for c in init]
    device = xs[0].device if xs else None

    def as_tensor(v, i):
        return torch.full((), v, dtype=torch.int64, device=device) if ints[i] else v

    def as_value(v, i):
        return v.item() if ints[i] else v

    def combine(carry, x):
        out = fn(*[as_value(c, i) for i, c in enumerate(carry)], *x)
        return tuple(as_tensor(out[i], i) for i in range(k)), tuple(out[k:])

    carry, ys = sf_scan_op(combine, tuple(as_tensor(c, i) for i, c in enumerate(init)), tuple(xs))
    return tuple(as_value(c, i) for i, c in enumerate(carry)) + tuple(ys)


def sf_associative_scan(fn, xs, dim):
    # Our combine function takes the left rows, then the right rows, flat and returns a row per
    # operand; torch's combine_fn(left, right) takes and returns pytrees of rows. The "generic"
    # mode vmaps it over the scanned dim, so it may be any function of the rows (as ours).
    def combine(left, right):
        return tuple(fn(*left, *right))

    return tuple(sf_associative_scan_op(combine, tuple(xs), dim, combine_mode="generic"))


def sf_repeat_interleave(a, repeats, dim, output_size):
    if repeats is None:
        return torch.repeat_interleave(a, output_size=output_size)
    return torch.repeat_interleave(a, repeats, dim=dim, output_size=output_size)


# Our sort, argsort and topk order ties by index (stable); PyTorch's sort only when asked.
def sf_sort(a, dim, descending):
    return torch.sort(a, dim=dim, descending=descending, stable=True)


def sf_argsort(a, dim, descending):
    return torch.argsort(a, dim=dim, descending=descending, stable=True)


# Which of several equal values topk picks, and in what order, is unspecified in PyTorch; ours are
# the first by index. Compare like with like: PyTorch's values, and the indices a stable sort gives.
def sf_topk(a, k, dim, largest):
    values, indices = torch.topk(a, k, dim, largest)
    if a.dim() == 0:
        return values, indices
    order = torch.argsort(a, dim=dim, descending=largest, stable=True)
    return values, order.narrow(dim, 0, k)


def sf_pad(a, pad, value):
    return torch.nn.functional.pad(a, pad, mode="constant", value=value)


def sf_searchsorted(sorted_sequence, values, right):
    return torch.searchsorted(sorted_sequence, values, right=right)


def sf_unique_consecutive(a, return_counts):
    return torch.unique_consecutive(a, return_counts=return_counts)


def sf_unique_dim(a, dim, return_counts):
    return torch.unique(a, sorted=True, return_counts=return_counts, dim=dim)


def sf_index_put_(a, mask, values):
    a[mask] = values
    return a


def sf_cond(cond):
    # A check on a one-element tensor checks its value.
    return cond.item() if sf_is_tensor(cond) else cond


def sf_num(x):
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)  # JSON has no NaN or infinity
    return x


def sf_describe(v):
    if sf_is_tensor(v):
        values = v.detach().cpu().flatten().tolist()
        return {"tensor": SF_DTYPES.get(v.dtype, str(v.dtype)), "sizes": list(v.shape),
                "values": [sf_num(x) for x in values]}
    if isinstance(v, (tuple, list)):
        return [sf_describe(x) for x in v]
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": sf_num(v)}
    return {"other": repr(v)}


def sf_causes(e):
    seen = []
    while e is not None and len(seen) < 10 and e not in seen:
        seen.append(e)
        e = e.__cause__ or e.__context__
    return seen


# Inductor's generated module (in its torchinductor_* cache directory) checks the graph's runtime
# asserts itself and raises RuntimeError('<expression>'), e.g. RuntimeError('u0 <= 2'), not
# aot_eager's "Runtime assertion failed for expression ...".
def sf_inductor_assert(chain):
    for x in chain:
        frames = traceback.extract_tb(x.__traceback__) if x.__traceback__ else []
        if type(x).__name__ == "RuntimeError" and frames and \
                "torchinductor_" in frames[-1].filename and \
                re.fullmatch(r"[\w\s*+\-/(),.]*(<=|>=|<|>|==|!=|Eq\(|Ne\()[\w\s*+\-/(),.<>=!]*",
                             str(x)):
            return True
    return False


# Our user-error kinds (engine/base/errors.h) for a torch exception; "crash" for an internal error
# of PyTorch's (an assertion, a compiler failure that is not a user error), "other" otherwise.
def sf_classify(e):
    chain = sf_causes(e)
    names = " ".join(type(x).__name__ for x in chain)
    text = " ".join(str(x) for x in chain)
    if SF_CHECK_PREFIX in text:
        return "check_failed"
    if "MemoryError" in names or "bad_alloc" in text:
        return "too_complex"  # a resource limit, as our too_complex
    if "ValueError" in names and "unpack" in text:
        return "value"
    if "GuardOnDataDependentSymNode" in names or "data-dependent" in text or \
            "data dependent" in text:
        return "data_dependent_guard"
    if "Runtime assertion failed" in text or "_assert_scalar" in text or \
            sf_inductor_assert(chain):
        return "runtime_assert_failed"
    if "ZeroDivisionError" in names or "division by zero" in text.lower():
        return "zero_division"
    # A shape error inside Dynamo's fake-tensor run surfaces as TorchRuntimeError/Unsupported
    # around the operator's own RuntimeError: the operator's error decides.
    if "when making fake tensor call" in text or "Dynamo failed to run FX node" in text:
        if any(w in text for w in ("size", "shape", "dimension", "expand", "view", "broadcast")):
            return "shape"
    # A higher-order op's function that mutates an operand: our invalid_program (corpus/README.md).
    if "input mutation during higher order op tracing" in text:
        return "invalid_program"
    if "Unsupported" in names or "UserError" in names or "graph break" in text.lower():
        return "unsupported"
    if "IndexError" in names or "out of bounds" in text or "out of range" in text:
        return "index"
    if "InternalTorchDynamoError" in names or "AssertionError" in names or \
            "LoweringException" in names or "InductorError" in names:
        return "crash"
    if "size" in text or "shape" in text or "dimension" in text or "expand" in text:
        return "shape"
    return "other"


def sf_run(backend):
    out = {"backend": backend}
    try:
        # Inside the handler: on CUDA a device-side assert of an earlier backend poisons the
        # context, and making the inputs then raises; that is this backend's verdict (the worker
        # retires after the request, torch_worker.py), not a dead worker charged to every backend.
        inputs = sf_inputs()
        with (torch.inference_mode() if SF_INFERENCE_MODE else torch.enable_grad()):
            if backend == "eager":
                result = sf_program(**inputs)
            elif backend == "export":
                result = sf_export(inputs, out)
            elif backend == "capture":
                result = sf_capture(inputs, out)
            elif backend == "capture_export":
                result = sf_capture_export(inputs, out)
            else:
                torch._dynamo.reset()
                sf_mark(inputs)
                compiled = torch.compile(sf_program, fullgraph=True, dynamic=True, backend=backend)
                result = compiled(**inputs)
        out["verdict"] = "ok"
        out["outputs"] = sf_describe(result)
    except Exception as e:  # every error is a verdict; a dead interpreter is the caller's crash
        out["verdict"] = "error"
        out["kind"] = sf_classify(e)
        out["type"] = type(e).__name__
        out["message"] = str(e)[:1500]
    return out


class SfModule(torch.nn.Module):
    def forward(self, *args):
        return sf_program(*args)


# The program exported with sf_export_dims' dims.
def sf_exported(inputs):
    torch._dynamo.reset()
    names = list(inputs)
    args = tuple(inputs[n] for n in names)
    shapes = tuple(sf_export_dims(n, inputs[n]) for n in names)
    return torch.export.export(SfModule(), args, dynamic_shapes=(shapes,))


def sf_export(inputs, out):
    ep = sf_exported(inputs)
    bindings, asserts = [], []
    for node in ep.graph.nodes:
        ub = node.meta.get("unbacked_bindings")
        if ub:
            bindings.append({"node": node.name,
                             "bindings": {str(s): str(path) for s, path in ub.items()}})
        if node.target is torch.ops.aten._assert_scalar.default:
            cond = node.args[0]
            val = cond.meta.get("val") if isinstance(cond, torch.fx.Node) else cond
            asserts.append(str(val))
    out["unbacked_bindings"] = bindings
    out["runtime_asserts"] = asserts
    return ep.module()(*sf_inputs().values())


# --- capture: PyTorch's own graph (after AOTAutograd, or torch.export's), its ShapeEnv, and the
# graph's real run (issue 34) ---
# An expression as a JSON tree: an int, a symbol's name, or [sympy class name, args...].
def sf_expr(e):
    import sympy
    if isinstance(e, (torch.SymInt, torch.SymBool, torch.SymFloat)):
        e = e.node.expr
    if isinstance(e, bool) or isinstance(e, sympy.logic.boolalg.BooleanAtom):
        return ["Bool", bool(e)]
    if isinstance(e, int):
        return e
    if isinstance(e, float):
        return ["Float", sf_num(e)]
    if isinstance(e, sympy.Symbol):
        return e.name
    if isinstance(e, sympy.Integer):
        return int(e)
    if isinstance(e, sympy.Rational):
        return ["Rational", int(e.p), int(e.q)]
    if isinstance(e, sympy.Float):
        return ["Float", sf_num(float(e))]
    if e is sympy.oo or e is -sympy.oo or type(e).__name__ in ("IntInfinity", "NegativeIntInfinity"):
        return ["Infinity", 1 if e > 0 else -1]
    return [type(e).__name__] + [sf_expr(a) for a in e.args]


# A binding's keypath: [method] for size/stride/storage_offset, ["index", i], ["int"],
# ["divide", d], ["inner", name].
def sf_keypath(path):
    out = []
    for k in path:
        name = type(k).__name__
        if name == "CallMethodKey":
            out.append([k.name])
        elif name == "SequenceKey":
            out.append(["index", k.idx])
        elif name == "ConvertIntKey":
            out.append(["int"])
        elif name == "DivideByKey":
            out.append(["divide", int(k.divisor)])
        elif name == "InnerTensorKey":
            out.append(["inner", k.inner_name])
        else:
            out.append(["?", repr(k)])
    return out


# A node's metadata (fake values: sizes, strides and offset as expressions) or a real value.
def sf_meta(v, real):
    if isinstance(v, torch.Tensor):
        conv = (lambda x: int(x)) if real else sf_expr
        return {"sizes": [conv(x) for x in v.shape], "strides": [conv(x) for x in v.stride()],
                "offset": conv(v.storage_offset())}
    if isinstance(v, (tuple, list)):
        return [sf_meta(x, real) for x in v]
    if isinstance(v, (bool, int, float, torch.SymInt, torch.SymBool, torch.SymFloat)):
        return {"value": (sf_num(v) if isinstance(v, float) else v) if real else sf_expr(v)}
    return None


def sf_bound(b):
    try:
        return int(b)
    except Exception:
        return "inf" if b > 0 else "-inf"


def sf_shape_env(se):
    if se is None:
        return None
    return {
        "ranges": {str(s): [sf_bound(r.lower), sf_bound(r.upper)]
                   for s, r in se.var_to_range.items() if not r.is_float},
        "replacements": {str(s): sf_expr(e) for s, e in se.replacements.items()},
        "divisible": [sf_expr(e) for e in se.divisible],
        "size_like": sorted(str(s) for s in se.size_like),
        "guards": [sf_expr(g.expr) for g in se.guards],
        "asserts": [sf_expr(ra.expr) for ras in se.deferred_runtime_asserts.values()
                    for ra in ras],
        "renamings": {str(a): str(b) for a, b in se.unbacked_renamings.items()},
    }


# A node's arguments as text: another node as %name, a literal as its repr, keywords as k=v.
def sf_call(n):
    def text(a):
        if isinstance(a, torch.fx.Node):
            return "%" + a.name
        if isinstance(a, (list, tuple)):
            return "[" + ", ".join(text(x) for x in a) + "]"
        return repr(a)[:40]
    return [text(a) for a in n.args] + [k + "=" + text(v) for k, v in n.kwargs.items()]


def sf_graph_nodes(graph):
    nodes = []
    for n in graph.nodes:
        entry = {"name": n.name, "op": n.op, "target": str(n.target)[:80],
                 "args": [a.name for a in n.all_input_nodes], "call": sf_call(n)}
        if "val" in n.meta:
            entry["val"] = sf_meta(n.meta["val"], real=False)
        ub = n.meta.get("unbacked_bindings")
        if ub:
            entry["bindings"] = {str(s): sf_keypath(p) for s, p in ub.items()}
        nodes.append(entry)
    return nodes


# A graph's entry in the capture: its nodes, its higher-order ops' bodies (not run on their own:
# where their symbols are bound) and, once run, each node's real value.
def sf_graph_entry(gm, shape_env):
    return {"nodes": sf_graph_nodes(gm.graph), "real": None, "env": shape_env,
            "subgraphs": {name: sf_graph_nodes(m.graph) for name, m in gm.named_modules()
                          if name and isinstance(m, torch.fx.GraphModule)}}


# Runs gm on the real inputs node by node, recording each node's real value in g["real"] (also
# when a node raises: the values up to it are the evidence).
def sf_recorded_run(gm, g, *args):
    real = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            real[n.name] = sf_meta(r, real=True)
            return r
    try:
        return Recorder(gm).run(*args)
    finally:
        g["real"] = real


def sf_capture_json(graphs):
    return {"torch": torch.__version__, "graphs": [
        {"nodes": g["nodes"], "subgraphs": g["subgraphs"], "real": g["real"],
         "shape_env": sf_shape_env(g["env"])} for g in graphs]}


# torch.compile's forward graph after AOTAutograd.
def sf_capture(inputs, out):
    from torch._dynamo.backends.common import aot_autograd
    from torch._guards import detect_fake_mode
    graphs = []

    def forward_compiler(gm, example_inputs):
        fake = detect_fake_mode(example_inputs)
        g = sf_graph_entry(gm, fake.shape_env if fake else None)
        graphs.append(g)

        def run(args):
            return sf_recorded_run(gm, g, *args)
        run._boxed_call = True
        return run

    torch._dynamo.reset()
    sf_mark(inputs)
    compiled = torch.compile(sf_program, fullgraph=True, dynamic=True,
                             backend=aot_autograd(fw_compiler=forward_compiler))
    try:
        return compiled(**inputs)
    finally:
        # The shape environment as it ended (asserts are added until the end of compilation).
        out["capture"] = sf_capture_json(graphs)


# The ShapeEnv a graph's symbolic values live in: its inputs' fake mode's, else the one a symbolic
# value of a node points to (None when every size is static).
def sf_graph_shape_env(gm):
    from torch._guards import detect_fake_mode
    fake = detect_fake_mode([n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"])
    if fake is not None and fake.shape_env is not None:
        return fake.shape_env
    for n in gm.graph.nodes:
        for v in torch.utils._pytree.tree_leaves(n.meta.get("val")):
            if isinstance(v, torch.Tensor):
                v = next((x for x in list(v.shape) + [v.storage_offset()]
                          if isinstance(x, torch.SymInt)), None)
            if isinstance(v, (torch.SymInt, torch.SymBool, torch.SymFloat)):
                return v.node.shape_env
    return None


# torch.export's graph: the unlifted module (it takes the user's inputs as they are, and its
# `_guards_fn` node checks export's input guards) run node by node on the real inputs.
def sf_capture_export(inputs, out):
    graphs = []
    try:
        gm = sf_exported(inputs).module()
        g = sf_graph_entry(gm, sf_graph_shape_env(gm))
        graphs.append(g)
        return sf_recorded_run(gm, g, *sf_inputs().values())
    finally:
        out["capture"] = sf_capture_json(graphs)


def sf_main():
    for backend in sys.argv[1:] or ["eager", "aot_eager", "inductor", "export"]:
        print(json.dumps(sf_run(backend)), flush=True)
