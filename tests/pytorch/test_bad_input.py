"""`adjoint grad` on bad input, with each engine (--engine arrays, tensor), and bad flags: each
must exit non-zero (not by a signal), print exactly one line `adjoint: error: ...` on stderr and
leave no output file (nor a temporary beside it). The same run on good input must succeed with
each engine, so the test cannot pass just because grad always fails."""
import sys
import tempfile
from pathlib import Path

# gpt2_reference first: it exits with a clear message when numpy or torch is missing.
import gpt2_reference as ref
import cases
import harness
import numpy as np


B, T = 2, 4
ENGINES = ["arrays", "tensor"]


def bad_inputs(workdir, model, tokens):
    """name -> (model file, token file, T) with one thing wrong each."""
    data = model.read_bytes()

    def write(name, content):
        path = workdir / name
        path.write_bytes(content)
        return path

    token_data = tokens.read_bytes()
    out_of_range = np.zeros(B * T + 1, dtype=np.int64)
    out_of_range[3] = cases.ODD.vocab_size
    ref.write_tokens(workdir / "out_of_range.bin", out_of_range)
    ref.write_tokens(workdir / "short.bin", np.zeros(B * T, dtype=np.int64))
    return {
        "truncated model": (write("truncated.bin", data[:len(data) - 100]), tokens, T),
        "model cut inside the header": (write("header.bin", data[:500]), tokens, T),
        "wrong model magic": (write("magic.bin", b"\x01\x02\x03\x04" + data[4:]), tokens, T),
        "model with trailing bytes": (write("trailing.bin", data + b"\0" * 8), tokens, T),
        "missing model file": (workdir / "no_such_model.bin", tokens, T),
        "wrong token magic": (model, write("tmagic.bin", b"\0" * 4 + token_data[4:]), T),
        "fewer than B*T+1 tokens": (model, workdir / "short.bin", T),
        "token id >= vocab size": (model, workdir / "out_of_range.bin", T),
        "T > max_seq_len": (model, tokens, cases.ODD.max_seq_len + 1),
    }


def run_grad(adjoint, model, tokens, out, seq_len, *flags):
    return harness.run(adjoint, "grad", "--model", model, "--tokens", tokens, "-B", B,
                       "-T", seq_len, "--out", out, *flags)


# Flags that do not go together or do not exist: name -> extra flags of a good run.
BAD_FLAGS = {
    "unknown engine": ["--engine", "torch"],
    "--backward with the tensor engine": ["--engine", "tensor", "--backward", "manual"],
}


def main():
    adjoint = harness.adjoint_program(sys.argv)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        _, _, model, tokens = harness.write_case_files(
            workdir, cases.ODD, 1, 2 * B * (cases.ODD.max_seq_len + 1))
        for engine in ENGINES:
            good = run_grad(adjoint, model, tokens, workdir / "good.bin", T, "--engine", engine)
            if good.returncode != 0 or not (workdir / "good.bin").is_file():
                failures.append(f"good input, {engine}: exit {good.returncode}, stderr {good.stderr!r}")
        runs = {f"{name} ({engine})": (bad_model, bad_tokens, seq_len, ["--engine", engine])
                for name, (bad_model, bad_tokens, seq_len) in bad_inputs(workdir, model, tokens).items()
                for engine in ENGINES}
        runs.update({name: (model, tokens, T, flags) for name, flags in BAD_FLAGS.items()})
        for name, (bad_model, bad_tokens, seq_len, flags) in runs.items():
            out = workdir / "out.bin"
            result = run_grad(adjoint, bad_model, bad_tokens, out, seq_len, *flags)
            lines = result.stderr.splitlines()
            problems = []
            if result.returncode <= 0:
                problems.append(f"exit status {result.returncode}")
            if len(lines) != 1 or not lines[0].startswith("adjoint: error: "):
                problems.append(f"stderr is not one 'adjoint: error:' line: {result.stderr!r}")
            written = list(workdir.glob("out.bin*"))  # also a temporary beside it
            if written:
                problems.append(f"left {', '.join(p.name for p in written)}")
                for path in written:
                    path.unlink()
            print(f"{'FAIL' if problems else 'ok  '}  {name}: {'; '.join(problems) or lines[0]}")
            failures += [f"{name}: {p}" for p in problems]
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
