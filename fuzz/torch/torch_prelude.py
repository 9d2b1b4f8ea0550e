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


def sf_export(inputs, out):
    torch._dynamo.reset()
    names = list(inputs)
    args = tuple(inputs[n] for n in names)
    shapes = tuple(sf_export_dims(n, inputs[n]) for n in names)
    ep = torch.export.export(SfModule(), args, dynamic_shapes=(shapes,))
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


def sf_main():
    for backend in sys.argv[1:] or ["eager", "aot_eager", "inductor", "export"]:
        print(json.dumps(sf_run(backend)), flush=True)
