#!/usr/bin/python3
"""A LoRA training step in plain PyTorch (CPU, float32), the reference `adjoint train --lora-rank` is
compared with: a Llama of a published shape with a frozen fp32 base (random N(0, 0.02) weights;
requires_grad=False, so autograd computes no weight gradient), adapters on the chosen projections in
PEFT's form y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ, torch.optim.AdamW (foreach) on the adapters only. Prints the
median step time of --steps steps after one warm-up step and the peak RSS, as one JSON line.

Run it as bench/lora/compare.sh does (OpenMP OpenBLAS, jemalloc, the same threads as adjoint).
Usage: pytorch_lora_step.py [--model llama3.2-1B|llama3.1-8B] [-B 1] [-T 64] [--rank 16]
                            [--targets q,k,v,o] [--steps 5] [--threads 2]"""
import argparse
import json
import math
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "pytorch"))
import llama_reference as ref  # noqa: E402

CONFIGS = {
    "llama3.2-1B": ref.LlamaConfig(max_seq_len=131072, vocab_size=128256, num_layers=16, num_heads=32, num_kv_heads=8,
                                   channels=2048, ffn_dim_multiplier=1.5, use_scaled_rope=True, rope_scale_factor=32.0,
                                   tied_head=True),
    "llama3.1-8B": ref.LlamaConfig(max_seq_len=131072, vocab_size=128256, num_layers=32, num_heads=32, num_kv_heads=8,
                                   channels=4096, multiple_of=1024, ffn_dim_multiplier=1.3, use_scaled_rope=True,
                                   rope_scale_factor=8.0),
}


def base_weights(cfg):
    """The frozen base: per layer q, k, v, o, gate, up, down (out, in), norms 1, embedding, head."""
    C, H, hs = cfg.channels, cfg.hidden_size, cfg.head_size
    kv = cfg.num_kv_heads * hs

    def w(*shape):
        return torch.randn(*shape) * 0.02

    layers = [{"q": w(C, C), "k": w(kv, C), "v": w(kv, C), "o": w(C, C), "gate": w(H, C), "up": w(H, C),
               "down": w(C, H), "ln1": torch.ones(C), "ln2": torch.ones(C)} for _ in range(cfg.num_layers)]
    wte = w(cfg.vocab_size, C)
    return {"layers": layers, "wte": wte, "lnf": torch.ones(C), "lm_head": wte if cfg.tied_head else w(cfg.vocab_size, C)}


def adapters(cfg, base, targets, rank):
    """PEFT's initialisation: A uniform in ±1/sqrt(in), B zero (made small and nonzero here so that
    every gradient flows as in a step past the first)."""
    out = []
    for layer in base["layers"]:
        pair = {}
        for t in targets:
            n_out, n_in = layer[t].shape
            A = (torch.rand(rank, n_in) * 2 - 1) / math.sqrt(n_in)
            B = torch.randn(n_out, rank) * 1e-3
            pair[t] = (A.requires_grad_(), B.requires_grad_())
        out.append(pair)
    return out


def loss_fn(cfg, base, lora, scale, inputs, targets):
    B, T = inputs.shape
    C, NH, NKV, hs = cfg.channels, cfg.num_heads, cfg.num_kv_heads, cfg.head_size
    angles = torch.outer(torch.arange(T, dtype=torch.float64), ref.rope_frequencies(cfg))
    freqs_cis = torch.polar(torch.ones_like(angles), angles).to(torch.complex64)
    causal = torch.ones(T, T, dtype=torch.bool).tril()

    def proj(h, layer, adapters_of_layer, name):
        y = F.linear(h, layer[name])
        if name in adapters_of_layer:
            A, Bm = adapters_of_layer[name]
            y = y + scale * F.linear(F.linear(h, A), Bm)
        return y

    x = F.embedding(inputs, base["wte"])
    for layer, ad in zip(base["layers"], lora):
        h = ref.rmsnorm(x, layer["ln1"], cfg.norm_eps)
        q = proj(h, layer, ad, "q").view(B, T, NH, hs)
        k = proj(h, layer, ad, "k").view(B, T, NKV, hs)
        v = proj(h, layer, ad, "v").view(B, T, NKV, hs)
        q, k = ref.apply_rope(q, freqs_cis), ref.apply_rope(k, freqs_cis)
        k, v = (t.repeat_interleave(NH // NKV, dim=2) for t in (k, v))
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        y = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1) @ v
        x = x + proj(y.transpose(1, 2).reshape(B, T, C), layer, ad, "o")
        h = ref.rmsnorm(x, layer["ln2"], cfg.norm_eps)
        x = x + proj(F.silu(proj(h, layer, ad, "gate")) * proj(h, layer, ad, "up"), layer, ad, "down")
    x = ref.rmsnorm(x, base["lnf"], cfg.norm_eps)
    logits = F.linear(x, base["lm_head"])
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="llama3.2-1B", choices=sorted(CONFIGS))
    parser.add_argument("-B", type=int, default=1)
    parser.add_argument("-T", type=int, default=64)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=float, default=16.0)
    parser.add_argument("--targets", default="q,k,v,o")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    cfg = CONFIGS[args.model]
    base = base_weights(cfg)
    lora = adapters(cfg, base, args.targets.split(","), args.rank)
    params = [t for layer in lora for pair in layer.values() for t in pair]
    optimizer = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    tokens = torch.randint(0, cfg.vocab_size, (args.steps + 1, args.B, args.T + 1))
    times = []
    for step in range(args.steps + 1):
        start = time.perf_counter()
        loss = loss_fn(cfg, base, lora, args.alpha / args.rank, tokens[step, :, :-1], tokens[step, :, 1:])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step > 0:
            times.append(time.perf_counter() - start)
    step_s = statistics.median(times)
    print(json.dumps({"impl": "pytorch", "model": args.model, "B": args.B, "T": args.T, "rank": args.rank,
                      "targets": args.targets, "step_s": round(step_s, 3),
                      "tok_per_s": round(args.B * args.T / step_s, 1),
                      "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
                      "torch": torch.__version__, "threads": args.threads}))


if __name__ == "__main__":
    main()
