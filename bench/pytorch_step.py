#!/usr/bin/python3
"""The steps `adjoint bench` times, for the same GPT-2 or Llama in eager PyTorch (CPU, float32): forward
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
import gpt2_reference as gpt2  # noqa: E402
import llama_reference as llama  # noqa: E402

DEFAULT_SHAPES = [(1, 16), (1, 32), (2, 16), (1, 64), (4, 64)]
NORM_GAINS = frozenset({"ln1w", "ln2w", "lnfw"})


class Gpt2:
    """GPT-2 124M (tests/pytorch/gpt2_reference.py), wte unpadded: PyTorch needs no padding rows."""
    cfg = gpt2.GPT2_124M
    names, decayed, loss = gpt2.PARAM_NAMES, gpt2.DECAYED, staticmethod(gpt2.gpt2_loss)
    per_layer = gpt2.PER_LAYER

    @classmethod
    def shapes(cls):
        shapes = gpt2.param_shapes(cls.cfg)
        shapes["wte"] = (cls.cfg.vocab_size, cls.cfg.channels)
        return shapes

    @classmethod
    def matmul_flops_per_token(cls):
        C = cls.cfg.channels
        return 2.0 * (cls.cfg.num_layers * 12 * C * C + C * cls.cfg.padded_vocab_size)


class Llama3Bench:
    """`adjoint bench --model llama3-bench` (tests/pytorch/llama_reference.py): GPT-2 124M's body
    (C=768, L=12, 12 query and 4 key/value heads, SwiGLU hidden 2048) on Llama 3's vocabulary, head
    tied to the embedding."""
    cfg = llama.LlamaConfig(max_seq_len=1024, vocab_size=128256, num_layers=12, num_heads=12,
                            num_kv_heads=4, channels=768, tied_head=True)
    names = tuple(llama.trained_names(cfg))
    decayed = frozenset(names) - NORM_GAINS
    loss = staticmethod(llama.llama_loss)
    per_layer = frozenset(names) - {"wte", "lnfw", "lm_head"}

    @classmethod
    def shapes(cls):
        return {name: shape for name, shape in llama.param_shapes(cls.cfg).items() if name in cls.names}

    @classmethod
    def matmul_flops_per_token(cls):
        c = cls.cfg
        C, H = c.channels, c.hidden_size
        qkv = (c.num_heads + 2 * c.num_kv_heads) * c.head_size
        return 2.0 * (c.num_layers * (qkv * C + C * C + 3 * H * C) + C * c.vocab_size)


class Llama32_1B(Llama3Bench):
    """`adjoint bench --model llama3.2-1B`: Llama 3.2 1B's shape (16 layers, C=2048, 32 query and 8
    key/value heads, hidden 8192, scaled RoPE, tied head), randomly initialised."""
    cfg = llama.LlamaConfig(max_seq_len=131072, vocab_size=128256, num_layers=16, num_heads=32,
                            num_kv_heads=8, channels=2048, ffn_dim_multiplier=1.5,
                            use_scaled_rope=True, rope_scale_factor=32.0, tied_head=True)
    names = tuple(llama.trained_names(cfg))
    decayed = frozenset(names) - NORM_GAINS
    per_layer = frozenset(names) - {"wte", "lnfw", "lm_head"}


MODELS = {"gpt2-124M": Gpt2, "llama3-bench": Llama3Bench, "llama3.2-1B": Llama32_1B}


def make_params(model, generator):
    """Random weights (norm gains 1, the rest N(0, 0.02)). Per-layer tensors are separate leaves
    (lists indexed by layer, as nn.Module models hold them), so the backward does not build a full
    (L, ...) gradient per layer the way slicing one stacked tensor would."""
    def initial_value(name, shape):
        return torch.ones(shape) if name in NORM_GAINS else 0.02 * torch.randn(shape, generator=generator)

    params = {}
    for name, shape in model.shapes().items():
        if name in model.per_layer:
            params[name] = [initial_value(name, shape[1:]).requires_grad_() for _ in range(shape[0])]
        else:
            params[name] = initial_value(name, shape).requires_grad_()
    return params


def leaves(model, params, decayed):
    out = []
    for name in model.names:
        if (name in model.decayed) == decayed:
            value = params[name]
            out += value if isinstance(value, list) else [value]
    return out


def step_flops(model, B, T):
    """Same count as `adjoint bench`: the matmuls (GPT-2's with the padded vocab), causal
    attention's two batched products, backward = 2x forward."""
    C, L = model.cfg.channels, model.cfg.num_layers
    attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C
    return 3.0 * (B * T * model.matmul_flops_per_token() + attention)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def median_ms(warmup, iters, fn):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        start = clock()
        fn()
        times.append((clock() - start) * 1e3)
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
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="cpu: the process's CPU time (as adjoint bench --clock cpu)")
    args = parser.parse_args()
    for flag in ("batch", "seq_len", "iters"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            parser.error(f"--{flag.replace('_', '-')} must be positive")
    if args.warmup < 0:
        parser.error("--warmup must be non-negative")
    return args


def main():
    global clock
    args = parse_args()
    clock = CLOCKS[args.clock]
    torch.set_num_threads(args.threads)
    model = MODELS[args.model]
    cfg = model.cfg
    shapes = DEFAULT_SHAPES
    if args.batch or args.seq_len:
        shapes = [(args.batch or 4, args.seq_len or 64)]
    if max(T for _, T in shapes) > cfg.max_seq_len:
        sys.exit(f"pytorch_step: error: T exceeds max_seq_len {cfg.max_seq_len}")
    peak = sgemm_gflops()
    generator = torch.Generator().manual_seed(1)
    params = make_params(model, generator)
    optimizer = torch.optim.AdamW(
        [{"params": leaves(model, params, True), "weight_decay": 0.1},
         {"params": leaves(model, params, False), "weight_decay": 0.0}],
        lr=1e-4, betas=(0.9, 0.95), eps=1e-8, foreach=True)
    all_leaves = leaves(model, params, True) + leaves(model, params, False)
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
            model.loss(cfg, params, inputs, targets).backward()

        def full_step():
            forward_backward()
            torch.nn.utils.clip_grad_norm_(all_leaves, 1.0)
            optimizer.step()

        fwdbwd_ms = median_ms(args.warmup, args.iters, forward_backward)
        step_ms = median_ms(args.warmup, args.iters, full_step)
        gflops = step_flops(model, B, T) / (fwdbwd_ms * 1e6)
        tok_per_s = B * T / (step_ms / 1e3)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        print(f"{B:>3} {T:>5} {fwdbwd_ms:>11.1f} {step_ms:>11.1f} {tok_per_s:>9.0f} "
              f"{gflops:>9.1f} {rss:>9.0f}")
        lines.append(json.dumps({"impl": "pytorch", "model": args.model, "B": B, "T": T,
                                 "step_ms": step_ms, "fwdbwd_ms": fwdbwd_ms,
                                 "tok_per_s": tok_per_s, "gflops": gflops,
                                 "parameters": num_params,
                                 "sgemm_peak_gflops": peak, "peak_rss_mb": rss,
                                 "blas": blas, "gemm_kernel": kernel,
                                 "malloc": malloc, "malloc_conf": malloc_conf}))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
