#!/usr/bin/env python3
"""Replays `shapefuzz bench-shape-env --export FILE` on PyTorch's ShapeEnv and prints ops/s,
the peer of DESIGN §4's comparison. Needs `pip install torch`.  usage: FILE [RUNS [wall|cpu]]"""
import statistics
import sys
import time

import sympy
import torch
from torch.fx.experimental.symbolic_shapes import (
    DimDynamic, GuardOnDataDependentSymNode, ShapeEnv, _constrain_range_for_size,
    compute_unbacked_bindings, guard_or_false, rebind_unbacked, statically_known_true)
from torch._dynamo.source import ConstantSource


class Node:
    """The two fields of an FX node that rebind_unbacked reads."""

    def __init__(self, bindings):
        self.op = "call_function"
        self.meta = {"unbacked_bindings": bindings}


def run(lines):
    env = ShapeEnv()
    I = []
    sites = {}
    errors = 0
    for line in lines:
        op, _, rest = line.partition(" ")
        try:
            if op == "input":
                k, hint, mode = rest.split()
                if mode == "unbacked":
                    s = env.create_unbacked_symint()
                    _constrain_range_for_size(s)  # as our kSizeLikeUnbacked input
                    compute_unbacked_bindings(env, s)
                else:
                    src = ConstantSource(f"in{k}")
                    sym = env.create_symbol(int(hint), src, dynamic_dim=DimDynamic.DUCK)
                    s = env.create_symintnode(sym, hint=int(hint), source=src)
                I.append(s)
            elif op == "nonzero":
                k, mx = rest.split()
                u = env.create_unbacked_symint()
                I.append(u)
                _constrain_range_for_size(u, max=int(mx))
                b = compute_unbacked_bindings(env, [u, 2])
                sites[int(k)] = (u, b)
            elif op == "expose":
                k, layout, c = rest.split()
                u = env.create_unbacked_symint()
                I.append(u)
                _constrain_range_for_size(u)
                # Only the c*u layout has a peer without a fake tensor; the stride, offset and
                # wrapper layouts bind u through a plain list here (the same ShapeEnv work).
                compute_unbacked_bindings(env, [int(c) * u, 2] if layout == "multiple" else [u])
            elif op == "item":
                u = env.create_unbacked_symint()
                I.append(u)
                b = compute_unbacked_bindings(env, u)
                sites[int(rest)] = (u, b)
            elif op == "check":
                torch._check(eval(rest))
            elif op == "guard":
                bool(eval(rest))
            elif op == "static":
                a, b, c = rest.split(" | ")
                statically_known_true(eval(a))
                guard_or_false(eval(b))
                e = eval(c)  # a plain int when a 0/1 input was specialized
                env.simplify(e.node.expr if isinstance(e, torch.SymInt) else sympy.Integer(e))
            elif op == "rebind":
                k, kind = rest.split()
                old, bindings = sites[int(k)]
                fresh = env.create_unbacked_symint()
                value = fresh if kind == "scalar" else [fresh, 2]
                compute_unbacked_bindings(env, value)
                rebind_unbacked(env, Node(bindings), value)
            elif op == "divisible":
                torch._check(eval(rest))
                pending = list(env.pending_fresh_unbacked_symbols)
                if pending:
                    compute_unbacked_bindings(env, [env.create_symintnode(s, hint=None) for s in pending])
        except (GuardOnDataDependentSymNode, RuntimeError, ValueError, AssertionError):
            errors += 1
            env.pending_fresh_unbacked_symbols.clear()
    return errors


def main():
    lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    # wall: elapsed time; cpu: this thread's CPU time, as `bench-shape-env --clock cpu`
    clock_name = sys.argv[3] if len(sys.argv) > 3 else "wall"
    clocks = {"wall": time.perf_counter, "cpu": time.thread_time}
    if clock_name not in clocks:
        sys.exit(f"pytorch_shape_env.py: unknown clock {clock_name!r} (wall or cpu)")
    clock = clocks[clock_name]
    times = []
    for _ in range(runs):
        t0 = clock()
        errors = run(lines)
        times.append(clock() - t0)
    med = statistics.median(times)
    print(f"PyTorch {torch.__version__} ShapeEnv: {len(lines)} operations, median {med * 1e3:.1f} ms "
          f"per run ({clock_name} time, {runs} runs, {errors} user errors), {len(lines) / med:.0f} ops/s")


if __name__ == "__main__":
    main()
