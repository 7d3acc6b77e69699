"""`adjoint train` (AdamW, weight decay, clipping, warmup + cosine, data wrap-around) against
the same steps in PyTorch float64 with torch.optim.AdamW.

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
import torch


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
    s = case.settings
    params, tokens, model, token_file = harness.write_case_files(
        workdir, case.cfg, case.seed, case.num_tokens)
    out = workdir / case.name
    harness.run_ok(adjoint, "train", "--model", model, "--train-tokens", token_file,
                   "--val-tokens", token_file, *s.cli_flags(), "--seed", "1", "--out", out)
    logged = read_train_log(out / "log.jsonl", s.steps)
    reference = ref.train(case.cfg, params, tokens, s)
    print(f"\n{case.name}: {s}")
    rows, failures = [], []
    for got, want in zip(logged, reference):
        errors = {key: harness.relative_difference(got[key], want[key]) for key in TOLERANCES}
        rows.append([want["step"], f"{got['loss']:.7f}", f"{want['loss']:.7f}",
                     *(f"{e:.1e}" for e in errors.values())])
        failures += harness.out_of_tolerance(f"{case.name} step {want['step']}", errors, TOLERANCES.get)
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
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
