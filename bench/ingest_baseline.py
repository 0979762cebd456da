"""The plain per-row Python script `winnow bench ingest` compares against.

What someone would write without a framework: read the file row by row (JSONL; CSV/TSV; Parquet
with pyarrow), apply the same five cleaning/filter steps as the bench's pipeline (strip HTML, NFKC,
whitespace, length, special-char ratio) and an exact dedup on a normalised key, then write the kept
rows: Parquet with pyarrow when it is installed, else JSONL (stdlib only). Prints one JSON line: rows read, kept, seconds, CPU
seconds, writer.

With --pipeline issue40, the steps are issue 40's instead: whitespace collapsed, length 10..2000
characters, special-character ratio <= 0.25, alphanumeric ratio >= 0.5, word 2-gram repetition
<= 0.5, then the same exact dedup.

Usage: python3 bench/ingest_baseline.py IN.jsonl OUT_DIR --prompt question [--id id] [--answer answer]
       [--pipeline cleaning|issue40]
"""

import argparse
import hashlib
import html
import json
import os
import re
import sys
import time
import unicodedata

TAG = re.compile(r"<[^>]+>")
SPACES = re.compile(r"\s+")
PUNCT_CATEGORIES = ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po")
NEXT_TO_SYMBOL = re.compile(r" (?=[^\w])|(?<=[^\w]) ")


def clean(text):
    text = html.unescape(TAG.sub(" ", text))
    text = unicodedata.normalize("NFKC", text)
    return SPACES.sub(" ", text).strip()


def special_ratio(text):
    if not text:
        return 0.0
    special = sum(1 for ch in text if not (ch.isalnum() or ch.isspace()))
    return special / len(text)


def alnum_ratio(text):
    return sum(1 for ch in text if ch.isalnum()) / len(text) if text else 0.0


def bigram_repetition(text):
    words = [w.strip(PUNCT_EDGE) for w in text.lower().split()]
    words = [w for w in words if w]
    grams = [words[i] + " " + words[i + 1] for i in range(len(words) - 1)]
    if not grams:
        return 0.0
    counts = {}
    for g in grams:
        counts[g] = counts.get(g, 0) + 1
    return sum(c for c in counts.values() if c > 1) / len(grams)


PUNCT_EDGE = "".join(chr(c) for c in range(128) if not chr(c).isalnum())


def cleaning(text):
    """bench ingest's own steps: strip HTML, NFKC, whitespace, length, special-char ratio."""
    text = clean(text)
    if len(text.split()) < 5 or len(text) > 4000 or special_ratio(text) > 0.3:
        return None
    return text


def issue40(text):
    """Issue 40's steps: whitespace, length 10..2000, special <= 0.25, alnum >= 0.5, 2-gram repetition <= 0.5."""
    text = " ".join(text.split())
    if not 10 <= len(text) <= 2000 or special_ratio(text) > 0.25 or alnum_ratio(text) < 0.5:
        return None
    return None if bigram_repetition(text) > 0.5 else text


def dedup_key(text):
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(ch for ch in text if unicodedata.category(ch) not in PUNCT_CATEGORIES)
    return NEXT_TO_SYMBOL.sub("", SPACES.sub(" ", text).strip())


def rows_of(path):
    """Rows of a JSONL, CSV/TSV or (with pyarrow) Parquet file, one dict at a time (None: unreadable)."""
    lower = path.lower()
    if lower.endswith((".csv", ".tsv")):
        import csv

        with open(path, encoding="utf-8", newline="") as f:
            yield from csv.DictReader(f, delimiter="\t" if lower.endswith(".tsv") else ",")
    elif lower.endswith(".parquet"):
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(path).iter_batches():
            yield from batch.to_pylist()
    else:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except ValueError:
                    yield None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("out_dir")
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--id", default=None)
    ap.add_argument("--answer", default=None)
    ap.add_argument("--pipeline", choices=["cleaning", "issue40"], default="cleaning")
    args = ap.parse_args()
    steps = issue40 if args.pipeline == "issue40" else cleaning
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pa = None

    t0 = time.perf_counter()
    c0 = time.process_time()
    seen_ids, seen_keys = set(), set()
    ids, prompts, answers = [], [], []
    read = 0
    out_jsonl = None if pa else open(os.path.join(args.out_dir, "kept.jsonl"), "w")
    for row in rows_of(args.input):
        read += 1
        if row is None:
            continue
        text = row.get(args.prompt)
        if not isinstance(text, str):
            continue
        text = steps(text)
        if text is None:
            continue
        rid = str(row.get(args.id)) if args.id else hashlib.sha256(text.encode()).hexdigest()[:16]
        key = hashlib.blake2b(dedup_key(text).encode(), digest_size=12).digest()
        if rid in seen_ids or key in seen_keys:
            continue
        seen_ids.add(rid)
        seen_keys.add(key)
        answer = row.get(args.answer) if args.answer else None
        answer = None if answer is None else str(answer)
        if out_jsonl:
            out_jsonl.write(json.dumps({"id": rid, "prompt": text, "answer": answer}) + "\n")
        else:
            ids.append(rid)
            prompts.append(text)
            answers.append(answer)
    if pa:
        table = pa.table({"id": ids, "prompt": prompts, "answer": answers})
        pq.write_table(table, os.path.join(args.out_dir, "kept.parquet"))
        kept, writer = len(ids), "pyarrow parquet"
    else:
        out_jsonl.close()
        kept, writer = len(seen_ids), "stdlib jsonl"
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    print(json.dumps({"rows": read, "kept": kept, "seconds": secs, "cpuSeconds": cpu, "writer": writer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
