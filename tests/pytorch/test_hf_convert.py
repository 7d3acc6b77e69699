"""`adjoint convert` between llm.c files and Hugging Face folders, and bad folders.

Round trips: a HF folder imported and exported holds the same tensors, bit for bit (F32, and BF16
whose values F32 holds exactly; sharded in, one file out; the hub's GPT-2 names come back with
save_pretrained's "transformer." prefix); an llm.c file (GPT-2, Llama tied and untied with RoPE
scaling) converted to a folder and back is the same file, byte for byte; `train` from the folder
ends with the same parameters as from the file, and `sample` draws the same tokens from both.

Bad folders: each must exit non-zero with exactly the expected line on stderr (bad JSON: its first
part, the rest is the JSON library's) and leave no output behind. A good folder converts, so the
test cannot pass because convert always fails."""
import struct
import sys
import tempfile
from pathlib import Path

import cases
import gpt2_reference
import harness
import hf_reference as hf
import llama_reference
import numpy as np

SMALL = llama_reference.LlamaConfig(max_seq_len=8, vocab_size=31, num_layers=1, num_heads=6, num_kv_heads=2,
                                    channels=48, multiple_of=16, tied_head=True)
SCALED = llama_reference.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=2,
                                     channels=48, multiple_of=32, ffn_dim_multiplier=1.3, rope_theta=10000.0,
                                     use_scaled_rope=True, rope_original_context=16)


def same_tensors(a, b):
    return set(a) == set(b) and all(a[n].shape == b[n].shape and a[n].tobytes() == b[n].tobytes() for n in a)


def folder_round_trips(adjoint, workdir):
    """Failure messages of import -> export -> import on HF folders."""
    failures = []
    for name, config, tensors, dtype, shards, rename in [
            ("llama_untied_f32_2shards", hf.llama_config_json(SCALED), hf.random_llama_tensors(SCALED, 1), "F32", 2,
             lambda n: n),
            ("llama_tied_bf16", hf.llama_config_json(SMALL), hf.random_llama_tensors(SMALL, 2), "BF16", 1,
             lambda n: n),
            ("gpt2_hub_names_f32", hf.gpt2_config_json(cases.ODD), hf.random_gpt2_tensors(cases.ODD, 3, ""), "F32",
             1, lambda n: "transformer." + n)]:
        source, first, second = workdir / name, workdir / f"{name}.1", workdir / f"{name}.2"
        hf.write_folder(source, config, tensors, dtype, shards)
        harness.run_ok(adjoint, "convert", "--model", source, "--out", first, "--format", "hf")
        harness.run_ok(adjoint, "convert", "--model", first, "--out", second, "--format", "hf")
        expected = {rename(n): hf.rounded(v, dtype) for n, v in tensors.items()}
        for folder in (first, second):
            if not same_tensors(hf.read_safetensors(folder / "model.safetensors"), expected):
                failures.append(f"{name}: {folder.name} does not hold the source's tensors")
    return failures


def file_round_trips(adjoint, workdir):
    """Failure messages of llm.c file -> HF folder -> llm.c file."""
    failures = []
    llama_untied, llama_tied, gpt2 = workdir / "llama_untied.bin", workdir / "llama_tied.bin", workdir / "gpt2.bin"
    llama_reference.write_model(llama_untied, SCALED, llama_reference.random_params(SCALED, 4))
    llama_reference.write_model(llama_tied, SMALL, llama_reference.random_params(SMALL, 5))
    gpt2_reference.write_model(gpt2, cases.ODD, gpt2_reference.random_params(cases.ODD, 6))
    for original in (llama_untied, llama_tied, gpt2):
        folder, back = original.with_suffix(".hf"), original.with_suffix(".back.bin")
        harness.run_ok(adjoint, "convert", "--model", original, "--out", folder)
        harness.run_ok(adjoint, "convert", "--model", folder, "--out", back)
        if original.read_bytes() != back.read_bytes():
            failures.append(f"{original.name} -> HF -> llm.c is not the same file")
    return failures


def training_from_folders(adjoint, workdir):
    """Failure messages unless `train` from a folder ends with the same parameters as from the llm.c
    file it was converted from (file_round_trips wrote both), and `sample` draws the same tokens."""
    failures = []
    for original, vocab_size in (("llama_untied", SCALED.vocab_size), ("gpt2", cases.ODD.vocab_size)):
        tokens = workdir / f"{original}.tokens"
        gpt2_reference.write_tokens(tokens, np.random.default_rng(8).integers(0, vocab_size, 64))
        trained = []
        for source in (workdir / f"{original}.bin", workdir / f"{original}.hf"):
            out = workdir / f"{source.name}.run"
            harness.run_ok(adjoint, "train", "--model", source, "--train-tokens", tokens, "--val-tokens", tokens,
                           "-B", 2, "-T", 5, "--steps", 3, "--val-every", 0, "--sample-every", 0, "--seed", 1,
                           "--backward", "manual", "--out", out)
            trained.append((out / "model.bin").read_bytes())
        if trained[0] != trained[1]:
            failures.append(f"{original}: training from the folder ends elsewhere than from the llm.c file")
        samples = [harness.run_ok(adjoint, "sample", "--model", source, "-n", 12, "--seed", 3).stdout
                   for source in (workdir / f"{original}.bin", workdir / f"{original}.hf")]
        if samples[0] != samples[1] or not samples[0].strip():
            failures.append(f"{original}: sampling from the folder differs from the llm.c file: {samples}")
    return failures


def bad_folders(workdir):
    """name -> (folder, expected stderr line) with one thing wrong each."""
    config, good = hf.llama_config_json(SMALL), hf.random_llama_tensors(SMALL, 7)
    data_bytes = sum(v.size * 4 for v in good.values())
    embed_end = good["model.embed_tokens.weight"].size * 4
    C = SMALL.channels
    found = {}

    def folder(name, tensors=good, cfg=config, extra=None, raw=None):
        path = workdir / name
        hf.write_folder(path, cfg, tensors)
        if extra or raw is not None:
            (path / "model.safetensors").write_bytes(raw if raw is not None else hf.safetensors_bytes(tensors, "F32", extra))
        return path

    def bad(name, line, **kwargs):
        path = folder(name, **kwargs)
        found[name] = (path, line.replace("{f}", str(path / "model.safetensors")).replace("{c}", str(path / "config.json")))

    def norm_entry(**fields):
        return {"model.norm.weight": {"dtype": "F32", "shape": [C], "data_offsets": [data_bytes - 4 * C, data_bytes],
                                      **fields}}

    bad("lying offsets", f"{{f}}: tensor 'model.norm.weight': data_offsets [{data_bytes - 4 * C}, {data_bytes + 4}] "
        f"are not inside the data area ({data_bytes} bytes)",
        extra=norm_entry(data_offsets=[data_bytes - 4 * C, data_bytes + 4]))
    bad("overlapping ranges", f"{{f}}: tensors 'model.embed_tokens.weight' and 'model.norm.weight' overlap "
        f"(data_offsets [0, {embed_end}] and [4, {4 + 4 * C}])", extra=norm_entry(data_offsets=[4, 4 + 4 * C]))
    bad("shape x dtype size is not the range", f"{{f}}: tensor 'model.norm.weight': shape [{C}] of F32 does not fit "
        f"data_offsets [{data_bytes - 4 * C}, {data_bytes - 2}]",
        extra=norm_entry(data_offsets=[data_bytes - 4 * C, data_bytes - 2]))
    bad("unknown dtype", "{f}: tensor 'model.norm.weight': unsupported dtype 'I8' (F32, BF16 or F16)",
        extra=norm_entry(dtype="I8"))
    bad("missing tensor", "{f}: tensor 'model.norm.weight' is missing",
        tensors={n: v for n, v in good.items() if n != "model.norm.weight"})
    bad("shape mismatch", f"{{f}}: tensor 'model.norm.weight' has shape [{C - 1}], config.json needs [{C}]",
        tensors={**good, "model.norm.weight": good["model.norm.weight"][:-1]})
    bad("tensor the config does not have", "{f}: tensor 'model.layers.1.mlp.up_proj.weight' is not part of the "
        "model config.json describes", tensors={**good, "model.layers.1.mlp.up_proj.weight": good["model.norm.weight"]})
    bad("value that is not finite", "{f}: tensor 'model.norm.weight' holds nan, not a finite number",
        tensors={**good, "model.norm.weight": np.where(np.arange(C) == 3, np.nan, good["model.norm.weight"])})
    bad("truncated header", "{f}: truncated header (5 bytes, shorter than the 8-byte header length)", raw=b"\x10" * 5)
    past_end = struct.pack("<Q", 1 << 40) + b"{}"
    bad("header length past the file", f"{{f}}: header length {1 << 40} is past the end of the file (10 bytes)",
        raw=past_end)
    bad("bad JSON", "{f}: bad JSON header: ", raw=struct.pack("<Q", 9) + b'{"a": tru')
    for name, change, line in [
            ("config.json without architectures", {"architectures": None},
             "{c}: architectures is missing (LlamaForCausalLM or GPT2LMHeadModel)"),
            ("unknown architecture", {"architectures": ["MistralForCausalLM"]},
             '{c}: architectures = "MistralForCausalLM" is not supported (LlamaForCausalLM or GPT2LMHeadModel)'),
            ("key missing", {"hidden_size": None}, "{c}: hidden_size is missing"),
            ("key out of range", {"num_hidden_layers": 0}, "{c}: num_hidden_layers = 0 is outside [1, 4096]"),
            ("key values that do not fit", {"num_key_value_heads": 4},
             "{c}: num_key_value_heads = 4 is not supported (must divide num_attention_heads)"),
            ("unsupported rope scaling", {"rope_scaling": {"rope_type": "linear", "factor": 2.0}},
             '{c}: rope_scaling = {"factor":2.0,"rope_type":"linear"} is not supported (only rope_type llama3)')]:
        bad(name, line, cfg={**config, **change})
    missing_config = folder("config.json missing")
    (missing_config / "config.json").unlink()
    found["config.json missing"] = (missing_config, f"{missing_config / 'config.json'}: missing (not a Hugging Face "
                                                    "model folder)")
    return folder("good"), found


def check_bad_folders(adjoint, workdir):
    good, bad = bad_folders(workdir)
    out = workdir / "out.bin"
    failures = []
    if harness.run(adjoint, "convert", "--model", good, "--out", out).returncode != 0:
        failures.append("the good folder does not convert")
    out.unlink(missing_ok=True)
    for name, (folder, line) in bad.items():
        result = harness.run(adjoint, "convert", "--model", folder, "--out", out)
        expected = "adjoint: error: " + line
        lines = result.stderr.splitlines()
        matches = len(lines) == 1 and (lines[0].startswith(expected) if name == "bad JSON" else lines[0] == expected)
        if result.returncode <= 0 or not matches:
            failures.append(f"{name}: exit {result.returncode}, stderr {result.stderr!r}, expected {expected!r}")
        if out.exists() or Path(str(out) + ".tmp").exists():
            failures.append(f"{name}: left {out} behind")
            out.unlink(missing_ok=True)
    print(f"{len(bad)} bad folders checked")
    return failures


def main():
    adjoint = harness.adjoint_program(sys.argv)
    with tempfile.TemporaryDirectory() as workdir:
        workdir = Path(workdir)
        failures = folder_round_trips(adjoint, workdir) + file_round_trips(adjoint, workdir)
        failures += training_from_folders(adjoint, workdir)
        failures += check_bad_folders(adjoint, workdir)
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
