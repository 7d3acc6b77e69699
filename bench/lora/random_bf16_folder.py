"""Writes a Hugging Face Llama folder (config.json, one model.safetensors) of random BF16 weights in
a published shape, streamed tensor by tensor so that an 8B model needs little memory to write.
Matrices are N(0, 0.02) (RMSNorm gains 1), drawn from one pool of 2^24 values at random offsets:
the benchmark needs a realistic file, not independent draws.

Usage: random_bf16_folder.py {llama3.2-1B|llama3.1-8B} OUT_DIR [--seed S]"""
import argparse
import json
import struct
from pathlib import Path

import numpy as np

SHAPES = {
    "llama3.2-1B": dict(hidden_size=2048, intermediate_size=8192, num_attention_heads=32, num_key_value_heads=8,
                        num_hidden_layers=16, tie_word_embeddings=True, rope_factor=32.0),
    "llama3.1-8B": dict(hidden_size=4096, intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8,
                        num_hidden_layers=32, tie_word_embeddings=False, rope_factor=8.0),
}
VOCAB = 128256
CHUNK = 1 << 24


def config_json(shape):
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": shape["hidden_size"],
            "intermediate_size": shape["intermediate_size"], "num_attention_heads": shape["num_attention_heads"],
            "num_key_value_heads": shape["num_key_value_heads"], "num_hidden_layers": shape["num_hidden_layers"],
            "vocab_size": VOCAB, "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
            "rope_scaling": {"rope_type": "llama3", "factor": shape["rope_factor"], "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
            "tie_word_embeddings": shape["tie_word_embeddings"], "hidden_act": "silu", "torch_dtype": "bfloat16"}


def tensor_shapes(shape):
    C, H = shape["hidden_size"], shape["intermediate_size"]
    hs = C // shape["num_attention_heads"]
    kv = shape["num_key_value_heads"] * hs
    tensors = [("model.embed_tokens.weight", (VOCAB, C))]
    for layer in range(shape["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        tensors += [(p + "input_layernorm.weight", (C,)), (p + "self_attn.q_proj.weight", (C, C)),
                    (p + "self_attn.k_proj.weight", (kv, C)), (p + "self_attn.v_proj.weight", (kv, C)),
                    (p + "self_attn.o_proj.weight", (C, C)), (p + "post_attention_layernorm.weight", (C,)),
                    (p + "mlp.gate_proj.weight", (H, C)), (p + "mlp.up_proj.weight", (H, C)),
                    (p + "mlp.down_proj.weight", (C, H))]
    tensors.append(("model.norm.weight", (C,)))
    if not shape["tie_word_embeddings"]:
        tensors.append(("lm_head.weight", (VOCAB, C)))
    return tensors


def bf16(values):
    """float32 -> bf16 bits, rounded to nearest even."""
    bits = values.astype("<f4").view("<u4").astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model", choices=sorted(SHAPES))
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    shape = SHAPES[args.model]
    rng = np.random.default_rng(args.seed)
    pool = bf16(rng.normal(0, 0.02, 2 * CHUNK).astype(np.float32))
    one = bf16(np.ones(1, np.float32))[0]

    header, offset = {"__metadata__": {"format": "pt"}}, 0
    tensors = tensor_shapes(shape)
    for name, dims in tensors:
        size = 2 * int(np.prod(dims))
        header[name] = {"dtype": "BF16", "shape": list(dims), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-(8 + len(text)) % 64)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.json").write_text(json.dumps(config_json(shape), indent=2))
    with open(args.out / "model.safetensors", "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text)
        for name, dims in tensors:
            count = int(np.prod(dims))
            if len(dims) == 1:
                out.write(np.full(count, one, "<u2").tobytes())
                continue
            for start in range(0, count, CHUNK):
                n = min(CHUNK, count - start)
                begin = int(rng.integers(0, CHUNK))
                out.write(pool[begin:begin + n].tobytes())
    print(f"wrote {args.out} ({offset / 2**30:.1f} GiB of BF16 {args.model} weights)")


if __name__ == "__main__":
    main()
