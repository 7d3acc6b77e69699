#!/usr/bin/python3
"""The steps `adjoint bench` times, for the same GPT-2 in eager PyTorch (CPU, float32): forward
+ backward, and a full step (forward + backward + global-norm clip + torch.optim.AdamW with
foreach=True, the fastest CPU AdamW in 1.13). Medians after warm-up; prints a table, then one
JSON line per config in `adjoint bench`'s format plus "impl":"pytorch".

Run it as bench/compare.sh does to give PyTorch its fast setup (OpenMP OpenBLAS, jemalloc)."""
import argparse
import ctypes
import json
import os
import resource
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "pytorch"))
import gpt2_reference as ref  # noqa: E402

MODELS = {"gpt2-124M": ref.GPT2_124M}
DEFAULT_SHAPES = [(1, 16), (1, 32), (2, 16), (1, 64), (4, 64)]


def initial_value(name, shape, generator):
    if name in ("ln1w", "ln2w", "lnfw"):
        return torch.ones(shape)
    return 0.02 * torch.randn(shape, generator=generator)


def make_params(cfg, generator):
    """GPT-2-like random weights, wte unpadded. Per-layer tensors are separate leaves (lists
    indexed by layer, as nn.Module GPT-2s hold them), so the backward does not build a full
    (L, ...) gradient per layer the way slicing one stacked tensor would."""
    shapes = ref.param_shapes(cfg)
    shapes["wte"] = (cfg.vocab_size, cfg.channels)  # no padding rows: PyTorch needs none
    params = {}
    for name, shape in shapes.items():
        if name in ref.PER_LAYER:
            params[name] = [initial_value(name, shape[1:], generator).requires_grad_()
                            for _ in range(cfg.num_layers)]
        else:
            params[name] = initial_value(name, shape, generator).requires_grad_()
    return params


def leaves(params, decayed):
    out = []
    for name in ref.PARAM_NAMES:
        if (name in ref.DECAYED) == decayed:
            value = params[name]
            out += value if isinstance(value, list) else [value]
    return out


def step_flops(cfg, B, T):
    """Same count as `adjoint bench`: matmuls with the padded vocab, causal attention's two
    batched products, backward = 2x forward."""
    C, L, N = cfg.channels, cfg.num_layers, B * T
    matmul = 2.0 * N * (L * 12 * C * C + C * cfg.padded_vocab_size)
    attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C
    return 3.0 * (matmul + attention)


def median_ms(warmup, iters, fn):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def mapped_libraries(*keywords):
    """Shared objects mapped into this process whose path has one of keywords: which BLAS and
    malloc torch really uses."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if any(k in line for k in keywords)}
    return " ".join(sorted(p for p in paths if p.startswith("/")))


def openblas_kernel():
    """The kernel (core type) of the OpenBLAS torch loaded, or "" if it loaded another BLAS."""
    for path in mapped_libraries("openblas").split():
        try:
            corename = ctypes.CDLL(path).openblas_get_corename
        except (OSError, AttributeError):
            continue
        corename.restype = ctypes.c_char_p
        return corename().decode()
    return ""


def sgemm_gflops():
    n = 2048
    a, b = torch.full((n, n), 0.5), torch.full((n, n), 0.25)
    return 2.0 * n ** 3 / (median_ms(1, 5, lambda: torch.mm(a, b)) * 1e6)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gpt2-124M", choices=sorted(MODELS))
    parser.add_argument("-B", "--batch", type=int, help="only this batch size")
    parser.add_argument("-T", "--seq-len", type=int, help="only this sequence length")
    parser.add_argument("--warmup", type=int, default=2, help="untimed iterations first")
    parser.add_argument("--iters", type=int, default=7, help="timed iterations (median)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    for flag in ("batch", "seq_len", "iters"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            parser.error(f"--{flag.replace('_', '-')} must be positive")
    if args.warmup < 0:
        parser.error("--warmup must be non-negative")
    return args


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    cfg = MODELS[args.model]
    shapes = DEFAULT_SHAPES
    if args.batch or args.seq_len:
        shapes = [(args.batch or 4, args.seq_len or 64)]
    if max(T for _, T in shapes) > cfg.max_seq_len:
        sys.exit(f"pytorch_step: error: T exceeds max_seq_len {cfg.max_seq_len}")
    peak = sgemm_gflops()
    generator = torch.Generator().manual_seed(1)
    params = make_params(cfg, generator)
    optimizer = torch.optim.AdamW(
        [{"params": leaves(params, True), "weight_decay": 0.1},
         {"params": leaves(params, False), "weight_decay": 0.0}],
        lr=1e-4, betas=(0.9, 0.95), eps=1e-8, foreach=True)
    all_leaves = leaves(params, True) + leaves(params, False)
    num_params = sum(p.numel() for p in all_leaves)
    tokens = torch.randint(0, cfg.vocab_size, (max(B * T for B, T in shapes) + 1,),
                           generator=generator)

    print(f"pytorch {torch.__version__}: {args.model} ({num_params / 1e6:.1f}M parameters), "
          f"{torch.get_num_threads()} threads, sgemm peak {peak:.0f} GFLOP/s, medians of "
          f"{args.iters}")
    blas = mapped_libraries("blas", "lapack") or "none mapped"
    malloc = mapped_libraries("jemalloc", "tcmalloc", "mimalloc") or "glibc"
    kernel = openblas_kernel()
    malloc_conf = os.environ.get("MALLOC_CONF", "")
    print(f"blas: {blas} ({kernel or 'no OpenBLAS'} kernel); malloc: {malloc} {malloc_conf}")
    print(f"{'B':>3} {'T':>5} {'fwdbwd ms':>11} {'step ms':>11} {'tok/s':>9} {'GFLOP/s':>9} "
          f"{'RSS MB':>9}")
    lines = []
    for B, T in shapes:
        inputs, targets = tokens[:B * T].view(B, T), tokens[1:B * T + 1].view(B, T)

        def forward_backward():
            optimizer.zero_grad(set_to_none=True)
            ref.gpt2_loss(cfg, params, inputs, targets).backward()

        def full_step():
            forward_backward()
            torch.nn.utils.clip_grad_norm_(all_leaves, 1.0)
            optimizer.step()

        fwdbwd_ms = median_ms(args.warmup, args.iters, forward_backward)
        step_ms = median_ms(args.warmup, args.iters, full_step)
        gflops = step_flops(cfg, B, T) / (fwdbwd_ms * 1e6)
        tok_per_s = B * T / (step_ms / 1e3)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        print(f"{B:>3} {T:>5} {fwdbwd_ms:>11.1f} {step_ms:>11.1f} {tok_per_s:>9.0f} "
              f"{gflops:>9.1f} {rss:>9.0f}")
        lines.append(json.dumps({"impl": "pytorch", "model": args.model, "B": B, "T": T,
                                 "step_ms": step_ms, "fwdbwd_ms": fwdbwd_ms,
                                 "tok_per_s": tok_per_s, "gflops": gflops,
                                 "sgemm_peak_gflops": peak, "peak_rss_mb": rss,
                                 "blas": blas, "gemm_kernel": kernel,
                                 "malloc": malloc, "malloc_conf": malloc_conf}))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
