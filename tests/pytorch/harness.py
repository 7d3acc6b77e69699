"""Running the adjoint program from the comparison tests and reporting what they found."""
import os
import subprocess
import sys

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


def write_case_files(workdir, cfg, seed, num_tokens):
    """Writes a random seeded model and a token file of num_tokens random ids in [0, V)."""
    params = ref.random_params(cfg, seed)
    tokens = ref.random_tokens(cfg, num_tokens, seed)
    model, token_file = workdir / "model.bin", workdir / "tokens.bin"
    ref.write_model(model, cfg, params)
    ref.write_tokens(token_file, tokens)
    return params, tokens, model, token_file


def print_table(header, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in (header, ["-" * w for w in widths], *rows):
        print("  ".join(str(cell).rjust(w) for cell, w in zip(row, widths)))
