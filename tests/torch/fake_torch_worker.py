# A stand-in for fuzz/torch/torch_worker.py in tests: the same line protocol (the handshake, then
# ready, then one answer line per request), no PyTorch. It rejects a program whose export calls
# nonzero with a data-dependent guard and any other with a RuntimeError, so a shrinker keeping
# "PyTorch raises a data-dependent guard" must keep a nonzero. A capture backend's answer for such
# a program also carries a graph that breaks the binding invariant.
# FAKE_TORCH_MODE picks a misbehaviour: =hang never answers a request; =die exits on the first
# request; =broken never gets ready (no torch); =silent sleeps before its handshake; =exit exits
# at once, silently; =endless answers with a line that never ends; =pad answers with a line of
# FAKE_TORCH_PAD bytes; =deaf never reads its requests; =close closes its stdout on a request and
# lives on; =retire answers, says "retire" (as a worker whose CUDA context broke) and exits.
import os
import sys
import time

mode = os.environ.get("FAKE_TORCH_MODE", "")
if mode == "silent":
    time.sleep(3600)
if mode == "exit":
    sys.exit(0)
print('{"hello": "fake"}', flush=True)
import json  # noqa: E402

if mode == "broken":
    sys.exit("no module named torch")
print(json.dumps({"ready": True}), flush=True)
if mode == "deaf":
    time.sleep(3600)
for line in sys.stdin:
    request = json.loads(line)
    if mode == "hang":
        time.sleep(3600)
    if mode == "die":
        sys.exit(3)
    if mode == "close":
        os.close(1)
        time.sleep(3600)
    if mode == "endless":
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
    if mode == "pad":
        print("x" * int(os.environ["FAKE_TORCH_PAD"]), flush=True)
        continue
    guard = "torch.nonzero(" in request["code"] or ".nonzero(" in request["code"]
    results = [{"backend": b, "verdict": "error",
                "kind": "data_dependent_guard" if guard else "other",
                "type": "UserError" if guard else "RuntimeError",
                "message": "Could not guard on data-dependent expression Eq(u0, 1)" if guard
                else "something else"} for b in request["backends"]]
    # A capture backend's answer carries a graph whose nonzero uses a symbol no node binds (a
    # binding violation) when the program calls nonzero, so its shrinker keeps the nonzero.
    for r in results:
        if r["backend"].startswith("capture") and guard:
            r["capture"] = {"torch": "fake", "graphs": [{"nodes": [
                {"name": "nonzero", "op": "call_function", "target": "aten.nonzero.default",
                 "args": [], "val": {"sizes": ["u0", 1], "strides": [1, "u0"], "offset": 0}}],
                "real": None, "shape_env": None}]}
    reply = {"id": request.get("id"), "pid": os.getpid(), "results": results}
    if mode == "retire":
        reply["retire"] = "CUDA error: device-side assert triggered"
    print(json.dumps(reply), flush=True)
    if mode == "retire":
        sys.exit(0)
