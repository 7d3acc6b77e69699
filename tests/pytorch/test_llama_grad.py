"""`adjoint grad` on Llama files against the PyTorch Llama of llama_reference.py (float64), on odd
shapes: 6 query heads on 2 and 3 key/value heads, T not a power of two and T=1, RoPE scaling on and
off, tied and untied heads, with every engine and backward pass `adjoint grad --help` lists (the
arrays engine's backward passes and the tensor engine's adjc-generated gradient). The model file is written by the Python writer in llm.c's layout, so
this also checks that we read llm.c's Llama 3 files.

Pass: loss |a-b|/|b| < LOSS_TOL; every tensor max|a-b| / max|b| < GRAD_TOL (cases.py), a being
adjoint's fp32 result and b PyTorch's fp64 one from the same fp32 weights."""
import sys
import tempfile
from pathlib import Path

import llama_reference as ref
import cases
import gpt2_reference
import harness
import numpy as np
import torch
from test_grad import backward_passes, parse_loss

SCALED = ref.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=2, channels=48,
                         multiple_of=32, ffn_dim_multiplier=1.3, rope_theta=10000.0, use_scaled_rope=True,
                         rope_original_context=16)  # wavelengths on both sides of the blend band
TIED = ref.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=3, channels=48,
                       multiple_of=16, tied_head=True)
# As train_llama3.py writes it: theta 500000 and llm.c's fixed scaling (factor 8, original context
# 8192), whose wavelengths at hs=8 fall below, inside and above the blend band.
LLMC = ref.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=1, num_heads=4, num_kv_heads=2, channels=32,
                       multiple_of=32, ffn_dim_multiplier=1.3, use_scaled_rope=True)
CASES = [("nkv2_scaled_untied_B2_T7", SCALED, 1, 2, 7),
         ("llmc_header_B2_T9", LLMC, 5, 2, 9),
         ("nkv3_tied_B3_T11", TIED, 2, 3, 11),
         ("nkv3_tied_T1", TIED, 3, 1, 1),
         ("nkv2_scaled_untied_Tmax", SCALED, 4, 1, 16),
         ("nkv3_tied_B2_T9_masked", TIED, 6, 2, 9)]


def main():
    adjoint = harness.adjoint_program(sys.argv)
    passes = backward_passes(adjoint)
    torch.set_num_threads(1)
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as workdir:
        workdir = Path(workdir)
        for name, cfg, seed, B, T in CASES:
            params = ref.random_params(cfg, seed)
            tokens = np.random.default_rng(seed).integers(0, cfg.vocab_size, 2 * (B * T + 1) + 3)
            model, token_file, out = workdir / "model.bin", workdir / "tokens.bin", workdir / "grad.bin"
            ref.write_model(model, cfg, params, llmc_header=name.startswith("llmc"))
            mask = harness.loss_mask(len(tokens), seed) if name.endswith("masked") else None
            gpt2_reference.write_tokens(token_file, tokens, mask)
            loss, grads = ref.loss_and_grads(cfg, params, tokens, B, T, mask)
            for backward, flags in passes.items():
                result = harness.run_ok(adjoint, "grad", "--model", model, "--tokens", token_file, "-B", B, "-T", T,
                                        "--out", out, *flags)
                ours = ref.read_tensors(out, cfg)
                errors = {"loss": harness.relative_difference(parse_loss(result.stdout), loss)}
                errors.update({n: gpt2_reference.relative_error(ours[n], grads[n]) for n in grads})
                rows.append([name, backward] + [f"{errors.get(n, 0.0):.1e}" for n in ["loss", *ref.PARAM_NAMES]])
                failures += harness.out_of_tolerance(f"{name}/{backward}", errors, harness.gpt2_tolerance)
    print(f"relative error of `adjoint grad` (Llama) vs PyTorch fp64; tolerance: loss {cases.LOSS_TOL}, "
          f"tensors {cases.GRAD_TOL}")
    harness.print_table(["case", "backward", "loss", *ref.PARAM_NAMES], rows)
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
