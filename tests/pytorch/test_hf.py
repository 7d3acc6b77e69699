"""`adjoint grad --model DIR` on Hugging Face folders written by hf_reference.py (random weights; a
Llama with grouped keys/values, tied and untied, and a GPT-2 with a padded vocabulary; F32, BF16 and
F16; single files and shards) against transformers' formulation in float64 (hf_reference.py):
rotate-half RoPE on HF's q_proj/k_proj rows, Conv1D (in, out) weights. The gradients come back
through `adjoint convert` of grad's llm.c file into HF names, so the export's layout is checked too.

Pass: loss |a-b|/|b| < LOSS_TOL; every HF tensor's gradient max|a-b| / max|b| < GRAD_TOL (cases.py),
a ours (fp32), b PyTorch's fp64 from the same weights (as the file's dtype rounds them). And the
reference must tell a layout mistake apart: with q_proj/k_proj rows left in HF's order, or GPT-2's
square c_proj not transposed, its loss moves by more than 10 x LOSS_TOL."""
import sys
import tempfile
from pathlib import Path

import cases
import gpt2_reference
import harness
import hf_reference as hf
import llama_reference
import numpy as np
from test_grad import parse_loss

SCALED = llama_reference.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=2,
                                     channels=48, multiple_of=32, ffn_dim_multiplier=1.3, rope_theta=10000.0,
                                     use_scaled_rope=True, rope_original_context=16)
TIED = llama_reference.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=3,
                                   channels=48, multiple_of=16, tied_head=True)
# (name, model, config, dtype, shards, B, T, seed, GPT-2 name prefix, GPT-2 mask buffers)
CASES = [("llama_nkv2_untied_f32", "llama", SCALED, "F32", 1, 2, 7, 1, None, False),
         ("llama_nkv3_tied_bf16_3shards", "llama", TIED, "BF16", 3, 2, 9, 2, None, False),
         ("llama_nkv2_untied_f16_2shards", "llama", SCALED, "F16", 2, 1, 16, 3, None, False),
         ("gpt2_padded_vocab_f32", "gpt2", cases.ODD, "F32", 1, 2, 7, 4, "transformer.", False),
         ("gpt2_bf16_2shards_hub_names", "gpt2", cases.ODD, "BF16", 2, 3, 5, 5, "", True)]


def hf_permuted(weight, heads):
    """transformers' convert script's permutation (Meta's interleaved rows to rotate-half order):
    applied once more it stands for a reader that forgot to undo it."""
    rows, cols = weight.shape
    return weight.reshape(heads, rows // heads // 2, 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def layout_mistake(kind, cfg, tensors):
    """The same tensors with the mistake the case's layout invites."""
    wrong = dict(tensors)
    for name, values in tensors.items():
        if kind == "llama" and name.endswith("q_proj.weight"):
            wrong[name] = hf_permuted(values, cfg.num_heads)
        elif kind == "llama" and name.endswith("k_proj.weight"):
            wrong[name] = hf_permuted(values, cfg.num_kv_heads)
        elif kind == "gpt2" and name.endswith("attn.c_proj.weight"):
            wrong[name] = np.ascontiguousarray(values.T)
    return wrong


def run_case(adjoint, workdir, case):
    name, kind, cfg, dtype, shards, B, T, seed, prefix, buffers = case
    if kind == "llama":
        config, tensors, loss_fn = hf.llama_config_json(cfg), hf.random_llama_tensors(cfg, seed), hf.llama_loss
    else:
        config, tensors = hf.gpt2_config_json(cfg), hf.random_gpt2_tensors(cfg, seed, prefix, buffers)
        loss_fn = lambda c, p, i, t: hf.gpt2_loss(c, p, i, t, prefix)  # noqa: E731
    tensors = {n: hf.rounded(v, dtype) for n, v in tensors.items()}
    folder, token_file, grad_file, grad_folder = (workdir / name, workdir / f"{name}.tokens",
                                                  workdir / f"{name}.grad.bin", workdir / f"{name}.grad")
    hf.write_folder(folder, config, tensors, dtype, shards)
    tokens = np.random.default_rng(seed).integers(0, cfg.vocab_size, B * T + 1)
    gpt2_reference.write_tokens(token_file, tokens)
    buffer_names = {n for n in tensors if n.endswith(".attn.bias")}
    loss, grads = hf.loss_and_grads(loss_fn, cfg, tensors, tokens, B, T, skip=buffer_names)
    wrong_loss, _ = hf.loss_and_grads(loss_fn, cfg, layout_mistake(kind, cfg, tensors), tokens, B, T, buffer_names)

    result = harness.run_ok(adjoint, "grad", "--model", folder, "--tokens", token_file, "-B", B, "-T", T,
                            "--out", grad_file)
    harness.run_ok(adjoint, "convert", "--model", grad_file, "--out", grad_folder, "--format", "hf")
    ours = hf.read_safetensors(grad_folder / "model.safetensors")
    ours = {n[len("transformer."):] if kind == "gpt2" else n: v for n, v in ours.items()}
    reference = {n[len(prefix):] if kind == "gpt2" else n: v for n, v in grads.items()}
    errors = {"loss": harness.relative_difference(parse_loss(result.stdout), loss),
              "mistake seen": cases.LOSS_TOL / max(harness.relative_difference(wrong_loss, loss), 1e-30) * 10}
    if set(ours) != set(reference):
        errors["tensor names"] = float("inf")
    errors.update({n: gpt2_reference.relative_error(ours[n], reference[n]) for n in reference if n in ours})
    return errors


def tolerance(what):
    return {"loss": cases.LOSS_TOL, "mistake seen": 1.0}.get(what, cases.GRAD_TOL)


def main():
    adjoint = harness.adjoint_program(sys.argv)
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as workdir:
        for case in CASES:
            errors = run_case(adjoint, Path(workdir), case)
            worst = max((e, n) for n, e in errors.items() if n not in ("loss", "mistake seen"))
            rows.append([case[0], f"{errors['loss']:.1e}", f"{worst[0]:.1e} ({worst[1]})",
                         f"{errors['mistake seen']:.1e}"])
            failures += harness.out_of_tolerance(case[0], errors, tolerance)
    print(f"`adjoint grad` on Hugging Face folders vs transformers' formulation in fp64; tolerance: loss "
          f"{cases.LOSS_TOL}, gradients {cases.GRAD_TOL}; 'mistake' = 10 x LOSS_TOL / the loss change a layout "
          f"mistake makes (must be < 1)")
    harness.print_table(["case", "loss", "worst gradient", "mistake"], rows)
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
