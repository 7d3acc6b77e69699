"""`adjoint train` (AdamW, weight decay, clipping, warmup + cosine, data wrap-around) against
the same steps in PyTorch float64 with torch.optim.AdamW, for GPT-2 and for Llama (10 steps; the
model of llama_reference.py).

Pass: every logged train step has |loss-ref|/|ref| < TRAIN_LOSS_TOL and |lr-ref|/|ref| <
TRAIN_LOSS_TOL, and the pre-clip gradient norm is within TRAIN_NORM_TOL relative (cases.py)."""
import json
import sys
import tempfile
from pathlib import Path

# gpt2_reference first: it exits with a clear message when numpy or torch is missing.
import gpt2_reference as ref
import cases
import harness
import llama_reference
import numpy as np
import torch
from test_llama_grad import SCALED, TIED


def read_train_log(path, steps):
    """The train-step records of log.jsonl (those with a "loss"), which must be steps 1..steps."""
    if not path.is_file():
        sys.exit(f"error: {path} was not written")
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    train_steps = [r for r in records if "loss" in r]
    if [r.get("step") for r in train_steps] != list(range(1, steps + 1)):
        sys.exit(f"error: {path}: expected train steps 1..{steps}, got "
                 f"{[r.get('step') for r in train_steps]}")
    return train_steps


TOLERANCES = {"loss": cases.TRAIN_LOSS_TOL, "lr": cases.TRAIN_LOSS_TOL, "grad_norm": cases.TRAIN_NORM_TOL}


def compare_case(adjoint, case, workdir):
    """Prints the step table of one case; returns its failures."""
    params, tokens, model, token_file = harness.write_case_files(
        workdir, case.cfg, case.seed, case.num_tokens)
    return compare_training(adjoint, case.name, case.settings, model, token_file, [],
                            ref.train(case.cfg, params, tokens, case.settings), workdir)


def compare_llama_case(adjoint, name, cfg, seed, num_tokens, s, workdir):
    params = llama_reference.random_params(cfg, seed)
    tokens = np.random.default_rng(seed).integers(0, cfg.vocab_size, num_tokens)
    model, token_file = workdir / "llama.bin", workdir / "tokens.bin"
    llama_reference.write_model(model, cfg, params)
    ref.write_tokens(token_file, tokens)
    return compare_training(adjoint, name, s, model, token_file, ["--backward", "manual"],
                            llama_reference.train(cfg, params, tokens, s), workdir)


def compare_training(adjoint, name, s, model, token_file, flags, reference, workdir):
    """Trains model with `adjoint train` and compares its log with reference's steps."""
    out = workdir / name
    harness.run_ok(adjoint, "train", "--model", model, "--train-tokens", token_file,
                   "--val-tokens", token_file, *s.cli_flags(), *flags, "--seed", "1", "--out", out)
    logged = read_train_log(out / "log.jsonl", s.steps)
    print(f"\n{name}: {s}")
    rows, failures = [], []
    for got, want in zip(logged, reference):
        errors = {key: harness.relative_difference(got[key], want[key]) for key in TOLERANCES}
        rows.append([want["step"], f"{got['loss']:.7f}", f"{want['loss']:.7f}",
                     *(f"{e:.1e}" for e in errors.values())])
        failures += harness.out_of_tolerance(f"{name} step {want['step']}", errors, TOLERANCES.get)
    harness.print_table(["step", "loss adjoint", "loss torch", "loss err", "lr err",
                         "norm err"], rows)
    return failures


def main():
    adjoint = harness.adjoint_program(sys.argv)
    torch.set_num_threads(1)
    print(f"tolerance: loss and lr {cases.TRAIN_LOSS_TOL}, grad norm {cases.TRAIN_NORM_TOL} "
          "(relative, vs PyTorch fp64)")
    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        for case in cases.TRAIN_CASES:
            failures += compare_case(adjoint, case, Path(workdir))
        # Llama: weight decay on all but the RMSNorm gains, clipping, warmup + cosine, data wrap.
        llama = ref.TrainSettings(B=2, T=7, steps=10, lr=1e-2, warmup=2, lr_min_fraction=0.1, weight_decay=0.1,
                                  grad_clip=1.0)
        failures += compare_llama_case(adjoint, "llama_untied_scaled", SCALED, 21, 60, llama, Path(workdir))
        failures += compare_llama_case(adjoint, "llama_tied", TIED, 22, 60, llama, Path(workdir))
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
