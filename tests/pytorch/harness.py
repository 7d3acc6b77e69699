"""Running the adjoint program from the comparison tests and reporting what they found."""
import math
import os
import subprocess
import sys

import numpy as np

import cases
import gpt2_reference as ref

TIMEOUT_SECONDS = 300


def adjoint_program(argv):
    """The `adjoint` program given as the only argument (ctest passes $<TARGET_FILE:adjoint>)."""
    if len(argv) != 2:
        sys.exit(f"usage: {argv[0]} PATH/TO/adjoint")
    if not (os.path.isfile(argv[1]) and os.access(argv[1], os.X_OK)):
        sys.exit(f"{argv[0]}: error: {argv[1]} is not an executable adjoint program")
    return argv[1]


def run(adjoint, *args):
    """Runs adjoint with args; returns the CompletedProcess (text stdout and stderr)."""
    command = [adjoint, *map(str, args)]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        sys.exit(f"error: timed out after {TIMEOUT_SECONDS}s: {' '.join(command)}")


def run_ok(adjoint, *args):
    result = run(adjoint, *args)
    if result.returncode != 0:
        sys.exit(f"error: exit {result.returncode} from adjoint {' '.join(map(str, args))}\n"
                 f"stdout: {result.stdout}\nstderr: {result.stderr}")
    return result


def write_case_files(workdir, cfg, seed, num_tokens, mask=None):
    """Writes a random seeded model and a token file of num_tokens random ids in [0, V) (with the
    loss mask, if given)."""
    params = ref.random_params(cfg, seed)
    tokens = ref.random_tokens(cfg, num_tokens, seed)
    model, token_file = workdir / "model.bin", workdir / "tokens.bin"
    ref.write_model(model, cfg, params)
    ref.write_tokens(token_file, tokens, mask)
    return params, tokens, model, token_file


def loss_mask(num_tokens, seed):
    """A random loss mask (0/1 per token, about a third 0) whose first token, never a target, is 0."""
    mask = (np.random.default_rng(seed).random(num_tokens) > 0.35).astype(np.uint8)
    mask[0] = 0
    return mask


def relative_difference(value, reference):
    """|value - reference| / |reference| (floored at 1e-30); inf when either is NaN or Inf."""
    error = abs(value - reference) / max(abs(reference), 1e-30)
    return error if math.isfinite(error) else math.inf


def out_of_tolerance(label, errors, tolerance):
    """Failure messages for the entries of errors ({what: error}) not below tolerance(what);
    a NaN error fails."""
    return [f"{label}: {what} error {error:.2e} >= {tolerance(what)}"
            for what, error in errors.items() if not error < tolerance(what)]


def gpt2_errors(loss, grads, reference_loss, reference_grads):
    """A GPT-2 loss and its gradients against the reference's: {"loss": relative_difference, parameter
    name: ref.relative_error}; gpt2_tolerance gives each one's tolerance."""
    errors = {"loss": relative_difference(loss, reference_loss)}
    errors.update({name: ref.relative_error(grads[name], reference_grads[name]) for name in ref.PARAM_NAMES})
    return errors


def gpt2_tolerance(what):
    return cases.LOSS_TOL if what == "loss" else cases.GRAD_TOL


def exit_status(failures):
    """Prints each failure on stderr; 1 if there are any, else 0."""
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    return 1 if failures else 0


def print_table(header, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in (header, ["-" * w for w in widths], *rows):
        print("  ".join(str(cell).rjust(w) for cell, w in zip(row, widths)))
