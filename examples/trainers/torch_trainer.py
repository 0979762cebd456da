#!/usr/bin/env python3
"""A PyTorch trainer for Winnow's external-trainer protocol, winnow-trainer/1 (docs/trainers.md).

It trains a Hugging Face causal LM (with a LoRA adapter when `peft` is installed and `lora` is
set) on Winnow's batches with the GRPO / PPO-clip loss of Winnow's built-in trainer
(docs/trainer.md#loss): per action token, ratio = exp(logp - logp_old),
pg = -min(ratio*A, clip(ratio, 1-clipLow, 1+clipHigh)*A), an optional k3 KL to the reference
(the base model: the adapter switched off, or a frozen copy), an optional entropy bonus, and an
SFT (NLL) part for expert rows mixed as (1-expertWeight)*PG + expertWeight*SFT. After each step
it writes the weights a model server loads -- a PEFT adapter folder (vLLM: load_lora_adapter) or
the full model -- and reports it as the step's checkpoint.

Needs torch and transformers (+ peft for LoRA); reads Arrow batches with pyarrow when installed,
else with the standard-library reader next to this file.

Options (trainer.params.options):
  model          path of a Hugging Face model folder (required)
  lr             AdamW learning rate (1e-5)          weightDecay   (0)
  clipLow        0.2                                  clipHigh      (= clipLow)
  offPolicy      {mode: clip | shaping, shapingGamma: 0.1}: replayed rows (off_policy = 1) are
                 PPO-clipped against their stored logprobs, or shaped as ExGRPO (offpolicy_loss.py)
  lossAgg        token-mean | seq-mean-token-mean | seq-mean-token-sum
  klCoef         0 (k3 KL to the reference)           entropyCoef   0
  expertWeight   0.1                                  maxGradNorm   1.0 (0 = off)
  temperature    1.0 (the rollouts' sampling temperature; logits are divided by it)
  lora           {r: 8, alpha: 16, dropout: 0, targetModules: [...]} or null for full fine-tuning
  checkpointEvery  write a servable checkpoint every N versions (1)
  encoding       arrow | json (arrow)
  device         cpu | cuda | cuda:1 … (default: cuda when available, else cpu)
"""

import json
import os
import sys
import threading
import time

_out = sys.stdout
_out_lock = threading.Lock()
sys.stdout = sys.stderr  # libraries print; the protocol stream must stay clean

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from transformers import AutoModelForCausalLM  # noqa: E402

from offpolicy_loss import pg_token_loss  # noqa: E402  (next to this file)

try:
    import peft  # noqa: E402
except ImportError:  # LoRA is optional
    peft = None

PROTOCOL = "winnow-trainer/1"


def send(frame):
    line = json.dumps(frame, allow_nan=False, separators=(",", ":"))
    with _out_lock:
        _out.write(line + "\n")
        _out.flush()


def log(msg):
    sys.stderr.write("torch trainer: %s\n" % msg)
    sys.stderr.flush()


def finite(x):
    x = float(x)
    return None if x != x or x in (float("inf"), float("-inf")) else x


def read_batch(batch):
    if batch["encoding"] == "json":
        with open(batch["path"], encoding="utf-8") as f:
            return json.load(f)["rows"]
    try:
        import pyarrow.ipc as ipc

        with open(batch["path"], "rb") as f:
            return ipc.open_stream(f.read()).read_all().to_pylist()
    except ImportError:
        sys.dont_write_bytecode = True
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from arrow_ipc import read_arrow_stream

        with open(batch["path"], "rb") as f:
            return read_arrow_stream(f.read())


class Heartbeat(threading.Thread):
    def __init__(self, every_s):
        super().__init__(daemon=True)
        self.every_s = every_s

    def run(self):
        while True:
            time.sleep(self.every_s)
            send({"type": "heartbeat"})


class GrpoTrainer:
    def __init__(self, options, seed, work_dir):
        if "model" not in options:
            raise ValueError("options.model (a Hugging Face model folder) is required")
        self.o = {
            "lr": 1e-5,
            "weightDecay": 0.0,
            "clipLow": 0.2,
            "clipHigh": None,
            "lossAgg": "token-mean",
            "klCoef": 0.0,
            "entropyCoef": 0.0,
            "expertWeight": 0.1,
            "maxGradNorm": 1.0,
            "temperature": 1.0,
            "lora": {"r": 8, "alpha": 16},
            "checkpointEvery": 1,
            **options,
        }
        self.o["offPolicy"] = {"mode": "clip", "shapingGamma": 0.1, **(options.get("offPolicy") or {})}
        if self.o["clipHigh"] is None:
            self.o["clipHigh"] = self.o["clipLow"]
        if self.o["lossAgg"] not in ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum"):
            raise ValueError("options.lossAgg: unknown value %r" % self.o["lossAgg"])
        torch.manual_seed(seed)
        # Deterministic kernels make --resume exact (on CUDA this may need CUBLAS_WORKSPACE_CONFIG=:4096:8).
        torch.use_deterministic_algorithms(True, warn_only=True)
        self.work_dir = work_dir
        self.version = 0
        self.updated = False
        model = AutoModelForCausalLM.from_pretrained(self.o["model"], dtype=torch.float32)
        self.reference = None
        lora = self.o["lora"]
        if lora and peft is not None:
            cfg = peft.LoraConfig(
                r=int(lora.get("r", 8)),
                lora_alpha=float(lora.get("alpha", 16)),
                lora_dropout=float(lora.get("dropout", 0.0)),
                target_modules=lora.get("targetModules", ["q_proj", "k_proj", "v_proj", "o_proj"]),
                task_type="CAUSAL_LM",
            )
            model = peft.get_peft_model(model, cfg)
            self.kind = "lora"
        else:
            if lora and peft is None:
                log("peft is not installed: training all weights (full fine-tuning) instead of a LoRA adapter")
            self.kind = "full"
            if self.o["klCoef"] > 0:
                self.reference = AutoModelForCausalLM.from_pretrained(self.o["model"], dtype=torch.float32)
                self.reference.requires_grad_(False)
        self.device = torch.device(self.o.get("device") or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = model.to(self.device)
        if self.reference is not None:
            self.reference.to(self.device)
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.opt = torch.optim.AdamW(self.params, lr=self.o["lr"], weight_decay=self.o["weightDecay"])

    # ── the loss ────────────────────────────────────────────────────────────────────────────
    def _token_logprobs(self, model, tokens, pl):
        """log p(token_t) and the entropy at each response position of one sequence."""
        ids = torch.tensor([tokens], dtype=torch.long, device=self.device)
        logits = model(input_ids=ids).logits[0, pl - 1 : len(tokens) - 1] / self.o["temperature"]
        logp_all = F.log_softmax(logits.float(), dim=-1)
        target = ids[0, pl:]
        logp = logp_all.gather(-1, target[:, None])[:, 0]
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        return logp, entropy

    def _reference_logprobs(self, tokens, pl):
        with torch.no_grad():
            if self.kind == "lora":
                with self.model.disable_adapter():
                    return self._token_logprobs(self.model, tokens, pl)[0]
            return self._token_logprobs(self.reference, tokens, pl)[0]

    def _weights(self, rows_masks):
        """Per-token aggregation weights (lossAgg) over the given rows' masks."""
        agg = self.o["lossAgg"]
        total = sum(int(m.sum()) for m in rows_masks)
        n = len(rows_masks)
        out = []
        for m in rows_masks:
            k = int(m.sum())
            if agg == "token-mean":
                w = 1.0 / total if total else 0.0
            elif agg == "seq-mean-token-mean":
                w = 1.0 / (n * k) if k else 0.0
            else:
                w = 1.0 / n if n else 0.0
            out.append(m * w)
        return out

    def step(self, rows):
        o = self.o
        self.model.train()
        self.opt.zero_grad(set_to_none=True)
        pg_rows, sft_rows = [], []
        for r in rows:
            pl, tokens = r["prompt_length"], r["tokens"]
            n = len(tokens) - pl
            if n <= 0:
                continue
            if pl < 1:
                raise ValueError("row %s: prompt_length must be at least 1 (the first response token needs a context)" % r["id"])
            mask = torch.tensor(r["action_mask"], dtype=torch.float32, device=self.device)
            if len(mask) != n or len(r["advantages"]) != n or (r["logprobs"] and len(r["logprobs"]) != n):
                raise ValueError("row %s: per-token arrays must have %d entries (one per response token)" % (r["id"], n))
            (sft_rows if r["expert"] else pg_rows).append((r, mask))
        pg_w = self._weights([m for _, m in pg_rows])
        sft_w = self._weights([m for _, m in sft_rows])
        mu = o["expertWeight"] if pg_rows and sft_rows else (1.0 if sft_rows else 0.0)
        self.updated = False
        stats = {"pg_total": 0.0, "pg_loss": 0.0, "sft_loss": 0.0, "kl": 0.0, "entropy": 0.0, "clip": 0.0, "ratio": 0.0}
        tokens_pg = sum(int(m.sum()) for _, m in pg_rows)
        for (r, mask), w in zip(pg_rows, pg_w):
            logp, ent = self._token_logprobs(self.model, r["tokens"], r["prompt_length"])
            old = torch.tensor(r["logprobs"], dtype=torch.float32, device=self.device) if r["logprobs"] else logp.detach()
            adv = torch.tensor(r["advantages"], dtype=torch.float32, device=self.device)
            # A replayed row (off_policy = 1) with stored logprobs is corrected as offPolicy.mode says.
            off = 1 if r.get("off_policy", 0) == 1 and r["logprobs"] else 0
            off_o = o["offPolicy"]
            pg, ratio, outside = pg_token_loss(
                logp, old, adv, off, o["clipLow"], o["clipHigh"], off_o["mode"], off_o["shapingGamma"]
            )
            per_token = pg - o["entropyCoef"] * ent
            if o["klCoef"] > 0:
                d = self._reference_logprobs(r["tokens"], r["prompt_length"]) - logp
                kl = torch.exp(d) - d - 1
                per_token = per_token + o["klCoef"] * kl
                stats["kl"] += float((kl.detach() * mask).sum())
            ((1 - mu) * (per_token * w).sum()).backward()
            stats["pg_loss"] += float((pg.detach() * w).sum())
            stats["pg_total"] += float((per_token.detach() * w).sum())
            stats["entropy"] += float((ent.detach() * mask).sum())
            stats["clip"] += float((outside * mask).sum())
            stats["ratio"] += float((ratio.detach() * mask).sum())
        for (r, mask), w in zip(sft_rows, sft_w):
            logp, _ = self._token_logprobs(self.model, r["tokens"], r["prompt_length"])
            nll = -logp
            (mu * (nll * w).sum()).backward()
            stats["sft_loss"] += float((nll.detach() * w).sum())
        grad_norm = 0.0
        if any(p.grad is not None for p in self.params):
            # The norm before clipping is reported (as the built-in trainer does).
            max_norm = o["maxGradNorm"] if o["maxGradNorm"] > 0 else float("inf")
            grad_norm = float(torch.nn.utils.clip_grad_norm_(self.params, max_norm))
            self.opt.step()
            self.version += 1
            self.updated = True
        loss = (1 - mu) * stats["pg_total"] + mu * stats["sft_loss"]
        t = max(tokens_pg, 1)
        metrics = {
            "loss": loss,
            "pg_loss": stats["pg_loss"],
            "sft_loss": stats["sft_loss"],
            "kl": stats["kl"] / t,
            "entropy": stats["entropy"] / t,
            "clip_frac": stats["clip"] / t,
            "ratio_mean": stats["ratio"] / t,
            "grad_norm": grad_norm,
            "tokens": tokens_pg,
            "expert_sequences": len(sft_rows),
            "sequences": len(pg_rows) + len(sft_rows),
        }
        return {k: finite(v) for k, v in metrics.items()}

    # ── checkpoints ─────────────────────────────────────────────────────────────────────────
    def servable_checkpoint(self):
        """Write what a model server loads for this version (PEFT adapter or full model)."""
        if not self.updated or self.version % int(self.o["checkpointEvery"]) != 0:
            return None
        path = os.path.join(self.work_dir, "checkpoints", "v%06d" % self.version)
        self.model.save_pretrained(path)
        return path

    def save(self, directory):
        os.makedirs(directory, exist_ok=True)
        state = {
            "version": self.version,
            "trainable": {n: p.detach().clone() for n, p in self.model.named_parameters() if p.requires_grad},
            "optimizer": self.opt.state_dict(),
            "rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        }
        tmp = os.path.join(directory, "torch-trainer.pt.tmp")
        torch.save(state, tmp)
        os.replace(tmp, os.path.join(directory, "torch-trainer.pt"))

    def load(self, directory):
        state = torch.load(os.path.join(directory, "torch-trainer.pt"), weights_only=False, map_location=self.device)
        missing = self.model.load_state_dict(state["trainable"], strict=False)
        if missing.unexpected_keys:
            raise ValueError("checkpoint has weights this model lacks: %s" % missing.unexpected_keys[:3])
        self.opt.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"].cpu())
        if state.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda_rng"]])
        self.version = state["version"]


def main():
    trainer = None
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid, kind = req.get("id"), req.get("type")
        try:
            if kind == "hello":
                if req.get("protocol") != PROTOCOL:
                    raise ValueError("this trainer speaks %s, Winnow sent %s" % (PROTOCOL, req.get("protocol")))
                options = req.get("options") or {}
                Heartbeat(req["heartbeatMs"] / 1000.0).start()
                trainer = GrpoTrainer(options, req["seed"], req["workDir"])
                wanted = options.get("encoding", "arrow")
                encoding = wanted if wanted in req["encodings"] else req["encodings"][0]
                log("ready: %s (%s), encoding %s" % (options["model"], trainer.kind, encoding))
                reply = {"type": "ready", "protocol": PROTOCOL, "encoding": encoding, "name": "torch-grpo-" + trainer.kind, "version": 0}
            elif kind == "step":
                metrics = trainer.step(read_batch(req["batch"]))
                reply = {"type": "trained", "version": trainer.version, "metrics": metrics, "checkpoint": trainer.servable_checkpoint()}
            elif kind == "save":
                trainer.save(req["dir"])
                reply = {"type": "saved", "version": trainer.version}
            elif kind == "load":
                trainer.load(req["dir"])
                reply = {"type": "loaded", "version": trainer.version}
            elif kind == "shutdown":
                send({"type": "bye", "id": rid})
                return 0
            else:
                raise ValueError("unknown request type %r" % kind)
        except Exception as e:  # reported as an error frame: Winnow fails the run with the message
            log("error in %s: %r" % (kind, e))
            send({"type": "error", "id": rid, "message": "%s: %s" % (type(e).__name__, e)})
            continue
        reply["id"] = rid
        send(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
