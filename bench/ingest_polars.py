"""The Polars (Python) anchor of `winnow bench ingest --anchor`: the bench's pipeline as a
vectorised Polars script, Parquet out. Same steps as bench/ingest_baseline.py (--pipeline
cleaning: strip HTML, NFKC, whitespace, length, special-char ratio; --pipeline issue40:
whitespace, length 10..2000, special <= 0.25, alnum >= 0.5, word 2-gram repetition <= 0.5),
then exact dedup on a lower-cased, punctuation-free key (first row kept). Prints one JSON line.

Usage: python3 bench/ingest_polars.py IN OUT_DIR --prompt question [--answer answer] [--pipeline …]
"""

import argparse
import json
import os
import sys
import time

import polars as pl


def read(path):
    lower = path.lower()
    if lower.endswith(".parquet"):
        return pl.read_parquet(path)
    if lower.endswith((".csv", ".tsv")):
        return pl.read_csv(path, separator="\t" if lower.endswith(".tsv") else ",", infer_schema=False)
    return pl.read_ndjson(path, infer_schema_length=10000, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("out_dir")
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--id", default=None)
    ap.add_argument("--answer", default=None)
    ap.add_argument("--pipeline", choices=["cleaning", "issue40"], default="cleaning")
    args = ap.parse_args()
    t0 = time.perf_counter()
    c0 = time.process_time()
    df = read(args.input)
    rows = df.height
    q = pl.col(args.prompt).cast(pl.Utf8)
    if args.pipeline == "cleaning":
        q = q.str.replace_all(r"<[^>]+>", " ").str.normalize("NFKC")
    lf = df.lazy().with_columns(q.str.replace_all(r"\s+", " ").str.strip_chars().alias("q")).filter(
        pl.col("q").is_not_null()
    )
    total = pl.col("q").str.len_chars()
    alnum = pl.col("q").str.count_matches(r"[\pL\pN]")
    space = pl.col("q").str.count_matches(r"\s")
    special = (total - alnum - space) / total
    if args.pipeline == "cleaning":
        words = pl.col("q").str.count_matches(r"\S+")
        lf = lf.filter((words >= 5) & (total <= 4000) & (special <= 0.3))
    else:
        lf = lf.filter(total.is_between(10, 2000) & (special <= 0.25) & (alnum / total >= 0.5))
        ws = pl.col("q").str.to_lowercase().str.split(" ").list.eval(
            pl.element().str.replace_all(r"^[^\pL\pN]+|[^\pL\pN]+$", "")
        ).list.eval(pl.element().filter(pl.element() != ""))
        lf = lf.with_columns(ws.alias("w")).with_row_index("rid")
        # 2-grams per row by exploding with a row index, then counted per (row, gram).
        exploded = (
            lf.select("rid", "w").explode("w").with_columns(pl.col("w").shift(-1).over("rid").alias("n"))
            .filter(pl.col("n").is_not_null())
            .group_by("rid", pl.concat_str(["w", "n"], separator=" ").alias("g")).len()
            .group_by("rid").agg(pl.col("len").sum().alias("all"), pl.col("len").filter(pl.col("len") > 1).sum().alias("rep"))
        )
        lf = lf.join(exploded, on="rid", how="left").filter((pl.col("rep").fill_null(0) / pl.col("all").fill_null(1)) <= 0.5).sort("rid")
    key = pl.col("q").str.to_lowercase().str.replace_all(r"\p{P}", "").str.replace_all(r"\s+", " ")
    out = lf.with_columns(key.alias("key")).unique(subset="key", keep="first", maintain_order=True)
    cols = [pl.col("q").alias("prompt")] + ([pl.col(args.answer).cast(pl.Utf8).alias("answer")] if args.answer else [])
    kept = out.select(cols).collect()
    kept.write_parquet(os.path.join(args.out_dir, "kept.parquet"))
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    print(json.dumps({"rows": rows, "kept": kept.height, "seconds": secs, "cpuSeconds": cpu, "writer": "polars parquet"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
