"""Hugging Face model folders for the tests, written with our own few lines (no transformers, no
safetensors package): safetensors files (8-byte little-endian header length, JSON header, raw
little-endian tensors), config.json, and a sharded folder's model.safetensors.index.json. The
models are written in HF's formulation, as transformers computes them, in float64:

Llama: q_proj/k_proj rows in HF's order, RoPE by rotate_half on (first half, second half) of each
head with cos/sin of cat(freqs, freqs); grouped key/value heads repeated.
GPT-2: Conv1D weights (in, out), x @ W + b; GELU's tanh approximation; head tied to wte.
"""
import json
import math
import struct

import gpt2_reference  # exits with a clear message when numpy or torch is missing
import llama_reference
import numpy as np
import torch
import torch.nn.functional as F

DTYPES = {"F32": "<f4", "BF16": None, "F16": "<f2"}


def to_bf16_bytes(values):
    """float32 values rounded to bfloat16 (nearest even), as little-endian bytes."""
    bits = np.ascontiguousarray(values, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2").tobytes()


def rounded(values, dtype):
    """values (float32) as the file of that dtype holds them, back in float32."""
    if dtype == "F32":
        return values.astype(np.float32)
    if dtype == "F16":
        return values.astype("<f2").astype(np.float32)
    bits = np.frombuffer(to_bf16_bytes(values), dtype="<u2").astype(np.uint32) << 16
    return bits.view(np.float32).reshape(values.shape)


def tensor_bytes(values, dtype):
    if dtype == "BF16":
        return to_bf16_bytes(values)
    return np.ascontiguousarray(values, dtype=DTYPES[dtype]).tobytes()


def safetensors_bytes(tensors, dtype, header_extra=None):
    """A safetensors file of tensors (name -> float32 array) in dtype; header_extra entries are
    merged into the header (for the bad-file tests)."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, values in tensors.items():
        blob = tensor_bytes(values, dtype)
        header[name] = {"dtype": dtype, "shape": list(values.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def read_safetensors(path):
    """name -> float32 array of an F32/BF16/F16 safetensors file."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[8 + length + begin:8 + length + end]
        if entry["dtype"] == "BF16":
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(raw, dtype=DTYPES[entry["dtype"]]).astype(np.float32)
        tensors[name] = values.reshape(entry["shape"])
    return tensors


def write_folder(folder, config, tensors, dtype="F32", shards=1):
    """config.json and the tensors in one model.safetensors or in `shards` files with an index."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    if shards == 1:
        (folder / "model.safetensors").write_bytes(safetensors_bytes(tensors, dtype))
        return
    names = list(tensors)
    weight_map = {}
    for shard in range(shards):
        file = f"model-{shard + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[shard::shards]}
        (folder / file).write_bytes(safetensors_bytes(part, dtype))
        weight_map.update({n: file for n in part})
    index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))


# ---- Llama


def llama_config_json(cfg):
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": cfg.channels,
              "intermediate_size": cfg.hidden_size, "num_attention_heads": cfg.num_heads,
              "num_key_value_heads": cfg.num_kv_heads, "num_hidden_layers": cfg.num_layers,
              "vocab_size": cfg.vocab_size, "max_position_embeddings": cfg.max_seq_len, "rms_norm_eps": cfg.norm_eps,
              "rope_theta": cfg.rope_theta, "tie_word_embeddings": cfg.tied_head, "hidden_act": "silu",
              "rope_scaling": None}
    if cfg.use_scaled_rope:
        config["rope_scaling"] = {"rope_type": "llama3", "factor": cfg.rope_scale_factor,
                                  "low_freq_factor": cfg.rope_low_freq_factor,
                                  "high_freq_factor": cfg.rope_high_freq_factor,
                                  "original_max_position_embeddings": cfg.rope_original_context}
    return config


def random_llama_tensors(cfg, seed):
    """HF-named random float32 weights for cfg (no lm_head.weight when tied)."""
    rng = np.random.default_rng(seed)
    C, H, hs, V = cfg.channels, cfg.hidden_size, cfg.head_size, cfg.vocab_size

    def weight(*shape):
        return (rng.standard_normal(shape) / math.sqrt(shape[-1])).astype(np.float32)

    def norm():
        return (1.0 + 0.2 * rng.standard_normal(C)).astype(np.float32)

    tensors = {"model.embed_tokens.weight": weight(V, C)}
    for l in range(cfg.num_layers):
        p = f"model.layers.{l}."
        tensors.update({p + "input_layernorm.weight": norm(),
                        p + "self_attn.q_proj.weight": weight(cfg.num_heads * hs, C),
                        p + "self_attn.k_proj.weight": weight(cfg.num_kv_heads * hs, C),
                        p + "self_attn.v_proj.weight": weight(cfg.num_kv_heads * hs, C),
                        p + "self_attn.o_proj.weight": weight(C, C),
                        p + "post_attention_layernorm.weight": norm(),
                        p + "mlp.gate_proj.weight": weight(H, C),
                        p + "mlp.up_proj.weight": weight(H, C),
                        p + "mlp.down_proj.weight": weight(C, H)})
    tensors["model.norm.weight"] = norm()
    if not cfg.tied_head:
        tensors["lm_head.weight"] = weight(V, C)
    return tensors


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


def llama_loss(cfg, p, inputs, targets):
    """transformers' LlamaForCausalLM loss with HF-named tensors p."""
    B, T = inputs.shape
    NH, NKV, hs = cfg.num_heads, cfg.num_kv_heads, cfg.head_size
    angles = torch.outer(torch.arange(T, dtype=torch.float64), llama_reference.rope_frequencies(cfg))
    angles = torch.cat((angles, angles), dim=-1)[None, None]  # (1, 1, T, hs)
    cos, sin = angles.cos().to(p["model.norm.weight"].dtype), angles.sin().to(p["model.norm.weight"].dtype)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    x = F.embedding(inputs, p["model.embed_tokens.weight"])
    for l in range(cfg.num_layers):
        w = {n[len(f"model.layers.{l}."):]: t for n, t in p.items() if n.startswith(f"model.layers.{l}.")}
        h = llama_reference.rmsnorm(x, w["input_layernorm.weight"], cfg.norm_eps)
        q = F.linear(h, w["self_attn.q_proj.weight"]).view(B, T, NH, hs).transpose(1, 2)
        k = F.linear(h, w["self_attn.k_proj.weight"]).view(B, T, NKV, hs).transpose(1, 2)
        v = F.linear(h, w["self_attn.v_proj.weight"]).view(B, T, NKV, hs).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(NH // NKV, dim=1), v.repeat_interleave(NH // NKV, dim=1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        y = scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v
        x = x + F.linear(y.transpose(1, 2).reshape(B, T, NH * hs), w["self_attn.o_proj.weight"])
        h = llama_reference.rmsnorm(x, w["post_attention_layernorm.weight"], cfg.norm_eps)
        x = x + F.linear(F.silu(F.linear(h, w["mlp.gate_proj.weight"])) * F.linear(h, w["mlp.up_proj.weight"]),
                         w["mlp.down_proj.weight"])
    x = llama_reference.rmsnorm(x, p["model.norm.weight"], cfg.norm_eps)
    head = p["model.embed_tokens.weight"] if cfg.tied_head else p["lm_head.weight"]
    return F.cross_entropy((x @ head.T).reshape(B * T, -1), targets.reshape(B * T))


# ---- GPT-2


def gpt2_config_json(cfg):
    return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": cfg.channels,
            "n_head": cfg.num_heads, "n_layer": cfg.num_layers, "n_positions": cfg.max_seq_len,
            "vocab_size": cfg.vocab_size, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}


def random_gpt2_tensors(cfg, seed, prefix="transformer.", mask_buffers=False):
    """HF-named random float32 weights (Conv1D weights (in, out)); mask_buffers adds the causal-mask
    buffers old exports carry."""
    rng = np.random.default_rng(seed)
    C, V = cfg.channels, cfg.vocab_size

    def weight(fan_in, out):
        return (rng.standard_normal((fan_in, out)) / math.sqrt(fan_in)).astype(np.float32)

    def small(*shape):
        return (0.1 * rng.standard_normal(shape)).astype(np.float32)

    def gain():
        return (1.0 + 0.2 * rng.standard_normal(C)).astype(np.float32)

    t = {prefix + "wte.weight": (rng.standard_normal((V, C)) / math.sqrt(C)).astype(np.float32),
         prefix + "wpe.weight": small(cfg.max_seq_len, C)}
    for l in range(cfg.num_layers):
        p = f"{prefix}h.{l}."
        t.update({p + "ln_1.weight": gain(), p + "ln_1.bias": small(C),
                  p + "attn.c_attn.weight": weight(C, 3 * C), p + "attn.c_attn.bias": small(3 * C),
                  p + "attn.c_proj.weight": weight(C, C), p + "attn.c_proj.bias": small(C),
                  p + "ln_2.weight": gain(), p + "ln_2.bias": small(C),
                  p + "mlp.c_fc.weight": weight(C, 4 * C), p + "mlp.c_fc.bias": small(4 * C),
                  p + "mlp.c_proj.weight": weight(4 * C, C), p + "mlp.c_proj.bias": small(C)})
        if mask_buffers:
            t[p + "attn.bias"] = np.tril(np.ones((cfg.max_seq_len, cfg.max_seq_len), np.float32))[None, None]
    t[prefix + "ln_f.weight"], t[prefix + "ln_f.bias"] = gain(), small(C)
    return t


def gpt2_loss(cfg, p, inputs, targets, prefix="transformer."):
    """transformers' GPT2LMHeadModel loss with HF-named tensors p (Conv1D: x @ W + b)."""
    B, T = inputs.shape
    C, NH = cfg.channels, cfg.num_heads
    hs = C // NH
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    eps = gpt2_reference.LAYERNORM_EPS
    w = {n[len(prefix):]: t for n, t in p.items()}

    def conv1d(x, name):
        return x @ w[name + ".weight"] + w[name + ".bias"]

    x = F.embedding(inputs, w["wte.weight"]) + w["wpe.weight"][:T]
    for l in range(cfg.num_layers):
        h = F.layer_norm(x, (C,), w[f"h.{l}.ln_1.weight"], w[f"h.{l}.ln_1.bias"], eps)
        q, k, v = (t.view(B, T, NH, hs).transpose(1, 2) for t in conv1d(h, f"h.{l}.attn.c_attn").split(C, dim=-1))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        y = (scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)
        x = x + conv1d(y, f"h.{l}.attn.c_proj")
        h = F.layer_norm(x, (C,), w[f"h.{l}.ln_2.weight"], w[f"h.{l}.ln_2.bias"], eps)
        x = x + conv1d(F.gelu(conv1d(h, f"h.{l}.mlp.c_fc"), approximate="tanh"), f"h.{l}.mlp.c_proj")
    x = F.layer_norm(x, (C,), w["ln_f.weight"], w["ln_f.bias"], eps)
    return F.cross_entropy((x @ w["wte.weight"].T).reshape(B * T, -1), targets.reshape(B * T))


def loss_and_grads(loss_fn, cfg, tensors, tokens, B, T, skip=()):
    """float64 loss and gradients (name -> array) of the first batch, for HF-named float32
    tensors; names in skip (buffers) take no part."""
    p = {n: torch.tensor(v, dtype=torch.float64, requires_grad=n not in skip) for n, v in tensors.items()}
    inputs, targets = gpt2_reference.batch(tokens, 0, B, T)
    loss = loss_fn(cfg, p, inputs, targets)
    loss.backward()
    return loss.item(), {n: t.grad.numpy() for n, t in p.items() if n not in skip}
