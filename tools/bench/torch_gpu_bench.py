# PyTorch's CUDA figures for the ops cuda_bench measures, on the same sizes (2^26 elements), so the
# two print side by side in tools/gpu-check.sh: copy, add, a broadcast add, a transposing copy,
# nonzero, masked_select, unique, a pointwise chain, a full sum and per-dim sums. Medians of 20
# timed calls after warm-up, CUDA events.
import statistics

import torch

N = 1 << 26


def median_ms(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    dev = torch.device("cuda")
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(dev)}")
    x = torch.arange(N, device=dev, dtype=torch.float32)
    y = torch.arange(N, device=dev, dtype=torch.float32)
    z = torch.empty_like(x)
    copy = median_ms(lambda: z.copy_(x))
    copy_gbs = 2 * N * 4 / copy / 1e6

    def report(what, ms, nbytes):
        gbs = nbytes / ms / 1e6
        print(f"{what:<40} {ms:8.3f} ms  {gbs:7.1f} GB/s  ({100 * gbs / copy_gbs:5.1f}% of copy)")

    report("torch copy, 2^26 f32:", copy, 2 * N * 4)
    report("torch add, 2^26 f32:", median_ms(lambda: torch.add(x, y, out=z)), 3 * N * 4)
    square, row = x.view(8192, 8192), y[:8192]
    report("torch add, [8192, 8192] + [8192]:",
           median_ms(lambda: torch.add(square, row, out=z.view(8192, 8192))), 2 * N * 4)
    report("torch transposing copy 8192^2:",
           median_ms(lambda: z.view(8192, 8192).copy_(square.t())), 2 * N * 4)
    m = (torch.arange(N, device=dev) % 3) == 0
    count = int(m.sum())
    report("torch nonzero [8192, 8192] bool:",
           median_ms(lambda: torch.nonzero(m.view(8192, 8192))), N + count * 2 * 8)
    report("torch masked_select 2^26 f32:",
           median_ms(lambda: torch.masked_select(x, m)), N * 5 + count * 4)
    small = (torch.arange(N, device=dev) % 1000).to(torch.int64)
    report("torch unique 2^26 i64 (1000 values):", median_ms(lambda: torch.unique(small)), N * 8)
    report("torch chain (x+y)*2-1 then relu:",
           median_ms(lambda: torch.relu((x + y) * 2 - 1)), 3 * N * 4)
    report("torch sum 2^26 f32:", median_ms(lambda: x.sum()), N * 4)
    report("torch sum over dim 1, 8192^2:", median_ms(lambda: square.sum(1)), N * 4)
    report("torch sum over dim 0, 8192^2:", median_ms(lambda: square.sum(0)), N * 4)


if __name__ == "__main__":
    main()
