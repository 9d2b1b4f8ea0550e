# torch-diff's persistent PyTorch worker: one JSON request per line on stdin
# ({"id": ..., "code": exported program text, "backends": [...]}), one JSON answer per line on
# stdout ({"id": ..., "results": [one sf_run verdict per backend]}). Importing torch once and
# keeping the interpreter is what makes a program cost its compile time only. The driver kills and
# restarts a worker that stops answering (a hang or a crash of PyTorch's is a finding), and
# replaces one whose answer carries "retire" (its CUDA context no longer works) before the next.
# Its start is a handshake: {"hello": ...} at once, before any import (the driver gives it seconds:
# a Python that does not run this file is caught there), then {"ready": true} once torch imported.
import sys

sys.stdout.write('{"hello": "shapefuzz-torch-worker"}\n')
sys.stdout.flush()

import json  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402


def answer(request, number):
    results = []
    try:
        # A real module, registered under a name of its own: Dynamo looks a compiled function's
        # globals up by module name (a bare namespace dict made "No module named 'sfz_program'"
        # crashes, and one reused name "module has no attribute" ones).
        name = "sfz_program_%d" % number
        module = types.ModuleType(name)
        sys.modules[name] = module
        namespace = module.__dict__
        exec(compile(request["code"], request.get("id", "program"), "exec"), namespace)
    except Exception as e:  # the export itself is broken: a finding of ours, reported per backend
        for backend in request["backends"]:
            results.append({"backend": backend, "verdict": "error", "kind": "export_error",
                            "type": type(e).__name__,
                            "message": "".join(traceback.format_exception_only(e))[:1500]})
        return results
    for backend in request["backends"]:
        results.append(namespace["sf_run"](backend))
    return results


def context_lost():
    # A CUDA error that outlives the program (a device-side assert) makes every later request
    # fail: why, when the context no longer works, else None.
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return None
    try:
        torch.cuda.synchronize()
    except Exception as e:
        return "".join(traceback.format_exception_only(e)).strip()[:500]
    return None


def main():
    # What torch prints while compiling would corrupt the answers: stdout is ours alone.
    out = sys.stdout
    sys.stdout = sys.stderr
    import torch  # noqa: F401  (once, before the first request)
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for number, line in enumerate(sys.stdin):
        if not line.strip():
            continue
        request = json.loads(line)
        results = answer(request, number)
        sys.modules.pop("sfz_program_%d" % number, None)
        reply = {"id": request.get("id"), "results": results}
        lost = context_lost()
        if lost:
            # The driver replaces a worker whose answer says "retire" before its next request.
            reply["retire"] = lost
        out.write(json.dumps(reply) + "\n")
        out.flush()
        if lost:
            return


if __name__ == "__main__":
    main()
