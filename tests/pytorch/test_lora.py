"""`adjoint train --lora-rank` against LoRA in PyTorch (float64) on the Llama of llama_reference.py
and the GPT-2 of gpt2_reference.py, on odd shapes (6 query heads on 2 and 3 key/value heads, T=7 and
5, tied and untied heads; GPT-2 with 3 heads and a padded vocabulary).

Per case: train stops after step 1 (B is then nonzero, so A's gradient is too) and resumes for
step 2. The reference takes the adapters after step 1, computes step 2's loss and the adapters'
gradients through y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ over the frozen base, and one torch.optim.AdamW step from
the moments after step 1. Pass: loss within LOSS_TOL relative; each adapter tensor's gradient
(ours: (m2 - beta1·m1) / (1 - beta1) from the states) within GRAD_TOL of the largest; the AdamW
step from our gradient (its moments and the adapters) within ADAMW_TOL of the largest.

Every case also runs with `--backward generated` (adjc's reverse sweep for the activations only,
the base inactive), and with `--engine tensor` (adjc's gradient of the Tensor modules for the
adapters alone), against the reference and the hand-written backward's state. BF16 Hugging Face
folders (two shards; Llama and GPT-2, whose Conv1D weights become bf16 copies) train with their base
kept bf16 (train says so), against the reference and equal to the same run with --lora-fp32-base
(BF16_TOL), with either backward or the tensor engine; a value that is not finite in a BF16 matrix (mapped, copied, or
an embedding, kept fp32) is refused as in fp32.

Also: a run stopped at step 2 and resumed (arrays and tensor engines) ends with the same files, byte
for byte, as one that was not; `adjoint merge` (llm.c file and HF folder) gives a model whose loss `adjoint grad` computes
as the reference computes it with the adapters; and every bad setting, and merge and sample given the
wrong file, give their one line, exit status and no output."""
import json
import sys
import tempfile
from pathlib import Path

import cases
import gpt2_reference
import harness
import hf_reference as hf
import llama_reference as ref
import numpy as np
import torch
from test_grad import parse_loss

ADAMW_TOL = 1e-5
# A bf16 base against the same values in fp32: equal but for the order GEMM sums in.
BF16_TOL = 1e-6
TARGETS = ("q", "k", "v", "o", "gate", "up", "down")
GPT2_TARGETS = ("fcproj", "qkv", "attproj", "fc")
UNTIED = ref.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=2, channels=48,
                         multiple_of=32, ffn_dim_multiplier=1.3, rope_theta=10000.0)
TIED = ref.LlamaConfig(max_seq_len=16, vocab_size=97, num_layers=2, num_heads=6, num_kv_heads=3, channels=48,
                       multiple_of=16, tied_head=True)
# name, config, targets (in the order given), rank, alpha, B, T, seed
CASES = [("all_targets_untied_B2_T7", UNTIED, TARGETS, 3, 5.0, 2, 7, 1),
         ("v_q_down_tied_B3_T5", TIED, ("v", "q", "down"), 2, 7.0, 3, 5, 2),
         ("gpt2_all_targets_B2_T7", cases.ODD, GPT2_TARGETS, 3, 6.0, 2, 7, 3)]
# Hugging Face folders of BF16 weights: the base stays bf16 (Llama: GQA, untied and tied heads;
# GPT-2: two shapes), each with a backward.
BF16_CASES = [(("bf16_all_targets_untied_B2_T7", UNTIED, TARGETS, 3, 5.0, 2, 7, 4), "manual"),
              (("bf16_q_v_o_tied_B1_T9_generated", TIED, ("q", "v", "o"), 2, 3.0, 1, 9, 5), "generated"),
              (("bf16_k_up_down_untied_B2_T6_tensor", UNTIED, ("k", "up", "down"), 2, 4.0, 2, 6, 8), "tensor"),
              (("gpt2_bf16_all_targets_B2_T7_generated", cases.ODD, GPT2_TARGETS, 3, 6.0, 2, 7, 6), "generated"),
              (("gpt2_bf16_qkv_fc_deeper_B3_T5", cases.DEEPER, ("qkv", "fc"), 2, 4.0, 3, 5, 7), "manual"),
              (("gpt2_bf16_attproj_fcproj_B2_T6_tensor", cases.ODD, ("attproj", "fcproj"), 2, 3.0, 2, 6, 9), "tensor")]
LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 2e-2, 0.5, 0.95, 1e-8, 0.1
HEADER_BYTES = 128


def is_gpt2(cfg):
    return isinstance(cfg, gpt2_reference.Config)


def sites(cfg, targets):
    """Per target: (tensor name, first row, in, out) of its rows in our parameter layout."""
    C = cfg.channels
    if is_gpt2(cfg):
        table = {"qkv": ("qkvw", 0, C, 3 * C), "attproj": ("attprojw", 0, C, C), "fc": ("fcw", 0, C, 4 * C),
                 "fcproj": ("fcprojw", 0, 4 * C, C)}
    else:
        kv, H = cfg.num_kv_heads * cfg.head_size, cfg.hidden_size
        table = {"q": ("qkvw", 0, C, C), "k": ("qkvw", C, C, kv), "v": ("qkvw", C + kv, C, kv),
                 "o": ("attprojw", 0, C, C), "up": ("fcw", 0, C, H), "gate": ("fc2w", 0, C, H),
                 "down": ("fcprojw", 0, H, C)}
    return [(t, *table[t]) for t in targets]


def random_params(cfg, seed):
    return gpt2_reference.random_params(cfg, seed) if is_gpt2(cfg) else ref.random_params(cfg, seed)


def write_model(path, cfg, params):
    (gpt2_reference.write_model if is_gpt2(cfg) else ref.write_model)(path, cfg, params)


def read_state(path, cfg, targets, rank):
    """A LoRA training state: adapters, m and v, each {"A.q": (L, r, in), "B.q": (L, out, r), ...}."""
    data = np.fromfile(path, dtype="<f4", offset=HEADER_BYTES)
    L, sets, offset = cfg.num_layers, [], 0
    for _ in range(3):
        tensors = {}
        for target, _, _, n_in, n_out in sites(cfg, targets):
            for key, shape in ((f"A.{target}", (L, rank, n_in)), (f"B.{target}", (L, n_out, rank))):
                size = int(np.prod(shape))
                tensors[key] = data[offset:offset + size].reshape(shape).astype(np.float64)
                offset += size
        sets.append(tensors)
    if offset != data.size:
        raise ValueError(f"{path}: {data.size} floats, expected {offset}")
    return sets


def adapted_params(cfg, params, adapters, targets, scale):
    """The base (float64, frozen) with s·B·A added to each target's rows: the same function of x as
    the unmerged projections, and autograd gives the adapters' gradients through it."""
    names = gpt2_reference.PARAM_NAMES if is_gpt2(cfg) else ref.trained_names(cfg)
    p = {n: torch.tensor(params[n], dtype=torch.float64) for n in names}
    for target, tensor, row, _, n_out in sites(cfg, targets):
        delta = scale * adapters[f"B.{target}"] @ adapters[f"A.{target}"]  # (L, out, in)
        pad = torch.zeros_like(p[tensor])
        pad[:, row:row + n_out, :] = delta
        p[tensor] = p[tensor] + pad
    if not is_gpt2(cfg) and cfg.tied_head:
        p["lm_head"] = p["wte"]
    return p


def reference_step(cfg, params, tokens, targets, rank, alpha, B, T, adapter_values, batch_index):
    """The loss on batch batch_index and the adapters' gradients (float64)."""
    adapters = {k: torch.tensor(v, requires_grad=True) for k, v in adapter_values.items()}
    start = batch_index * B * T
    batch = torch.tensor(np.asarray(tokens[start:start + B * T + 1]), dtype=torch.int64)
    loss_fn = gpt2_reference.gpt2_loss if is_gpt2(cfg) else ref.llama_loss
    loss = loss_fn(cfg, adapted_params(cfg, params, adapters, targets, alpha / rank), batch[:-1].view(B, T),
                   batch[1:].view(B, T))
    loss.backward()
    return loss.item(), {k: t.grad.numpy() for k, t in adapters.items()}


def reference_adamw(params, grads, m, v):
    """torch.optim.AdamW's second step on the adapters (all decayed) from the first step's moments."""
    p = {k: torch.tensor(x, requires_grad=True) for k, x in params.items()}
    optimizer = torch.optim.AdamW(list(p.values()), lr=LR, betas=(BETA1, BETA2), eps=EPS, weight_decay=WEIGHT_DECAY)
    for k, t in p.items():
        t.grad = torch.tensor(grads[k])
        optimizer.state[t] = {"step": torch.tensor(1.0), "exp_avg": torch.tensor(m[k]),
                              "exp_avg_sq": torch.tensor(v[k])}
    optimizer.step()
    return ({k: t.detach().numpy() for k, t in p.items()},
            {k: optimizer.state[t]["exp_avg"].numpy() for k, t in p.items()},
            {k: optimizer.state[t]["exp_avg_sq"].numpy() for k, t in p.items()})


def train_flags(model, token_file, out, targets, rank, alpha, B, T, steps, backward="manual"):
    return ["train", "--model", model, "--train-tokens", token_file, "--out", out, "-B", B, "-T", T, "--steps",
            steps, "--lora-rank", rank, "--lora-alpha", alpha, "--lora-targets", ",".join(targets), "--lr", LR,
            "--warmup", 0, "--lr-min-fraction", 1, "--grad-clip", 0, "--beta1", BETA1, "--beta2", BETA2, "--eps",
            EPS, "--weight-decay", WEIGHT_DECAY, "--val-every", 0, "--sample-tokens", 0,
            *(["--engine", "tensor"] if backward == "tensor" else ["--backward", backward])]


def logged_loss(log, step):
    for line in Path(log).read_text().splitlines():
        record = json.loads(line)
        if record.get("step") == step and "loss" in record:
            return record["loss"]
    raise ValueError(f"{log}: no loss logged for step {step}")


def check_case(adjoint, workdir, case):
    name, cfg, targets, rank, alpha, B, T, seed = case
    params = random_params(cfg, seed)
    model = workdir / f"{name}.bin"
    write_model(model, cfg, params)
    return check_training(adjoint, workdir, case, model, params)


def bf16_tensors(cfg, seed):
    """HF-named random weights of cfg (Llama or GPT-2), rounded to BF16, and its config.json."""
    random, config = (hf.random_gpt2_tensors, hf.gpt2_config_json) if is_gpt2(cfg) else \
        (hf.random_llama_tensors, hf.llama_config_json)
    return {n: hf.rounded(v, "BF16") for n, v in random(cfg, seed).items()}, config(cfg)


def bf16_folder(adjoint, workdir, name, cfg, seed):
    """A HF folder of cfg's random weights in BF16 (two shards), and its values as fp32 params."""
    folder, converted = workdir / f"{name}_hf", workdir / f"{name}_hf.bin"
    tensors, config = bf16_tensors(cfg, seed)
    hf.write_folder(folder, config, tensors, "BF16", 2)
    harness.run_ok(adjoint, "convert", "--model", folder, "--out", converted, "--format", "llmc")
    return folder, gpt2_reference.read_model(converted)[1] if is_gpt2(cfg) else ref.read_tensors(converted, cfg)


def check_bf16_case(adjoint, workdir, case, backward):
    """case on a BF16 folder: its base stays bf16 in memory (train says so) and trains as the
    reference; with --lora-fp32-base (the base converted to fp32) the adapters and moments after
    two steps are the same to BF16_TOL."""
    name, cfg, targets, rank, alpha, B, T, seed = case
    folder, params = bf16_folder(adjoint, workdir, name, cfg, seed)
    failures, row = check_training(adjoint, workdir, case, folder, params, backward)
    fp32_out = workdir / f"{name}_fp32_base"
    tokens = workdir / f"{name}_tokens.bin"
    flags = train_flags(folder, tokens, fp32_out, targets, rank, alpha, B, T, 2, backward)
    harness.run_ok(adjoint, *flags, "--lora-fp32-base")
    bf16_state = read_state(workdir / name / "state.bin", cfg, targets, rank)
    fp32_state = read_state(fp32_out / "state.bin", cfg, targets, rank)
    worst = max(gpt2_reference.relative_error(a[k], b[k]) for a, b in zip(bf16_state, fp32_state) for k in a)
    row.append(f"{worst:.1e}")
    if not worst <= BF16_TOL:
        failures.append(f"{name}: bf16 base vs fp32 base differ by {worst:.2e} > {BF16_TOL}")
    return failures, row


def check_generated(adjoint, workdir, case, backward="generated"):
    """case (after check_case ran it) with adjc's backward, which differentiates the activations only
    (backward "generated"), or with the tensor engine, whose adjc gradient is the adapters' alone
    ("tensor"): against the reference, and the adapters and moments after two steps equal the
    hand-written backward's to GRAD_TOL (the norms', RoPE's, GELU's and the embeddings' backward are
    adjc's own loops, summing in another order: 4e-5 measured)."""
    name, cfg, *rest = case
    failures, row = check_training(adjoint, workdir, (f"{name}_{backward}", cfg, *rest), workdir / f"{name}.bin",
                                   random_params(cfg, case[-1]), backward)
    targets, rank = rest[0], rest[1]
    manual = read_state(workdir / name / "state.bin", cfg, targets, rank)
    generated = read_state(workdir / f"{name}_{backward}" / "state.bin", cfg, targets, rank)
    worst = max(gpt2_reference.relative_error(a[k], b[k]) for a, b in zip(generated, manual) for k in a)
    if not worst <= cases.GRAD_TOL:
        failures.append(f"{name}: {backward} vs manual backward differ by {worst:.2e} > {cases.GRAD_TOL}")
    return failures, row + [f"{worst:.1e} (vs manual)"]


def check_bf16_bad_values(adjoint, workdir):
    """A value that is not finite in a BF16 matrix a bf16 base keeps (mapped: up_proj; copied: q_proj,
    c_fc) or in an embedding it converts to fp32 (GPT-2's wte and wpe) is refused as in fp32: one
    line naming the file and the tensor, exit 1, no output."""
    failures = []
    for cfg, tensor, value in ((UNTIED, "model.layers.1.mlp.up_proj.weight", np.inf),
                               (UNTIED, "model.layers.0.self_attn.q_proj.weight", np.nan),
                               (cases.ODD, "transformer.h.1.mlp.c_fc.weight", np.nan),
                               (cases.ODD, "transformer.wte.weight", np.inf),
                               (cases.ODD, "transformer.wpe.weight", np.nan)):
        tensors, config = bf16_tensors(cfg, 6)
        tensors[tensor][3, 5] = value
        folder, out = workdir / "bf16_bad", workdir / "never"
        hf.write_folder(folder, config, tensors, "BF16")
        tokens = workdir / f"{BF16_CASES[2 if is_gpt2(cfg) else 0][0][0]}_tokens.bin"
        result = harness.run(adjoint, "train", "--model", folder, "--train-tokens", tokens, "--out", out, "-B", 1,
                             "-T", 4, "--lora-rank", 2)
        line = f"adjoint: error: {folder / 'model.safetensors'}: tensor '{tensor}' holds {'inf' if value > 0 else 'nan'}, " \
               "not a finite number"
        if result.returncode != 1 or result.stderr.splitlines()[-1:] != [line] or out.exists():
            failures.append(f"bf16 base holding {value}: exit {result.returncode}, stderr {result.stderr!r}")
    return failures


def check_training(adjoint, workdir, case, model, params, backward="manual"):
    name, cfg, targets, rank, alpha, B, T, seed = case
    tokens = np.random.default_rng(seed).integers(0, cfg.vocab_size, 4 * (B * T + 1))
    token_file, out = workdir / f"{name}_tokens.bin", workdir / name
    gpt2_reference.write_tokens(token_file, tokens)
    flags = train_flags(model, token_file, out, targets, rank, alpha, B, T, 2, backward)
    first = harness.run_ok(adjoint, *flags, "--stop-at", 1)
    adapters1, m1, v1 = read_state(out / "state.bin", cfg, targets, rank)
    harness.run_ok(adjoint, *flags, "--resume", out / "state.bin")
    adapters2, m2, v2 = read_state(out / "state.bin", cfg, targets, rank)
    # A BF16 folder's base stays bf16, any other is fp32: train's model line says which.
    bf16_said = "frozen matrices in bf16" in first.stdout
    wrong_storage = [f"{name}: train's output {'does not say' if not bf16_said else 'says'} the base is bf16"] \
        if bf16_said != Path(model).is_dir() else []

    loss, grads = reference_step(cfg, params, tokens, targets, rank, alpha, B, T, adapters1, 1)
    ours = {k: (m2[k] - BETA1 * m1[k]) / (1 - BETA1) for k in m2}
    errors = {"loss": harness.relative_difference(logged_loss(out / "log.jsonl", 2), loss)}
    errors.update({f"d{k}": gpt2_reference.relative_error(ours[k], grads[k]) for k in grads})
    want_params, want_m, want_v = reference_adamw(adapters1, ours, m1, v1)
    for label, got, want in (("", adapters2, want_params), ("m ", m2, want_m), ("v ", v2, want_v)):
        errors.update({f"adamw {label}{k}": gpt2_reference.relative_error(got[k], want[k]) for k in got})
    # Not vacuous: every gradient (A's too) is far from zero, and the step moved the adapters far beyond
    # the tolerance.
    moved = {k: np.abs(adapters2[k] - adapters1[k]).max() / np.abs(adapters1[k]).max() for k in adapters2}
    vacuous = [k for k in grads if np.abs(grads[k]).max() < 1e-4] + [k for k in moved if moved[k] < 1e3 * ADAMW_TOL]

    def tolerance(what):
        return cases.LOSS_TOL if what == "loss" else ADAMW_TOL if what.startswith("adamw") else cases.GRAD_TOL
    failures = harness.out_of_tolerance(name, errors, tolerance) + [f"{name}: {k} is vacuous" for k in vacuous]
    failures += wrong_storage
    return failures, [name, f"{errors['loss']:.1e}", f"{max(v for k, v in errors.items() if k.startswith('d')):.1e}",
                      f"{max(v for k, v in errors.items() if k.startswith('adamw')):.1e}"]


def check_resume(adjoint, workdir, model, token_file, backward="manual"):
    """Four steps in one run, and two, stopped, then resumed: the same files, byte for byte."""
    flags = train_flags(model, token_file, None, TARGETS, 3, 5.0, 2, 7, 4, backward)
    straight, resumed = workdir / f"straight_{backward}", workdir / f"resumed_{backward}"
    harness.run_ok(adjoint, *[straight if f is None else f for f in flags])
    harness.run_ok(adjoint, *[resumed if f is None else f for f in flags], "--stop-at", 2)
    harness.run_ok(adjoint, *[resumed if f is None else f for f in flags], "--resume", resumed / "state.bin")
    return [f"resume ({backward}): {name} differs" for name in ("model.bin", "state.bin")
            if (straight / name).read_bytes() != (resumed / name).read_bytes()]


def check_merge(adjoint, workdir, case):
    """`adjoint merge` of case's adapters into its base, as an llm.c file and as a HF folder: `adjoint
    grad`'s loss of either equals the reference's loss of the base with the adapters."""
    name, cfg, targets, rank, alpha, B, T, seed = case
    model, token_file, run = workdir / f"{name}.bin", workdir / f"{name}_tokens.bin", workdir / name
    adapters = read_state(run / "state.bin", cfg, targets, rank)[0]
    tokens = np.random.default_rng(seed).integers(0, cfg.vocab_size, 4 * (B * T + 1))
    params = random_params(cfg, seed)
    loss, _ = reference_step(cfg, params, tokens, targets, rank, alpha, B, T, adapters, 0)
    failures = []
    for form, out in (("llmc", workdir / "merged.bin"), ("hf", workdir / "merged_hf")):
        harness.run_ok(adjoint, "merge", "--model", model, "--adapters", run / "model.bin", "--out", out, "--format",
                       form)
        result = harness.run_ok(adjoint, "grad", "--model", out, "--tokens", token_file, "-B", B, "-T", T, "--out",
                                workdir / "grad.bin", "--backward", "manual")
        error = harness.relative_difference(parse_loss(result.stdout), loss)
        if not error < cases.LOSS_TOL:
            failures.append(f"merge ({form}): loss error {error:.2e} >= {cases.LOSS_TOL}")
    # Not vacuous: the base alone has another loss.
    base = harness.run_ok(adjoint, "grad", "--model", model, "--tokens", token_file, "-B", B, "-T", T, "--out",
                          workdir / "grad.bin", "--backward", "manual")
    if not harness.relative_difference(parse_loss(base.stdout), loss) > 100 * cases.LOSS_TOL:
        failures.append("merge: the adapters do not change the loss (a vacuous check)")
    return failures


def check_bad_settings(adjoint, workdir, model, token_file, gpt2_model):
    out = workdir / "never"
    base = ["train", "--model", model, "--train-tokens", token_file, "--out", out, "-B", 2, "-T", 7, "--steps", 2]
    cases_ = [(["--lora-rank", 0], 105,
               "adjoint: error: --lora-rank: 0 is not a whole number in [1, 65536] (see --help)"),
              (["--lora-rank", 2, "--lora-alpha", -1], 105,
               "adjoint: error: --lora-alpha: -1 is not a finite number > 0 (see --help)"),
              (["--lora-rank", 2, "--lora-alpha", "nan"], 105,
               "adjoint: error: --lora-alpha: nan is not a finite number > 0 (see --help)"),
              (["--lora-rank", 2, "--lora-targets", "q,wq"], 1,
               "adjoint: error: --lora-targets: unknown target 'wq' (Llama's: q, k, v, o, gate, up, down; GPT-2's: "
               "qkv, attproj, fc, fcproj)"),
              (["--lora-rank", 2, "--lora-targets", "q,fc"], 1,
               "adjoint: error: --lora-targets: 'fc' is GPT-2's; Llama's are q, k, v, o, gate, up, down"),
              (["--lora-rank", 2, "--lora-targets", "q,v,q"], 1, "adjoint: error: --lora-targets: 'q' is given twice"),
              (["--lora-rank", 17, "--lora-targets", "q,k"], 1,
               "adjoint: error: --lora-rank 17 exceeds target k's smaller side min(48, 16)"),
              (["--lora-alpha", 4], 1, "adjoint: error: --lora-alpha, --lora-targets and --lora-fp32-base need --lora-rank")]
    failures = []
    for extra, status, line in cases_:
        result = harness.run(adjoint, *base, *extra)
        lines = [l for l in result.stderr.splitlines() if "GEMM kernel" not in l]
        if result.returncode != status or lines != [line] or out.exists():
            failures.append(f"bad setting {extra}: exit {result.returncode}, stderr {result.stderr!r}")
    result = harness.run(adjoint, "train", "--model", gpt2_model, "--train-tokens", token_file, "--out", out,
                         "--lora-rank", 2, "--lora-targets", "qkv,o")
    if result.returncode != 1 or "'o' is Llama's; GPT-2's are qkv, attproj, fc, fcproj" not in result.stderr or \
            out.exists():
        failures.append(f"GPT-2 base: exit {result.returncode}, stderr {result.stderr!r}")
    return failures


def check_bad_files(adjoint, workdir):
    """merge and sample given the wrong files: one line each, exit 1, no output."""
    llama, gpt2 = CASES[0][0], CASES[2][0]
    base, adapters, out = workdir / f"{llama}.bin", workdir / llama / "model.bin", workdir / "never.bin"
    checks = [(["merge", "--model", base, "--adapters", workdir / gpt2 / "model.bin", "--out", out],
               f"adjoint: error: {workdir / gpt2 / 'model.bin'}: the adapters are for another base model (L, C or "
               "parameter count differ)"),
              (["merge", "--model", base, "--adapters", base, "--out", out],
               f"adjoint: error: {base}: not a LoRA adapter file (bad magic)"),
              (["merge", "--model", base, "--adapters", workdir / llama / "state.bin", "--out", out],
               f"adjoint: error: {workdir / llama / 'state.bin'}: not a LoRA adapter file (bad magic)"),
              (["merge", "--model", base, "--adapters", adapters, "--out", adapters],
               f"adjoint: error: --out {adapters} is one of the inputs; write elsewhere"),
              (["sample", "--model", adapters],
               f"adjoint: error: {adapters}: LoRA adapters, not a model; `adjoint merge --model BASE --adapters "
               f"{adapters} --out FILE` writes the merged model")]
    failures = []
    for args, line in checks:
        before = adapters.read_bytes()
        result = harness.run(adjoint, *args)
        if result.returncode != 1 or result.stderr.splitlines() != [line] or out.exists() or \
                adapters.read_bytes() != before:
            failures.append(f"{args[0]} {args[-1]}: exit {result.returncode}, stderr {result.stderr!r}")
    return failures


def main():
    adjoint = harness.adjoint_program(sys.argv)
    torch.set_num_threads(1)
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as workdir:
        workdir = Path(workdir)
        for case in CASES:
            case_failures, row = check_case(adjoint, workdir, case)
            failures += case_failures
            rows.append(row + ["-"])
            failures += check_merge(adjoint, workdir, case)
        if "generated" in harness.run(adjoint, "train", "--help").stdout:
            for case in CASES:
                case_failures, row = check_generated(adjoint, workdir, case)
                failures += case_failures
                rows.append(row)
            for case in CASES:
                case_failures, row = check_generated(adjoint, workdir, case, "tensor")
                failures += case_failures
                rows.append(row)
        for case, backward in BF16_CASES:
            case_failures, row = check_bf16_case(adjoint, workdir, case, backward)
            failures += case_failures
            rows.append(row)
        failures += check_bf16_bad_values(adjoint, workdir)
        model, token_file = workdir / f"{CASES[0][0]}.bin", workdir / f"{CASES[0][0]}_tokens.bin"
        failures += check_resume(adjoint, workdir, model, token_file)
        if "generated" in harness.run(adjoint, "train", "--help").stdout:
            failures += check_resume(adjoint, workdir, model, token_file, "tensor")
        failures += check_bad_settings(adjoint, workdir, model, token_file, "d2")
        failures += check_bad_files(adjoint, workdir)
    print(f"relative error of `adjoint train --lora-rank` vs PyTorch fp64; tolerance: loss {cases.LOSS_TOL}, "
          f"gradients {cases.GRAD_TOL}, AdamW step {ADAMW_TOL}")
    harness.print_table(["case", "loss", "worst gradient", "worst AdamW", "bf16 vs fp32 base"], rows)
    harness.exit_status(failures)


if __name__ == "__main__":
    main()
