"""`adjoint grad` against PyTorch autograd in float64 on tiny random GPT-2s, with every engine
and backward pass `adjoint grad --help` lists (--engine {arrays,tensor}; the arrays engine with
each --backward {manual,...}).

Pass: for the loss |a-b|/|b| < LOSS_TOL, and for every parameter tensor
max|a-b| / max(max|b|, 1e-12) < GRAD_TOL (see cases.py), where a is adjoint's fp32 result and
b is PyTorch's fp64 result from the same fp32 weights. NaN or Inf anywhere fails."""
import re
import sys
import tempfile
from pathlib import Path

# gpt2_reference first: it exits with a clear message when numpy or torch is missing.
import gpt2_reference as ref
import cases
import harness
import torch


def parse_loss(stdout):
    values = [line.split()[1] for line in stdout.splitlines() if line.startswith("loss ")]
    if len(values) != 1:
        sys.exit(f"error: expected one 'loss <value>' line on stdout, got:\n{stdout}")
    return float(values[0])


def choices(usage, flag):
    """The choices of `adjoint grad FLAG`, read from its help."""
    found = re.search(flag + r"\s+TEXT:\{([^}]*)\}", usage)
    if not found:
        sys.exit(f"error: no '{flag} TEXT:{{...}}' choices in `adjoint grad --help`:\n{usage}")
    return [name.strip() for name in found.group(1).split(",")]


def backward_passes(adjoint):
    """{label: flags} for every engine and, for the arrays engine, every backward pass."""
    usage = harness.run_ok(adjoint, "grad", "--help").stdout
    passes = {}
    for engine in choices(usage, "--engine"):
        if engine == "arrays":
            for backward in choices(usage, "--backward"):
                passes[f"{engine}/{backward}"] = ["--engine", engine, "--backward", backward]
        else:
            passes[engine] = ["--engine", engine]
    return passes


def compare_case(adjoint, case, backwards, workdir):
    """Returns {backward: harness.gpt2_errors} for one case."""
    # More tokens than one batch, so reading past the first B*T+1 would show.
    num_tokens = 2 * (case.B * case.T + 1) + 3
    mask = harness.loss_mask(num_tokens, case.seed) if case.masked else None
    params, tokens, model, token_file = harness.write_case_files(
        workdir, case.cfg, case.seed, num_tokens, mask)
    loss, grads = ref.loss_and_grads(case.cfg, params, tokens, case.B, case.T, mask=mask)
    results = {}
    for backward, flags in backwards.items():
        out = workdir / f"grad_{backward.replace('/', '_')}.bin"
        result = harness.run_ok(adjoint, "grad", "--model", model, "--tokens", token_file,
                                "-B", case.B, "-T", case.T, "--out", out, *flags)
        grad_cfg, adjoint_grads = ref.read_model(out)
        if grad_cfg != case.cfg:
            sys.exit(f"error: {case.name}: gradient file header {grad_cfg} != {case.cfg}")
        results[backward] = harness.gpt2_errors(parse_loss(result.stdout), adjoint_grads, loss, grads)
    return results


def main():
    adjoint = harness.adjoint_program(sys.argv)
    torch.set_num_threads(1)
    backwards = backward_passes(adjoint)
    errors = {backward: {} for backward in backwards}  # backward -> case -> tensor -> error
    with tempfile.TemporaryDirectory() as workdir:
        for case in cases.GRAD_CASES:
            for backward, case_errors in compare_case(adjoint, case, backwards, Path(workdir)).items():
                errors[backward][case.name] = case_errors
    failures = []
    for backward, by_case in errors.items():
        print(f"\nrelative error of `adjoint grad` ({backward}) vs PyTorch fp64; "
              f"tolerance: loss {cases.LOSS_TOL}, tensors {cases.GRAD_TOL}")
        rows = [[name] + [f"{by_case[case][name]:.1e}" for case in by_case]
                for name in ["loss", *ref.PARAM_NAMES]]
        harness.print_table(["tensor", *by_case], rows)
        for case, case_errors in by_case.items():
            failures += harness.out_of_tolerance(f"{case}/{backward}", case_errors, harness.gpt2_tolerance)
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
