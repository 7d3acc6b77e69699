"""Llama 3 in PyTorch (float64), written in Meta's form (RoPE on the complex view of channel
pairs, key/value heads repeated for grouped queries), plus a writer and reader of llm.c's Llama 3
model files (train_llama3.py's layout). The Llama tests compare `adjoint grad` against it.

Model: x = wte[tok]; per layer x = x + wo(attn(rope(q), rope(k), v)) on rmsnorm(x), then
x = x + w2(silu(w1 h) * w3 h) on rmsnorm(x); rmsnorm, then logits = x @ lm_head^T (lm_head = wte
when tied); mean cross-entropy over the B*T positions.
"""
import dataclasses
import math

import gpt2_reference  # exits with a clear message when numpy or torch is missing
import numpy as np
import torch
import torch.nn.functional as F

MAGIC, VERSION_FP32, VERSION_BF16 = 20240803, 3, 5
HEADER_INTS = HEADER_FLOATS = 256
PARAM_NAMES = ("wte", "ln1w", "qkvw", "attprojw", "ln2w", "fcw", "fc2w", "fcprojw", "lnfw", "lm_head")
NORMS = frozenset({"ln1w", "ln2w", "lnfw"})


@dataclasses.dataclass(frozen=True)
class LlamaConfig:
    max_seq_len: int
    vocab_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    channels: int
    multiple_of: int = 256
    ffn_dim_multiplier: float = 1.0
    norm_eps: float = 1e-5
    rope_theta: float = 500000.0
    use_scaled_rope: bool = False
    rope_scale_factor: float = 8.0
    rope_low_freq_factor: float = 1.0
    rope_high_freq_factor: float = 4.0
    rope_original_context: int = 8192
    tied_head: bool = False

    @property
    def head_size(self):
        return self.channels // self.num_heads

    @property
    def hidden_size(self):
        # Meta's FeedForward: int(2 * 4C / 3), times the multiplier, rounded up to multiple_of.
        hidden = int(2 * (4 * self.channels) / 3)
        hidden = int(self.ffn_dim_multiplier * hidden)
        return self.multiple_of * ((hidden + self.multiple_of - 1) // self.multiple_of)


def param_shapes(cfg):
    V, L, C, H = cfg.vocab_size, cfg.num_layers, cfg.channels, cfg.hidden_size
    qkv = (cfg.num_heads + 2 * cfg.num_kv_heads) * cfg.head_size
    return {"wte": (V, C), "ln1w": (L, C), "qkvw": (L, qkv, C), "attprojw": (L, C, C), "ln2w": (L, C),
            "fcw": (L, H, C), "fc2w": (L, H, C), "fcprojw": (L, C, H), "lnfw": (C,), "lm_head": (V, C)}


def random_params(cfg, seed):
    """Seeded fp32 weights large enough that every nonlinearity matters."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in param_shapes(cfg).items():
        if name in NORMS:
            values = 1.0 + 0.2 * rng.standard_normal(shape)
        else:
            values = rng.standard_normal(shape) / math.sqrt(shape[-1])
        params[name] = values.astype(np.float32)
    if cfg.tied_head:
        params["lm_head"] = params["wte"]
    return params


def rope_frequencies(cfg):
    """Meta's precompute_freqs_cis frequencies, with Llama 3.1's apply_scaling, in float64."""
    hs = cfg.head_size
    freqs = 1.0 / (cfg.rope_theta ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
    if not cfg.use_scaled_rope:
        return freqs
    low_wavelen = cfg.rope_original_context / cfg.rope_low_freq_factor
    high_wavelen = cfg.rope_original_context / cfg.rope_high_freq_factor
    scaled = []
    for freq in freqs.tolist():
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            scaled.append(freq)
        elif wavelen > low_wavelen:
            scaled.append(freq / cfg.rope_scale_factor)
        else:
            smooth = (cfg.rope_original_context / wavelen - cfg.rope_low_freq_factor) / (
                cfg.rope_high_freq_factor - cfg.rope_low_freq_factor)
            scaled.append((1 - smooth) * freq / cfg.rope_scale_factor + smooth * freq)
    return torch.tensor(scaled, dtype=torch.float64)


def apply_rope(x, freqs_cis):
    """x (B,T,heads,hs): channel pairs (2i, 2i+1) as complex numbers times freqs_cis (T, hs/2)."""
    xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs_cis[None, :, None, :]).flatten(3)


def rmsnorm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def llama_logits(cfg, p, inputs):
    B, T = inputs.shape
    C, NH, NKV, hs = cfg.channels, cfg.num_heads, cfg.num_kv_heads, cfg.head_size
    positions = torch.arange(T, dtype=torch.float64)
    angles = torch.outer(positions, rope_frequencies(cfg))
    # In the parameters' precision (float32 parameters times complex128 would compute in float64).
    complex_dtype = torch.complex64 if p["wte"].dtype == torch.float32 else torch.complex128
    freqs_cis = torch.polar(torch.ones_like(angles), angles).to(complex_dtype)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    x = F.embedding(inputs, p["wte"])
    for l in range(cfg.num_layers):
        h = rmsnorm(x, p["ln1w"][l], cfg.norm_eps)
        q, k, v = F.linear(h, p["qkvw"][l]).split([NH * hs, NKV * hs, NKV * hs], dim=-1)
        q, k, v = q.view(B, T, NH, hs), k.view(B, T, NKV, hs), v.view(B, T, NKV, hs)
        q, k = apply_rope(q, freqs_cis), apply_rope(k, freqs_cis)
        k, v = (t.repeat_interleave(NH // NKV, dim=2) for t in (k, v))
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        y = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1) @ v
        x = x + F.linear(y.transpose(1, 2).reshape(B, T, C), p["attprojw"][l])
        h = rmsnorm(x, p["ln2w"][l], cfg.norm_eps)
        x = x + F.linear(F.silu(F.linear(h, p["fc2w"][l])) * F.linear(h, p["fcw"][l]), p["fcprojw"][l])
    x = rmsnorm(x, p["lnfw"], cfg.norm_eps)
    return F.linear(x, p["wte"] if cfg.tied_head else p["lm_head"])


def llama_loss(cfg, p, inputs, targets):
    """Mean cross-entropy of Llama with parameters p (name -> tensor) on (B,T) int64 inputs."""
    logits = llama_logits(cfg, p, inputs)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           ignore_index=gpt2_reference.NO_TARGET)


def trained_names(cfg):
    """The parameter tensors of cfg's arena (a tied head has no lm_head of its own)."""
    return [n for n in PARAM_NAMES if not (cfg.tied_head and n == "lm_head")]


def train(cfg, params, tokens, s):
    """gpt2_reference.train's AdamW steps on the Llama: everything but the RMSNorm gains decays."""
    decayed = frozenset(PARAM_NAMES) - NORMS
    return gpt2_reference.train(cfg, params, tokens, s, loss_fn=llama_loss, names=trained_names(cfg),
                                optimizer_factory=lambda p, s: gpt2_reference.make_adamw(p, s, decayed))


def loss_and_grads(cfg, params, tokens, B, T, mask=None):
    """Loss and gradients (name -> float64 array; a tied head's gradient is all in wte) on the
    first B*T+1 tokens (with a loss mask: only the learned targets)."""
    names = trained_names(cfg)
    p = {n: torch.tensor(params[n], dtype=torch.float64, requires_grad=True) for n in names}
    loss = llama_loss(cfg, p, *gpt2_reference.batch(tokens, 0, B, T, mask))
    loss.backward()
    return loss.item(), {n: p[n].grad.numpy() for n in names}


def write_model(path, cfg, params, version=VERSION_FP32, llmc_header=False):
    """llm.c's Llama 3 layout: the int and float headers, then the tensors in PARAM_NAMES order
    (lm_head always present; a tied model repeats wte there and sets our tied flag, int [12]).
    llmc_header: only the fields train_llama3.py writes (an untied model with llm.c's fixed RoPE
    scaling), our additions left zero."""
    if llmc_header and (cfg.tied_head or (cfg.rope_scale_factor, cfg.rope_low_freq_factor, cfg.rope_high_freq_factor,
                                          cfg.rope_original_context) != (8.0, 1.0, 4.0, 8192)):
        raise ValueError("llm.c's header has no tied flag and fixed RoPE scaling")
    ints = np.zeros(HEADER_INTS, dtype="<i4")
    ints[:14] = [MAGIC, version, cfg.max_seq_len, cfg.vocab_size, cfg.num_layers, cfg.num_heads,
                 cfg.num_kv_heads, cfg.channels, cfg.multiple_of, int(cfg.use_scaled_rope), 3, 1,
                 int(cfg.tied_head), cfg.rope_original_context]
    floats = np.zeros(HEADER_FLOATS, dtype="<f4")
    floats[:6] = [cfg.ffn_dim_multiplier, cfg.norm_eps, cfg.rope_theta, cfg.rope_scale_factor,
                  cfg.rope_low_freq_factor, cfg.rope_high_freq_factor]
    if llmc_header:
        ints[12:14] = 0
        floats[3:6] = 0
    with open(path, "wb") as f:
        f.write(ints.tobytes())
        f.write(floats.tobytes())
        for name in PARAM_NAMES:
            values = params["wte"] if (cfg.tied_head and name == "lm_head") else params[name]
            f.write(np.ascontiguousarray(values, dtype="<f4").tobytes())


def read_tensors(path, cfg):
    """The tensors of a Llama file written for cfg (name -> array)."""
    data = np.fromfile(path, dtype="<f4", offset=4 * (HEADER_INTS + HEADER_FLOATS))
    tensors, offset = {}, 0
    for name, shape in param_shapes(cfg).items():
        size = int(np.prod(shape))
        tensors[name] = data[offset:offset + size].reshape(shape)
        offset += size
    if offset != data.size:
        raise ValueError(f"{path}: {data.size} floats, expected {offset}")
    return tensors
