"""`adjoint grad` on bad input, with each engine (--engine arrays, tensor), and bad flags: each
must exit non-zero (not by a signal), print exactly one line `adjoint: error: ...` on stderr and
leave no output file (nor a temporary beside it). The same run on good input must succeed with
each engine, so the test cannot pass just because grad always fails.

Then bad settings, files and flags of train, sample and grad (COMMAND_CASES): each must exit
non-zero with exactly the expected line on stderr, run under a 4 GB memory limit (a header that
makes the program allocate what the file does not hold fails the test), and leave the
previous run in the output folder as it was."""
import os
import re
import resource
import shutil
import struct
import subprocess
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


# state.bin: a 256-int header (magic, version, config), then TrainingProgress from byte 32:
# step (int64), data position, RNG state (uint64), B, T (int32), skipped steps (int64).
STATE_FIELDS = {"step": (32, "<q"), "B": (56, "<i"), "T": (60, "<i"), "skipped": (64, "<q")}


def patched(source, target, offset, fmt, value):
    data = bytearray(source.read_bytes())
    struct.pack_into(fmt, data, offset, value)
    target.write_bytes(bytes(data))
    return target


def command_cases(w, model, tokens):
    """(name, argv, expected stderr line as a regular expression) of bad runs; w is the work folder,
    w/run holds a finished run whose files must survive each of them."""
    train = ["train", "--train-tokens", tokens, "-B", B, "-T", T, "--steps", 3, "--out", w / "run"]
    resume = [*train, "--resume"]
    state = w / "run" / "state.bin"
    big = np.zeros(B * T + 1, dtype=np.int64)
    big[5] = cases.ODD.vocab_size + 3  # between V and the padded Vp
    ref.write_tokens(w / "big_id.bin", big)
    huge_header = bytearray(model.read_bytes()[:1024])
    struct.pack_into("<i", huge_header, 16, 5000)  # 5000 layers in a 1 KB file
    (w / "huge.bin").write_bytes(bytes(huge_header))
    overflow = bytearray(model.read_bytes())
    struct.pack_into("<6i", overflow, 8, 16, 67, 2**30, 1, 2**16, 128)  # L*12*C^2 overflows 64 bits
    (w / "overflow.bin").write_bytes(bytes(overflow))
    nan_model = bytearray(model.read_bytes())
    struct.pack_into("<f", nan_model, 1024 + 4 * 5, float("nan"))
    (w / "nan_model.bin").write_bytes(bytes(nan_model))
    (w / "folder").mkdir()
    e = re.escape
    flag = lambda name, text: rf"adjoint: error: {e(name)}: {e(text)} \(see --help\)"
    return [
        ("train --lr nan", [*train, "--model", model, "--lr", "nan"], flag("--lr", "nan is not a finite number >= 0")),
        ("train --eps nan", [*train, "--model", model, "--eps", "nan"],
         flag("--eps", "nan is not a finite number > 0")),
        ("train --beta1 nan", [*train, "--model", model, "--beta1", "nan"],
         flag("--beta1", "nan is not a finite number in [0, 1)")),
        ("train --beta1 1", [*train, "--model", model, "--beta1", "1"],
         flag("--beta1", "1 is not a finite number in [0, 1)")),
        ("train --beta2 1", [*train, "--model", model, "--beta2", "1"],
         flag("--beta2", "1 is not a finite number in [0, 1)")),
        ("train --weight-decay inf", [*train, "--model", model, "--weight-decay", "inf"],
         flag("--weight-decay", "inf is not a finite number >= 0")),
        ("train --grad-clip -1", [*train, "--model", model, "--grad-clip", "-1"],
         flag("--grad-clip", "-1 is not a finite number >= 0")),
        ("train --lr 1e999", [*train, "--model", model, "--lr", "1e999"],
         flag("--lr", "1e999 is not a finite number >= 0")),
        ("train -B 0", [*train, "--model", model, "-B", "0"], flag("--batch", "0 is not a whole number >= 1")),
        ("train -B abc", [*train, "--model", model, "-B", "abc"], flag("--batch", "abc is not a whole number >= 1")),
        ("train -B 2^40", [*train, "--model", model, "-B", 2**40],
         flag("--batch", f"{2**40} is not a whole number in [1, 2147483647]")),
        ("train --steps -1", [*train, "--model", model, "--steps", "-1"],
         flag("--steps", "-1 is not a whole number >= 1")),
        ("train --skip-nonfinite -1", [*train, "--model", model, "--skip-nonfinite", "-1"],
         flag("--skip-nonfinite", "-1 is not a whole number >= 0")),
        ("sample --temperature nan", ["sample", "--model", model, "--temperature", "nan"],
         flag("--temperature", "nan is not a finite number >= 0")),
        ("sample --top-k -1", ["sample", "--model", model, "--top-k", "-1"],
         flag("--top-k", "-1 is not a whole number >= 0")),
        ("grad -B 0", ["grad", "--model", model, "--tokens", tokens, "--out", w / "g.bin", "-B", "0"],
         flag("--batch", "0 is not a whole number >= 1")),
        ("a diverging run", [*train, "--model", model, "--lr", "1e30", "--warmup", "0", "--out", w / "diverge"],
         rf"adjoint: error: step 2: the loss is -?nan and the gradient norm -?nan; stopped without saving "
         rf"\({e(str(w / 'diverge'))} holds no checkpoint of this run yet\)\. Lower --lr, or let --skip-nonfinite N "
         rf"skip such steps"),
        ("state step -5", [*resume, patched(state, w / "s1.bin", *STATE_FIELDS["step"], -5)],
         e(f"adjoint: error: {w / 's1.bin'}: step -5 is outside [0, 2147483646]")),
        ("state step 2^40", [*resume, patched(state, w / "s2.bin", *STATE_FIELDS["step"], 2**40)],
         e(f"adjoint: error: {w / 's2.bin'}: step {2**40} is outside [0, 2147483646]")),
        ("state T 0", [*resume, patched(state, w / "s3.bin", *STATE_FIELDS["T"], 0)],
         e(f"adjoint: error: {w / 's3.bin'}: sequence length 0 is outside [1, 16]")),
        ("state skipped > step", [*resume, patched(state, w / "s4.bin", *STATE_FIELDS["skipped"], 9)],
         e(f"adjoint: error: {w / 's4.bin'}: skipped steps 9 is outside [0, 3]")),
        ("state with a NaN parameter", [*resume, patched(state, w / "s5.bin", 1024 + 8, "<f", float("nan"))],
         e(f"adjoint: error: {w / 's5.bin'}: parameter wte[2] is nan")),
        ("state with a negative AdamW second moment",  # v: the third of the arrays after the header
         [*resume, patched(state, w / "s6.bin", 1024 + 2 * (state.stat().st_size - 1024) // 3 + 4 * 2, "<f", -1.0)],
         e(f"adjoint: error: {w / 's6.bin'}: AdamW second moment of wte[2] is -1, below 0 (it is a mean of squares)")),
        ("state past --steps", [*resume, state, "--steps", 2],
         e(f"adjoint: error: {state} is at step 3, past --steps 2")),
        ("--resume with a model file", [*resume, state, "--model", model],
         e(f"adjoint: error: --model {model} with --resume: the weights come from {state}; leave out --model")),
        ("--resume with another shape", [*resume, state, "--model", "d2"],
         e(f"adjoint: error: --model d2 is not the model in {state} (L=2 NH=3 C=48 V=67 maxT=16)")),
        ("model header claiming 5000 layers", ["sample", "--model", w / "huge.bin"],
         e(f"adjoint: error: {w / 'huge.bin'}: truncated file (0 of ") + r"\d+" + e(" payload bytes)")),
        ("model header overflowing the parameter count", ["sample", "--model", w / "overflow.bin"],
         e(f"adjoint: error: {w / 'overflow.bin'}: bad model config: num_layers * 4 * channels is above 2^31")),
        ("model with a NaN parameter", ["sample", "--model", w / "nan_model.bin"],
         e(f"adjoint: error: {w / 'nan_model.bin'}: parameter wte[5] is nan")),
        ("missing model path", ["sample", "--model", w / "none.bin"],
         e(f"adjoint: error: --model {w / 'none.bin'}: no such file, and not a config name (gpt2-124M, dN such as "
           "d4, d6, d12, llama-dN, llama3-bench, llama3.2-1B, llama3.1-8B)")),
        ("folder without config.json as --model", ["sample", "--model", w / "folder"],
         e(f"adjoint: error: {w / 'folder' / 'config.json'}: missing (not a Hugging Face model folder)")),
        ("token id between V and Vp", [*train, "--model", model, "--train-tokens", w / "big_id.bin"],
         e(f"adjoint: error: {w / 'big_id.bin'}: token 70 at position 5 is outside the model's vocabulary "
           "of 67 tokens")),
        ("grad --out the model", ["grad", "--model", model, "--tokens", tokens, "--out", model],
         e(f"adjoint: error: --out {model} is an input file; the gradients would overwrite it")),
    ] + full_disk_cases(w, train, model)


def full_disk_cases(w, train, model):
    """A log on a full disk (/dev/full, where every write fails with ENOSPC) stops the run."""
    if not Path("/dev/full").exists():
        print("SKIPPED: no /dev/full: the full-disk case is not run")
        return []
    (w / "full_disk").mkdir()
    (w / "full_disk" / "log.jsonl").symlink_to("/dev/full")
    log = w / "full_disk" / "log.jsonl"
    return [("log on a full disk", [*train, "--model", model, "--out", w / "full_disk"],
             re.escape(f"adjoint: error: cannot write {log}: No space left on device"))]


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def memory_limit(adjoint):
    """(preexec_fn, environment) that keep adjoint under 4 GB. AddressSanitizer reserves terabytes
    of address space for its shadow, so an instrumented program gets ASan's own allocation limit
    (an allocation above it returns null, which the program reports as out of memory)."""
    # A user's OPENBLAS_CORETYPE naming a weaker kernel adds a warning line; the errors are the subject here.
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if b"__asan_init" not in Path(adjoint).read_bytes():
        return limit_memory, environment
    options = os.environ.get("ASAN_OPTIONS", "")
    return None, {**environment, "ASAN_OPTIONS": f"{options}:max_allocation_size_mb=4096:allocator_may_return_null=1"}


def check_commands(adjoint, workdir, model, tokens):
    """Runs command_cases; returns failures."""
    run = workdir / "run"
    harness.run_ok(adjoint, "train", "--model", model, "--train-tokens", tokens, "-B", B, "-T", T, "--steps", 3,
                   "--out", run)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    model_bytes = model.read_bytes()
    failures = []
    preexec, environment = memory_limit(adjoint)
    for name, argv, expected in command_cases(workdir, model, tokens):
        result = subprocess.run([str(Path(adjoint).resolve()), *map(str, argv)], capture_output=True, text=True,
                                cwd=workdir, timeout=harness.TIMEOUT_SECONDS, preexec_fn=preexec, env=environment)
        problems = []
        if result.returncode <= 0:
            problems.append(f"exit status {result.returncode}")
        if not re.fullmatch(expected + "\n", result.stderr):
            problems.append(f"stderr {result.stderr!r} does not match {expected!r}")
        after = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
        if after != before or model.read_bytes() != model_bytes:
            problems.append("the previous run or the model file changed")
        print(f"{'FAIL' if problems else 'ok  '}  {name}: {'; '.join(problems) or result.stderr.strip()}")
        failures += [f"{name}: {p}" for p in problems]
    return failures


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
        failures += check_commands(adjoint, workdir, model, tokens)
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
