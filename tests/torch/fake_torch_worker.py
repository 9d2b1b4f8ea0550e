# A stand-in for fuzz/torch/torch_worker.py in tests: the same line protocol, no PyTorch. It
# rejects a program whose export calls nonzero with a data-dependent guard and any other with a
# RuntimeError, so a shrinker keeping "PyTorch raises a data-dependent guard" must keep a nonzero.
# FAKE_TORCH_MODE=hang never answers; =die exits on the first request; =broken never gets ready.
import json
import os
import sys
import time

mode = os.environ.get("FAKE_TORCH_MODE", "")
if mode == "broken":
    sys.exit("no module named torch")
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if mode == "hang":
        time.sleep(3600)
    if mode == "die":
        sys.exit(3)
    guard = "torch.nonzero(" in request["code"] or ".nonzero(" in request["code"]
    results = [{"backend": b, "verdict": "error",
                "kind": "data_dependent_guard" if guard else "other",
                "type": "UserError" if guard else "RuntimeError",
                "message": "Could not guard on data-dependent expression Eq(u0, 1)" if guard
                else "something else"} for b in request["backends"]]
    print(json.dumps({"id": request.get("id"), "pid": os.getpid(), "results": results}), flush=True)
