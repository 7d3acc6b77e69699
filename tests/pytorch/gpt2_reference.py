"""GPT-2 in PyTorch, written to match Adjoint's C++ engine exactly, plus readers and writers of
llm.c's model and token files. The tests compare `adjoint grad` and `adjoint train` against it;
bench/pytorch_step.py times it.

Model, as the engine defines it: x = wte[tok] + wpe[pos]; per layer
x = x + attn(ln1(x)); x = x + mlp(ln2(x)); then lnf and logits = x @ wte[:V]^T (the LM head is
tied to wte; the rows V..Vp of the padded wte never take part). GELU is the tanh approximation,
layernorm eps is 1e-5, attention is causal with scale 1/sqrt(C/NH), and the loss is the mean
cross-entropy over the B*T positions.
"""
import dataclasses
import math
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as error:  # Debian's torch lives in /usr/bin/python3 only.
    sys.exit(f"gpt2_reference: error: {sys.executable} cannot import numpy and torch ({error}); "
             "run with /usr/bin/python3 and install python3-torch")

MODEL_MAGIC, MODEL_VERSION = 20240326, 3
TOKENS_MAGIC, TOKENS_VERSION = 20240520, 1
# Instruction data: the tokens, then a loss-mask byte per token (1 = learned as a target).
MASKED_TOKENS_MAGIC, MASKED_TOKENS_VERSION = 20241129, 1
NO_TARGET = -1  # a target without a loss (kernels::no_target)
HEADER_INTS = 256
LAYERNORM_EPS = 1e-5

# Parameter tensors in file order. The weights in DECAYED get AdamW weight decay; the biases
# and layernorm parameters do not.
PARAM_NAMES = ("wte", "wpe", "ln1w", "ln1b", "qkvw", "qkvb", "attprojw", "attprojb",
               "ln2w", "ln2b", "fcw", "fcb", "fcprojw", "fcprojb", "lnfw", "lnfb")
DECAYED = frozenset({"wte", "wpe", "qkvw", "attprojw", "fcw", "fcprojw"})
# Tensors with a leading layer dimension L.
PER_LAYER = frozenset(PARAM_NAMES) - {"wte", "wpe", "lnfw", "lnfb"}


@dataclasses.dataclass(frozen=True)
class Config:
    max_seq_len: int
    vocab_size: int
    num_layers: int
    num_heads: int
    channels: int

    @property
    def padded_vocab_size(self):
        return (self.vocab_size + 127) // 128 * 128

    def validate(self):
        if min(dataclasses.astuple(self)) <= 0:
            raise ValueError(f"model config has a non-positive size: {self}")
        if self.channels % self.num_heads:
            raise ValueError(f"channels {self.channels} not divisible by heads {self.num_heads}")
        if self.vocab_size > 65536:
            raise ValueError(f"vocab {self.vocab_size} does not fit uint16 tokens")


GPT2_124M = Config(max_seq_len=1024, vocab_size=50257, num_layers=12, num_heads=12, channels=768)


def param_shapes(cfg):
    """Shapes of the parameter tensors in file order; matrices are (out, in)."""
    Vp, T, L, C = cfg.padded_vocab_size, cfg.max_seq_len, cfg.num_layers, cfg.channels
    return {
        "wte": (Vp, C), "wpe": (T, C), "ln1w": (L, C), "ln1b": (L, C),
        "qkvw": (L, 3 * C, C), "qkvb": (L, 3 * C), "attprojw": (L, C, C), "attprojb": (L, C),
        "ln2w": (L, C), "ln2b": (L, C), "fcw": (L, 4 * C, C), "fcb": (L, 4 * C),
        "fcprojw": (L, C, 4 * C), "fcprojb": (L, C), "lnfw": (C,), "lnfb": (C,),
    }


# ----------------------------------------------------------------------------------------------
# File formats


def _read_header(path, data, magic, version):
    if len(data) < 4 * HEADER_INTS:
        raise ValueError(f"{path}: {len(data)} bytes is shorter than the 1024-byte header")
    header = np.frombuffer(data, dtype="<i4", count=HEADER_INTS)
    if header[0] != magic:
        raise ValueError(f"{path}: bad magic {header[0]} (expected {magic})")
    if header[1] != version:
        raise ValueError(f"{path}: unsupported version {header[1]} (expected {version})")
    return header


def write_model(path, cfg, params):
    """Writes params (name -> array of param_shapes(cfg)) as an fp32 llm.c checkpoint."""
    cfg.validate()
    header = np.zeros(HEADER_INTS, dtype="<i4")
    header[:8] = [MODEL_MAGIC, MODEL_VERSION, cfg.max_seq_len, cfg.vocab_size, cfg.num_layers,
                  cfg.num_heads, cfg.channels, cfg.padded_vocab_size]
    shapes = param_shapes(cfg)
    with open(path, "wb") as f:
        f.write(header.tobytes())
        for name in PARAM_NAMES:
            array = np.asarray(params[name], dtype="<f4")
            if array.shape != shapes[name]:
                raise ValueError(f"{name}: shape {array.shape}, expected {shapes[name]}")
            f.write(np.ascontiguousarray(array).tobytes())


def read_model(path):
    """Returns (cfg, params) of an fp32 llm.c checkpoint; params are float32 numpy arrays."""
    with open(path, "rb") as f:
        data = f.read()
    header = _read_header(path, data, MODEL_MAGIC, MODEL_VERSION)
    max_seq_len, vocab, layers, heads, channels, padded_vocab = (int(v) for v in header[2:8])
    cfg = Config(max_seq_len, vocab, layers, heads, channels)
    cfg.validate()
    if padded_vocab != cfg.padded_vocab_size:
        raise ValueError(f"{path}: padded vocab {padded_vocab}, expected {cfg.padded_vocab_size}")
    shapes = param_shapes(cfg)
    expected = 4 * HEADER_INTS + 4 * sum(math.prod(s) for s in shapes.values())
    if len(data) != expected:
        raise ValueError(f"{path}: {len(data)} bytes, expected {expected} for {cfg}")
    params, offset = {}, 4 * HEADER_INTS
    for name in PARAM_NAMES:
        count = math.prod(shapes[name])
        params[name] = np.frombuffer(data, "<f4", count, offset).reshape(shapes[name]).copy()
        offset += 4 * count
    return cfg, params


def write_tokens(path, tokens, mask=None):
    """A uint16 token file; with a loss mask (0/1 per token), the masked format."""
    tokens = np.asarray(tokens)
    if tokens.min() < 0 or tokens.max() > 65535:
        raise ValueError("token ids must fit uint16")
    header = np.zeros(HEADER_INTS, dtype="<i4")
    if mask is None:
        header[:3] = [TOKENS_MAGIC, TOKENS_VERSION, tokens.size]
    else:
        header[:3] = [MASKED_TOKENS_MAGIC, MASKED_TOKENS_VERSION, tokens.size]
    with open(path, "wb") as f:
        f.write(header.tobytes())
        f.write(tokens.astype("<u2").tobytes())
        if mask is not None:
            f.write(np.asarray(mask).astype("u1").tobytes())


def read_tokens(path):
    with open(path, "rb") as f:
        data = f.read()
    header = _read_header(path, data, TOKENS_MAGIC, TOKENS_VERSION)
    count = int(header[2])
    if len(data) != 4 * HEADER_INTS + 2 * count:
        raise ValueError(f"{path}: {len(data)} bytes, expected {4 * HEADER_INTS + 2 * count}")
    return np.frombuffer(data, "<u2", count, 4 * HEADER_INTS).astype(np.int64)


# ----------------------------------------------------------------------------------------------
# Model


def random_params(cfg, seed, scale=1.0):
    """Seeded random weights. scale=1 gives weights large enough that every nonlinearity
    (softmax, GELU, layernorm gains) matters; GPT-2's own init is scale 0.02-ish."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in param_shapes(cfg).items():
        if name in ("ln1w", "ln2w", "lnfw"):
            values = 1.0 + 0.2 * scale * rng.standard_normal(shape)
        elif name in DECAYED:
            fan_in = shape[-1]
            values = scale * rng.standard_normal(shape) / math.sqrt(fan_in)
        else:
            values = 0.1 * scale * rng.standard_normal(shape)
        params[name] = values.astype(np.float32)
    params["wte"][cfg.vocab_size:] = 0.0  # padding rows, as llm.c writes them
    return params


def random_tokens(cfg, count, seed):
    return np.random.default_rng(seed).integers(0, cfg.vocab_size, count)


def to_torch(params, dtype, requires_grad=False, names=PARAM_NAMES):
    return {name: torch.tensor(params[name], dtype=dtype, requires_grad=requires_grad)
            for name in names}


def gpt2_loss(cfg, p, inputs, targets):
    """Mean cross-entropy of GPT-2 with parameters p (name -> tensor) on (B,T) int64 inputs."""
    B, T = inputs.shape
    C, NH, V = cfg.channels, cfg.num_heads, cfg.vocab_size
    if T > cfg.max_seq_len:
        raise ValueError(f"T={T} exceeds max_seq_len={cfg.max_seq_len}")
    head_size = C // NH
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    # wte may come unpadded (V, C) (bench/pytorch_step.py); slicing it would cost the backward
    # a full zero-filled copy.
    wte = p["wte"] if p["wte"].shape[0] == V else p["wte"][:V]
    x = F.embedding(inputs, wte) + p["wpe"][:T]
    for l in range(cfg.num_layers):
        h = F.layer_norm(x, (C,), p["ln1w"][l], p["ln1b"][l], LAYERNORM_EPS)
        q, k, v = F.linear(h, p["qkvw"][l], p["qkvb"][l]).split(C, dim=-1)
        q, k, v = (t.view(B, T, NH, head_size).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_size))
        attention = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (attention @ v).transpose(1, 2).reshape(B, T, C)
        x = x + F.linear(y, p["attprojw"][l], p["attprojb"][l])
        h = F.layer_norm(x, (C,), p["ln2w"][l], p["ln2b"][l], LAYERNORM_EPS)
        h = F.gelu(F.linear(h, p["fcw"][l], p["fcb"][l]), approximate="tanh")
        x = x + F.linear(h, p["fcprojw"][l], p["fcprojb"][l])
    x = F.layer_norm(x, (C,), p["lnfw"], p["lnfb"], LAYERNORM_EPS)
    logits = x @ wte.T
    return F.cross_entropy(logits.reshape(B * T, V), targets.reshape(B * T), ignore_index=NO_TARGET)


def batch(tokens, start, B, T, mask=None):
    """Inputs and targets (B,T) from tokens[start : start+B*T+1], row b starting at b*T; a target
    whose loss-mask byte is 0 is NO_TARGET."""
    window = torch.as_tensor(np.asarray(tokens[start:start + B * T + 1]), dtype=torch.int64)
    if window.numel() != B * T + 1:
        raise ValueError(f"need {B * T + 1} tokens from {start}, have {window.numel()}")
    targets = window[1:].clone()
    if mask is not None:
        learned = torch.as_tensor(np.asarray(mask[start + 1:start + B * T + 1]), dtype=torch.bool)
        targets[~learned] = NO_TARGET
    return window[:-1].view(B, T), targets.view(B, T)


def loss_and_grads(cfg, params, tokens, B, T, dtype=torch.float64, mask=None):
    """One forward/backward on the first B*T+1 tokens, as `adjoint grad` does.
    Returns (loss, name -> gradient as numpy array of dtype)."""
    p = to_torch(params, dtype, requires_grad=True)
    inputs, targets = batch(tokens, 0, B, T, mask)
    loss = gpt2_loss(cfg, p, inputs, targets)
    loss.backward()
    return loss.item(), {name: p[name].grad.numpy() for name in PARAM_NAMES}


# ----------------------------------------------------------------------------------------------
# Training


@dataclasses.dataclass(frozen=True)
class TrainSettings:
    B: int
    T: int
    steps: int
    lr: float
    warmup: int = 0
    lr_min_fraction: float = 1.0
    weight_decay: float = 0.0
    beta1: float = 0.9
    beta2: float = 0.95
    eps: float = 1e-8
    grad_clip: float = 0.0  # 0 = off

    def cli_flags(self):
        """The matching `adjoint train` flags."""
        return ["-B", str(self.B), "-T", str(self.T), "--steps", str(self.steps),
                "--lr", repr(self.lr), "--warmup", str(self.warmup),
                "--lr-min-fraction", repr(self.lr_min_fraction),
                "--weight-decay", repr(self.weight_decay), "--beta1", repr(self.beta1),
                "--beta2", repr(self.beta2), "--eps", repr(self.eps),
                "--grad-clip", repr(self.grad_clip), "--grad-accum", "1",
                "--val-every", "0", "--sample-every", "0"]


def learning_rate(s, step):
    """LR of 0-based step: linear warmup to s.lr over s.warmup steps, then a cosine from s.lr
    toward s.lr * s.lr_min_fraction, which step s.steps would reach (as llm.c's train_gpt2.c)."""
    lr_min = s.lr * s.lr_min_fraction
    if step < s.warmup:
        return s.lr * (step + 1) / s.warmup
    decay_ratio = (step - s.warmup) / max(1, s.steps - s.warmup)
    return lr_min + 0.5 * (1.0 + math.cos(math.pi * decay_ratio)) * (s.lr - lr_min)


def batch_starts(num_tokens, B, T, steps):
    """Start offset of each step's window: consecutive B*T strides, back to 0 when the next
    window of B*T+1 tokens would run past the end (as llm.c's DataLoader)."""
    starts, position = [], 0
    for _ in range(steps):
        if position + B * T + 1 > num_tokens:
            position = 0
        starts.append(position)
        position += B * T
    return starts


def make_adamw(p, s, decayed=DECAYED):
    groups = [{"params": [t for n, t in p.items() if n in decayed], "weight_decay": s.weight_decay},
              {"params": [t for n, t in p.items() if n not in decayed], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=s.lr, betas=(s.beta1, s.beta2), eps=s.eps)


def train(cfg, params, tokens, s, dtype=torch.float64, optimizer_factory=make_adamw, loss_fn=gpt2_loss,
          names=PARAM_NAMES):
    """Runs s.steps AdamW steps as `adjoint train` does. Returns one dict per step with the
    loss before the update, the lr used and the global gradient norm before clipping. loss_fn and
    names (the parameter tensors) default to GPT-2's; llama_reference passes Llama's."""
    if len(tokens) < s.B * s.T + 1:
        raise ValueError("token file shorter than one batch")
    p = to_torch(params, dtype, requires_grad=True, names=names)
    optimizer = optimizer_factory(p, s)
    log = []
    for step, start in enumerate(batch_starts(len(tokens), s.B, s.T, s.steps)):
        inputs, targets = batch(tokens, start, s.B, s.T)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(cfg, p, inputs, targets)
        loss.backward()
        # clip_grad_norm_ returns the norm before clipping; an infinite limit never clips.
        norm = torch.nn.utils.clip_grad_norm_(list(p.values()),
                                              s.grad_clip if s.grad_clip > 0 else math.inf)
        lr = learning_rate(s, step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.step()
        log.append({"step": step + 1, "loss": loss.item(), "lr": lr, "grad_norm": norm.item()})
    return log


# ----------------------------------------------------------------------------------------------
# Comparison


def relative_error(actual, reference, floor=1e-12):
    """max|a-b| / max(max|b|, floor) over a whole tensor. NaN or Inf anywhere gives inf, so a
    comparison `relative_error(...) < tol` rejects it."""
    actual = np.asarray(actual, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    if actual.shape != reference.shape:
        raise ValueError(f"shape {actual.shape} vs reference {reference.shape}")
    if not (np.all(np.isfinite(actual)) and np.all(np.isfinite(reference))):
        return math.inf
    if actual.size == 0:
        return 0.0
    return float(np.max(np.abs(actual - reference)) / max(float(np.max(np.abs(reference))), floor))

