"""Writes the fuzzers' seed corpus (tests/fuzz/corpus/<loader>/): small valid files of each format
and a few near misses. Run from anywhere: python3 tests/fuzz/make_corpus.py"""
import base64
import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent / "corpus"


def model_header(magic, version, maxT, V, L, NH, C, Vp):
    return struct.pack("<256i", magic, version, maxT, V, L, NH, C, Vp, *([0] * 248))


def parameter_count(maxT, V, L, NH, C, Vp):
    return Vp * C + maxT * C + L * (12 * C * C + 13 * C) + 2 * C


LLAMA_MODEL_MAGIC, LLAMA_STATE_MAGIC = 20240803, 20261124


def llama_header(magic, maxT, V, L, NH, NKV, C, multiple_of, tied, scaled_rope, progress=b""):
    """llm.c's Llama 3 header: 256 int32 (magic, version 3, the shape; our tied-head flag and RoPE
    scaling's context in [12], [13]; a training state's progress from [16]), then 256 float32."""
    ints = [magic, 3, maxT, V, L, NH, NKV, C, multiple_of, int(scaled_rope), 3, 1, int(tied),
            8192 if scaled_rope else 0]
    header = bytearray(struct.pack("<256i", *ints, *([0] * (256 - len(ints)))))
    header[64:64 + len(progress)] = progress
    rope_scaling = [8.0, 1.0, 4.0] if scaled_rope else [0.0, 0.0, 0.0]
    return bytes(header) + struct.pack("<256f", 1.0, 1e-5, 500000.0, *rope_scaling, *([0.0] * 250))


def llama_parameter_count(maxT, V, L, NH, NKV, C, multiple_of, tied):
    """The arena's floats (a tied model's lacks the LM head), as parameter_sizes in src/llm/llama/model.cpp."""
    hidden = (2 * 4 * C // 3 + multiple_of - 1) // multiple_of * multiple_of
    qkv = (NH + 2 * NKV) * (C // NH)
    return V * C + L * C + L * qkv * C + L * C * C + L * C + 3 * L * hidden * C + C + (0 if tied else V * C)


def floats(n, scale=0.01):
    return struct.pack(f"<{n}f", *[scale * ((i * 7919) % 101 - 50) for i in range(n)])


def gpt2_byte_alphabet():
    """GPT-2's byte -> printable character map (encoder.json spells token bytes with it)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


# Keep in step with kLlamaConfig in safetensors_file.cpp: a tied Llama, C=8, NH=2, NKV=1, hidden 16, V=16.
LLAMA_CONFIG_TENSORS = [("model.embed_tokens.weight", [16, 8]), ("model.layers.0.input_layernorm.weight", [8]),
                        ("model.layers.0.self_attn.q_proj.weight", [8, 8]),
                        ("model.layers.0.self_attn.k_proj.weight", [4, 8]),
                        ("model.layers.0.self_attn.v_proj.weight", [4, 8]),
                        ("model.layers.0.self_attn.o_proj.weight", [8, 8]),
                        ("model.layers.0.post_attention_layernorm.weight", [8]),
                        ("model.layers.0.mlp.gate_proj.weight", [16, 8]), ("model.layers.0.mlp.up_proj.weight", [16, 8]),
                        ("model.layers.0.mlp.down_proj.weight", [8, 16]), ("model.norm.weight", [8])]

# Keep in step with kGpt2Config in safetensors_file.cpp: C=8, NH=2, L=1, V=16, 4 positions; Conv1D
# weights are (in, out).
GPT2_CONFIG_TENSORS = [("wte.weight", [16, 8]), ("wpe.weight", [4, 8]), ("h.0.ln_1.weight", [8]), ("h.0.ln_1.bias", [8]),
                       ("h.0.attn.c_attn.weight", [8, 24]), ("h.0.attn.c_attn.bias", [24]),
                       ("h.0.attn.c_proj.weight", [8, 8]), ("h.0.attn.c_proj.bias", [8]), ("h.0.ln_2.weight", [8]),
                       ("h.0.ln_2.bias", [8]), ("h.0.mlp.c_fc.weight", [8, 32]), ("h.0.mlp.c_fc.bias", [32]),
                       ("h.0.mlp.c_proj.weight", [32, 8]), ("h.0.mlp.c_proj.bias", [8]), ("ln_f.weight", [8]),
                       ("ln_f.bias", [8])]


def safetensors(dtype, shift=0, tensors=LLAMA_CONFIG_TENSORS):
    """A safetensors file of tensors in dtype (F32, BF16 or F16); shift moves every tensor's
    data_offsets that many bytes (a near miss)."""
    size = {"F32": 4, "BF16": 2, "F16": 2}[dtype]
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, shape in tensors:
        n = shape[0] * (shape[1] if len(shape) > 1 else 1)
        values = floats(n, 0.1)
        if dtype == "BF16":
            values = b"".join(values[i + 2:i + 4] for i in range(0, len(values), 4))
        elif dtype == "F16":
            values = struct.pack(f"<{n}e", *struct.unpack(f"<{n}f", values))
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data) + shift, len(data) + n * size + shift]}
        data += values
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def write(loader, name, data):
    folder = HERE / loader
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def main():
    for shape in [(2, 3, 1, 1, 4, 4), (4, 5, 2, 2, 4, 8)]:
        n = parameter_count(*shape)
        name = "L{}_C{}".format(shape[2], shape[4])
        model = model_header(20240326, 3, *shape) + floats(n)
        write("model_file", name + ".bin", model)
        write("model_file", name + "_truncated.bin", model[:-8])
        progress = struct.pack("<qQQiiq", 3, 2, 12345, 1, 2, 1)
        header = bytearray(model_header(20261122, 1, *shape))
        header[32:32 + len(progress)] = progress
        write("state_file", name + ".bin", bytes(header) + floats(n) + floats(n, 0.001) + floats(n, 0.0001))
    for shape in [(4, 5, 1, 2, 1, 4, 4, False, False), (8, 7, 2, 2, 2, 8, 8, True, True)]:
        maxT, V, L, NH, NKV, C, multiple_of, tied, scaled = shape
        n = llama_parameter_count(maxT, V, L, NH, NKV, C, multiple_of, tied)
        name = "L{}_C{}{}".format(L, C, "_tied_scaled" if tied else "")
        header = llama_header(LLAMA_MODEL_MAGIC, *shape)
        model = header + floats(n + (V * C if tied else 0))
        write("llama_model_file", name + ".bin", model)
        write("llama_model_file", name + "_truncated.bin", model[:-8])
        progress = struct.pack("<qQQiiq", 3, 2, 12345, 1, 2, 1)
        state = llama_header(LLAMA_STATE_MAGIC, *shape, progress) + floats(n) + floats(n, 0.001) + floats(n, 0.0001)
        write("llama_state_file", name + ".bin", state)
    write("llama_state_file", "L2_C8_nan_moment.bin", state[:-4] + struct.pack("<f", float("nan")))

    # LoRA (lora_files.cpp's base: maxT 8, V 7, L 2, NH 2, NKV 1, C 8, multiple_of 8, untied), rank 2,
    # alpha 4 on q (8 rows) and k (4 rows): 2·2·8 + 2·8·2 + 2·2·8 + 2·4·2 = 112 floats.
    n, lora = llama_parameter_count(8, 7, 2, 2, 1, 8, 8, False), 112
    def lora_header(magic, progress=b""):
        header = bytearray(struct.pack("<9i", magic, 1, 2, struct.unpack("<i", struct.pack("<f", 4.0))[0], 2, 8,
                                       n, 0, 2) + struct.pack("<2i", 0, 1) + bytes(4 * 21))
        header[64:64 + len(progress)] = progress
        return bytes(header)
    adapters = lora_header(0x41526F4C) + floats(lora)
    write("lora_files", "adapters.bin", adapters)
    write("lora_files", "adapters_truncated.bin", adapters[:-8])
    second_moments = struct.pack(f"<{lora}f", *[abs(x) for x in struct.unpack(f"<{lora}f", floats(lora, 0.0001))])
    state = lora_header(20261129, struct.pack("<qQQiiq", 3, 2, 12345, 1, 2, 1)) + floats(lora) + \
        floats(lora, 0.001) + second_moments
    write("lora_files", "state.bin", state)
    write("lora_files", "state_negative_moment.bin", state[:-4] + struct.pack("<f", -1.0))

    tokens = [0, 5, 50256, 7, 65535, 3, 3, 2]
    write("token_file", "eight.bin", struct.pack("<256i", 20240520, 1, len(tokens), *([0] * 253)) +
          struct.pack(f"<{len(tokens)}H", *tokens))
    write("token_file", "empty.bin", struct.pack("<256i", 20240520, 1, 0, *([0] * 253)))
    tokens = [128000, 5, 128255, 7, 128256, 2**31, 3, 2]  # Llama 3's ids, one past them, one over INT32_MAX
    write("token_file", "uint32_eight.bin", struct.pack("<256i", 20240801, 7, len(tokens), *([0] * 253)) +
          struct.pack(f"<{len(tokens)}I", *tokens))
    # Instruction data: tokens, then a loss-mask byte each (one byte 2, which the reader refuses).
    write("token_file", "masked_eight.bin", struct.pack("<256i", 20241129, 1, 8, *([0] * 253)) +
          struct.pack("<8H", 0, 5, 50256, 7, 65535, 3, 3, 2) + bytes([0, 0, 1, 1, 0, 1, 1, 1]))
    write("token_file", "masked_uint32_bad_byte.bin", struct.pack("<256i", 20241129, 2, 4, *([0] * 253)) +
          struct.pack("<4I", 128000, 5, 128009, 7) + bytes([0, 1, 2, 1]))
    alphabet = gpt2_byte_alphabet()
    encoder = {alphabet[b]: b for b in range(256)}
    merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he")]
    for left, right in merges:
        encoder[left + right] = len(encoder)
    vocab = "#version: 0.2\n" + "".join(f"{left} {right}\n" for left, right in merges)
    write("tokenizer_files", "three_merges", json.dumps(encoder).encode() + b"\0" + vocab.encode())

    # Llama 3's vocabulary: a zero byte, then tokens that tests/fuzz/llama3_vocabulary.cpp completes
    # to 128000; or the JavaScript file itself (too few tokens for the loader).
    listed = [alphabet[b] for b in sorted(set(b"the cat's"))] + ["Ġt", "he", "Ġthe", "Ġcat", "ĠcaféÃ©", "'s", "42"]
    write("llama3_vocabulary", "completed", b"\0" + "\n".join(listed).encode())
    write("llama3_vocabulary", "completed_repeat", b"\0" + "\n".join(listed + ["Ġt"]).encode())
    js = 'const llama_vocab_base64 = "{}";\n'.format(base64.b64encode("\n".join(listed).encode()).decode())
    write("llama3_vocabulary", "few_tokens.js", js.encode())

    for dtype in ("F32", "BF16", "F16"):
        write("safetensors_file", dtype.lower(), safetensors(dtype))
    write("safetensors_file", "f32_truncated", safetensors("F32")[:-6])
    write("safetensors_file", "f32_shifted", safetensors("F32", shift=2))
    for dtype in ("F32", "BF16"):
        write("safetensors_file", "gpt2_" + dtype.lower(), safetensors(dtype, tensors=GPT2_CONFIG_TENSORS))
    write("safetensors_file", "gpt2_f32_truncated", safetensors("F32", tensors=GPT2_CONFIG_TENSORS)[:-6])


if __name__ == "__main__":
    main()
